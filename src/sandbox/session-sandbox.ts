// One session's process sandbox: what every process of the session shares (its home and /tmp
// outside the workspace, its cgroup and limits, its network proxy) and the watch over what its
// running processes use. Tools, tasks, PTY shells, command hooks and ripgrep start processes
// here and nowhere else.
//
// A limit that is exceeded ends the command that exceeded it, with the reason in its result:
//   memory     the kernel's OOM killer acted inside the command's cgroup (then the whole command
//              is stopped), or, with rlimits, allocations fail inside the program;
//   processes  the session's pids limit refused a fork: the command with the most processes is
//              stopped (with rlimits, forks fail and the program reports it);
//   file size  a process was stopped by SIGXFSZ;
//   disk       the workspace, home and /tmp together passed `disk_bytes` (measured with du while
//              processes run): the session's running processes are stopped; while the session
//              stays over the limit, a process is stopped as soon as the use grows again (one
//              that removes files runs).
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { loadExeca } from './execa.js';
import * as pty from 'node-pty';
import type { EgressPolicy } from './egress.js';
import { niceFor, rlimitSpec, type CommandGroup, type LimitCounters, type ResourceLimits, type SessionGroup } from './limits.js';
import type { ConnectionOrigin } from './net-proxy.js';
import { ProcessNetwork, type ProcessNetworkOptions } from './net/process-network.js';
import { baseEnvironment, killTree, startProcess, type SandboxHost, type SandboxSpec, type StartedProcess } from './process.js';
import { makeProcessDirs } from './session-dirs.js';
import { countProcesses, diskBytes, mib } from './usage.js';

export class SandboxRefusal extends Error {}

export interface ProcessExit {
  code: number | null;
  signal: string | null;
  /** The process could not be started. */
  error?: string;
  /** A limit of the session stopped it: which, in words. */
  limit?: string;
}

export interface SpawnRequest {
  argv: string[];
  /** A stdin pipe (command hooks read their input there); otherwise /dev/null. */
  stdin?: boolean;
  env?: Record<string, string>;
  /** The workspace mounted read-only (searches). */
  readOnly?: boolean;
  /** Host directories or files the process may read besides the system and the workspace (an MCP server's install). */
  readOnlyPaths?: readonly string[];
  /** HTTP(S) through the session's egress proxy for this process; default: whether the session has a network. */
  network?: boolean;
  /** The call whose process this is: its connections are asked about and refused in its name. */
  origin?: ConnectionOrigin;
  /**
   * A process that lives as long as the session (an MCP server): while only such processes run, the
   * watch looks less often (a session idling with its servers does not run `du` every second).
   */
  longLived?: boolean;
  /**
   * A process kept apart from the session's commands (an MCP server): its home and /tmp are its
   * own, made under the session's state and never mounted for anything else, so nothing a command
   * leaves in the session's home (a `.pth` file, an `.npmrc`, a package cache) reaches it; its
   * working directory is that home unless `cwd` is 'workspace'; `mountWorkspace: false` leaves
   * the workspace out of its view.
   */
  own?: { name: string; cwd: 'home' | 'workspace'; mountWorkspace: boolean };
}

export interface SandboxedProcess {
  readonly stdout: Readable;
  readonly stderr: Readable;
  readonly stdin: Writable | null;
  /** Settles when the process has exited and its output pipes are closed. */
  readonly exited: Promise<ProcessExit>;
  /** Stops the process and everything it started. */
  kill(): void;
}

/** The session's network options (net/process-network.ts) and what its processes run in. */
export interface SessionSandboxOptions extends Omit<ProcessNetworkOptions, 'stateRoot'> {
  workspace: string;
  /** `sandbox_network`: false (none), true (any public host), 'rules' or 'ask' (net scope decides). */
  network: boolean | 'rules' | 'ask';
  limits: ResourceLimits;
  /** The server's data directory above `stateDir`: the way to the session's directories is opened from there (default: stateDir's parent). */
  stateRoot?: string;
}

interface Running {
  kill(): void;
  /** The process's own proxy socket, closed when it ends. */
  endpoint?: () => Promise<void>;
  longLived?: boolean;
  group: CommandGroup | null;
  start: LimitCounters;
  limit?: string;
}

const WATCH_MS = 250;
const DU_MIN_INTERVAL_MS = 1000;
/** While only long-lived processes run: a watch round a second, a disk measurement every 15 s at most. */
const IDLE_WATCH_MS = 1000;
const IDLE_DU_MIN_INTERVAL_MS = 15_000;

