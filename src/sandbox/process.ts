// The one way the service starts a process on a session's behalf (SPEC §9.6). With
// NORMA_SANDBOX=bwrap every process runs under bubblewrap, started through the launcher
// (launcher.ts), with this profile:
//   - new user, pid, ipc, uts, cgroup and network namespaces; no nested user namespaces
//     (--disable-userns); --cap-drop ALL; --die-with-parent; --new-session (not for PTYs);
//     the seccomp filter of seccomp.ts;
//   - for a server running as root, an unprivileged user's ids (sandbox-user.ts): the kernel,
//     not the server's root, decides what a command may open;
//   - the system directories read-only, minus everything an unprivileged user could not read
//     (system-view.ts); no /home, /root, /run, /var, data directory or other workspace;
//   - the workspace writable (read-only for searches), and a home and /tmp of the session's
//     own, outside the workspace (so nothing in the workspace configures a shell or git);
//   - no network; with the session's `sandbox_network`, HTTP(S) only, through the session's
//     egress proxy (net-proxy.ts) on 127.0.0.1:3128 inside;
//   - bwrap itself starts with an empty environment and a clean descriptor table; the command
//     gets only the allowlisted variables below;
//   - resource limits per session (limits.ts).
// With NORMA_SANDBOX=off processes run directly (reported by /readyz and every session).
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { SandboxChild, StartedProcess } from './started.js';
import { execaNow, loadExeca } from './execa.js';
import { seccompProgram } from './seccomp.js';
import { launcherArgv, SECCOMP_FD } from './launcher.js';
import { scanSystemView, type SystemView } from './system-view.js';
import { BWRAP_MISSING, bwrapFailureHint, WITHOUT_SANDBOX } from './install-hints.js';
import type { LimitBackend } from './limits.js';
import { baseEnvironment, findProgram, PROXY_PORT, PROXY_SOCKET, proxyEnvironment, SANDBOX_HOME, SANDBOX_PATH } from './environment.js';
import { trustEnvironment, trustMounts, type TrustFiles } from './net/trust.js';
import { describeIdentity, resolveSandboxIdentity, setprivArgv, type SandboxIdentity } from './sandbox-user.js';
import { blockedAt, handOver, openWay, type SandboxIds } from './ownership.js';

export type SandboxMode = 'bwrap' | 'off';

export { SANDBOX_HOME, PROXY_SOCKET, PROXY_PORT, SANDBOX_PATH, baseEnvironment, proxyEnvironment, findProgram, findBwrap } from './environment.js';

/** One process to start, as a session's sandbox describes it. */
export interface SandboxSpec {
  /** Program and arguments (no shell unless the caller runs one). */
  argv: string[];
  /** The working directory: the workspace. */
  workspace: string;
  /** The workspace is mounted read-only (searches). */
  readOnly?: boolean;
  /** The workspace is not mounted at all (an MCP server that has no use for it). */
  noWorkspace?: boolean;
  /** The working directory: the workspace (default) or the process's home (nothing there is the session's). */
  chdir?: 'workspace' | 'home';
  /** The session's home and /tmp on the host (outside the workspace). */
  home: string;
  tmp: string;
  /** The process's proxy socket on the host; absent: no network at all. */
  proxySocket?: string;
  /** With the proxy: the CA bundle and fetch preload it is given (net/trust.ts). */
  trust?: TrustFiles;
  /** Extra environment variables (added to the safe base set). */
  env?: Record<string, string>;
  /** Host paths mounted read-only at the same place (an MCP server's install directory). */
  readOnlyPaths?: readonly string[];
  /** setsid (default true). A PTY shell keeps its own terminal: node-pty made it a session leader. */
  newSession?: boolean;
  /** The launcher's cgroup.procs files, rlimits and nice (limits.ts). */
  cgroupProcs: string[];
  rlimits: string;
  nice: number;
  /** Descriptor 3 carries bwrap's --info-fd (execa spawns; node-pty cannot pass one). */
  infoFd?: boolean;
}

export interface SandboxStatus {
  usable: boolean;
  detail: string;
}

export interface SandboxHostOptions {
  mode: SandboxMode;
  bwrapPath: string | null;
  limits: LimitBackend;
  /** The seccomp program (default: this architecture's); null runs without one (reported). */
  seccomp?: Buffer | null;
  /** socat (for sessions with network) and nice, as found on the host's system directories. */
  socatPath?: string | null;
  nicePath?: string | null;
  /** A view to use instead of scanning (tests). */
  view?: SystemView;
  /**
   * Who sandboxed processes run as (sandbox-user.ts). Default: the server's user when it is not
   * root; for root, `nobody` through setpriv, or unusable without them.
   */
  identity?: SandboxIdentity;
}

