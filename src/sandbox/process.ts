// The one way the service starts a process (SPEC §9.6). With NORMA_SANDBOX=bwrap every
// process runs under bubblewrap with a hardened profile:
//   - new user, pid, ipc, uts, cgroup and network namespaces (network only when allowed),
//   - --cap-drop ALL (root inside cannot remount / or regain privileges), --new-session,
//     --die-with-parent,
//   - only the system directories are mounted, read-only; /etc/shadow and /etc/gshadow masked;
//     /home, /root, /run, /var, the data directory (other sessions' workspaces and outputs)
//     are simply not there,
//   - the workspace (and explicitly added directories) writable, a private /tmp,
//   - --clearenv plus an explicit environment allowlist: no host secrets.
// With NORMA_SANDBOX=off processes run directly (reported by /readyz and every session).
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

export type SandboxMode = 'bwrap' | 'off';

export interface SandboxPolicy {
  mode: SandboxMode;
  bwrapPath: string | null;
  /** Network access for this session's processes (a session setting; off by default). */
  network?: boolean;
}

export interface ProcessSpec {
  /** Program and arguments (no shell unless the caller runs one). */
  argv: string[];
  /** The session workspace: the working directory, writable. */
  workspace: string;
  /** Further writable directories. */
  writableDirs?: string[];
  /** Network access; off by default. */
  network?: boolean;
  /** Extra environment variables (added to the safe base set). */
  env?: Record<string, string>;
  /**
   * Detach from any controlling terminal (setsid; default true). A PTY shell keeps its own
   * terminal: node-pty already made it a new session on a pty nobody else uses.
   */
  newSession?: boolean;
  /** Give the process a stdin pipe (command hooks read their JSON input there); else /dev/null. */
  stdin?: boolean;
}

/** Directories mounted read-only inside the sandbox, when they exist. */
const SYSTEM_DIRS = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32', '/etc', '/opt'];
/** Files masked inside /etc. */
const MASKED_FILES = ['/etc/shadow', '/etc/gshadow', '/etc/shadow-', '/etc/gshadow-'];

/** The environment a sandboxed process gets: nothing from the host but these. */
export function baseEnvironment(workspace: string): Record<string, string> {
  return {
    PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
    HOME: workspace,
    TMPDIR: '/tmp',
    LANG: 'C.UTF-8',
    LC_ALL: 'C.UTF-8',
    TERM: 'dumb',
    PAGER: 'cat',
    GIT_PAGER: 'cat',
    NO_COLOR: '1',
  };
}

export function findBwrap(searchPath: string = process.env.PATH ?? ''): string | null {
  for (const dir of searchPath.split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, 'bwrap');
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return null;
}

/** The bwrap arguments for a spec (exported for tests and for the readiness self-test). */
export function bwrapArgs(spec: ProcessSpec): string[] {
  const args = [
    '--unshare-user',
    '--unshare-pid',
    '--unshare-ipc',
    '--unshare-uts',
    '--unshare-cgroup-try',
    ...(spec.network ? [] : ['--unshare-net']),
    '--cap-drop',
    'ALL',
    '--die-with-parent',
    ...(spec.newSession === false ? [] : ['--new-session']),
    '--hostname',
    'sandbox',
  ];
  for (const dir of SYSTEM_DIRS) {
    if (fs.existsSync(dir)) args.push('--ro-bind', dir, dir);
  }
  for (const file of MASKED_FILES) {
    if (fs.existsSync(file)) args.push('--ro-bind', '/dev/null', file);
  }
  args.push('--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp');
  for (const dir of [spec.workspace, ...(spec.writableDirs ?? [])]) args.push('--bind', dir, dir);
  // The sandbox's own root is a tmpfs: make it read-only too (mounts below keep their modes).
  args.push('--remount-ro', '/', '--chdir', spec.workspace, '--clearenv');
  const env = { ...baseEnvironment(spec.workspace), ...(spec.env ?? {}) };
  for (const [k, v] of Object.entries(env)) args.push('--setenv', k, v);
  args.push('--', ...spec.argv);
  return args;
}

