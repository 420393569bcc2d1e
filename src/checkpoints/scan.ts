// What a checkpoint records of a workspace: every directory, regular file and symbolic link below
// its root, walked without following a link at any component (each directory is opened inside the
// verified descriptor of its parent with O_NOFOLLOW, and files are read through that descriptor),
// so a process that swaps a directory for a link while the walk runs makes the walk refuse that
// entry, never read outside the workspace. A link is recorded as its target text; a file's
// permission bits are kept. What is never captured is said, entry by entry: FIFOs, sockets and
// devices, files over the size bound, entries past the count bound, and what changed under the
// walk. A file whose inode, size, mtime and ctime are what the cache says is not read again.
import { createHash } from 'node:crypto';
import fsSync, { type BigIntStats } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { Confinement, DIR_FLAGS, procFd, type Anchor } from '../sandbox/path-confine.js';
import { READ_NOW_MAX_BYTES, ReadAhead, paced, readFile, readFileNow, type Read } from './file-read.js';
import type { ObjectStore } from './objects.js';

export interface FileEntry {
  kind: 'file';
  path: string;
  mode: number;
  size: number;
  sha256: string;
}
export interface LinkEntry {
  kind: 'link';
  path: string;
  target: string;
}
export interface DirEntry {
  kind: 'dir';
  path: string;
  mode: number;
}
export type Entry = FileEntry | LinkEntry | DirEntry;

export interface NotCaptured {
  path: string;
  reason: string;
}

export interface Scan {
  /** Sorted by path (a directory before what it holds). */
  entries: Entry[];
  notCaptured: NotCaptured[];
  /** The files' bytes, as the workspace has them. */
  bytes: number;
  /** What this scan added to the object store. */
  added: number;
}

export interface ScanLimits {
  /** A larger file is not captured (and said). */
  maxFileBytes: number;
  /** Entries past this count are not captured (and said). */
  maxEntries: number;
  /**
   * Bytes the object store may still grow by (the session's disk budget); a file whose content
   * is not stored yet and does not fit is not captured (and said). Absent: no bound.
   */
  budget?: { remaining: number };
}

interface Known {
  dev: bigint;
  ino: bigint;
  size: bigint;
  mtimeNs: bigint;
  ctimeNs: bigint;
  sha256: string;
}

/** What earlier scans learned of files, by path: a file unchanged since is not read again. */
export class ScanCache {
  readonly known = new Map<string, Known>();
  /** `slack`: stale paths (gone since) it may hold before a scan prunes them. */
  constructor(readonly slack = 4_096) {}
}

function kindOf(st: BigIntStats): string {
  if (st.isFIFO()) return 'a FIFO';
  if (st.isSocket()) return 'a socket';
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isBlockDevice()) return 'a block device';
  return 'not a file, directory or link';
}

/**
 * What makes a scan incremental (watch.ts): the last scan, and for each directory met whether it
 * changed since: `subtree` (neither it nor anything below: taken whole from the last scan),
 * `self` (its own entries did not change, something below did: its entries are taken from the
 * last scan and its directories visited), or `walk` (read it again). `watch` is told of each
 * directory read, before it is read, so a change made meanwhile is not missed.
 */
export interface Incremental {
  previous: Scan;
  state(rel: string, ino: bigint): 'subtree' | 'self' | 'walk';
  watch(rel: string, ino: bigint, at: string): void;
  /**
   * For a directory walked again: the names of its entries events were about since the last
   * scan (the others are as the last scan found them), or null when that is not known.
   */
  changedNames?(rel: string): ReadonlySet<string> | null;
  /** The inode a directory was watched with, if it is. */
  watchedIno?(rel: string): bigint | undefined;
}

type Known2 = Entry | NotCaptured;

interface Walk {
  c: Confinement;
  out: Scan;
  objects: ObjectStore;
  cache: ScanCache;
  limits: ScanLimits;
  inc: Incremental | undefined;
  /** The last scan's entries and what it did not capture, by parent directory, in path order. */
  children: Map<string, Known2[]>;
}

const parentOf = (p: string): string => {
  const i = p.lastIndexOf('/');
  return i < 0 ? '' : p.slice(0, i);
};