/**
 * The server-wide part of the process sandbox: the profile, the system view, the seccomp
 * program and the resource-limit backend. Made once by the composition root.
 */
export class SandboxHost {
  readonly mode: SandboxMode;
  readonly bwrapPath: string | null;
  readonly limits: LimitBackend;
  readonly socatPath: string | null;
  readonly nicePath: string | null;
  readonly seccomp: Buffer | null;
  readonly identity: SandboxIdentity;
  private view: SystemView | undefined;
  private scanning: Promise<SystemView> | undefined;
  private status: Promise<SandboxStatus> | undefined;
  private passed = false;

  constructor(o: SandboxHostOptions) {
    this.mode = o.mode;
    this.bwrapPath = o.bwrapPath;
    this.limits = o.limits;
    this.seccomp = o.seccomp === undefined ? seccompProgram() : o.seccomp;
    this.socatPath = o.socatPath ?? null;
    this.nicePath = o.nicePath ?? null;
    this.view = o.view;
    this.identity =
      o.identity ?? (o.mode === 'off' ? { kind: 'server' } : resolveSandboxIdentity({ spec: undefined, serverUid: process.getuid?.() ?? -1, setpriv: findProgram('setpriv', SANDBOX_PATH) }));
  }

  /** The ids sandboxed processes have when they are not the server's own (a root server's), else null. */
  sandboxIds(): SandboxIds | null {
    return this.mode === 'bwrap' && this.identity.kind === 'drop' ? { uid: this.identity.uid, gid: this.identity.gid } : null;
  }

  /**
   * Gives the sandbox user search permission on the server's own directories from `from` down to
   * `dir`, so bwrap (running as that user) reaches what it mounts below them (ownership.ts).
   */
  async openWay(dir: string, from: string): Promise<void> {
    const ids = this.sandboxIds();
    if (ids) await openWay(dir, from, ids);
  }

  /** Makes what the server made for a session's processes (its workspace, home, /tmp) the sandbox user's. */
  async handOver(p: string): Promise<void> {
    const ids = this.sandboxIds();
    if (ids) await handOver(p, ids);
  }

  /** The directory that keeps the sandbox user from reaching `p`, or null (also when there is no other user). */
  async blockedAt(p: string): Promise<string | null> {
    const ids = this.sandboxIds();
    return ids ? blockedAt(p, ids) : null;
  }

  /** The system view, scanned once on first need. */
  prepare(): Promise<SystemView> {
    if (this.view) return Promise.resolve(this.view);
    this.scanning ??= scanSystemView().then(
      (v) => (this.view = v),
      (err) => {
        this.scanning = undefined;
        throw err;
      },
    );
    return this.scanning;
  }

  /** Scans the system directories again (a file made unreadable since is masked from then on). */
  async refresh(): Promise<void> {
    if (this.mode !== 'bwrap' || !this.view) return;
    this.view = await scanSystemView();
  }

  /**
   * Can `program` (a host path) run inside the sandbox? Only under bwrap, once the self-test
   * passed, for a program in the system directories the sandbox mounts.
   */
  runsInside(program: string): boolean {
    if (this.mode !== 'bwrap' || !this.passed || !this.view) return false;
    return this.view.mounts.some((m) => program.startsWith(`${m.path}/`));
  }

  /** The masked entries in force (for /readyz). */
  maskCount(): number | null {
    return this.view ? this.view.masks.length : null;
  }

