// What the path sandbox says when it refuses: one error type naming the path and the rule it
// broke, and the translation of errno codes into such rules, so that a tool reports why a path
// was refused in words the model can act on, never a descriptor path it cannot know.
import type { Stats } from 'node:fs';

/** A refusal that names the path and the rule it broke. */
export class PathRefusal extends Error {
  constructor(
    readonly userPath: string,
    readonly rule: string,
    /**
     * The path was refused because it leads out of the workspace (or into a read-only folder),
     * or what was opened could not be verified: the confinement at work, worth an operator's
     * attention — unlike a file that does not exist or is a directory.
     */
    readonly confinement = false,
  ) {
    super(`${userPath}: ${rule}`);
    this.name = 'PathRefusal';
  }
}

/** A refusal by the confinement itself (see `PathRefusal.confinement`). */
export function confinementRefusal(userPath: string, rule: string): PathRefusal {
  return new PathRefusal(userPath, rule, true);
}

/** What kind of file a non-regular entry is, for refusals. */
export function fileKind(st: Stats): string {
  if (st.isFIFO()) return 'a FIFO';
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isBlockDevice()) return 'a block device';
  if (st.isSocket()) return 'a socket';
  if (st.isSymbolicLink()) return 'a symlink';
  if (st.isDirectory()) return 'a directory';
  return 'a special file';
}

/** The refusal an errno (from open, stat, rename…) stands for. */
export function refusalFromErrno(userPath: string, err: unknown): PathRefusal {
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
