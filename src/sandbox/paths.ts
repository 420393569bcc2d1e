// The path sandbox (SPEC §9.5): the only way tools touch files. The session workspace
// (plus explicitly added directories) is a hard boundary: paths are checked lexically,
// then by their real (symlink-resolved) location, and what was actually opened is verified
// through the descriptor before a byte is read or written.
import { constants as C } from 'node:fs';
import fs from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { randomBytes } from 'node:crypto';

export const MAX_PATH_LENGTH = 4096;

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
}

export class Workspace {
  private constructor(
    /** Real path of the workspace directory. */
    readonly root: string,
    private readonly roots: readonly string[],
  ) {}

  /** Opens a workspace on an existing directory; extra roots are further allowed directories. */
  static async open(dir: string, extraDirs: readonly string[] = []): Promise<Workspace> {
    const root = await fs.realpath(dir);
    const st = await fs.stat(root);
    if (!st.isDirectory()) throw new Error(`workspace ${dir} is not a directory`);
    const extras = await Promise.all(extraDirs.map((d) => fs.realpath(d)));
    return new Workspace(root, [root, ...extras]);
  }

  isInside(absPath: string): boolean {
    return this.roots.some((r) => absPath === r || absPath.startsWith(r.endsWith(path.sep) ? r : r + path.sep));
  }

  /** How a path is shown to the model: relative to the workspace when inside it. */
  display(absPath: string): string {
    if (absPath === this.root) return '.';
    return absPath.startsWith(this.root + path.sep) ? path.relative(this.root, absPath) : absPath;
  }

