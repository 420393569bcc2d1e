// The path sandbox (SPEC §9.5): the only way tools touch files. The session workspace
// (plus explicitly added directories) is a hard boundary: paths are checked lexically,
// then by their real (symlink-resolved) location, and then used only through directory
// descriptors that were verified to be inside (path-confine.ts). What was opened is verified
// through the descriptor before a byte is read or written; writes replace a file atomically
// (atomic-write.ts); refusals name the path and the rule it broke (path-refusal.ts).
import type { Dirent, Stats } from 'node:fs';
import fs from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { writeFileAtomic } from './atomic-write.js';
import { Confinement, DIR_FLAGS, procFd, within } from './path-confine.js';
import { PathRefusal, confinementRefusal, fileKind, refusalFromErrno } from './path-refusal.js';

export { PathRefusal } from './path-refusal.js';

export const MAX_PATH_LENGTH = 4096;
/** Longest file name most filesystems accept, in bytes. */
export const MAX_NAME_BYTES = 255;

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

export class Workspace {
  /** Real path of the workspace directory. */
  readonly root: string;

  private constructor(
    private readonly confined: Confinement,
    /** [path as given, real path] for roots opened through a symlink: the given spelling is accepted too. */
    private readonly aliases: ReadonlyArray<readonly [string, string]>,
  ) {
    this.root = confined.root;
  }

  /**
   * Opens a workspace on an existing directory; extra roots are further allowed directories.
   * `keepRoot`: the directory's descriptor is kept open for the walks from it until `close`.
   */
  static async open(dir: string, extraDirs: readonly string[] = [], opts: { keepRoot?: boolean } = {}): Promise<Workspace> {
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
    const confined = new Confinement(reals, await procFd());
    if (opts.keepRoot) confined.keepRoot();
    return new Workspace(confined, aliases);
  }

  /** Lets go of what the workspace keeps open (the root's descriptor); it still works after, opening it each time. */
  close(): Promise<void> {
    return this.confined.close();
  }

  isInside(absPath: string): boolean {
    return this.confined.isInside(absPath);
  }

  /**
   * Lets the file tools read below `real` (a real directory path, e.g. a used skill's folder)
   * without ever writing there; what is inside is shown by its absolute path.
   */
  addReadOnlyRoot(real: string): void {
    this.confined.addReadOnlyRoot(real);
  }

  /** How a path is shown to the model: relative to the workspace when inside it. */
  display(absPath: string): string {
    return this.confined.display(absPath);
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
    if (inside === undefined) throw confinementRefusal(userPath, 'outside the workspace');
    // Past PATH_MAX the kernel can no longer report what a descriptor is, so such a path could
    // not be verified; refuse it before a parent directory is created for it.
    if (Buffer.byteLength(inside) >= MAX_PATH_LENGTH) {
      throw new PathRefusal(`${userPath.slice(0, 64)}…`, `path longer than ${MAX_PATH_LENGTH} bytes once made absolute`);
    }
    return inside;
  }

  /** Opens a regular file for reading. Never opens FIFOs, devices or sockets (no hang, no side effects). */
  async openForRead(userPath: string): Promise<OpenedFile> {
    const abs = this.resolve(userPath);
    const real = await this.confined.realInside(userPath, abs);
    if (this.confined.roots.includes(real)) throw new PathRefusal(userPath, 'is a directory');
    const dir = await this.confined.openDir(userPath, path.dirname(real), false);
    try {
      const target = this.confined.at(dir, path.basename(real));
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
      const { handle, st: fst } = await this.confined.openRegular(userPath, target);
      return { handle, path: abs, size: fst.size, mtimeMs: fst.mtimeMs, nlink: fst.nlink };
    } finally {
      await dir.handle.close().catch(() => undefined);
    }
  }

  /** Lists a directory inside the boundary (read through its verified descriptor). */
  async readDirectory(userPath: string): Promise<{ path: string; real: string; entries: Dirent[] }> {
    const abs = this.resolve(userPath);
    const real = await this.confined.realInside(userPath, abs);
    let st: Stats;
    try {
      st = await fs.stat(real);
    } catch (err) {
      throw refusalFromErrno(userPath, err);
    }
    if (!st.isDirectory()) throw new PathRefusal(userPath, 'is not a directory');
    const dir = await this.confined.openDir(userPath, real, false);
    try {
      let entries: Dirent[];
      try {
        entries = await fs.readdir(this.confined.anchored ? `/proc/self/fd/${dir.handle.fd}` : dir.real, { withFileTypes: true });
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
      throw confinementRefusal(realDir, 'outside the workspace');
    }
    if (!this.confined.anchored) return (await this.readDirectory(realDir)).entries;
    let handle: FileHandle;
    try {
      handle = await fs.open(realDir, DIR_FLAGS);
    } catch (err) {
      throw refusalFromErrno(realDir, err);
    }
    try {
      const opened = await this.confined.verifyDescriptor(realDir, handle);
      if (opened !== realDir) throw confinementRefusal(realDir, 'changed while it was being listed');
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
    return this.confined.realInside(userPath, this.resolve(userPath));
  }

  /**
   * Writes a file atomically (temp file in the same directory, fsync, rename). Parent
   * directories are created inside the boundary. Refuses symlinks, special files, read-only
   * and multiply-linked files as targets and never truncates or writes through the existing
   * file: the rename replaces the name. On any refusal nothing changes.
   */
  async writeFileAtomic(userPath: string, data: string): Promise<{ path: string; created: boolean; previous: string | null }> {
    return writeFileAtomic(this.confined, userPath, this.resolve(userPath), data);
  }
}