export async function scanTree(root: string, objects: ObjectStore, cache: ScanCache, limits: ScanLimits, inc?: Incremental): Promise<Scan> {
  const real = await fs.realpath(root);
  const c = new Confinement([real], await procFd());
  const out: Scan = { entries: [], notCaptured: [], bytes: 0, added: 0 };
  const children = new Map<string, Known2[]>();
  if (inc) {
    // A walk's entries are in name order within each directory already; only a directory that
    // also has entries not captured needs its list sorted.
    const unsorted = new Set<Known2[]>();
    const add = (e: Known2, sorted: boolean) => {
      const parent = parentOf(e.path);
      let list = children.get(parent);
      if (!list) children.set(parent, (list = []));
      list.push(e);
      if (!sorted) unsorted.add(list);
    };
    for (const e of inc.previous.entries) add(e, true);
    for (const e of inc.previous.notCaptured) add(e, false);
    for (const list of unsorted) list.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }
  const rootHandle = await fs.open(real, DIR_FLAGS);
  try {
    const st = await rootHandle.stat({ bigint: true });
    await visit({ c, out, objects, cache, limits, inc, children }, { handle: rootHandle, real }, '', st.ino);
  } finally {
    await rootHandle.close().catch(() => undefined);
  }
  // Paths gone since leave the cache once it holds many more than the tree: a stale one is never
  // taken for a new file (a file made since has a newer ctime), it only costs memory.
  if (cache.known.size > out.entries.length + cache.slack) {
    const files = new Set(out.entries.map((e) => e.path));
    for (const p of cache.known.keys()) if (!files.has(p)) cache.known.delete(p);
  }
  return out;
}

/** A directory met: taken from the last scan, or read, as the incremental state says. */
async function visit(w: Walk, dir: Anchor, rel: string, ino: bigint): Promise<void> {
  const state = w.inc?.state(rel, ino) ?? 'walk';
  if (state === 'subtree') return copySubtree(w, rel);
  if (state === 'self') return walkKnown(w, dir, rel);
  w.inc?.watch(rel, ino, w.c.anchored ? `/proc/self/fd/${dir.handle.fd}` : dir.real);
  return walk(w, dir, rel);
}

/** One entry (or what was not captured) as the last scan had it; false when the entry bound left it out. */
function take(w: Walk, e: Known2): boolean {
  if (!('kind' in e)) {
    if (!e.reason.startsWith('past the ')) w.out.notCaptured.push(e);
    return false;
  }
  if (w.out.entries.length >= w.limits.maxEntries) {
    w.out.notCaptured.push({ path: e.path, reason: `past the ${w.limits.maxEntries} entries a checkpoint holds` });
    return false;
  }
  w.out.entries.push(e);
  if (e.kind === 'file') w.out.bytes += e.size;
  return true;
}

/** Everything the last scan found below `rel`, in order. */
function copySubtree(w: Walk, rel: string): void {
  for (const e of w.children.get(rel) ?? []) if (take(w, e) && 'kind' in e && e.kind === 'dir') copySubtree(w, e.path);
}

/** A directory whose own entries did not change: they are taken from the last scan, and its directories visited. */
async function walkKnown(w: Walk, dir: Anchor, rel: string): Promise<void> {
  for (const e of w.children.get(rel) ?? []) {
    if (!('kind' in e) || e.kind !== 'dir') {
      take(w, e);
      continue;
    }
    const name = e.path.slice(rel ? rel.length + 1 : 0);
    const at = w.c.at(dir, name);
    const st = await fs.lstat(at, { bigint: true }).catch(() => null);
    if (st?.isDirectory() && w.inc?.state(e.path, st.ino) === 'subtree') {
      if (take(w, e)) copySubtree(w, e.path);
      continue;
    }
    const child = st?.isDirectory() ? await openChild(w.c, at, path.join(dir.real, name), st) : null;
    if (!child || !st) {
      // Changed after all (its event not heard yet): the next checkpoint reads it.
      w.out.notCaptured.push({ path: e.path, reason: 'replaced while the checkpoint was made' });
      continue;
    }
    try {
      if (take(w, e)) await visit(w, child, e.path, st.ino);
    } finally {
      await child.handle.close().catch(() => undefined);
    }
  }
}

