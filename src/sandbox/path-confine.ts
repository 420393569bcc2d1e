// Confinement by descriptor: every file the sandbox touches is reached through a directory
// descriptor that was verified to be inside the boundary. Node has no openat(), so a child of an
// open directory is named `/proc/self/fd/<dirfd>/<name>`: the kernel looks `name` up in the very
// directory the descriptor holds, so swapping a path component for a symlink after the check
// cannot redirect an open, mkdir or rename. What was opened is verified through the descriptor
// (fstat + /proc/self/fd) before a byte is read or written.
import { constants as C } from 'node:fs';
import type { Stats } from 'node:fs';
import fs from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { PathRefusal, confinementRefusal, fileKind, refusalFromErrno } from './path-refusal.js';
import { ownerForCreated } from './ownership.js';

/** An open directory verified to be inside the boundary; children are reached through it. */
export interface Anchor {
  /** Closed by whoever opened the anchor (closing the workspace root's kept descriptor does nothing). */
  handle: Pick<FileHandle, 'fd' | 'close'>;
  /** Its real path, as the kernel reports it for the descriptor. */
  real: string;
}

// O_NOFOLLOW: a symlink in the last component is never followed implicitly (it is resolved
// and checked explicitly instead). O_NONBLOCK: opening a FIFO cannot hang. O_NOCTTY: a
// terminal never becomes the controlling tty. O_DIRECTORY: only directories are opened, so
// a device or FIFO planted where a directory is expected is never opened at all.
export const DIR_FLAGS = C.O_RDONLY | C.O_DIRECTORY | C.O_NOFOLLOW;
export const READ_FLAGS = C.O_RDONLY | C.O_NOFOLLOW | C.O_NONBLOCK | C.O_NOCTTY;
export const CREATE_FLAGS = C.O_WRONLY | C.O_CREAT | C.O_EXCL | C.O_NOFOLLOW;

/** A workspace root's kept descriptor, and how many walks use it now. */
interface KeptRoot {
  handle: Promise<FileHandle>;
  users: number;
  retired: boolean;
}

/** At most this many workspace roots keep their descriptor open at once (the others open it each time). */
const MAX_KEPT_ROOTS = 256;
let keptRoots = 0;

let procFdAvailable: Promise<boolean> | undefined;
/** Whether /proc/self/fd works (Linux with procfs): then every open is anchored and verified. */
export function procFd(): Promise<boolean> {
  procFdAvailable ??= fs.stat('/proc/self/fd').then(
    (st) => st.isDirectory(),
    () => false,
  );
  return procFdAvailable;
}

/** `p` is `dir` or below it (a separator-aware prefix check: /x/ws-evil is not under /x/ws). */
export function within(p: string, dir: string): boolean {
  return p === dir || p.startsWith(dir.endsWith(path.sep) ? dir : dir + path.sep);
}

/** The directories of a boundary, and the verified ways of opening what is inside them. */
export class Confinement {
  /** Real path of the workspace directory. */
  readonly root: string;
  private readonly allowed: string[];
  /** Allowed directories nothing is ever created or written in (a used skill's folder). */
  private readonly readOnly: string[] = [];
  /**
   * With `keepRoot`: the workspace directory's descriptor, opened once and kept until `close`.
   * It is verified again (readlink of /proc/self/fd) at every use, so a workspace moved or removed
   * meanwhile is opened afresh, never trusted: every walk from the root saves an open and a close.
   * A descriptor let go of is closed only once no walk uses it (its number is never reused under one).
   */
  private kept: KeptRoot | null = null;
  private keeping = false;
  private closed = false;

  constructor(
    /** Real paths of the allowed directories; the first is the workspace. */
    roots: readonly string[],
    /** Whether /proc/self/fd works, so that opens are anchored and verified. */
    readonly anchored: boolean,
  ) {
    this.allowed = [...roots];
    this.root = roots[0]!;
  }

  /** Real paths of the allowed directories; the first is the workspace. */
  get roots(): readonly string[] {
    return this.allowed;
  }

  /** Allows reading below `real` (a real, absolute directory path), never writing. */
  addReadOnlyRoot(real: string): void {
    if (!path.isAbsolute(real) || path.normalize(real) !== real) throw new Error(`internal: ${real} is not a normalised absolute path`);
    if (this.readOnly.includes(real)) return;
    this.readOnly.push(real);
    if (!this.allowed.includes(real)) this.allowed.push(real);
  }

