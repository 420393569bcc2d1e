// The container check's shared ground: its log and failures, the figures it reports, its temp dir,
// podman and other commands run bounded, and every resource it creates (removed by cleanup()).
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const t0 = Date.now();

export const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'norma-container-check-'));
export const created = { containers: new Set(), volumes: new Set(), networks: new Set(), tags: new Set() };
export const figures = {};
export let failures = 0;

export function log(msg) {
  console.log(`[${((Date.now() - t0) / 1000).toFixed(0).padStart(5)} s] ${msg}`);
}
export function fail(msg) {
  failures++;
  console.log(`FAIL: ${msg}`);
}
/** Says SKIP, removes what was created and exits: 0, or 1 when the check is required (--require). */
export function skip(msg, require) {
  console.log(`SKIP: container check: ${msg}`);
  cleanup();
  process.exit(require ? 1 : 0);
}

// Two host quirks, in a file of its own (never /etc): root here cannot raise the default limits,
// and crun refuses a hybrid cgroup layout where runc works.
const conf = path.join(tmp, 'containers.conf');
fs.writeFileSync(
  conf,
  `[containers]\ndefault_ulimits = ["nofile=20000:20000", "nproc=4096:4096"]\n` +
    (which('runc') ? `[engine]\nruntime = "runc"\n` : ''),
);
export const env = { ...process.env, CONTAINERS_CONF: process.env.CONTAINERS_CONF ?? conf };

export function which(cmd) {
  return spawnSync('sh', ['-c', `command -v ${cmd}`], { encoding: 'utf8' }).status === 0;
}

/** Runs a command, bounded; throws with its output when it fails (unless ok: true). */
export function run(cmd, argv, { ok = false, timeout = 120_000, input, quiet = false, cwd } = {}) {
  const r = spawnSync(cmd, argv, { env, encoding: 'utf8', timeout, input, cwd, maxBuffer: 64 << 20 });
  if (!ok && r.status !== 0) {
    throw new Error(`${cmd} ${argv.join(' ')} → ${r.status ?? r.signal ?? r.error}\n${(r.stderr || '').slice(-3000)}${quiet ? '' : (r.stdout || '').slice(-2000)}`);
  }
  return r;
}
export const podman = (argv, o) => run('podman', argv, o);

/** A long command with its output streamed to a log file; resolves with its exit status, bounded. */
export function runLogged(cmd, argv, logFile, timeoutMs, cwd) {
  return new Promise((resolve) => {
    const out = fs.openSync(logFile, 'a');
    const child = spawn(cmd, argv, { env, cwd, stdio: ['ignore', out, out], detached: true });
    children.add(child.pid);
    const timer = setTimeout(() => {
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {}
    }, timeoutMs);
    child.on('close', (code, signal) => {
      children.delete(child.pid);
      clearTimeout(timer);
      fs.closeSync(out);
      resolve(code ?? (signal ? 128 : 1));
    });
  });
}

/** Long-running children (a build, debootstrap), each in a process group of its own. */
const children = new Set();

export function cleanup() {
  for (const pid of children) {
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {}
  }
  children.clear();
  for (const c of created.containers) spawnSync('podman', ['rm', '-f', '-t', '2', c], { env, timeout: 60_000 });
  for (const n of created.networks) spawnSync('podman', ['network', 'rm', '-f', n], { env, timeout: 60_000 });
  for (const v of created.volumes) spawnSync('podman', ['volume', 'rm', '-f', v], { env, timeout: 60_000 });
  for (const t of created.tags) spawnSync('podman', ['untag', t, t], { env, timeout: 60_000 });
  created.tags.clear();
  created.containers.clear();
  created.networks.clear();
  created.volumes.clear();
  fs.rmSync(tmp, { recursive: true, force: true });
}

/** The options the server's containers run with (the bubblewrap sandbox needs them). */
export const SANDBOX_OPTS = ['--security-opt', 'seccomp=unconfined', '--security-opt', 'apparmor=unconfined', '--security-opt', 'unmask=ALL'];

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

export function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

export function stats(list) {
  const s = [...list].sort((a, b) => a - b);
  const med = s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
  return { min: s[0], median: med, max: s.at(-1) };
}
export const secs = (ms) => `${(ms / 1000).toFixed(1)} s`;

/** Container state, read with podman inspect / logs. */
export function running(name) {
  return podman(['inspect', '--format', '{{.State.Running}}', name], { ok: true }).stdout.trim() === 'true';
}
export function logs(name) {
  const r = podman(['logs', '--tail', '40', name], { ok: true });
  return `${r.stdout}${r.stderr}`.slice(-4000);
}
export function exitCode(name) {
  return Number(podman(['inspect', '--format', '{{.State.ExitCode}}', name], { ok: true }).stdout.trim());
}