  /** bwrap's options for a spec (the command travels separately). Needs prepare() first. */
  bwrapOptions(spec: SandboxSpec): string[] {
    const view = this.view;
    if (!view) throw new Error('the sandbox is not prepared (its system view was not scanned)');
    const a = [
      '--unshare-user',
      '--disable-userns',
      '--unshare-pid',
      '--unshare-ipc',
      '--unshare-uts',
      '--unshare-cgroup-try',
      '--unshare-net',
      '--cap-drop',
      'ALL',
      '--die-with-parent',
      ...(spec.newSession === false ? [] : ['--new-session']),
      '--hostname',
      'sandbox',
    ];
    // /tmp first: anything mounted later at a path below it (a workspace in /tmp) stays visible.
    a.push('--bind', spec.tmp, '/tmp', '--bind', spec.home, SANDBOX_HOME);
    for (const m of view.mounts) {
      if (m.kind === 'bind') a.push('--ro-bind', m.path, m.path);
      else a.push('--symlink', m.target!, m.path);
    }
    // Before the masks: a read-only path never uncovers what the system view hides.
    for (const p of spec.readOnlyPaths ?? []) a.push('--ro-bind', p, p);
    for (const m of view.masks) {
      if (m.kind === 'file') a.push('--ro-bind', '/dev/null', m.path);
      else a.push('--tmpfs', m.path, '--remount-ro', m.path);
    }
    a.push('--dev', '/dev', '--proc', '/proc');
    if (spec.proxySocket) a.push('--bind', spec.proxySocket, PROXY_SOCKET, ...(spec.trust ? trustMounts(spec.trust) : []));
    if (!spec.noWorkspace) a.push(spec.readOnly ? '--ro-bind' : '--bind', spec.workspace, spec.workspace);
    // The sandbox's own root is a tmpfs: read-only too (mounts below keep their modes).
    a.push('--remount-ro', '/', '--chdir', spec.chdir === 'home' ? SANDBOX_HOME : spec.workspace);
    if (spec.infoFd) a.push('--info-fd', '3');
    if (this.seccomp) a.push('--seccomp', String(SECCOMP_FD));
    a.push('--clearenv');
    const env = { ...baseEnvironment(), ...(spec.env ?? {}), ...(spec.proxySocket ? { ...proxyEnvironment(), ...(spec.trust ? trustEnvironment(spec.trust) : {}) } : {}) };
    for (const [k, v] of Object.entries(env)) a.push('--setenv', k, v);
    return a;
  }

  /** What runs inside: the command, behind the proxy bridge when the session has network. */
  innerCommand(spec: SandboxSpec): string[] {
    if (!spec.proxySocket) return spec.argv;
    if (!this.socatPath) throw new Error('the sandbox network needs socat, which is not installed');
    // socat carries 127.0.0.1:3128 to the proxy socket; the command starts once it listens.
    const bridge = [
      `${JSON.stringify(this.socatPath)} TCP-LISTEN:${PROXY_PORT},bind=127.0.0.1,reuseaddr,fork,backlog=512,nodelay UNIX-CONNECT:${PROXY_SOCKET} 2>/dev/null &`,
      'for ((i = 0; i < 400; i++)); do',
      `  read -r -d '' t < /proc/net/tcp; [[ $t == *" 0100007F:${PROXY_PORT.toString(16).toUpperCase().padStart(4, '0')} 00000000:0000 0A "* ]] && break`,
      '  /usr/bin/sleep 0.005',
      'done',
      'exec "$@"',
    ].join('\n');
    return ['/bin/bash', '--noprofile', '--norc', '-c', bridge, 'norma-net', ...spec.argv];
  }

  /** The launcher's argv for a spec under bwrap (`piped`: options and seccomp on descriptors 4 and 5). */
  launch(spec: SandboxSpec, piped = false): { argv: string[]; options: string[] } {
    if (!this.bwrapPath) throw new Error('the process sandbox (bubblewrap) is not available');
    // A root server never starts a sandbox as root: without its unprivileged user, nothing starts.
    if (this.identity.kind === 'unusable') throw new Error(`the process sandbox is not available: ${this.identity.reason}`);
    const options = this.bwrapOptions(spec);
    const argv = launcherArgv({
      keepFds: spec.infoFd ? [3] : [],
      cgroupProcs: spec.cgroupProcs,
      rlimits: spec.rlimits,
      nice: spec.nice > 0 && this.nicePath ? `${this.nicePath} ${spec.nice}` : null,
      drop: this.identity.kind === 'drop' ? setprivArgv(this.identity) : null,
      seccomp: this.seccomp,
      bwrapPath: this.bwrapPath,
      bwrapArgs: options,
      command: this.innerCommand(spec),
      piped,
    });
    return { argv, options };
  }