  isInside(absPath: string): boolean {
    return this.allowed.some((r) => within(absPath, r));
  }

  /** Inside a read-only directory (by real path): nothing may be created or written there. */
  isReadOnly(absReal: string): boolean {
    return this.readOnly.some((r) => within(absReal, r));
  }

  /** How a path is shown to the model: relative to the workspace when inside it. */
  display(absPath: string): string {
    if (absPath === this.root) return '.';
    return absPath.startsWith(this.root + path.sep) ? path.relative(this.root, absPath) : absPath;
  }

  /** The real location of an existing path; refused when a symlink on the way leads out. */
  async realInside(userPath: string, abs: string): Promise<string> {
    let real: string;
    try {
      real = await fs.realpath(abs);
    } catch (err) {
      throw refusalFromErrno(userPath, err);
    }
    if (!this.isInside(real)) throw confinementRefusal(userPath, 'resolves through a symlink to outside the workspace');
    return real;
  }

  /**
   * What a descriptor really is: its path as the kernel reports it, refused unless inside.
   * Fails closed: when /proc is there but the descriptor cannot be resolved (e.g. a path
   * longer than PATH_MAX), the open is refused rather than trusted. Returns null without /proc.
   * Does not close the handle; callers do.
   */
  async verifyDescriptor(userPath: string, handle: Pick<FileHandle, 'fd'>): Promise<string | null> {
    if (!this.anchored) return null;
    let opened: string;
    try {
      opened = await fs.readlink(`/proc/self/fd/${handle.fd}`);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      throw confinementRefusal(userPath, code === 'ENAMETOOLONG' ? 'name too long (what was opened cannot be verified)' : 'what was opened cannot be verified');
    }
    if (!this.isInside(opened)) throw confinementRefusal(userPath, 'was swapped for a path outside the workspace while opening');
    return opened;
  }

  /** The path of `name` inside an anchored directory (openat() for Node). */
  at(dir: Anchor, name: string): string {
    if (name === '' || name === '.' || name === '..' || name.includes(path.sep)) {
      throw new Error(`internal: ${JSON.stringify(name)} is not a single path component`);
    }
    return this.anchored ? `/proc/self/fd/${dir.handle.fd}/${name}` : path.join(dir.real, name);
  }

  /** Keeps the workspace directory's descriptor open from its first use until `close` (see `kept`). */
  keepRoot(): void {
    this.keeping = true;
  }

  /** Lets go of the kept descriptor (closed once no walk uses it); later walks open the root each time. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.kept) this.retire(this.kept);
  }

  private retire(k: KeptRoot): void {
    if (this.kept === k) this.kept = null;
    if (k.retired) return;
    k.retired = true;
    keptRoots--;
    if (k.users === 0) void k.handle.then((h) => h.close()).catch(() => undefined);
  }

  private release(k: KeptRoot): void {
    k.users--;
    if (k.retired && k.users === 0) void k.handle.then((h) => h.close()).catch(() => undefined);
  }

  /** The workspace directory, verified: the kept descriptor while it is still the workspace, else opened now. */
  private async openRoot(userPath: string): Promise<Anchor> {
    if (!this.keeping || this.closed || !this.anchored) return this.openVerifiedDir(userPath, this.root, this.root);
    let k = this.kept;
    if (!k) {
      if (keptRoots >= MAX_KEPT_ROOTS) return this.openVerifiedDir(userPath, this.root, this.root);
      keptRoots++;
      k = this.kept = { handle: fs.open(this.root, DIR_FLAGS), users: 0, retired: false };
    }
    k.users++;
    let real: string | null = null;
    let fd = -1;
    try {
      const handle = await k.handle;
      fd = handle.fd;
      real = await this.verifyDescriptor(userPath, handle);
    } catch {
      // Not opened, or moved or removed since: let it go, and open the workspace as it is now.
    }
    if (real === this.root && !k.retired) {
      const used = k;
      let released = false;
      return {
        handle: {
          fd,
          close: async () => {
            if (!released) this.release(used);
            released = true;
          },
        },
        real,
      };
    }
    this.release(k);
    this.retire(k);
    return this.openVerifiedDir(userPath, this.root, this.root);
  }

