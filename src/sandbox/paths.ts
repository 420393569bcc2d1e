// The path sandbox (SPEC §9.5): the only way tools touch files. The session workspace
// (plus explicitly added directories) is a hard boundary: paths are checked lexically,
// then by their real (symlink-resolved) location, and then used only through directory
// descriptors that were verified to be inside. Node has no openat(), so a child of an open
// directory is named `/proc/self/fd/<dirfd>/<name>`: the kernel looks `name` up in the very
// directory the descriptor holds, so swapping a path component for a symlink after the check
// cannot redirect an open, mkdir or rename. What was opened is verified through the
// descriptor (fstat + /proc/self/fd) before a byte is read or written.
import { constants as C } from 'node:fs';
import type { Dirent, Stats } from 'node:fs';
import fs from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { randomBytes } from 'node:crypto';

export const MAX_PATH_LENGTH = 4096;
/** Longest file name most filesystems accept, in bytes. */
export const MAX_NAME_BYTES = 255;

/** A refusal that names the path and the rule it broke. */
export class PathRefusal extends Error {
  constructor(
    readonly userPath: string,
    readonly rule: string,
  ) {
    super(`${userPath}: ${rule}`);
    this.name = 'PathRefusal';
  }
}

export interface OpenedFile {
  handle: FileHandle;
  /** Absolute path as the user named it (inside the workspace). */
  path: string;
  size: number;
  /** Modification time, for "changed since it was read" checks. */
  mtimeMs: number;
  /** Hard-link count. Reading a multiply-linked file is allowed; writing one is refused. */
  nlink: number;
}

/** An open directory verified to be inside the boundary; children are reached through it. */
interface Anchor {
  handle: FileHandle;
  /** Its real path, as the kernel reports it for the descriptor. */
  real: string;
}

// O_NOFOLLOW: a symlink in the last component is never followed implicitly (it is resolved
// and checked explicitly instead). O_NONBLOCK: opening a FIFO cannot hang. O_NOCTTY: a
// terminal never becomes the controlling tty. O_DIRECTORY: only directories are opened, so
// a device or FIFO planted where a directory is expected is never opened at all.
const DIR_FLAGS = C.O_RDONLY | C.O_DIRECTORY | C.O_NOFOLLOW;
const READ_FLAGS = C.O_RDONLY | C.O_NOFOLLOW | C.O_NONBLOCK | C.O_NOCTTY;
const CREATE_FLAGS = C.O_WRONLY | C.O_CREAT | C.O_EXCL | C.O_NOFOLLOW;

let procFdAvailable: Promise<boolean> | undefined;
/** Whether /proc/self/fd works (Linux with procfs): then every open is anchored and verified. */
function procFd(): Promise<boolean> {
  procFdAvailable ??= fs.stat('/proc/self/fd').then(
    (st) => st.isDirectory(),
    () => false,
  );
  return procFdAvailable;
}

/** `p` is `dir` or below it (a separator-aware prefix check: /x/ws-evil is not under /x/ws). */
function within(p: string, dir: string): boolean {
  return p === dir || p.startsWith(dir.endsWith(path.sep) ? dir : dir + path.sep);
}

export class Workspace {
  private constructor(
    /** Real path of the workspace directory. */
    readonly root: string,
    private readonly roots: readonly string[],
    /** [path as given, real path] for roots opened through a symlink: the given spelling is accepted too. */
    private readonly aliases: ReadonlyArray<readonly [string, string]>,
    private readonly anchored: boolean,
  ) {}

  /** Opens a workspace on an existing directory; extra roots are further allowed directories. */
  static async open(dir: string, extraDirs: readonly string[] = []): Promise<Workspace> {
    const reals: string[] = [];
    const aliases: Array<readonly [string, string]> = [];
    for (const [i, d] of [dir, ...extraDirs].entries()) {
      const real = await fs.realpath(d);
      if (!(await fs.stat(real)).isDirectory()) throw new Error(`${i === 0 ? 'workspace' : 'added directory'} ${d} is not a directory`);
      reals.push(real);
      // The alias is mapped lexically onto the real path captured now, so re-pointing the
      // link later cannot move the boundary.
      const given = path.resolve(d);
      if (given !== real) aliases.push([given, real]);
    }
    return new Workspace(reals[0]!, reals, aliases, await procFd());
  }

