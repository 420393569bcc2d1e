// The one way the service starts a process on a session's behalf (SPEC §9.6). With
// NORMA_SANDBOX=bwrap every process runs under bubblewrap, started through the launcher
// (launcher.ts), with this profile:
//   - new user, pid, ipc, uts, cgroup and network namespaces; no nested user namespaces
//     (--disable-userns); --cap-drop ALL; --die-with-parent; --new-session (not for PTYs);
//     the seccomp filter of seccomp.ts;
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
import fs from 'node:fs';
import path from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { execaNow, loadExeca } from './execa.js';
import { seccompProgram } from './seccomp.js';
import { launcherArgv, SECCOMP_FD } from './launcher.js';
import { scanSystemView, type SystemView } from './system-view.js';
import { BWRAP_MISSING, bwrapFailureHint, WITHOUT_SANDBOX } from './install-hints.js';
import type { LimitBackend } from './limits.js';

export type SandboxMode = 'bwrap' | 'off';

/** Where, inside the sandbox, the session's home, the proxy socket and the proxy port are. */
export const SANDBOX_HOME = '/home/sandbox';
export const PROXY_SOCKET = '/run/norma/proxy.sock';
export const PROXY_PORT = 3128;

/** The directories on a sandboxed process's PATH. */
export const SANDBOX_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/** The environment a sandboxed process gets: nothing from the host but these. */
export function baseEnvironment(): Record<string, string> {
  return {
    PATH: SANDBOX_PATH,
    HOME: SANDBOX_HOME,
    TMPDIR: '/tmp',
    LANG: 'C.UTF-8',
    LC_ALL: 'C.UTF-8',
    TERM: 'dumb',
    PAGER: 'cat',
    GIT_PAGER: 'cat',
    NO_COLOR: '1',
    // Configuration is never taken from places a command could have written: git reads no
    // global or system file, readline no inputrc.
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    INPUTRC: '/dev/null',
  };
}

/** The variables that point programs at the session's egress proxy. */
export function proxyEnvironment(): Record<string, string> {
  const url = `http://127.0.0.1:${PROXY_PORT}`;
  return {
    HTTP_PROXY: url,
    HTTPS_PROXY: url,
    http_proxy: url,
    https_proxy: url,
    NO_PROXY: 'localhost,127.0.0.1,::1',
    no_proxy: 'localhost,127.0.0.1,::1',
  };
}

/** An executable named `name` in the directories of `searchPath` (absolute entries only), or null. */
export function findProgram(name: string, searchPath: string = process.env.PATH ?? ''): string | null {
  for (const dir of searchPath.split(path.delimiter)) {
    if (!dir || !path.isAbsolute(dir)) continue;
    const candidate = path.join(dir, name);
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      if (fs.statSync(candidate).isFile()) return candidate;
    } catch {
      // not here
    }
  }
  return null;
}

export function findBwrap(searchPath: string = process.env.PATH ?? ''): string | null {
  return findProgram('bwrap', searchPath);
}

