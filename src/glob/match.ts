// Glob matchers from globs in the syntax of pattern.ts: names (one path segment), and
// gitignore-style path globs as ripgrep's `--glob` and the permission rules apply them: `*` and `?`
// match dot-files, `**` spans directories only as a whole segment, a trailing slash is never
// implied, classes are always classes; braces are expanded beforehand (pattern.ts). They are
// matched by linear.ts in time linear in the path times the glob, never by a backtracking regex:
// globs come from models and clients.
import { expandBraces, GlobSyntaxError } from './pattern.js';
import { anySegmentTest, pathTest, segmentTest, type GlobTest } from './linear.js';

export type { GlobTest } from './linear.js';

/** A test for a name (no `/`): `*.ts`, `[Mm]akefile`, `{a,b}.md`. */
export function compileNameGlob(glob: string): GlobTest {
  return anySegmentTest(expandBraces(glob), glob);
}

/** A test for one brace-free path segment. */
export function compileSegment(seg: string, whole: string = seg): GlobTest {
  return segmentTest(seg, whole);
}

// ---------------------------------------------------------------------------------------------
// Gitignore-style globs (Grep's `glob` filter, permission rule paths), as ripgrep applies them:
//   - a leading `!` makes the glob an exclusion;
//   - a trailing `/` restricts it to directories;
//   - a glob with no `/` (other than a trailing one) matches the name at any depth;
//   - otherwise it is anchored at the base (a leading `/` is dropped);
//   - `**/` = any number of directories, `/**` at the end = everything below.
//
// The `ignore` package implements gitignore files, not this: it decides a path by its parent
// directories too (ripgrep's `--glob src` matches the directory, not `src/a.ts`), it has no
// `{a,b}`, reads `#…` as a comment and compares case-insensitively by default, and it keeps
// every path it was asked about in a cache for the life of the matcher (the walkers ask about
// every entry of a workspace). So these globs are compiled here.

export interface IgnoreGlob {
  readonly source: string;
  readonly negated: boolean;
  readonly dirOnly: boolean;
  /** Matches a relative, `/`-separated path (no leading or trailing `/`). */
  readonly re: GlobTest;
  /**
   * Matches a directory whose every entry the glob matches, by its last segment being `*` or
   * `**` (`dir/*`, `dir/**`, `*`); null when no alternative ends so.
   */
  readonly contents: GlobTest | null;
  // The glob matches the empty path (the base itself), as `**`, `*` and `**/*` do.
  readonly matchesBase: boolean;
}

/** A segment that matches any name, including (as a regex would) the empty one. */
const isStarSegment = (s: string): boolean => /^\*+$/.test(s);

export function compileIgnoreGlob(source: string): IgnoreGlob {
  let g = source;
  const negated = g.startsWith('!');
  if (negated) g = g.slice(1);
  const dirOnly = g.endsWith('/') && g.length > 1;
  if (dirOnly) g = g.slice(0, -1);
  if (g.length === 0) throw new GlobSyntaxError(source, 'empty glob');
  const anchored = g.includes('/');
  if (g.startsWith('/')) g = g.slice(1);

  const full: string[][] = [];
  const contents: string[][] = [];
  let matchesBase = false;
  for (const alt of expandBraces(g)) {
    const segs = (anchored ? alt : `**/${alt}`).split('/');
    const last = segs.length - 1;
    matchesBase ||= segs.every((s, i) => s === '**' || (i === last && (s === '' || isStarSegment(s))));
    if (segs.length === 1 && segs[0] === '') {
      matchesBase = true; // `/` alone: the base and nothing else
      continue;
    }
    full.push(segs);
    // The directory `p` is covered when the glob matches `p/<any name>`: the segments before a
    // last `*` or `**` match `p` (a `**` before it may also match nothing: `a/**/*` covers `a`).
    if (last > 0 && (segs[last] === '**' || isStarSegment(segs[last]!))) {
      let prefix = segs.slice(0, last);
      contents.push(prefix);
      if (segs[last] === '**') contents.push([...prefix, '**']);
      while (prefix.length > 1 && prefix[prefix.length - 1] === '**') {
        prefix = prefix.slice(0, -1);
        contents.push(prefix);
      }
    }
  }
  return {
    source,
    negated,
    dirOnly,
    re: full.length > 0 ? pathTest(full, source) : { test: (p) => p === '' },
    contents: contents.length > 0 ? pathTest(contents, source) : null,
    matchesBase,
  };
}

/** ripgrep's override semantics for a list of globs: the last glob that matches decides. */
export type FilterVerdict = 'include' | 'exclude' | 'none';

export class OverrideFilter {
  private readonly whitelists: number;
  constructor(private readonly globs: readonly IgnoreGlob[]) {
    this.whitelists = globs.filter((g) => !g.negated).length;
  }

  /** `rel`: path relative to the workspace root, `/`-separated. */
  verdict(rel: string, isDir: boolean): FilterVerdict {
    for (let i = this.globs.length - 1; i >= 0; i--) {
      const g = this.globs[i]!;
      if (g.dirOnly && !isDir) continue;
      if (g.re.test(rel)) return g.negated ? 'exclude' : 'include';
    }
    // With any inclusion glob, a file matching none of them is left out (directories are still walked).
    return this.whitelists > 0 && !isDir ? 'exclude' : 'none';
  }
}

/**
 * Gitignore coverage of `p` (relative, `/`-separated, not empty): the glob matches the path,
 * or a directory above it, or (for a directory) everything inside it.
 */
export function globCovers(glob: IgnoreGlob, p: string, isDir: boolean): boolean {
  if ((!glob.dirOnly || isDir) && glob.re.test(p)) return true;
  if (isDir && glob.contents?.test(p)) return true;
  for (let i = p.lastIndexOf('/'); i > 0; i = p.lastIndexOf('/', i - 1)) {
    if (glob.re.test(p.slice(0, i))) return true;
  }
  return false;
}