  isInside(absPath: string): boolean {
    return this.roots.some((r) => within(absPath, r));
  }

  /** How a path is shown to the model: relative to the workspace when inside it. */
  display(absPath: string): string {
    if (absPath === this.root) return '.';
    return absPath.startsWith(this.root + path.sep) ? path.relative(this.root, absPath) : absPath;
  }

  /** Lexical check: NUL bytes, length, and `..`/absolute paths that leave the boundary. No decoding of any kind. */
  resolve(userPath: string): string {
    if (userPath.length === 0) throw new PathRefusal(userPath, 'empty path');
    if (userPath.includes('\0')) throw new PathRefusal(JSON.stringify(userPath), 'contains a NUL byte');
    if (userPath.length > MAX_PATH_LENGTH) {
      throw new PathRefusal(`${userPath.slice(0, 64)}…`, `path longer than ${MAX_PATH_LENGTH} characters`);
    }
    // Refused before anything is touched (a write would otherwise create the parents first).
    if (userPath.split(path.sep).some((c) => Buffer.byteLength(c) > MAX_NAME_BYTES)) {
      throw new PathRefusal(`${userPath.slice(0, 64)}…`, 'name too long');
    }
    const abs = path.isAbsolute(userPath) ? path.normalize(userPath) : path.resolve(this.root, userPath);
    const trimmed = abs.length > 1 && abs.endsWith(path.sep) ? abs.slice(0, -1) : abs;
    let inside: string | undefined = this.isInside(trimmed) ? trimmed : undefined;
    for (const [alias, real] of this.aliases) {
      if (inside === undefined && within(trimmed, alias)) inside = real + trimmed.slice(alias.length);
    }
    if (inside === undefined) throw new PathRefusal(userPath, 'outside the workspace');
    // Past PATH_MAX the kernel can no longer report what a descriptor is, so such a path could
    // not be verified; refuse it before a parent directory is created for it.
    if (Buffer.byteLength(inside) >= MAX_PATH_LENGTH) {
      throw new PathRefusal(`${userPath.slice(0, 64)}…`, `path longer than ${MAX_PATH_LENGTH} bytes once made absolute`);
    }
    return inside;
  }

  /** The real location of an existing path; refused when a symlink on the way leads out. */
  private async realInside(userPath: string, abs: string): Promise<string> {
    let real: string;
    try {
      real = await fs.realpath(abs);
    } catch (err) {
      throw refusalFromErrno(userPath, err);
    }
    if (!this.isInside(real)) throw new PathRefusal(userPath, 'resolves through a symlink to outside the workspace');
    return real;
  }

  /**
   * What a descriptor really is: its path as the kernel reports it, refused unless inside.
   * Fails closed: when /proc is there but the descriptor cannot be resolved (e.g. a path
   * longer than PATH_MAX), the open is refused rather than trusted. Returns null without /proc.
   * Does not close the handle; callers do.
   */
  private async verifyDescriptor(userPath: string, handle: FileHandle): Promise<string | null> {
    if (!this.anchored) return null;
    let opened: string;
    try {
      opened = await fs.readlink(`/proc/self/fd/${handle.fd}`);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      throw new PathRefusal(userPath, code === 'ENAMETOOLONG' ? 'name too long (what was opened cannot be verified)' : 'what was opened cannot be verified');
    }
    if (!this.isInside(opened)) throw new PathRefusal(userPath, 'was swapped for a path outside the workspace while opening');
    return opened;
  }

