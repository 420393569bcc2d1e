// What the server reads from a tree on its own — a workspace's skills and instruction files —
// rather than because a tool named a path. Nobody asked for a particular file, so no link is
// followed at any component, wherever it points: inside the tree it could be re-pointed between
// a check and the open, and outside it would make another tenant's files (or the host's) the
// server's input. Every component is opened inside the previous verified directory descriptor
// with O_NOFOLLOW (path-confine.ts), the descriptor is checked to be exactly the path walked, and
// the last component must be a regular file: a FIFO, socket or device is never opened (lstat
// first, then O_NONBLOCK), and what is read stops at a size bound, also when the file grows.
import type { Dirent, Stats } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { Confinement, DIR_FLAGS, procFd, type Anchor } from './path-confine.js';
import { PathRefusal, confinementRefusal, fileKind, refusalFromErrno } from './path-refusal.js';

/** The rule a link at any component breaks. */
export const NOT_FOLLOWED = 'is a symlink (it is not followed)';

/** A component (or the file) that does not exist: callers usually treat it as "absent". */
export class NoFollowMissing extends PathRefusal {
  constructor(userPath: string) {
    super(userPath, 'does not exist');
  }
}

/** A file larger than the bound (`size`: what it had when it was refused, at least bound + 1). */
export class NoFollowTooLarge extends PathRefusal {
  constructor(
    userPath: string,
    readonly size: number,
    readonly bound: number,
  ) {
    super(userPath, `is larger than ${bound} bytes`);
  }
}

export interface NoFollowOptions {
  /** How the path is named in refusals (default: `parts` joined with /). */
  userPath?: string;
}

/** A directory opened without following links, and the confinement its children are reached through. */
interface Opened {
  c: Confinement;
  dir: Anchor;
}

const shownOf = (parts: readonly string[], i: number) => parts.slice(0, i + 1).join('/');

function checkParts(root: string, parts: readonly string[]): void {
  if (!path.isAbsolute(root) || path.normalize(root) !== root) throw new Error(`internal: ${root} is not a normalised absolute path`);
  for (const p of parts) {
    if (p === '' || p === '.' || p === '..' || p.includes('/') || p.includes('\0')) throw new Error(`internal: ${JSON.stringify(p)} is not a single path component`);
  }
}

/** Opens one directory (never through a link) and checks the descriptor is exactly `expected`. */
async function openComponent(c: Confinement, userPath: string, target: string, expected: string, shown: string): Promise<Anchor> {
  let handle;
  try {
    handle = await fs.open(target, DIR_FLAGS);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new NoFollowMissing(userPath);
    if (code === 'ENOTDIR' || code === 'ELOOP') {
      const st = await fs.lstat(target).catch(() => null);
      if (st?.isSymbolicLink()) throw confinementRefusal(userPath, `${shown} ${NOT_FOLLOWED}`);
      throw new PathRefusal(userPath, `${shown} is not a directory`);
    }
    throw refusalFromErrno(userPath, err);
  }
  try {
    const opened = await c.verifyDescriptor(userPath, handle);
    // No component is a link, so the directory reached is the path walked, or something moved.
    if (opened !== null && opened !== expected) throw confinementRefusal(userPath, `${shown} was moved or replaced while it was being opened`);
    return { handle, real: expected };
  } catch (err) {
    await handle.close().catch(() => undefined);
    throw err;
  }
}

async function openDirAt(root: string, parts: readonly string[], userPath: string): Promise<Opened> {
  checkParts(root, parts);
  const c = new Confinement([root], await procFd());
  let cur = await openComponent(c, userPath, root, root, '.');
  try {
    for (const [i, part] of parts.entries()) {
      const next = await openComponent(c, userPath, c.at(cur, part), path.join(cur.real, part), shownOf(parts, i));
      await cur.handle.close().catch(() => undefined);
      cur = next;
    }
    return { c, dir: cur };
  } catch (err) {
    await cur.handle.close().catch(() => undefined);
    throw err;
  }
}

