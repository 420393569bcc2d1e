// Reading a file a walk met, the way the walk may trust: opened inside its verified directory's
// descriptor without following a link, still inside the workspace, the inode lstat saw, and
// unchanged while read. Small files synchronously (the walk yields every SLICE_MS), larger ones
// through the thread pool; ReadAhead starts reads in name order ahead of the one asked for.
import fsSync, { type BigIntStats } from 'node:fs';
import fs from 'node:fs/promises';
import { READ_FLAGS, type Confinement } from '../sandbox/path-confine.js';

const READ_AHEAD = 8;

/** `at`: when it was read (ms): what is racy is judged against it. */
export type Read = { bytes: Buffer; fst: BigIntStats; at: number } | null;

/**
 * Small files are read with synchronous calls: from the page cache a file costs a few
 * microseconds that way, against six trips through the thread pool. So that a walk of
 * thousands never holds the event loop, the walk yields every SLICE_MS.
 */
export const READ_NOW_MAX_BYTES = 64 * 1024;
const SLICE_MS = 2;
let sliceStart = 0;

export async function paced(): Promise<void> {
  if (performance.now() - sliceStart < SLICE_MS) return;
  await new Promise<void>((resolve) => setImmediate(resolve));
  sliceStart = performance.now();
}

/** readFile's checks, synchronously: opened inside the verified directory without following a link, still inside, the inode lstat saw, unchanged while read. */
export function readFileNow(c: Confinement, at: string, st: BigIntStats): Read {
  let fd: number;
  try {
    fd = fsSync.openSync(at, READ_FLAGS);
  } catch {
    return null;
  }
  try {
    if (c.anchored) {
      let opened: string;
      try {
        opened = fsSync.readlinkSync(`/proc/self/fd/${fd}`);
      } catch {
        return null;
      }
      if (!c.isInside(opened)) return null;
    }
    const fst = fsSync.fstatSync(fd, { bigint: true });
    if (!fst.isFile() || fst.ino !== st.ino || fst.dev !== st.dev) return null;
    const buf = Buffer.alloc(Number(fst.size));
    let filled = 0;
    while (filled < buf.length) {
      const n = fsSync.readSync(fd, buf, filled, buf.length - filled, filled);
      if (n === 0) break;
      filled += n;
    }
    const after = fsSync.fstatSync(fd, { bigint: true });
    if (after.mtimeNs !== fst.mtimeNs || after.ctimeNs !== fst.ctimeNs || after.size !== fst.size || filled !== buf.length) return null;
    return { bytes: buf, fst, at: Date.now() };
  } finally {
    fsSync.closeSync(fd);
  }
}

/** Starts `look`s in name order, up to READ_AHEAD from the one asked for. */
export class ReadAhead<T> {
  private readonly started = new Map<string, Promise<T>>();
  private pos = 0;
  private next = 0;
  constructor(
    private readonly names: readonly string[],
    private readonly fn: (name: string) => Promise<T>,
  ) {}

  get(name: string): Promise<T> {
    const i = this.names.indexOf(name, this.pos);
    if (i < 0) return this.fn(name);
    this.pos = i;
    for (let k = Math.max(this.next, i); k < Math.min(this.names.length, i + READ_AHEAD); k++) {
      const started = this.fn(this.names[k]!);
      // One that is never asked for (the entry bound reached) must not fail unheard.
      started.catch(() => undefined);
      this.started.set(this.names[k]!, started);
      this.next = k + 1;
    }
    const p = this.started.get(name) ?? this.fn(name);
    this.started.delete(name);
    return p;
  }
}
/** A file's bytes through the descriptor, or null when it is not the file lstat saw or changed while read. */
export async function readFile(c: Confinement, at: string, p: string, st: BigIntStats): Promise<Read> {
  let opened;
  try {
    opened = await c.openRegular(p, at);
  } catch {
    return null;
  }
  try {
    const fst = await opened.handle.stat({ bigint: true });
    if (fst.ino !== st.ino || fst.dev !== st.dev) return null;
    // Read the size it had, not on: a file that grows meanwhile is not read on and on (the
    // stat after the read says it changed).
    const buf = Buffer.alloc(Number(fst.size));
    let filled = 0;
    while (filled < buf.length) {
      const { bytesRead } = await opened.handle.read(buf, filled, buf.length - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    const after = await opened.handle.stat({ bigint: true });
    // Written while it was read: the next checkpoint takes it.
    if (after.mtimeNs !== fst.mtimeNs || after.ctimeNs !== fst.ctimeNs || after.size !== fst.size || BigInt(filled) !== fst.size) return null;
    return { bytes: buf, fst, at: Date.now() };
  } finally {
    await opened.handle.close().catch(() => undefined);
  }
}