  /** The path of `name` inside an anchored directory (openat() for Node). */
  private at(dir: Anchor, name: string): string {
    if (name === '' || name === '.' || name === '..' || name.includes(path.sep)) {
      throw new Error(`internal: ${JSON.stringify(name)} is not a single path component`);
    }
    return this.anchored ? `/proc/self/fd/${dir.handle.fd}/${name}` : path.join(dir.real, name);
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
  private async openDir(userPath: string, absDir: string, create: boolean): Promise<Anchor> {
    const root = this.roots.find((r) => within(absDir, r));
    if (root === undefined) throw new PathRefusal(userPath, 'outside the workspace');
    let cur = await this.openVerifiedDir(userPath, root, root);
    try {
      let lexical = root;
      for (const part of path.relative(root, absDir).split(path.sep).filter((p) => p !== '')) {
        lexical = path.join(lexical, part);
        const next = await this.openChildDir(userPath, cur, part, lexical, create);
        const prev = cur;
        cur = next;
        await prev.handle.close();
      }
      return cur;
    } catch (err) {
      await cur.handle.close().catch(() => undefined);
      throw err;
    }
  }

  private async openChildDir(userPath: string, dir: Anchor, part: string, lexical: string, create: boolean): Promise<Anchor> {
    const child = this.at(dir, part);
    if (create) {
      try {
        await fs.mkdir(child);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw refusalFromErrno(userPath, err);
      }
    }
    try {
      const handle = await fs.open(child, DIR_FLAGS);
      try {
        return { handle, real: (await this.verifyDescriptor(userPath, handle)) ?? path.join(dir.real, part) };
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
  private async openRegular(userPath: string, filePath: string): Promise<{ handle: FileHandle; st: Stats }> {
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

  /** Opens a regular file for reading. Never opens FIFOs, devices or sockets (no hang, no side effects). */
  async openForRead(userPath: string): Promise<OpenedFile> {
    const abs = this.resolve(userPath);
    const real = await this.realInside(userPath, abs);
    if (this.roots.includes(real)) throw new PathRefusal(userPath, 'is a directory');
    const dir = await this.openDir(userPath, path.dirname(real), false);
    try {
      const target = this.at(dir, path.basename(real));
      let st: Stats;
      try {
        st = await fs.lstat(target);
      } catch (err) {
        throw refusalFromErrno(userPath, err);
      }
      // Checked before opening: a device's open() alone can have effects. `real` has no links,
      // so a link here is a swap; O_NOFOLLOW and the descriptor checks cover later swaps.
      if (st.isSymbolicLink()) throw new PathRefusal(userPath, 'is a symlink (or a symlink loop)');
      if (!st.isFile()) throw new PathRefusal(userPath, st.isDirectory() ? 'is a directory' : `is not a regular file (${fileKind(st)})`);
      const { handle, st: fst } = await this.openRegular(userPath, target);
      return { handle, path: abs, size: fst.size, mtimeMs: fst.mtimeMs, nlink: fst.nlink };
    } finally {
      await dir.handle.close().catch(() => undefined);
    }
  }

  /** Lists a directory inside the boundary (read through its verified descriptor). */
  async readDirectory(userPath: string): Promise<{ path: string; real: string; entries: Dirent[] }> {
    const abs = this.resolve(userPath);
    const real = await this.realInside(userPath, abs);
    let st: Stats;
    try {
      st = await fs.stat(real);
    } catch (err) {
      throw refusalFromErrno(userPath, err);
    }
    if (!st.isDirectory()) throw new PathRefusal(userPath, 'is not a directory');
    const dir = await this.openDir(userPath, real, false);
    try {
      let entries: Dirent[];
      try {
        entries = await fs.readdir(this.anchored ? `/proc/self/fd/${dir.handle.fd}` : dir.real, { withFileTypes: true });
      } catch (err) {
        throw refusalFromErrno(userPath, err);
      }
      // Callers see the real directory, never the descriptor path (gone once it is closed).
      for (const e of entries) {
        e.parentPath = dir.real;
        Object.defineProperty(e, 'path', { value: dir.real, writable: true, configurable: true }); // deprecated alias
      }
      return { path: abs, real: dir.real, entries };
    } finally {
      await dir.handle.close().catch(() => undefined);
    }
  }

  /**
   * Lists a directory named by its real path, as a walk that listed its parent knows it: one
   * open, no walk from the root, whatever the depth. O_DIRECTORY|O_NOFOLLOW opens nothing but
   * a directory, and the listing is refused unless the descriptor is exactly `realDir` — so a
   * component swapped for a symlink meanwhile is detected, never listed.
   */
  async listRealDirectory(realDir: string): Promise<Dirent[]> {
    if (!path.isAbsolute(realDir) || path.normalize(realDir) !== realDir || !this.isInside(realDir)) {
      throw new PathRefusal(realDir, 'outside the workspace');
    }
    if (!this.anchored) return (await this.readDirectory(realDir)).entries;
    let handle: FileHandle;
    try {
      handle = await fs.open(realDir, DIR_FLAGS);
    } catch (err) {
      throw refusalFromErrno(realDir, err);
    }
    try {
      const opened = await this.verifyDescriptor(realDir, handle);
      if (opened !== realDir) throw new PathRefusal(realDir, 'changed while it was being listed');
      let entries: Dirent[];
      try {
        entries = await fs.readdir(`/proc/self/fd/${handle.fd}`, { withFileTypes: true });
      } catch (err) {
        throw refusalFromErrno(realDir, err);
      }
      for (const e of entries) {
        e.parentPath = realDir;
        Object.defineProperty(e, 'path', { value: realDir, writable: true, configurable: true }); // deprecated alias
      }
      return entries;
    } finally {
      await handle.close().catch(() => undefined);
    }
  }

  /** Real path of an existing entry, refused when it leads outside. */
  async real(userPath: string): Promise<string> {
    return this.realInside(userPath, this.resolve(userPath));
  }

  /**
   * Writes a file atomically (temp file in the same directory, fsync, rename). Parent
   * directories are created inside the boundary. Refuses symlinks, special files, read-only
   * and multiply-linked files as targets and never truncates or writes through the existing
   * file: the rename replaces the name. On any refusal nothing changes.
   */
  async writeFileAtomic(userPath: string, data: string): Promise<{ path: string; created: boolean; previous: string | null }> {
    const abs = this.resolve(userPath);
    if (this.roots.includes(abs)) throw new PathRefusal(userPath, 'is the workspace directory');
    // `dir/`, `dir/.` and `x/..` name directories; normalising them into a file name would
    // write somewhere the caller did not name.
    const last = userPath.split(path.sep).pop();
    if (last === '' || last === '.' || last === '..') throw new PathRefusal(userPath, 'names a directory, not a file');
    const name = path.basename(abs);
    const dir = await this.openDir(userPath, path.dirname(abs), true);
    try {
      const target = this.at(dir, name);
      let previous: string | null = null;
      let mode = 0o644;
      let created = true;
      let st: Stats | null = null;
      try {
        st = await fs.lstat(target);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw refusalFromErrno(userPath, err);
      }
      if (st !== null) {
        if (st.isSymbolicLink()) throw new PathRefusal(userPath, 'is a symlink (write to its target instead)');
        // Checked before opening: O_WRONLY on a FIFO would block and a device's open() has effects.
        if (!st.isFile()) throw new PathRefusal(userPath, `is not a regular file (${fileKind(st)})`);
        checkReplaceable(userPath, st);
        const existing = await this.openRegular(userPath, target);
        try {
          checkReplaceable(userPath, existing.st); // the descriptor is the truth if the name changed since
          previous = await existing.handle.readFile('utf8').catch((err: unknown) => Promise.reject(refusalFromErrno(userPath, err)));
        } finally {
          await existing.handle.close().catch(() => undefined);
        }
        created = false;
        mode = existing.st.mode & 0o777; // never carries set-id bits over
      }

      const tmp = this.at(dir, tempName(name));
      let handle: FileHandle;
      try {
        handle = await fs.open(tmp, CREATE_FLAGS, mode);
      } catch (err) {
        throw refusalFromErrno(userPath, err);
      }
      try {
        await this.verifyDescriptor(userPath, handle);
        if (!created) await handle.chmod(mode); // exact bits: the create mode is filtered by the umask
        await handle.writeFile(data, 'utf8');
        await handle.sync();
        await handle.close();
      } catch (err) {
        await handle.close().catch(() => undefined);
        await fs.unlink(tmp).catch(() => undefined);
        throw err instanceof PathRefusal ? err : refusalFromErrno(userPath, err);
      }
      try {
        // The rename goes through the anchored directory, so it cannot land outside. Refuse
        // anyway when the name the caller used no longer leads to that directory (it was moved
        // or swapped meanwhile): success would report a file the caller's path does not reach.
        await this.checkStillNamed(userPath, dir, path.dirname(abs));
        await fs.rename(tmp, target);
      } catch (err) {
        await fs.unlink(tmp).catch(() => undefined);
        throw err instanceof PathRefusal ? err : refusalFromErrno(userPath, err);
      }
      return { path: abs, created, previous };
    } finally {
      await dir.handle.close().catch(() => undefined);
    }
  }

  private async checkStillNamed(userPath: string, dir: Anchor, absDir: string): Promise<void> {
    const changed = new PathRefusal(userPath, 'parent directory changed while writing');
    const now = await fs.realpath(absDir).catch(() => null);
    if (now === null || now !== dir.real) throw changed;
    if (this.anchored && (await this.verifyDescriptor(userPath, dir.handle)) !== dir.real) throw changed;
  }
}

/** Refuses replacing a file that has other names or that nobody may write (root included). */
function checkReplaceable(userPath: string, st: Stats): void {
  if (st.nlink > 1) throw new PathRefusal(userPath, 'has more than one hard link');
  if (!writableByUs(st)) throw new PathRefusal(userPath, 'permission denied (the file is read-only)');
}

/**
 * Whether the file's mode lets this process write it. rename() only needs the directory to be
 * writable, and root bypasses modes entirely, so the check is explicit: a file without a write
 * bit that applies to us (for root: without any write bit) is read-only and is not replaced.
 */
function writableByUs(st: Stats): boolean {
  const uid = process.getuid?.();
  if (uid === undefined || uid === 0) return (st.mode & 0o222) !== 0;
  if (st.uid === uid) return (st.mode & 0o200) !== 0;
  const gids = [process.getgid?.(), ...(process.getgroups?.() ?? [])];
  if (gids.includes(st.gid)) return (st.mode & 0o020) !== 0;
  return (st.mode & 0o002) !== 0;
}

/** A hidden, unique temp name that stays within NAME_MAX whatever the target's length. */
function tempName(name: string): string {
  let stem = '';
  for (const ch of name) {
    if (Buffer.byteLength(stem + ch) > 64) break;
    stem += ch;
  }
  return `.${stem}.${randomBytes(6).toString('hex')}.tmp`;
}

function fileKind(st: Stats): string {
  if (st.isFIFO()) return 'a FIFO';
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isBlockDevice()) return 'a block device';
  if (st.isSocket()) return 'a socket';
  if (st.isSymbolicLink()) return 'a symlink';
  if (st.isDirectory()) return 'a directory';
  return 'a special file';
}

function refusalFromErrno(userPath: string, err: unknown): PathRefusal {
  const code = (err as NodeJS.ErrnoException).code;
  switch (code) {
    case 'ENOENT':
      return new PathRefusal(userPath, 'does not exist');
    case 'ELOOP':
      return new PathRefusal(userPath, 'is a symlink (or a symlink loop)');
    case 'EACCES':
    case 'EPERM':
      return new PathRefusal(userPath, 'permission denied');
    case 'ENOTDIR':
      return new PathRefusal(userPath, 'a component of the path is not a directory');
    case 'EISDIR':
      return new PathRefusal(userPath, 'is a directory');
    case 'ENAMETOOLONG':
      return new PathRefusal(userPath, 'name too long');
    case 'ENOSPC':
      return new PathRefusal(userPath, 'no space left on device');
    case 'ENXIO':
      return new PathRefusal(userPath, 'is not a regular file (no such device or address)');
    default:
      // "EIO: i/o error, open '/proc/self/fd/23/x'" → "EIO: i/o error": descriptor paths mean nothing to the caller.
      return new PathRefusal(userPath, code !== undefined ? String((err as Error).message).split(',')[0]! : String(err));
  }
}