export class SessionSandbox {
  readonly mode: SandboxHost['mode'];
  private group: Promise<SessionGroup | null> | undefined;
  private dirs: Promise<{ home: string; tmp: string }> | undefined;
  /** The directories of processes kept apart (SpawnRequest.own), measured with the session's disk. */
  private readonly ownDirs = new Set<string>();
  /** The session's egress proxy and what its networked processes are given (made on first need). */
  private readonly net: ProcessNetwork;
  private readonly running = new Set<Running>();
  private timer: NodeJS.Timeout | undefined;
  private sessionStart: LimitCounters = { oomKills: 0, pidsMax: 0 };
  private diskUsed = 0;
  private diskCheckedAt = 0;
  private diskBusy = false;
  private diskCost = 0;
  private closed = false;
  private seq = 0;
  /**
   * Process cgroups are named with this sandbox's own prefix: a group an earlier server instance
   * left behind in the session's cgroup (its processes still leaving) never takes a new one's name.
   */
  private readonly groupPrefix = `c${randomBytes(3).toString('hex')}-`;
  /** When the watch last looked (rounds are spaced out while only long-lived processes run). */
  private lastRound = 0;

  constructor(
    readonly host: SandboxHost,
    private readonly o: SessionSandboxOptions,
  ) {
    this.mode = host.mode;
    this.net = new ProcessNetwork(host, { ...o, stateRoot: o.stateRoot ?? path.dirname(o.stateDir) });
  }

  get limits(): ResourceLimits {
    return this.o.limits;
  }

  get workspace(): string {
    return this.o.workspace;
  }

  /** The limits in force and how, for the session resource. */
  describe(): { enforcement: string; disk_used_bytes: number | null } & ResourceLimits {
    return { enforcement: this.host.limits.enforcement, ...this.o.limits, disk_used_bytes: this.diskCheckedAt > 0 ? this.diskUsed : null };
  }

  private scratch(): Promise<{ home: string; tmp: string }> {
    this.dirs ??= (async () => {
      const home = path.join(this.o.stateDir, 'home');
      const tmp = path.join(this.o.stateDir, 'tmp');
      await makeProcessDirs(this.host, this.o.stateDir, this.o.stateRoot, [home, tmp]);
      return { home, tmp };
    })();
    return this.dirs;
  }

  private async ownScratch(name: string): Promise<{ home: string; tmp: string }> {
    if (!/^[A-Za-z0-9_-]{1,64}$/.test(name)) throw new Error(`not a name for a process's own directories: ${JSON.stringify(name)}`);
    const home = path.join(this.o.stateDir, 'own', name, 'home');
    const tmp = path.join(this.o.stateDir, 'own', name, 'tmp');
    await makeProcessDirs(this.host, this.o.stateDir, this.o.stateRoot, [home, tmp]);
    this.ownDirs.add(home).add(tmp);
    return { home, tmp };
  }

  private sessionGroup(): Promise<SessionGroup | null> {
    this.group ??= this.host.limits.session(this.o.sessionId, this.o.limits).then(async (g) => {
      if (g) this.sessionStart = await g.counters();
      return g;
    });
    return this.group;
  }

  /** Everything a launch needs, made once per session and once per command. */
  private async prepare(
    readOnly: boolean,
    env: Record<string, string> | undefined,
    argv: string[],
    newSession: boolean,
    extra: { readOnlyPaths?: readonly string[]; network?: boolean; own?: SpawnRequest['own']; origin?: ConnectionOrigin } = {},
  ) {
    if (this.closed) throw new SandboxRefusal('the session is closing; no new processes');
    await loadExeca();
    if (this.host.mode === 'bwrap') {
      if (!this.host.bwrapPath) throw new Error('the process sandbox (bubblewrap) is not available');
      await this.host.prepare();
    }
    const dirs = extra.own ? await this.ownScratch(extra.own.name) : await this.scratch();
    const g = this.host.mode === 'bwrap' ? await this.sessionGroup() : null;
    const group = g ? await g.command(`${this.groupPrefix}${++this.seq}`) : null;
    const networked = (extra.network ?? this.o.network !== false) && this.host.mode === 'bwrap';
    const { endpoint, trust } = networked ? await this.net.forProcess(extra.origin ?? { toolUseId: null, turnId: null }) : { endpoint: undefined, trust: undefined };
    const proxySocket = endpoint?.socketPath;
    const placeholders = Object.fromEntries((this.o.secrets?.() ?? []).map((b) => [b.name, b.placeholder]));
    if (Object.keys(placeholders).length > 0) env = { ...placeholders, ...(env ?? {}) };
    const enforcement = this.host.limits.enforcement;
    const spec: SandboxSpec = {
      argv,
      workspace: this.o.workspace,
      readOnly,
      home: dirs.home,
      tmp: dirs.tmp,
      ...(proxySocket ? { proxySocket } : {}),
      ...(trust ? { trust } : {}),
      ...(env ? { env } : {}),
      ...(extra.readOnlyPaths?.length ? { readOnlyPaths: extra.readOnlyPaths } : {}),
      newSession,
      ...(extra.own ? { chdir: extra.own.cwd, ...(extra.own.mountWorkspace ? {} : { noWorkspace: true }) } : {}),
      cgroupProcs: group?.procs ?? [],
      rlimits: rlimitSpec(this.o.limits, enforcement),
      nice: niceFor(this.o.limits.cpu_weight, enforcement),
    };
    const start = group ? await group.counters() : { oomKills: 0, pidsMax: 0 };
    return { spec, group, start, ...(endpoint ? { endpoint: endpoint.close } : {}) };
  }

