// Resource limits for sandboxed processes, per session. Three ways to enforce them, chosen once
// at start-up, strongest first:
//   cgroup2  a delegated cgroup v2 subtree with the memory, pids and cpu controllers: one cgroup
//            per session (memory.max, memory.swap.max=0, pids.max, cpu.weight) and one leaf per
//            command inside it (memory.oom.group=1, so a command that runs out is stopped whole);
//   cgroup1  writable cgroup v1 memory, pids and cpu hierarchies (hosts that still mount v1):
//            the same layout with memory.limit_in_bytes, pids.max and cpu.shares;
//   rlimit   neither: per-process rlimits (RLIMIT_DATA for memory, RLIMIT_NPROC for processes,
//            which counts every process of the user sandboxes run as — the server's, or for a
//            root server the sandbox user's, all sessions together; root itself is exempt) and a
//            lower scheduling priority (nice) for CPU share.
// Whatever the backend, every process also gets RLIMIT_FSIZE, RLIMIT_NOFILE and no core dumps,
// and the session's disk use (workspace plus the sandbox's home and /tmp) is measured while
// commands run (see session-sandbox.ts). New cgroups are made only below the server's own.
import fsSync from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';

export { DEFAULT_LIMITS, LimitValuesSchema, type Enforcement, type ResourceLimits } from '../contract/limits.js';
import type { Enforcement, ResourceLimits } from '../contract/limits.js';

/** Counters that tell why a command's processes were stopped by the kernel. */
export interface LimitCounters {
  oomKills: number;
  pidsMax: number;
}

/** One command's cgroup leaf: the launcher writes its pid into `procs` before it starts bwrap. */
export interface CommandGroup {
  procs: string[];
  counters(): Promise<LimitCounters>;
  remove(): Promise<void>;
}

export interface SessionGroup {
  command(id: string): Promise<CommandGroup>;
  /** The session's own counters (the pids limit is the session's, not a command's). */
  counters(): Promise<LimitCounters>;
  remove(): Promise<void>;
}

export interface LimitBackend {
  readonly enforcement: Enforcement;
  /** What is in force, for /readyz. */
  readonly detail: string;
  /** Null for `rlimit`. */
  session(sessionId: string, limits: ResourceLimits): Promise<SessionGroup | null>;
  /** Removes what this server made (shutdown). */
  close(): Promise<void>;
  /** The same, synchronously (a process exiting without a shutdown). */
  closeSync(): void;
}

/** Bash `ulimit` letters and values for one process (bash units: -d and -f in KiB). */
export function rlimitSpec(limits: ResourceLimits, enforcement: Enforcement): string {
  const spec = [`f=${Math.floor(limits.file_size_bytes / 1024)}`, `n=${limits.open_files}`, 'c=0'];
  if (enforcement === 'rlimit') spec.push(`d=${Math.floor(limits.memory_bytes / 1024)}`, `u=${limits.processes}`);
  return spec.join(' ');
}

/** The nice increment that stands for a CPU weight when no cgroup can (100 → 0, 50 → 5, 1 → 19). */
export function niceFor(weight: number, enforcement: Enforcement): number {
  if (enforcement !== 'rlimit' || weight >= 100) return 0;
  return Math.min(19, Math.max(1, Math.round(Math.log2(100 / weight) * 5)));
}

const RLIMIT_DETAIL = 'rlimit: memory and processes are limited per process (RLIMIT_DATA, RLIMIT_NPROC), CPU share by nice';

export class RlimitBackend implements LimitBackend {
  readonly enforcement = 'rlimit' as const;
  readonly detail: string;
  /** `sandboxUser`: the user a root server's sandboxes run as (sandbox-user.ts), if any. */
  constructor(why: string, sandboxUser?: string) {
    const root = process.getuid?.() === 0;
    const processes = sandboxUser
      ? `; the process limit counts every process of the sandbox user ${sandboxUser}, all sessions together`
      : root
        ? '; the process limit is NOT enforced: the server runs as root, which RLIMIT_NPROC exempts'
        : '';
    this.detail = `${RLIMIT_DETAIL}${processes} (${why})`;
  }
  async session(): Promise<null> {
    return null;
  }
  async close(): Promise<void> {}
  closeSync(): void {}
}