  /** Opens a directory by path and verifies the descriptor. */
  private async openVerifiedDir(userPath: string, dirPath: string, lexical: string): Promise<Anchor> {
    let handle: FileHandle;
    try {
      handle = await fs.open(dirPath, DIR_FLAGS);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOTDIR' || code === 'ELOOP') throw new PathRefusal(userPath, `${this.display(lexical)} is not a directory`);
      throw refusalFromErrno(userPath, err);
    }
    try {
      return { handle, real: (await this.verifyDescriptor(userPath, handle)) ?? dirPath };
    } catch (err) {
      await handle.close().catch(() => undefined);
      throw err;
    }
  }

  /**
   * Opens `absDir` one component at a time from the root that contains it. Each component is
   * looked up inside the previous verified descriptor with O_NOFOLLOW, so no swap after a check
   * can redirect the walk. A component that is a symlink is allowed only when it resolves inside
   * (to a directory), and what it opened is verified. With `create`, missing components are made
   * through the same descriptor, so a directory is never created outside.
   */
  async openDir(userPath: string, absDir: string, create: boolean): Promise<Anchor> {
    const root = this.roots.find((r) => within(absDir, r));
    if (root === undefined) throw confinementRefusal(userPath, 'outside the workspace');
    let cur = root === this.root ? await this.openRoot(userPath) : await this.openVerifiedDir(userPath, root, root);
    // Where something may be created, every directory on the way is checked by what it really
    // is: a link in the workspace to a read-only folder cannot lead a mkdir or a write there.
    const writable = (a: Anchor) => {
      if (create && this.isReadOnly(a.real)) throw confinementRefusal(userPath, 'is in a read-only folder (a skill\'s); nothing can be written there');
    };
    try {
      writable(cur);
      let lexical = root;
      for (const part of path.relative(root, absDir).split(path.sep).filter((p) => p !== '')) {
        lexical = path.join(lexical, part);
        const next = await this.openChildDir(userPath, cur, part, lexical, create);
        const prev = cur;
        cur = next;
        await prev.handle.close();
        writable(cur);
      }
      return cur;
    } catch (err) {
      await cur.handle.close().catch(() => undefined);
      throw err;
    }
  }

  private async openChildDir(userPath: string, dir: Anchor, part: string, lexical: string, create: boolean): Promise<Anchor> {
    const child = this.at(dir, part);
    let made = false;
    if (create) {
      try {
        await fs.mkdir(child);
        made = true;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw refusalFromErrno(userPath, err);
      }
    }
    try {
      const handle = await fs.open(child, DIR_FLAGS);
      try {
        const real = (await this.verifyDescriptor(userPath, handle)) ?? path.join(dir.real, part);
        // A directory made here belongs to the workspace root's owner, like the files in it (ownership.ts).
        const owner = made ? await ownerForCreated(this.roots.find((r) => within(dir.real, r)) ?? this.root) : null;
        if (owner) await handle.chown(owner.uid, owner.gid);
        return { handle, real };
      } catch (err) {
        await handle.close().catch(() => undefined);
        throw err;
      }
    } catch (err) {
      if (err instanceof PathRefusal) throw err;
      const code = (err as NodeJS.ErrnoException).code;
      // O_DIRECTORY|O_NOFOLLOW on a symlink fails with ENOTDIR (or ELOOP): look closer below.
      if (code !== 'ENOTDIR' && code !== 'ELOOP') throw refusalFromErrno(userPath, err);
    }
    let st: Stats;
    try {
      st = await fs.lstat(child);
    } catch (err) {
      throw refusalFromErrno(userPath, err);
    }
    if (!st.isSymbolicLink()) throw new PathRefusal(userPath, `${this.display(lexical)} is not a directory`);
    const real = await this.realInside(userPath, child);
    return this.openVerifiedDir(userPath, real, lexical);
  }

  /** Opens an existing regular file by anchored path and re-checks it on the descriptor. */
  async openRegular(userPath: string, filePath: string): Promise<{ handle: FileHandle; st: Stats }> {
    let handle: FileHandle;
    try {
      handle = await fs.open(filePath, READ_FLAGS);
    } catch (err) {
      throw refusalFromErrno(userPath, err);
    }
    try {
      await this.verifyDescriptor(userPath, handle);
      const st = await handle.stat();
      if (!st.isFile()) throw new PathRefusal(userPath, st.isDirectory() ? 'is a directory' : `is not a regular file (${fileKind(st)})`);
      return { handle, st };
    } catch (err) {
      await handle.close().catch(() => undefined);
      throw err instanceof PathRefusal ? err : refusalFromErrno(userPath, err);
    }
  }
}