async function walk(w: Walk, dir: Anchor, rel: string): Promise<void> {
  const { c, out, limits } = w;
  const names = (await fs.readdir(c.anchored ? `/proc/self/fd/${dir.handle.fd}` : dir.real)).sort();
  // Entries no event named since the last scan are as it found them: not stat'ed again.
  const changed = w.inc?.changedNames?.(rel) ?? null;
  const before = changed ? new Map((w.children.get(rel) ?? []).map((e) => [e.path, e])) : null;
  // The entries that will be looked at (lstat'ed, and read when a file the cache does not
  // vouch for) are looked at up to READ_AHEAD at once; what is found is taken in name order.
  const ahead = new ReadAhead(
    names.filter((name) => {
      if (name.includes('\uFFFD')) return false;
      const known = before && !changed!.has(name) ? before.get(rel ? `${rel}/${name}` : name) : undefined;
      return !(known && 'kind' in known && known.kind !== 'dir');
    }),
    (name) => look(w, dir, rel ? `${rel}/${name}` : name, name),
  );
  for (const name of names) {
    const p = rel ? `${rel}/${name}` : name;
    if (out.entries.length >= limits.maxEntries) {
      out.notCaptured.push({ path: p, reason: `past the ${limits.maxEntries} entries a checkpoint holds` });
      continue;
    }
    // A name that is not UTF-8 reads back as another name (U+FFFD for its bad bytes): it could
    // not be put back as it is, so it is said, not recorded as something else.
    if (name.includes('\uFFFD')) {
      out.notCaptured.push({ path: p, reason: 'its name is not UTF-8 (never captured)' });
      continue;
    }
    const known = before && !changed!.has(name) ? before.get(p) : undefined;
    if (known && 'kind' in known) {
      if (known.kind !== 'dir') {
        take(w, known);
        continue;
      }
      const ino = w.inc!.watchedIno?.(p);
      if (ino !== undefined && w.inc!.state(p, ino) === 'subtree') {
        if (take(w, known)) copySubtree(w, p);
        continue;
      }
    }
    const at = c.at(dir, name);
    const seen = await ahead.get(name);
    if (!seen) {
      out.notCaptured.push({ path: p, reason: 'removed while the checkpoint was made' });
      continue;
    }
    const { st } = seen;
    if (st.isSymbolicLink()) {
      const target = await fs.readlink(at).catch(() => null);
      if (target === null) out.notCaptured.push({ path: p, reason: 'changed while the checkpoint was made' });
      else out.entries.push({ kind: 'link', path: p, target });
    } else if (st.isDirectory()) {
      // Unchanged since the last scan (watched, same inode, no event in it or below): taken
      // whole without opening it.
      if (w.inc?.state(p, st.ino) === 'subtree') {
        out.entries.push({ kind: 'dir', path: p, mode: Number(st.mode & 0o7777n) });
        copySubtree(w, p);
        continue;
      }
      const child = await openChild(c, at, path.join(dir.real, name), st);
      if (!child) {
        out.notCaptured.push({ path: p, reason: 'replaced while the checkpoint was made' });
        continue;
      }
      try {
        out.entries.push({ kind: 'dir', path: p, mode: Number(st.mode & 0o7777n) });
        await visit(w, child, p, st.ino);
      } finally {
        await child.handle.close().catch(() => undefined);
      }
    } else if (st.isFile()) {
      if (st.size > BigInt(limits.maxFileBytes)) {
        out.notCaptured.push({ path: p, reason: `larger than ${limits.maxFileBytes} bytes` });
        continue;
      }
      const sha256 = await fileContent(w, at, p, st, seen.read);
      if (sha256 === OVER_BUDGET) {
        out.notCaptured.push({ path: p, reason: 'over the checkpoint disk budget' });
        continue;
      }
      if (sha256 === null) {
        out.notCaptured.push({ path: p, reason: 'replaced or written while the checkpoint was made' });
        continue;
      }
      out.entries.push({ kind: 'file', path: p, mode: Number(st.mode & 0o7777n), size: Number(st.size), sha256 });
      out.bytes += Number(st.size);
    } else out.notCaptured.push({ path: p, reason: `is ${kindOf(st)} (never captured)` });
  }
}

