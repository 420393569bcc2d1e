// Replacing a file's contents inside the boundary so that a reader sees either the old file or
// the new one, never a half-written one, and so that a crash mid-write leaves the old file whole:
// the new contents go to a temp file in the same directory, are fsynced, and are renamed over the
// name. Every step goes through the verified directory descriptor (path-confine.ts).
import type { Stats } from 'node:fs';
import fs from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { CREATE_FLAGS, within, type Anchor, type Confinement } from './path-confine.js';
import { ownerForCreated } from './ownership.js';
import { PathRefusal, fileKind, refusalFromErrno } from './path-refusal.js';

/**
 * What Workspace.writeFileAtomic does once the path is resolved: parent directories are created
 * inside the boundary; symlinks, special files, read-only and multiply-linked files are refused
 * as targets; the existing file is never truncated or written through (the rename replaces the
 * name). On any refusal nothing changes.
 */
export async function writeFileAtomic(
  c: Confinement,
  userPath: string,
  /** `userPath` resolved (lexically checked) inside the boundary. */
  abs: string,
  data: string,
): Promise<{ path: string; created: boolean; previous: string | null }> {
  if (c.roots.includes(abs)) throw new PathRefusal(userPath, 'is the workspace directory');
  // `dir/`, `dir/.` and `x/..` name directories; normalising them into a file name would
  // write somewhere the caller did not name.
  const last = userPath.split(path.sep).pop();
  if (last === '' || last === '.' || last === '..') throw new PathRefusal(userPath, 'names a directory, not a file');
  const name = path.basename(abs);
  const dir = await c.openDir(userPath, path.dirname(abs), true);
  try {
    const target = c.at(dir, name);
    let previous: string | null = null;
    let mode = 0o644;
    let created = true;
    let st: Stats | null = null;
    let replacedOwner: { uid: number; gid: number } | null = null;
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
      const existing = await c.openRegular(userPath, target);
      try {
        checkReplaceable(userPath, existing.st); // the descriptor is the truth if the name changed since
        previous = await existing.handle.readFile('utf8').catch((err: unknown) => Promise.reject(refusalFromErrno(userPath, err)));
      } finally {
        await existing.handle.close().catch(() => undefined);
      }
      created = false;
      mode = existing.st.mode & 0o777; // never carries set-id bits over
      if (process.getuid?.() === 0) replacedOwner = { uid: existing.st.uid, gid: existing.st.gid };
    }

    const tmp = c.at(dir, tempName(name));
    let handle: FileHandle;
    try {
      handle = await fs.open(tmp, CREATE_FLAGS, mode);
    } catch (err) {
      throw refusalFromErrno(userPath, err);
    }
    try {
      await c.verifyDescriptor(userPath, handle);
      // A root server's new file takes the workspace root's owner (so commands, which may run as
      // another user, can go on writing it); a replaced one keeps the owner it had (ownership.ts).
      const owner = created ? await ownerForCreated(c.roots.find((r) => within(dir.real, r)) ?? c.root) : replacedOwner;
      if (owner) await handle.chown(owner.uid, owner.gid);
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
      await checkStillNamed(c, userPath, dir, path.dirname(abs));
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

async function checkStillNamed(c: Confinement, userPath: string, dir: Anchor, absDir: string): Promise<void> {
  const changed = new PathRefusal(userPath, 'parent directory changed while writing');
  const now = await fs.realpath(absDir).catch(() => null);
  if (now === null || now !== dir.real) throw changed;
  if (c.anchored && (await c.verifyDescriptor(userPath, dir.handle)) !== dir.real) throw changed;
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