async function readText(file: string): Promise<string | null> {
  try {
    return await fs.readFile(file, 'utf8');
  } catch {
    return null;
  }
}

function field(text: string | null, name: string): number {
  const m = text ? new RegExp(`^${name} (\\d+)$`, 'm').exec(text) : null;
  return m ? Number(m[1]) : 0;
}

/** rmdir a cgroup and its children (leaves first); processes still inside make it fail, which is ignored. */
async function removeTree(dir: string): Promise<void> {
  let entries: import('node:fs').Dirent[] = [];
  try {
    entries = await fs.readdir(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const e of entries) if (e.isDirectory()) await removeTree(path.join(dir, e.name));
  await fs.rmdir(dir).catch(() => undefined);
}

function removeTreeSync(dir: string): void {
  let entries: import('node:fs').Dirent[] = [];
  try {
    entries = fsSync.readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const e of entries) if (e.isDirectory()) removeTreeSync(path.join(dir, e.name));
  try {
    fsSync.rmdirSync(dir);
  } catch {
    // processes still inside
  }
}

/** The server's own cgroup path per hierarchy, from /proc/self/cgroup. */
async function ownCgroups(): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const text = (await readText('/proc/self/cgroup')) ?? '';
  for (const line of text.split('\n')) {
    const m = /^(\d+):([^:]*):(.*)$/.exec(line);
    if (!m) continue;
    if (m[1] === '0' && m[2] === '') out.set('', m[3]!);
    for (const c of m[2]!.split(',')) if (c) out.set(c, m[3]!);
  }
  return out;
}

/** Mount points of cgroup hierarchies: '' → the v2 mount; controller → its v1 mount. */
async function cgroupMounts(): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const text = (await readText('/proc/self/mountinfo')) ?? '';
  for (const line of text.split('\n')) {
    const parts = line.split(' ');
    const dash = parts.indexOf('-');
    if (dash < 0) continue;
    const fstype = parts[dash + 1];
    const mountPoint = parts[4]!;
    if (fstype === 'cgroup2') out.set('', mountPoint);
    if (fstype === 'cgroup') for (const opt of (parts[dash + 3] ?? '').split(',')) if (['memory', 'pids', 'cpu'].includes(opt)) out.set(opt, mountPoint);
  }
  return out;
}