  /** Starts a process in the sandbox (with NORMA_SANDBOX=off: directly, reported as such). */
  async spawn(req: SpawnRequest): Promise<SandboxedProcess> {
    const { spec, group, start, endpoint } = await this.prepare(req.readOnly ?? false, req.env, req.argv, true, {
      ...(req.readOnlyPaths ? { readOnlyPaths: req.readOnlyPaths } : {}),
      ...(req.network !== undefined ? { network: req.network } : {}),
      ...(req.own ? { own: req.own } : {}),
      ...(req.origin ? { origin: req.origin } : {}),
    });
    let started: StartedProcess;
    try {
      started = startProcess(this.host, spec, req.stdin ?? false);
    } catch (err) {
      await group?.remove();
      await endpoint?.();
      throw err;
    }
    const entry: Running = { kill: () => killTree(started), group, start, ...(req.longLived ? { longLived: true } : {}), ...(endpoint ? { endpoint } : {}) };
    this.track(entry);
    const child = started.child;
    const exited = (async (): Promise<ProcessExit> => {
      const r = await child;
      killTree(started); // anything left in the group goes too
      const exit: ProcessExit = { code: r.exitCode ?? null, signal: r.signal ?? null };
      if (r.exitCode === undefined && r.signal === undefined && r.failed) exit.error = r.originalMessage || r.message;
      await this.settle(entry, exit);
      return exit;
    })();
    return {
      stdout: child.stdout!,
      stderr: child.stderr!,
      stdin: child.stdin ?? null,
      exited,
      kill: () => killTree(started),
    };
  }

  /** Starts a PTY shell in the sandbox (node-pty); `onExit` runs once it is gone. */
  async spawnPty(req: { argv: string[]; env: Record<string, string>; cols: number; rows: number; origin?: ConnectionOrigin }): Promise<{ proc: pty.IPty; exited: Promise<ProcessExit> }> {
    const { spec, group, start, endpoint } = await this.prepare(false, req.env, req.argv, false, req.origin ? { origin: req.origin } : {});
    let proc: pty.IPty;
    try {
      if (this.host.mode === 'bwrap') {
        const { argv } = this.host.launch(spec);
        proc = pty.spawn(argv[0]!, argv.slice(1), { name: 'xterm-256color', cols: req.cols, rows: req.rows, cwd: this.o.workspace, env: {} });
      } else {
        proc = pty.spawn(req.argv[0]!, req.argv.slice(1), {
          name: 'xterm-256color',
          cols: req.cols,
          rows: req.rows,
          cwd: this.o.workspace,
          env: { ...baseEnvironment(), HOME: spec.home, TMPDIR: spec.tmp, ...req.env },
        });
      }
    } catch (err) {
      await group?.remove();
      await endpoint?.();
      throw err;
    }
    const kill = () => {
      try {
        // The pty's child leads its own session and group: the group goes, and under bwrap the
        // pid namespace with everything inside.
        process.kill(-proc.pid, 'SIGKILL');
      } catch {
        try {
          proc.kill('SIGKILL');
        } catch {
          // already gone
        }
      }
    };
    const entry: Running = { kill, group, start, ...(endpoint ? { endpoint } : {}) };
    this.track(entry);
    const exited = new Promise<ProcessExit>((resolve) => {
      proc.onExit(({ exitCode, signal }) => {
        const exit: ProcessExit = { code: exitCode, signal: signal ? String(signal) : null };
        void this.settle(entry, exit).then(() => resolve(exit));
      });
    });
    return { proc, exited };
  }

  private track(entry: Running): void {
    this.running.add(entry);
    this.timer ??= setInterval(() => void this.watch(), WATCH_MS);
    this.timer.unref();
  }