/**
 * Starts a process under the policy. The child leads its own process group so the whole
 * tree can be killed; under bwrap, killing bwrap tears down the pid namespace, which kills
 * every process inside it.
 */
export function spawnInSandbox(policy: SandboxPolicy, spec: ProcessSpec): ChildProcess {
  if (policy.mode === 'bwrap') {
    if (!policy.bwrapPath) throw new Error('the process sandbox (bubblewrap) is not available');
    // --info-fd reports the sandbox's init pid (outside numbering): killing it tears down the
    // pid namespace even if bwrap itself is already gone.
    const child = spawn(policy.bwrapPath, ['--info-fd', '3', ...bwrapArgs({ ...spec, network: spec.network ?? policy.network ?? false })], {
      stdio: [spec.stdin ? 'pipe' : 'ignore', 'pipe', 'pipe', 'pipe'],
      detached: true,
    });
    let info = '';
    const infoStream = child.stdio[3] as NodeJS.ReadableStream | null;
    infoStream?.on('data', (d: Buffer) => {
      info += d.toString();
      const pid = /"child-pid"\s*:\s*(\d+)/.exec(info)?.[1];
      if (pid) sandboxPids.set(child, Number(pid));
    });
    infoStream?.on('error', () => undefined);
    return child;
  }
  const [program, ...rest] = spec.argv;
  return spawn(program!, rest, {
    cwd: spec.workspace,
    env: { ...baseEnvironment(spec.workspace), ...(spec.env ?? {}) },
    stdio: [spec.stdin ? 'pipe' : 'ignore', 'pipe', 'pipe'],
    detached: true,
  });
}

/** The sandbox init pid of each bwrap child, once bwrap has reported it. */
const sandboxPids = new WeakMap<ChildProcess, number>();

/** Kills a child's whole process group (and with it, under bwrap, its pid namespace). */
export function killTree(child: ChildProcess, signal: NodeJS.Signals = 'SIGKILL'): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  // The sandbox init first, while bwrap (its parent) is alive: until bwrap reaps it, its pid
  // cannot belong to anyone else.
  const inner = sandboxPids.get(child);
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

export interface SandboxStatus {
  usable: boolean;
  detail: string;
}

/**
 * Runs a tiny probe inside the sandbox: it must start, see its workspace, have no network
 * and no capabilities. Any failure makes the sandbox unusable (fail closed).
 */
export async function selfTestSandbox(policy: SandboxPolicy, scratchDir: string): Promise<SandboxStatus> {
  if (policy.mode === 'off') return { usable: true, detail: 'NORMA_SANDBOX=off: processes run UNSANDBOXED' };
  if (!policy.bwrapPath) return { usable: false, detail: 'bubblewrap (bwrap) not found on PATH: shell tools cannot be installed' };
  fs.mkdirSync(scratchDir, { recursive: true, mode: 0o700 });
  // The workspace is writable, the root is not, and no capability is left.
  const probe = 'test -w . && ! touch /.norma-probe 2>/dev/null && grep -q "^CapEff:[[:space:]]*0*$" /proc/self/status && echo sandbox-ok';
  const child = spawnInSandbox(policy, { argv: ['/bin/sh', '-c', probe], workspace: scratchDir });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const code = await new Promise<number | null>((resolve) => {
    const timer = setTimeout(() => {
      killTree(child);
      resolve(null);
    }, 10_000);
    child.on('error', (e) => {
      clearTimeout(timer);
      err += e.message;
      resolve(-1);
    });
    child.on('close', (c) => {
      clearTimeout(timer);
      resolve(c);
    });
  });
  if (code === 0 && out.trim() === 'sandbox-ok') return { usable: true, detail: `bubblewrap at ${policy.bwrapPath} passed its self-test` };
  return {
    usable: false,
    detail: `bubblewrap at ${policy.bwrapPath} failed its self-test (exit ${code ?? 'timeout'}): ${(err || out).trim().slice(0, 300) || 'no output'}`,
  };
}