  /** Lexical check: NUL bytes, length, and `..`/absolute paths that leave the boundary. */
  resolve(userPath: string): string {
    if (userPath.length === 0) throw new PathRefusal(userPath, 'empty path');
    if (userPath.includes('\0')) throw new PathRefusal(JSON.stringify(userPath), 'contains a NUL byte');
    if (userPath.length > MAX_PATH_LENGTH) {
      throw new PathRefusal(`${userPath.slice(0, 64)}…`, `path longer than ${MAX_PATH_LENGTH} characters`);
    }
    const abs = path.isAbsolute(userPath) ? path.normalize(userPath) : path.resolve(this.root, userPath);
    const trimmed = abs.length > 1 && abs.endsWith(path.sep) ? abs.slice(0, -1) : abs;
    if (!this.isInside(trimmed)) throw new PathRefusal(userPath, 'outside the workspace');
    return trimmed;
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

  /** Checks that the descriptor really is inside (defeats swaps between the check and the open). */
  private async verifyDescriptor(userPath: string, handle: FileHandle): Promise<void> {
    let opened: string;
    try {
      opened = await fs.readlink(`/proc/self/fd/${handle.fd}`);
    } catch {
      return; // No /proc (not Linux): the realpath check and O_NOFOLLOW stand alone.
    }
    if (!this.isInside(opened)) {
      await handle.close();
      throw new PathRefusal(userPath, 'was swapped for a path outside the workspace while opening');
    }
  }

  /** Opens a regular file for reading. Never opens FIFOs, devices or sockets (no hang). */
  async openForRead(userPath: string): Promise<OpenedFile> {
    const abs = this.resolve(userPath);
    const real = await this.realInside(userPath, abs);
    let handle: FileHandle;
    try {
      // O_NONBLOCK: opening a FIFO must not block; O_NOFOLLOW: the final component was
      // already resolved, so a link appearing now is a swap.
      handle = await fs.open(real, C.O_RDONLY | C.O_NOFOLLOW | C.O_NONBLOCK);
    } catch (err) {
      throw refusalFromErrno(userPath, err);
    }
    await this.verifyDescriptor(userPath, handle);
    const st = await handle.stat();
    if (!st.isFile()) {
      await handle.close();
      throw new PathRefusal(userPath, st.isDirectory() ? 'is a directory' : `is not a regular file (${fileKind(st)})`);
    }
    return { handle, path: abs, size: st.size, mtimeMs: st.mtimeMs };
  }

  /** Lists a directory inside the boundary. */
  async readDirectory(userPath: string): Promise<{ path: string; real: string; entries: import('node:fs').Dirent[] }> {
    const abs = this.resolve(userPath);
    const real = await this.realInside(userPath, abs);
    const st = await fs.stat(real);
    if (!st.isDirectory()) throw new PathRefusal(userPath, 'is not a directory');
    const entries = await fs.readdir(real, { withFileTypes: true });
    return { path: abs, real, entries };
  }

  /** Real path of an existing entry, refused when it leads outside. */
  async real(userPath: string): Promise<string> {
    return this.realInside(userPath, this.resolve(userPath));
  }

  /**
   * Writes a file atomically (temp file in the same directory, fsync, rename). Parent
   * directories are created inside the boundary. Refuses symlinks and multiply-linked files
   * as targets and never truncates the existing file: on any refusal nothing changes.
   */
  async writeFileAtomic(userPath: string, data: string): Promise<{ path: string; created: boolean; previous: string | null }> {
    const abs = this.resolve(userPath);
    if (abs === this.root) throw new PathRefusal(userPath, 'is the workspace directory');
    const parentReal = await this.ensureDirectory(userPath, path.dirname(abs));
    const target = path.join(parentReal, path.basename(abs));

    let previous: string | null = null;
    let mode = 0o644;
    let created = true;
    try {
      const st = await fs.lstat(target);
      if (st.isSymbolicLink()) throw new PathRefusal(userPath, 'is a symlink (write to its target instead)');
      if (!st.isFile()) throw new PathRefusal(userPath, `is not a regular file (${fileKind(st)})`);
      if (st.nlink > 1) throw new PathRefusal(userPath, 'has more than one hard link');
      created = false;
      mode = st.mode & 0o777;
      const existing = await this.openForRead(userPath);
      try {
        previous = await existing.handle.readFile('utf8');
      } finally {
        await existing.handle.close();
      }
    } catch (err) {
      if (err instanceof PathRefusal) throw err;
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw refusalFromErrno(userPath, err);
    }

    const tmp = path.join(parentReal, `.${path.basename(abs)}.${randomBytes(6).toString('hex')}.tmp`);
    let handle: FileHandle;
    try {
      handle = await fs.open(tmp, C.O_WRONLY | C.O_CREAT | C.O_EXCL | C.O_NOFOLLOW, mode);
    } catch (err) {
      throw refusalFromErrno(userPath, err);
    }
    try {
      await this.verifyDescriptor(userPath, handle);
      await handle.writeFile(data, 'utf8');
      await handle.sync();
    } catch (err) {
      await handle.close().catch(() => undefined);
      await fs.unlink(tmp).catch(() => undefined);
      throw err instanceof PathRefusal ? err : refusalFromErrno(userPath, err);
    }
    await handle.close();
    try {
      // The parent may have been swapped since it was checked: check again right before rename.
      const parentNow = await fs.realpath(path.dirname(abs));
      if (parentNow !== parentReal) throw new PathRefusal(userPath, 'parent directory changed while writing');
      await fs.rename(tmp, target);
    } catch (err) {
      await fs.unlink(tmp).catch(() => undefined);
      throw err instanceof PathRefusal ? err : refusalFromErrno(userPath, err);
    }
    return { path: abs, created, previous };
  }

  /** Creates missing directories one level at a time, each checked to stay inside. */
  private async ensureDirectory(userPath: string, absDir: string): Promise<string> {
    const root = this.roots.find((r) => absDir === r || absDir.startsWith(r + path.sep));
    if (root === undefined) throw new PathRefusal(userPath, 'outside the workspace');
    const parts = path.relative(root, absDir).split(path.sep).filter((p) => p !== '');
    let current = root;
    for (const part of parts) {
      current = path.join(current, part);
      let st;
      try {
        st = await fs.lstat(current);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw refusalFromErrno(userPath, err);
        try {
          await fs.mkdir(current);
        } catch (mkErr) {
          if ((mkErr as NodeJS.ErrnoException).code !== 'EEXIST') throw refusalFromErrno(userPath, mkErr);
        }
        st = await fs.lstat(current);
      }
      if (st.isSymbolicLink()) {
        const real = await this.realInside(userPath, current);
        if (!(await fs.stat(real)).isDirectory()) throw new PathRefusal(userPath, `${this.display(current)} is not a directory`);
      } else if (!st.isDirectory()) {
        throw new PathRefusal(userPath, `${this.display(current)} is not a directory`);
      }
    }
    return this.realInside(userPath, absDir);
  }
}

function fileKind(st: import('node:fs').Stats): string {
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
    default:
      return new PathRefusal(userPath, (err as Error).message ?? String(err));
  }
}
