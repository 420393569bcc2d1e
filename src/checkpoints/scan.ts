// What a checkpoint records of a workspace: every directory, regular file and symbolic link below
// its root, walked without following a link at any component (each directory is opened inside the
// verified descriptor of its parent with O_NOFOLLOW, and files are read through that descriptor),
// so a process that swaps a directory for a link while the walk runs makes the walk refuse that
// entry, never read outside the workspace. A link is recorded as its target text; a file's
// permission bits are kept. What is never captured is said, entry by entry: FIFOs, sockets and
// devices, files over the size bound, entries past the count bound, and what changed under the
// walk. A file whose inode, size, mtime and ctime are what the cache says is not read again.
import type { BigIntStats } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { Confinement, DIR_FLAGS, procFd, type Anchor } from '../sandbox/path-confine.js';
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
}

function kindOf(st: BigIntStats): string {
  if (st.isFIFO()) return 'a FIFO';
  if (st.isSocket()) return 'a socket';
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isBlockDevice()) return 'a block device';
  return 'not a file, directory or link';
}

export async function scanTree(root: string, objects: ObjectStore, cache: ScanCache, limits: ScanLimits): Promise<Scan> {
  const real = await fs.realpath(root);
  const c = new Confinement([real], await procFd());
  const out: Scan = { entries: [], notCaptured: [], bytes: 0, added: 0 };
  const seen = new Set<string>();
  const rootHandle = await fs.open(real, DIR_FLAGS);
  try {
    await walk(c, { handle: rootHandle, real }, '', out, objects, cache, limits, seen);
  } finally {
    await rootHandle.close().catch(() => undefined);
  }
  // Paths gone since the last scan leave the cache.
  for (const p of cache.known.keys()) if (!seen.has(p)) cache.known.delete(p);
  return out;
}

async function walk(c: Confinement, dir: Anchor, rel: string, out: Scan, objects: ObjectStore, cache: ScanCache, limits: ScanLimits, seen: Set<string>): Promise<void> {
  const names = (await fs.readdir(c.anchored ? `/proc/self/fd/${dir.handle.fd}` : dir.real)).sort();
  for (const name of names) {
    const p = rel ? `${rel}/${name}` : name;
    if (out.entries.length >= limits.maxEntries) {
      out.notCaptured.push({ path: p, reason: `past the ${limits.maxEntries} entries a checkpoint holds` });
      continue;
    }
    const at = c.at(dir, name);
    let st: BigIntStats;
    try {
      st = await fs.lstat(at, { bigint: true });
    } catch {
      out.notCaptured.push({ path: p, reason: 'removed while the checkpoint was made' });
      continue;
    }
    if (st.isSymbolicLink()) {
      const target = await fs.readlink(at).catch(() => null);
      if (target === null) out.notCaptured.push({ path: p, reason: 'changed while the checkpoint was made' });
      else out.entries.push({ kind: 'link', path: p, target });
    } else if (st.isDirectory()) {
      const child = await openChild(c, at, path.join(dir.real, name), st);
      if (!child) {
        out.notCaptured.push({ path: p, reason: 'replaced while the checkpoint was made' });
        continue;
      }
      try {
        out.entries.push({ kind: 'dir', path: p, mode: Number(st.mode & 0o7777n) });
        await walk(c, child, p, out, objects, cache, limits, seen);
      } finally {
        await child.handle.close().catch(() => undefined);
      }
    } else if (st.isFile()) {
      if (st.size > BigInt(limits.maxFileBytes)) {
        out.notCaptured.push({ path: p, reason: `larger than ${limits.maxFileBytes} bytes` });
        continue;
      }
      const sha256 = await fileContent(c, at, p, st, objects, cache, out);
      if (sha256 === null) {
        out.notCaptured.push({ path: p, reason: 'replaced or written while the checkpoint was made' });
        continue;
      }
      seen.add(p);
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
async function fileContent(c: Confinement, at: string, p: string, st: BigIntStats, objects: ObjectStore, cache: ScanCache, out: Scan): Promise<string | null> {
  const k = cache.known.get(p);
  if (k && k.dev === st.dev && k.ino === st.ino && k.size === st.size && k.mtimeNs === st.mtimeNs && k.ctimeNs === st.ctimeNs && objects.has(k.sha256)) return k.sha256;
  let opened;
  try {
    opened = await c.openRegular(p, at);
  } catch {
    return null;
  }
  try {
    const fst = await opened.handle.stat({ bigint: true });
    if (fst.ino !== st.ino || fst.dev !== st.dev) return null;
    // Read up to one byte past the size it had: a file that grows meanwhile is not read on and on.
    const buf = Buffer.alloc(Number(fst.size) + 1);
    let filled = 0;
    while (filled < buf.length) {
      const { bytesRead } = await opened.handle.read(buf, filled, buf.length - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    const after = await opened.handle.stat({ bigint: true });
    // Written while it was read: the next checkpoint takes it.
    if (after.mtimeNs !== fst.mtimeNs || after.size !== fst.size || BigInt(filled) !== fst.size) return null;
    const bytes = buf.subarray(0, filled);
    const put = await objects.put(bytes);
    out.added += put.added;
    cache.known.set(p, { dev: fst.dev, ino: fst.ino, size: fst.size, mtimeNs: fst.mtimeNs, ctimeNs: fst.ctimeNs, sha256: put.sha256 });
    return put.sha256;
  } finally {
    await opened.handle.close().catch(() => undefined);
  }
}