  /**
   * The sandbox's self-test, run once; any failure makes the sandbox unusable (fail closed). Its
   * scratch directories are made below `scratchDir`; the way to them is opened from `reachFrom`
   * (default: `scratchDir` itself).
   */
  selfTest(scratchDir: string, reachFrom: string = scratchDir): Promise<SandboxStatus> {
    this.status ??= runSelfTest(this, scratchDir, reachFrom).then(
      (st) => {
        this.passed = st.usable && this.mode === 'bwrap';
        return st;
      },
      (err: Error) => ({ usable: false, detail: `the sandbox self-test failed: ${err.message}: ${WITHOUT_SANDBOX}` }),
    );
    return this.status;
  }
}

export type { SandboxChild, StartedProcess } from './started.js';

/** Starts a process with execa: under the launcher and bwrap, or directly with NORMA_SANDBOX=off. */
export function startProcess(host: SandboxHost, spec: SandboxSpec, stdin: boolean): StartedProcess {
  let init: number | undefined;
  if (host.mode === 'bwrap') {
    // bwrap's options and the seccomp program go down pipes the server opens (no forks in the
    // launcher to make them).
    const { argv, options } = host.launch({ ...spec, infoFd: true }, true);
    const child = execaNow()(argv[0]!, argv.slice(1), {
      env: {},
      extendEnv: false,
      stdio: [stdin ? 'pipe' : 'ignore', 'pipe', 'pipe', 'pipe', 'pipe', host.seccomp ? 'pipe' : 'ignore'],
      detached: true,
      buffer: false,
      reject: false,
      cleanup: true,
      stripFinalNewline: false,
    });
    let info = '';
    const infoStream = (child.stdio as unknown[])[3] as NodeJS.ReadableStream | null;
    infoStream?.on('data', (d: Buffer) => {
      info += d.toString();
      const pid = /"child-pid"\s*:\s*(\d+)/.exec(info)?.[1];
      if (pid) init = Number(pid);
    });
    infoStream?.on('error', () => undefined);
    const stdio = child.stdio as unknown as (NodeJS.WritableStream & { on(e: 'error', f: () => void): void })[];
    for (const [fd, data] of [[4, Buffer.from(options.map((o) => `${o}\0`).join(''))], [5, host.seccomp]] as const) {
      if (!data) continue;
      stdio[fd]!.on('error', () => undefined); // bwrap gone before reading: its exit says why
      stdio[fd]!.end(data);
    }
    return { child: child as unknown as SandboxChild, initPid: () => init };
  }
  const [program, ...rest] = spec.argv;
  const child = execaNow()(program!, rest, {
    cwd: spec.chdir === 'home' ? spec.home : spec.workspace,
    env: { ...baseEnvironment(), HOME: spec.home, TMPDIR: spec.tmp, ...(spec.env ?? {}) },
    extendEnv: false,
    stdio: [stdin ? 'pipe' : 'ignore', 'pipe', 'pipe'],
    detached: true,
    buffer: false,
    reject: false,
    cleanup: true,
    stripFinalNewline: false,
  });
  return { child: child as unknown as SandboxChild, initPid: () => undefined };
}

/** Kills a process's whole group (and with it, under bwrap, its pid namespace). */
export function killTree(p: StartedProcess, signal: NodeJS.Signals = 'SIGKILL'): void {
  const child = p.child;
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  // The sandbox init first, while bwrap (its parent) is alive: until bwrap reaps it, its pid
  // cannot belong to anyone else.
  const inner = p.initPid();
  if (inner !== undefined) {
    try {
      process.kill(inner, signal);
    } catch {
      // already gone
    }
  }
  try {
    process.kill(-child.pid, signal);
  } catch {
    try {
      child.kill(signal);
    } catch {
      // already gone
    }
  }
}

/**
 * A probe inside the sandbox: it must start, see its workspace writable and the root not, have
 * no capability, no descriptor beyond 0-2, an empty init environment, the seccomp filter, and no
 * nested user namespaces; for a root server, what it creates must belong to the sandbox user.
 */
async function runSelfTest(host: SandboxHost, scratchDir: string, reachFrom: string): Promise<SandboxStatus> {
  if (host.mode === 'off') return { usable: true, detail: 'NORMA_SANDBOX=off: processes run UNSANDBOXED' };
  if (!host.bwrapPath) return { usable: false, detail: BWRAP_MISSING };
  if (host.identity.kind === 'unusable') return { usable: false, detail: `${host.identity.reason}: ${WITHOUT_SANDBOX}` };
  await host.prepare();
  await loadExeca();
  // A directory of this run's own: replicas sharing a data directory self-test at the same time,
  // and one's clean-up must not remove the file another's probe made.
  const own = path.join(scratchDir, `${process.pid}-${crypto.randomBytes(6).toString('hex')}`);
  try {
    return await probeIn(host, own, reachFrom);
  } finally {
    fs.rmSync(own, { recursive: true, force: true });
  }
}