  /** After a process ended: its limit, if one stopped it, and its cgroup leaf removed. */
  private async settle(entry: Running, exit: ProcessExit): Promise<void> {
    this.running.delete(entry);
    if (this.running.size === 0 && this.timer) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
    if (!entry.limit && entry.group) {
      const now = await entry.group.counters().catch(() => entry.start);
      if (now.oomKills > entry.start.oomKills) entry.limit = this.memoryMessage();
    }
    if (!entry.limit && exit.signal === 'SIGXFSZ') entry.limit = `the file size limit of ${mib(this.o.limits.file_size_bytes)} per file was reached`;
    if (entry.limit) exit.limit = entry.limit;
    await entry.group?.remove().catch(() => undefined);
    await entry.endpoint?.().catch(() => undefined);
  }

  private processMessage(): string {
    return `the session's process limit of ${this.o.limits.processes} was reached (the command that started the most processes is stopped)`;
  }

  private memoryMessage(): string {
    return `the session's memory limit of ${mib(this.o.limits.memory_bytes)} was exceeded (the kernel stopped the command)`;
  }

  private stop(entry: Running, why: string): void {
    if (entry.limit) return;
    entry.limit = why;
    entry.kill();
  }

  /** One round of the watch over the running processes' counters and the session's disk use. */
  private async watch(): Promise<void> {
    const entries = [...this.running];
    const idle = entries.length > 0 && entries.every((e) => e.longLived);
    if (idle && Date.now() - this.lastRound < IDLE_WATCH_MS) return;
    this.lastRound = Date.now();
    for (const e of entries) {
      if (!e.group || e.limit) continue;
      const c = await e.group.counters().catch(() => e.start);
      if (c.oomKills > e.start.oomKills) this.stop(e, this.memoryMessage());
      // Where a refused fork is counted depends on the kernel: in the forking command's leaf, or
      // at the session's cgroup, whose limit it hit (below).
      else if (c.pidsMax > e.start.pidsMax) this.stop(e, this.processMessage());
    }
    const g = this.group ? await this.group : null;
    if (g) {
      const c = await g.counters().catch(() => this.sessionStart);
      if (c.pidsMax > this.sessionStart.pidsMax) {
        this.sessionStart = c;
        const victim = await this.biggest(entries);
        if (victim) this.stop(victim, this.processMessage());
      }
    }
    const due = Date.now() - this.diskCheckedAt >= Math.max(idle ? IDLE_DU_MIN_INTERVAL_MS : DU_MIN_INTERVAL_MS, this.diskCost * 20);
    if (due && !this.diskBusy && entries.length > 0) {
      const before = this.diskCheckedAt > 0 ? this.diskUsed : 0;
      const used = await this.measureDisk();
      // Over the limit and growing (or just crossed it): what runs now is what fills the disk.
      if (used !== null && used > this.o.limits.disk_bytes && (before <= this.o.limits.disk_bytes || used > before)) {
        for (const e of [...this.running]) this.stop(e, this.diskMessage(used));
      }
    }
  }

  private async biggest(entries: Running[]): Promise<Running | undefined> {
    let best: Running | undefined;
    let most = -1;
    for (const e of entries) {
      if (!e.group || e.limit) continue;
      const n = await countProcesses(e.group);
      if (n > most) {
        most = n;
        best = e;
      }
    }
    return best;
  }

  private diskMessage(used: number): string {
    return `the session's disk limit of ${mib(this.o.limits.disk_bytes)} was exceeded (${mib(used)} in the workspace, home and /tmp); remove files to go on`;
  }

  /** du over the workspace and the scratch directories; null when it cannot be measured. */
  private async measureDisk(): Promise<number | null> {
    this.diskBusy = true;
    const t0 = performance.now();
    try {
      const dirs = this.dirs ? await this.dirs : null;
      const targets = [this.o.workspace, ...(dirs ? [dirs.home, dirs.tmp] : []), ...this.ownDirs];
      const total = await diskBytes(targets);
      if (total === null) return null;
      this.diskUsed = total;
      this.diskCheckedAt = Date.now();
      return total;
    } finally {
      this.diskCost = performance.now() - t0;
      this.diskBusy = false;
    }
  }

  /** Session close: stops what runs, removes the cgroup, the proxy and the scratch directories. */
  async close(): Promise<void> {
    this.closed = true;
    for (const e of [...this.running]) e.kill();
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    const g = this.group ? await this.group.catch(() => null) : null;
    await g?.remove().catch(() => undefined);
    await this.net.close();
    await fs.rm(this.o.stateDir, { recursive: true, force: true });
  }
}
