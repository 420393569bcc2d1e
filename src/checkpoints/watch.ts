// Which directories of a workspace changed since the last checkpoint, so that the next one walks
// only those (scan.ts Incremental) instead of every directory of a large tree before each call.
// Every directory a scan walks is watched (inotify, through the descriptor the walk verified, so
// the watch is on that very directory); any event in it — a child written, made, removed,
// renamed, its bits changed — marks it dirty, and a directory is taken from the last scan only
// when it is watched, has the same inode, and is not dirty. Before a checkpoint, `settle` makes
// sure every event of what happened before it has been heard: a file written in a directory of
// our own is heard after them (one inotify queue, in order). When watches run out (the kernel's
// limit) or a watch fails, every scan is whole again, and the reason is kept.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Incremental, Scan } from './scan.js';

interface Watched {
  ino: bigint;
  w: fs.FSWatcher;
}

export class DirtyTracker {
  private readonly watched = new Map<string, Watched>();
  private dirty = new Set<string>();
  /** By dirty directory, the names its events were about; absent: an event named none (all may have changed). */
  private names = new Map<string, Set<string>>();
  private unnamed = new Set<string>();
  /** Everything is dirty: before the first scan, and for good once watching failed. */
  private all = true;
  /** Why scans are whole again (watching failed), if they are. */
  failure: string | null = null;
  private barrier: fs.FSWatcher | null = null;
  /** The name of the file `settle` renames (null: not made yet). */
  private barrierFile: string | null = null;
  private readonly waiting = new Map<string, () => void>();
  private closed = false;

  /** `barrierDir`: a directory of the server's own, not the workspace, for `settle`. */
  constructor(private readonly barrierDir: string) {}

  /**
   * What the next scan may take from `previous` (none of it before the first scan, or once
   * watching failed: a whole scan). The dirty set is taken now: events during the scan mark the
   * next one. `finish`, after the scan: directories it did not meet are no longer watched; it
   * answers how many directories the scan walked.
   */
  begin(previous: Scan | undefined): { inc: Incremental; finish(): number } {
    const all = this.all || previous === undefined || this.failure !== null;
    const dirty = this.dirty;
    const names = this.names;
    const unnamed = this.unnamed;
    this.dirty = new Set();
    this.names = new Map();
    this.unnamed = new Set();
    this.all = this.failure !== null;
    const kept = new Set<string>();
    // Every directory above a dirty one: its own entries may be unchanged, its subtree is not.
    const above = new Set<string>();
    for (const d of dirty) {
      for (let i = d.lastIndexOf('/'); i >= 0; i = d.lastIndexOf('/', i - 1)) above.add(d.slice(0, i));
      if (d !== '') above.add('');
    }
    let walked = 0;
    const inc: Incremental = {
      previous: previous ?? { entries: [], notCaptured: [], bytes: 0, added: 0 },
      state: (rel, ino) => {
        if (all || dirty.has(rel) || this.watched.get(rel)?.ino !== ino) return 'walk';
        if (above.has(rel)) {
          kept.add(rel);
          return 'self';
        }
        for (const r of this.watched.keys()) if (rel === '' || r === rel || r.startsWith(`${rel}/`)) kept.add(r);
        return 'subtree';
      },
      changedNames: (rel) => (all || unnamed.has(rel) ? null : (names.get(rel) ?? null)),
      watchedIno: (rel) => (all ? undefined : this.watched.get(rel)?.ino),
      watch: (rel, ino, at) => {
        walked++;
        kept.add(rel);
        this.watch(rel, ino, at);
      },
    };
    return {
      inc,
      finish: () => {
        for (const [rel, x] of this.watched) {
          if (kept.has(rel)) continue;
          x.w.close();
          this.watched.delete(rel);
        }
        return walked;
      },
    };
  }

  private watch(rel: string, ino: bigint, at: string): void {
    if (this.failure !== null || this.closed) return;
    const known = this.watched.get(rel);
    if (known?.ino === ino) return;
    known?.w.close();
    this.watched.delete(rel);
    try {
      const w = fs.watch(at, { persistent: false }, (_event, name) => {
        this.dirty.add(rel);
        if (name) {
          this.dirty.add(rel ? `${rel}/${name}` : String(name));
          let set = this.names.get(rel);
          if (!set) this.names.set(rel, (set = new Set()));
          set.add(String(name));
        } else this.unnamed.add(rel);
      });
      w.on('error', () => {
        this.dirty.add(rel);
        this.unnamed.add(rel);
        w.close();
        if (this.watched.get(rel)?.w === w) this.watched.delete(rel);
      });
      this.watched.set(rel, { ino, w });
    } catch (err) {
      this.fail(`a directory could not be watched (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}); every checkpoint walks the whole workspace`);
    }
  }

  private fail(why: string): void {
    this.failure = why;
    this.all = true;
    for (const x of this.watched.values()) x.w.close();
    this.watched.clear();
  }

  /**
   * Resolves once every change made before it was called has been heard (or after `ms`, having
   * marked everything dirty: a scan then walks the whole tree).
   */
  async settle(ms = 1_000): Promise<void> {
    if (this.closed || this.all) return;
    this.barrier ??= fs.watch(this.barrierDir, { persistent: false }, (_e, name) => {
      if (name) this.waiting.get(String(name))?.();
    });
    // One file of our own, renamed to a new name each time: one metadata operation, and an
    // event by a name no earlier settle used, so nothing heard before can answer this one.
    const name = `.settle-${randomBytes(6).toString('hex')}`;
    const heard = new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), ms);
      this.waiting.set(name, () => {
        clearTimeout(timer);
        resolve(true);
      });
    });
    try {
      if (this.barrierFile) fs.renameSync(path.join(this.barrierDir, this.barrierFile), path.join(this.barrierDir, name));
      else fs.writeFileSync(path.join(this.barrierDir, name), '', { flag: 'wx', mode: 0o600 });
      this.barrierFile = name;
    } catch {
      this.waiting.get(name)?.();
      this.barrierFile = null;
      this.all = true;
    }
    const ok = await heard;
    this.waiting.delete(name);
    if (!ok) this.all = true;
  }

  /**
   * Nothing changed since the last `begin` (after `settle`): every directory is watched and none
   * was touched, so the last scan is the workspace as it is.
   */
  get quiet(): boolean {
    return !this.all && this.failure === null && this.dirty.size === 0 && this.watched.size > 0;
  }

  /** How many directories are watched. */
  get watching(): number {
    return this.watched.size;
  }

  close(): void {
    this.closed = true;
    for (const x of this.watched.values()) x.w.close();
    this.watched.clear();
    this.barrier?.close();
    this.barrier = null;
    if (this.barrierFile) fs.rmSync(path.join(this.barrierDir, this.barrierFile), { force: true });
    this.barrierFile = null;
  }
}