const nonce = () => `norma-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;

class Cgroup2Backend implements LimitBackend {
  readonly enforcement = 'cgroup2' as const;
  readonly detail: string;
  constructor(
    private readonly base: string,
    private readonly cpu: boolean,
  ) {
    this.detail = `cgroup v2 under ${base}: memory, processes${cpu ? ', CPU weight' : ''} per session`;
  }

  async session(sessionId: string, limits: ResourceLimits): Promise<SessionGroup> {
    const dir = path.join(this.base, sessionId);
    await fs.mkdir(dir, { recursive: true });
    await fs.writeFile(path.join(dir, 'memory.max'), String(limits.memory_bytes));
    await fs.writeFile(path.join(dir, 'memory.swap.max'), '0').catch(() => undefined);
    await fs.writeFile(path.join(dir, 'pids.max'), String(limits.processes));
    if (this.cpu) await fs.writeFile(path.join(dir, 'cpu.weight'), String(limits.cpu_weight)).catch(() => undefined);
    await fs.writeFile(path.join(dir, 'cgroup.subtree_control'), `+memory +pids${this.cpu ? ' +cpu' : ''}`);
    const counters = async (d: string): Promise<LimitCounters> => ({
      oomKills: field(await readText(path.join(d, 'memory.events')), 'oom_kill'),
      pidsMax: field(await readText(path.join(d, 'pids.events')), 'max'),
    });
    return {
      command: async (id) => {
        const leaf = path.join(dir, id);
        await fs.mkdir(leaf);
        await fs.writeFile(path.join(leaf, 'memory.oom.group'), '1').catch(() => undefined);
        return { procs: [path.join(leaf, 'cgroup.procs')], counters: () => counters(leaf), remove: () => removeTree(leaf) };
      },
      counters: () => counters(dir),
      remove: () => removeTree(dir),
    };
  }

  async close(): Promise<void> {
    await removeTree(this.base);
  }

  closeSync(): void {
    removeTreeSync(this.base);
  }
}

class Cgroup1Backend implements LimitBackend {
  readonly enforcement = 'cgroup1' as const;
  readonly detail: string;
  /** controller → this server's directory in that hierarchy. */
  constructor(private readonly bases: Map<string, string>) {
    this.detail = `cgroup v1 (${[...bases.keys()].join(', ')}): memory, processes${bases.has('cpu') ? ', CPU shares' : ''} per session`;
  }

  async session(sessionId: string, limits: ResourceLimits): Promise<SessionGroup> {
    const dirs = new Map<string, string>();
    for (const [c, base] of this.bases) {
      const dir = path.join(base, sessionId);
      await fs.mkdir(dir, { recursive: true });
      dirs.set(c, dir);
    }
    const mem = dirs.get('memory')!;
    await fs.writeFile(path.join(mem, 'memory.limit_in_bytes'), String(limits.memory_bytes));
    // With swap accounting, the same figure for memory+swap: no swapping past the limit.
    await fs.writeFile(path.join(mem, 'memory.memsw.limit_in_bytes'), String(limits.memory_bytes)).catch(() => undefined);
    await fs.writeFile(path.join(dirs.get('pids')!, 'pids.max'), String(limits.processes));
    const cpu = dirs.get('cpu');
    if (cpu) await fs.writeFile(path.join(cpu, 'cpu.shares'), String(Math.max(2, Math.round((limits.cpu_weight * 1024) / 100)))).catch(() => undefined);
    const counters = async (m: string, p: string): Promise<LimitCounters> => ({
      oomKills: field(await readText(path.join(m, 'memory.oom_control')), 'oom_kill'),
      pidsMax: field(await readText(path.join(p, 'pids.events')), 'max'),
    });
    return {
      command: async (id) => {
        const leaves = [...dirs.values()].map((d) => path.join(d, id));
        for (const l of leaves) await fs.mkdir(l);
        return {
          procs: leaves.map((l) => path.join(l, 'cgroup.procs')),
          counters: () => counters(path.join(mem, id), path.join(dirs.get('pids')!, id)),
          remove: async () => {
            for (const l of leaves) await removeTree(l);
          },
        };
      },
      counters: () => counters(mem, dirs.get('pids')!),
      remove: async () => {
        for (const d of dirs.values()) await removeTree(d);
      },
    };
  }

  async close(): Promise<void> {
    for (const base of this.bases.values()) await removeTree(base);
  }

  closeSync(): void {
    for (const base of this.bases.values()) removeTreeSync(base);
  }
}

/** Can this process make a child cgroup here, and remove it again? */
async function canMake(dir: string): Promise<boolean> {
  const probe = path.join(dir, `${nonce()}-probe`);
  try {
    await fs.mkdir(probe);
    await fs.rmdir(probe);
    return true;
  } catch {
    return false;
  }
}

/**
 * Removes the cgroups that servers no longer running left behind (`norma-<pid>-…` whose pid is
 * gone: a SIGKILL or a crash gives a server no chance to remove its own). Returns how many.
 */
export async function sweepStaleCgroups(): Promise<number> {
  const own = await ownCgroups();
  const mounts = await cgroupMounts();
  const places = new Set<string>();
  const v2 = mounts.get('');
  if (v2 !== undefined && own.has('')) {
    const mine = path.join(v2, own.get('')!);
    places.add(mine).add(path.dirname(mine));
  }
  for (const c of ['memory', 'pids', 'cpu']) {
    const mount = mounts.get(c);
    if (mount !== undefined) places.add(path.join(mount, own.get(c) ?? '/'));
  }
  let removed = 0;
  for (const dir of places) {
    let names: string[] = [];
    try {
      names = await fs.readdir(dir);
    } catch {
      continue;
    }
    for (const name of names) {
      const m = /^norma-(\d+)-[a-z0-9]+$/.exec(name);
      if (!m || Number(m[1]) === process.pid || alive(Number(m[1]))) continue;
      await removeTree(path.join(dir, name));
      removed++;
    }
  }
  return removed;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Picks the strongest backend this host allows. `setting` is NORMA_CGROUP: `auto` (default),
 * `off` (rlimits only) or the path of a delegated cgroup v2 directory whose subtree_control
 * enables memory and pids (an explicit path that does not work stops start-up).
 */
export async function detectLimitBackend(setting: string = 'auto', sandboxUser?: string): Promise<LimitBackend> {
  if (setting === 'off') return new RlimitBackend('NORMA_CGROUP=off', sandboxUser);
  await sweepStaleCgroups().catch(() => 0);
  if (setting !== 'auto') {
    const ctl = ((await readText(path.join(setting, 'cgroup.subtree_control'))) ?? '').split(/\s+/);
    if (!ctl.includes('memory') || !ctl.includes('pids') || !(await canMake(setting))) {
      throw new Error(`NORMA_CGROUP ${setting}: not a writable cgroup v2 directory with memory and pids enabled in cgroup.subtree_control`);
    }
    const base = path.join(setting, nonce());
    await fs.mkdir(base);
    await fs.writeFile(path.join(base, 'cgroup.subtree_control'), `+memory +pids${ctl.includes('cpu') ? ' +cpu' : ''}`);
    return new Cgroup2Backend(base, ctl.includes('cpu'));
  }
  const own = await ownCgroups();
  const mounts = await cgroupMounts();
  // cgroup v2: a cgroup that already delegates the controllers to its children: ours, or its
  // parent when we were placed in a leaf of a delegated subtree (systemd's DelegateSubgroup=).
  const v2mount = mounts.get('');
  if (v2mount !== undefined && own.has('')) {
    const mine = path.join(v2mount, own.get('')!);
    for (const dir of [mine, path.dirname(mine)]) {
      if (!dir.startsWith(v2mount)) continue;
      const ctl = ((await readText(path.join(dir, 'cgroup.subtree_control'))) ?? '').split(/\s+/);
      if (!ctl.includes('memory') || !ctl.includes('pids') || !(await canMake(dir))) continue;
      const base = path.join(dir, nonce());
      try {
        await fs.mkdir(base);
        await fs.writeFile(path.join(base, 'cgroup.subtree_control'), `+memory +pids${ctl.includes('cpu') ? ' +cpu' : ''}`);
        return new Cgroup2Backend(base, ctl.includes('cpu'));
      } catch {
        await removeTree(base);
      }
    }
  }
  // cgroup v1: memory and pids hierarchies we may write below our own place in them.
  const bases = new Map<string, string>();
  for (const c of ['memory', 'pids', 'cpu']) {
    const mount = mounts.get(c);
    if (mount === undefined) continue;
    const mine = path.join(mount, own.get(c) ?? '/');
    if (!(await canMake(mine))) continue;
    bases.set(c, path.join(mine, nonce()));
  }
  if (bases.has('memory') && bases.has('pids')) {
    try {
      for (const b of bases.values()) await fs.mkdir(b);
      return new Cgroup1Backend(bases);
    } catch {
      for (const b of bases.values()) await removeTree(b);
    }
  }
  return new RlimitBackend('no delegated cgroup v2 subtree and no writable cgroup v1 hierarchies', sandboxUser);
}
