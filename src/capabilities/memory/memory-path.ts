// Virtual paths of the memory store: the `/memories` root, the limits on names, lengths and
// depth, and the lexical parser that maps a path the model gave to components below the root.
// Paths are checked as written, never normalised: a `..` is refused, not resolved.
import { PathRefusal } from '../../sandbox/paths.js';

/** The virtual directory the model sees the store as. */
export const MEMORY_ROOT = '/memories';
/** Most components a path below `/memories` has (`/memories/a/b.md` has 2). */
export const MAX_MEMORY_DEPTH = 16;
/** Longest virtual path, in characters. */
export const MAX_MEMORY_PATH_CHARS = 1024;
/** Longest name of one path component, in bytes. */
export const MAX_MEMORY_NAME_BYTES = 255;

/** A virtual path that passed the lexical checks. */
export interface MemoryPath {
  /** Canonical spelling: `/memories` or `/memories/a/b` (no trailing slash). */
  virtual: string;
  /** Components below `/memories`. */
  parts: string[];
  /** Written with a trailing `/`: it names a directory. */
  dirMarker: boolean;
}

function shorten(p: string): string {
  return p.length > 64 ? `${p.slice(0, 64)}…` : p;
}

/**
 * Checks a path the model gave lexically and maps it to components below `/memories`. Refused:
 * anything not `/memories` or below it, relative paths, `.`/`..`/empty components anywhere, NUL
 * bytes, backslashes, over-long names and paths, and paths deeper than `depth`. One trailing `/`
 * is accepted and marks a directory.
 */
export function parseMemoryPath(p: string, depth: number = MAX_MEMORY_DEPTH): MemoryPath {
  if (typeof p !== 'string' || p.length === 0) throw new PathRefusal('""', `empty path; memory paths start with ${MEMORY_ROOT}`);
  if (p.includes('\0')) throw new PathRefusal(JSON.stringify(shorten(p)), 'contains a NUL byte');
  if (p.length > MAX_MEMORY_PATH_CHARS) throw new PathRefusal(shorten(p), `path longer than ${MAX_MEMORY_PATH_CHARS} characters`);
  if (p.includes('\\')) throw new PathRefusal(p, 'contains a backslash; memory paths separate names with "/"');
  if (!p.startsWith('/')) throw new PathRefusal(p, `relative path; memory paths are absolute and start with ${MEMORY_ROOT}`);
  const dirMarker = p.length > 1 && p.endsWith('/');
  const trimmed = dirMarker ? p.slice(0, -1) : p;
  // Every component is judged as written, before the prefix: `/x/../memories` is refused for
  // its `..`, not accepted because it would normalise to `/memories`.
  const all = trimmed.split('/').slice(1);
  if (all.includes('..')) throw new PathRefusal(p, `has a ".." component; memory paths cannot leave ${MEMORY_ROOT}`);
  if (all.includes('.')) throw new PathRefusal(p, 'has a "." component; write the path without it');
  if (trimmed !== MEMORY_ROOT && !trimmed.startsWith(`${MEMORY_ROOT}/`)) {
    throw new PathRefusal(p, `outside the memory store; memory paths are ${MEMORY_ROOT} or start with ${MEMORY_ROOT}/`);
  }
  const parts = trimmed === MEMORY_ROOT ? [] : trimmed.slice(MEMORY_ROOT.length + 1).split('/');
  if (parts.includes('')) throw new PathRefusal(p, 'has an empty path component ("//")');
  if (parts.some((c) => Buffer.byteLength(c, 'utf8') > MAX_MEMORY_NAME_BYTES)) {
    throw new PathRefusal(shorten(p), `has a name longer than ${MAX_MEMORY_NAME_BYTES} bytes`);
  }
  if (parts.length > depth) throw new PathRefusal(shorten(p), `is ${parts.length} levels deep; memory paths may be at most ${depth} levels below ${MEMORY_ROOT}`);
  return { virtual: parts.length === 0 ? MEMORY_ROOT : `${MEMORY_ROOT}/${parts.join('/')}`, parts, dirMarker };
}

/** Refuses a path that cannot name a file: the store root itself, or one written with a trailing `/`. */
export function requireFileName(mp: MemoryPath): void {
  if (mp.parts.length === 0) throw new PathRefusal(mp.virtual, 'is the memory store directory; name a file inside it');
  if (mp.dirMarker) throw new PathRefusal(`${mp.virtual}/`, 'names a directory, not a file');
}