/**
 * Lists the directory `parts` names below the real directory `root`, no component a link. The
 * entries are as they are (links among them listed as links: the caller decides what to do).
 */
export async function listNoFollow(root: string, parts: readonly string[], opts: NoFollowOptions = {}): Promise<{ real: string; entries: Dirent[] }> {
  const userPath = opts.userPath ?? (parts.join('/') || '.');
  const { c, dir } = await openDirAt(root, parts, userPath);
  try {
    let entries: Dirent[];
    try {
      entries = await fs.readdir(c.anchored ? `/proc/self/fd/${dir.handle.fd}` : dir.real, { withFileTypes: true });
    } catch (err) {
      throw refusalFromErrno(userPath, err);
    }
    for (const e of entries) {
      e.parentPath = dir.real;
      Object.defineProperty(e, 'path', { value: dir.real, writable: true, configurable: true }); // deprecated alias
    }
    return { real: dir.real, entries };
  } finally {
    await dir.handle.close().catch(() => undefined);
  }
}

export interface ReadNoFollowOptions extends NoFollowOptions {
  /** Most bytes read; a larger file is refused with NoFollowTooLarge, never read past this. */
  maxBytes: number;
  /**
   * Refuse a file with more than one hard link. A hard link cannot be told from the original by
   * its path; in a tree a tenant writes, one the server reads on its own has no reason to exist.
   */
  singleLink?: boolean;
}

/**
 * Reads the regular file `parts` names below the real directory `root` (at least one part), no
 * component a link, at most `maxBytes`. Refusals are PathRefusals naming the component.
 */
export async function readNoFollow(root: string, parts: readonly string[], opts: ReadNoFollowOptions): Promise<{ bytes: Buffer; real: string; st: Stats }> {
  if (parts.length === 0) throw new Error('internal: readNoFollow needs a file name');
  const userPath = opts.userPath ?? parts.join('/');
  const { c, dir } = await openDirAt(root, parts.slice(0, -1), userPath);
  try {
    const name = parts[parts.length - 1]!;
    const real = path.join(dir.real, name);
    const target = c.at(dir, name);
    let st: Stats;
    try {
      st = await fs.lstat(target);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw new NoFollowMissing(userPath);
      throw refusalFromErrno(userPath, err);
    }
    // Looked at before opening: a device's open() alone can have effects, a FIFO's can block.
    if (st.isSymbolicLink()) throw confinementRefusal(userPath, NOT_FOLLOWED);
    if (!st.isFile()) throw new PathRefusal(userPath, st.isDirectory() ? 'is a directory' : `is not a regular file (${fileKind(st)})`);
    if (opts.singleLink && st.nlink > 1) throw confinementRefusal(userPath, `has ${st.nlink} hard links (a file read here must have one)`);
    const { handle, st: fst } = await c.openRegular(userPath, target);
    try {
      // The very entry looked at: not something swapped in between, and not reached another way.
      if (fst.ino !== st.ino || fst.dev !== st.dev) throw confinementRefusal(userPath, 'was replaced while it was being opened');
      const opened = await c.verifyDescriptor(userPath, handle);
      if (opened !== null && opened !== real) throw confinementRefusal(userPath, 'was moved or replaced while it was being opened');
      if (opts.singleLink && fst.nlink > 1) throw confinementRefusal(userPath, `has ${fst.nlink} hard links (a file read here must have one)`);
      if (fst.size > opts.maxBytes) throw new NoFollowTooLarge(userPath, fst.size, opts.maxBytes);
      const buf = Buffer.alloc(opts.maxBytes + 1);
      let filled = 0;
      while (filled < buf.length) {
        const { bytesRead } = await handle.read(buf, filled, buf.length - filled, filled);
        if (bytesRead === 0) break;
        filled += bytesRead;
      }
      if (filled > opts.maxBytes) throw new NoFollowTooLarge(userPath, filled, opts.maxBytes);
      return { bytes: buf.subarray(0, filled), real, st: fst };
    } finally {
      await handle.close().catch(() => undefined);
    }
  } finally {
    await dir.handle.close().catch(() => undefined);
  }
}
