// Glob matchers built with picomatch from globs in the syntax of pattern.ts: names (one path
// segment), and gitignore-style path globs as ripgrep's `--glob` and the permission rules
// apply them. picomatch is configured for that syntax: `*` and `?` match dot-files, `**`
// spans directories only as a whole segment, a trailing slash is never implied, classes are
// always classes; braces are expanded and literal characters escaped beforehand (pattern.ts).
import picomatch from 'picomatch';
import { expandBraces, GlobSyntaxError, picomatchSource } from './pattern.js';

const PICOMATCH: picomatch.PicomatchOptions = {
  dot: true, // nothing is special about dot-files (ripgrep's globs, the Glob tool)
  nobrace: true, // braces are expanded before (expandBraces: its limit and its errors)
  noextglob: true, // `+(a)`, `@(a)`, `!(a)` are literal text here
  nonegate: true, // a leading `!` is read by compileIgnoreGlob, not by picomatch
  literalBrackets: false, // `[x]` is always a class, never also the literal text `[x]`
  strictSlashes: true, // `*` never matches a trailing `/`; `dir/**` does not match `dir` itself
  windows: false, // `/` is the only separator, `\` always an escape
};

/** One RegExp matching any of picomatch's spellings (an empty one matches the empty string). */
function anyOf(sources: readonly string[]): RegExp {
  const res = sources.map((s) => (s === '' ? '^$' : picomatch.makeRe(s, PICOMATCH).source));
  return new RegExp(res.length === 1 ? res[0]! : res.map((r) => `(?:${r})`).join('|'));
}

/** A test for a name (no `/`): `*.ts`, `[Mm]akefile`, `{a,b}.md`. */
export function compileNameGlob(glob: string): RegExp {
  return anyOf(expandBraces(glob).map((alt) => picomatchSource(alt, glob)));
}

/** A test for one brace-free path segment. */
export function compileSegment(seg: string, whole: string = seg): RegExp {
  return anyOf([picomatchSource(seg, whole)]);
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
// every entry of a workspace). So these globs are compiled with picomatch.

export interface IgnoreGlob {
  readonly source: string;
  readonly negated: boolean;
  readonly dirOnly: boolean;
  /** Matches a relative, `/`-separated path (no leading or trailing `/`). */
  readonly re: RegExp;
  /**
   * Matches a directory whose every entry the glob matches, by its last segment being `*` or
   * `**` (`dir/*`, `dir/**`, `*`); null when no alternative ends so.
   */
  readonly contents: RegExp | null;
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

  const full: string[] = [];
  const contents: string[] = [];
  let matchesBase = false;
  for (const alt of expandBraces(g)) {
    const segs = (anchored ? alt : `**/${alt}`).split('/');
    const pm = segs.map((s) => (s === '**' ? s : picomatchSource(s, source)));
    const last = segs.length - 1;
    matchesBase ||= segs.every((s, i) => s === '**' || (i === last && (s === '' || isStarSegment(s))));
    if (segs.length === 1 && segs[0] === '') {
      matchesBase = true; // `/` alone: the base and nothing else
      continue;
    }
    full.push(pm.join('/'));
    // The directory `p` is covered when the glob matches `p/<any name>`: the segments before a
    // last `*` or `**` match `p` (a `**` before it may also match nothing: `a/**/*` covers `a`).
    if (last > 0 && (segs[last] === '**' || isStarSegment(segs[last]!))) {
      let prefix = pm.slice(0, last);
      contents.push(prefix.join('/'));
      if (segs[last] === '**') contents.push([...prefix, '**'].join('/'));
      while (prefix.length > 1 && prefix[prefix.length - 1] === '**') {
        prefix = prefix.slice(0, -1);
        contents.push(prefix.join('/'));
      }
    }
  }
  return {
    source,
    negated,
    dirOnly,
    re: full.length > 0 ? anyOf(full) : /^$/,
    contents: contents.length > 0 ? anyOf(contents) : null,
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