/** One process to start, as a session's sandbox describes it. */
export interface SandboxSpec {
  /** Program and arguments (no shell unless the caller runs one). */
  argv: string[];
  /** The working directory: the workspace. */
  workspace: string;
  /** The workspace is mounted read-only (searches). */
  readOnly?: boolean;
  /** The session's home and /tmp on the host (outside the workspace). */
  home: string;
  tmp: string;
  /** The session's proxy socket on the host; absent: no network at all. */
  proxySocket?: string;
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
    if (spec.proxySocket) a.push('--bind', spec.proxySocket, PROXY_SOCKET);
    a.push(spec.readOnly ? '--ro-bind' : '--bind', spec.workspace, spec.workspace);
    // The sandbox's own root is a tmpfs: read-only too (mounts below keep their modes).
    a.push('--remount-ro', '/', '--chdir', spec.workspace);
    if (spec.infoFd) a.push('--info-fd', '3');
    if (this.seccomp) a.push('--seccomp', String(SECCOMP_FD));
    a.push('--clearenv');
    const env = { ...baseEnvironment(), ...(spec.proxySocket ? proxyEnvironment() : {}), ...(spec.env ?? {}) };
    for (const [k, v] of Object.entries(env)) a.push('--setenv', k, v);
    return a;
  }

  /** What runs inside: the command, behind the proxy bridge when the session has network. */
  innerCommand(spec: SandboxSpec): string[] {
    if (!spec.proxySocket) return spec.argv;
    if (!this.socatPath) throw new Error('the sandbox network needs socat, which is not installed');
    // socat carries 127.0.0.1:3128 to the proxy socket; the command starts once it listens.
    const bridge = [
      `${JSON.stringify(this.socatPath)} TCP-LISTEN:${PROXY_PORT},bind=127.0.0.1,reuseaddr,fork UNIX-CONNECT:${PROXY_SOCKET} 2>/dev/null &`,
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
    const options = this.bwrapOptions(spec);
    const argv = launcherArgv({
      keepFds: spec.infoFd ? [3] : [],
      cgroupProcs: spec.cgroupProcs,
      rlimits: spec.rlimits,
      nice: spec.nice > 0 && this.nicePath ? `${this.nicePath} ${spec.nice}` : null,
      seccomp: this.seccomp,
      bwrapPath: this.bwrapPath,
      bwrapArgs: options,
      command: this.innerCommand(spec),
      piped,
    });
    return { argv, options };
  }

  /** The sandbox's self-test, run once; any failure makes the sandbox unusable (fail closed). */
  selfTest(scratchDir: string): Promise<SandboxStatus> {
    this.status ??= runSelfTest(this, scratchDir).then(
      (st) => {
        this.passed = st.usable && this.mode === 'bwrap';
        return st;
      },
      (err: Error) => ({ usable: false, detail: `the sandbox self-test failed: ${err.message}: ${WITHOUT_SANDBOX}` }),
    );
    return this.status;
  }
}

/** What the sandbox uses of execa's subprocess (a ChildProcess that is also the promise of its result). */
export interface SandboxChild extends PromiseLike<{ exitCode?: number; signal?: string; failed: boolean; message: string; originalMessage?: string }> {
  readonly pid?: number;
  readonly exitCode: number | null;
  readonly signalCode: NodeJS.Signals | null;
  readonly stdin: Writable | null;
  readonly stdout: Readable | null;
  readonly stderr: Readable | null;
  readonly stdio: readonly unknown[];
  kill(signal?: NodeJS.Signals): boolean;
}

/** A started process: execa's subprocess plus the sandbox init's pid once bwrap reports it. */
export interface StartedProcess {
  child: SandboxChild;
  /** The pid of the sandbox's init (outside numbering), once known. */
  initPid(): number | undefined;
}

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
    cwd: spec.workspace,
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
 * nested user namespaces.
 */
async function runSelfTest(host: SandboxHost, scratchDir: string): Promise<SandboxStatus> {
  if (host.mode === 'off') return { usable: true, detail: 'NORMA_SANDBOX=off: processes run UNSANDBOXED' };
  if (!host.bwrapPath) return { usable: false, detail: BWRAP_MISSING };
  await host.prepare();
  await loadExeca();
  const dirs = { ws: path.join(scratchDir, 'ws'), home: path.join(scratchDir, 'home'), tmp: path.join(scratchDir, 'tmp') };
  for (const d of Object.values(dirs)) fs.mkdirSync(d, { recursive: true, mode: 0o700 });
  const probe = [
    'test -w . || exit 11',
    'touch /.norma-probe 2>/dev/null && exit 12',
    'grep -q "^CapEff:[[:space:]]*0*$" /proc/self/status || exit 13',
    'set -- /proc/self/fd/*; [ "$#" -le 4 ] || exit 14',
    '[ ! -s /proc/1/environ ] || exit 15',
    ...(host.seccomp ? ['grep -q "^Seccomp:[[:space:]]*2$" /proc/self/status || exit 16'] : []),
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
  if (result.code === 0 && result.out.trim() === 'sandbox-ok') {
    return { usable: true, detail: `bubblewrap at ${host.bwrapPath} passed its self-test (${seccomp}; ${host.maskCount()} unreadable system entries masked; limits: ${host.limits.detail})` };
  }
  const said = (result.err || result.out).trim().slice(0, 300) || 'no output';
  // bwrap's own message (not the probe's exit code): it could not set the sandbox up, which is
  // the host's or the container's configuration; say what to check.
  const hint = /^bwrap:/m.test(result.err) ? `; ${bwrapFailureHint(result.err)}` : '';
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