/** Opens a directory inside its parent's descriptor, never through a link; null when it is not what was looked at. */
async function openChild(c: Confinement, at: string, expected: string, st: BigIntStats): Promise<Anchor | null> {
  let handle: fs.FileHandle;
  try {
    handle = await fs.open(at, DIR_FLAGS);
  } catch {
    return null;
  }
  try {
    const fst = await handle.stat({ bigint: true });
    const opened = await c.verifyDescriptor(expected, handle);
    if (fst.ino !== st.ino || fst.dev !== st.dev || (opened !== null && opened !== expected)) throw new Error('replaced');
    return { handle, real: expected };
  } catch {
    await handle.close().catch(() => undefined);
    return null;
  }
}

/** The file's content name: from the cache when nothing about it changed, else read (through the descriptor) and stored. */
const OVER_BUDGET = Symbol('over budget');
/** Newer than this (ns) is "racy": file timestamps come from a clock that ticks every few ms. */
const RACY_NS = 50_000_000n;

/** Files up to this size are read ahead (READ_AHEAD at once); larger ones when their turn comes. */
const READ_AHEAD_MAX_BYTES = 1024 * 1024;


interface Look {
  st: BigIntStats;
  /** A file's bytes read ahead (null: it changed while read); absent: not read ahead. */
  read?: Read;
}

/** An entry's lstat, and a small file's bytes when the cache does not vouch for it; null when it is gone. */
async function look(w: Walk, dir: Anchor, p: string, name: string): Promise<Look | null> {
  const at = w.c.at(dir, name);
  await paced();
  let st: BigIntStats;
  try {
    st = fsSync.lstatSync(at, { bigint: true });
  } catch {
    return null;
  }
  if (!st.isFile() || st.size > BigInt(Math.min(w.limits.maxFileBytes, READ_AHEAD_MAX_BYTES)) || vouched(w, p, st)) return { st };
  if (st.size <= BigInt(READ_NOW_MAX_BYTES)) return { st, read: readFileNow(w.c, at, st) };
  return { st, read: await readFile(w.c, at, p, st) };
}

/** The cache vouches for a file: nothing about it changed, and its content is stored. */
function vouched(w: Walk, p: string, st: BigIntStats): boolean {
  const k = w.cache.known.get(p);
  return !!k && k.dev === st.dev && k.ino === st.ino && k.size === st.size && k.mtimeNs === st.mtimeNs && k.ctimeNs === st.ctimeNs && w.objects.has(k.sha256);
}

async function fileContent(w: Walk, at: string, p: string, st: BigIntStats, ahead: Read | undefined): Promise<string | null | typeof OVER_BUDGET> {
  const { objects, cache, out } = w;
  const budget = w.limits.budget;
  if (ahead === undefined && vouched(w, p, st)) return cache.known.get(p)!.sha256;
  const read = ahead === undefined ? await readFile(w.c, at, p, st) : ahead;
  if (!read) return null;
  const { bytes, fst, at: readAt } = read;
  // Within the budget, or stored before (a content known costs nothing again).
  if (budget && bytes.length > budget.remaining && !objects.has(createHash('sha256').update(bytes).digest('hex'))) return OVER_BUDGET;
  const put = await objects.put(bytes);
  out.added += put.added;
  if (budget) budget.remaining -= put.added;
  // A file changed within the clock's granularity of now could change again under the same
  // timestamps (file systems stamp with a coarse clock): it is not trusted from the cache, and
  // the next scan reads it again (git's "racy" entries).
  if (BigInt(readAt) * 1_000_000n - (fst.ctimeNs > fst.mtimeNs ? fst.ctimeNs : fst.mtimeNs) > RACY_NS) {
    cache.known.set(p, { dev: fst.dev, ino: fst.ino, size: fst.size, mtimeNs: fst.mtimeNs, ctimeNs: fst.ctimeNs, sha256: put.sha256 });
  } else cache.known.delete(p);
  return put.sha256;
}