async function probeIn(host: SandboxHost, scratchDir: string, reachFrom: string): Promise<SandboxStatus> {
  const dirs = { ws: path.join(scratchDir, 'ws'), home: path.join(scratchDir, 'home'), tmp: path.join(scratchDir, 'tmp') };
  for (const d of Object.values(dirs)) fs.mkdirSync(d, { recursive: true, mode: 0o700 });
  await host.openWay(scratchDir, reachFrom);
  for (const d of Object.values(dirs)) await host.handOver(d);
  const owned = path.join(dirs.ws, '.norma-probe');
  fs.rmSync(owned, { force: true });
  const probe = [
    'test -w . || exit 11',
    'touch /.norma-probe 2>/dev/null && exit 12',
    'grep -q "^CapEff:[[:space:]]*0*$" /proc/self/status || exit 13',
    'set -- /proc/self/fd/*; [ "$#" -le 4 ] || exit 14',
    '[ ! -s /proc/1/environ ] || exit 15',
    ...(host.seccomp ? ['grep -q "^Seccomp:[[:space:]]*2$" /proc/self/status || exit 16'] : []),
    'touch .norma-probe || exit 17',
    'echo sandbox-ok',
  ].join('\n');
  const started = startProcess(
    host,
    { argv: ['/bin/bash', '-c', probe], workspace: dirs.ws, home: dirs.home, tmp: dirs.tmp, cgroupProcs: [], rlimits: '', nice: 0 },
    false,
  );
  const timer = setTimeout(() => killTree(started), 10_000);
  const result = await collect(started);
  clearTimeout(timer);
  const seccomp = host.seccomp ? 'a seccomp filter' : `NO seccomp filter (no table for ${process.arch})`;
  const ids = host.sandboxIds();
  if (result.code === 0 && result.out.trim() === 'sandbox-ok') {
    // The kernel's word on who ran: the owner of the file the probe made.
    const st = fs.statSync(owned, { throwIfNoEntry: false });
    fs.rmSync(owned, { force: true });
    const expected = ids ?? { uid: process.getuid?.() ?? -1, gid: st?.gid ?? -1 };
    if (!st || st.uid !== expected.uid || st.gid !== expected.gid) {
      return { usable: false, detail: `bubblewrap at ${host.bwrapPath} failed its self-test: its probe ran as uid ${st?.uid ?? '?'}, gid ${st?.gid ?? '?'}, not as ${describeIdentity(host.identity)}: ${WITHOUT_SANDBOX}` };
    }
    return {
      usable: true,
      detail: `bubblewrap at ${host.bwrapPath} passed its self-test (${describeIdentity(host.identity)}; ${seccomp}; ${host.maskCount()} unreadable system entries masked; limits: ${host.limits.detail})`,
    };
  }
  const said = (result.err || result.out).trim().slice(0, 300) || 'no output';
  // bwrap's own message (not the probe's exit code): it could not set the sandbox up, which is
  // the host's or the container's configuration; say what to check.
  let hint = /^bwrap:/m.test(result.err) ? `; ${bwrapFailureHint(result.err)}` : '';
  const blocked = ids && /^bwrap: Can't find source path .*: Permission denied/m.test(result.err) ? await host.blockedAt(dirs.ws) : null;
  if (blocked) {
    hint = `; bwrap runs as ${describeIdentity(host.identity).replace(/^processes run as /, '')}, which cannot pass through ${blocked}: give it search permission there (chmod o+x, or a group it is in with g+x), or put NORMA_DATA_DIR and NORMA_WORKSPACE_ROOT where it can reach them`;
  }
  return {
    usable: false,
    detail: `bubblewrap at ${host.bwrapPath} failed its self-test (exit ${result.code ?? 'timeout'}): ${said}: ${WITHOUT_SANDBOX}${hint}`,
  };
}

async function collect(p: StartedProcess): Promise<{ code: number | null; out: string; err: string }> {
  let out = '';
  let err = '';
  p.child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  p.child.stderr?.on('data', (d: Buffer) => (err += d.toString()));
  const r = await p.child;
  return { code: r.exitCode ?? null, out, err: err || (r.failed && r.exitCode === undefined ? r.message : '') };
}
