// Globs in the syntax of pattern.ts, matched without regular expressions. Globs come from outside
// (a model's Glob pattern, a client's permission rule, a Grep filter), and a backtracking regex
// of a glob — what picomatch builds: `*` is `[^/]*?` — takes exponential time on a pattern like
// `*a*a*a*a*a*b` against a long name that does not match. Here one name is matched by the
// classic wildcard algorithm (on a mismatch, resume after the last `*` one character further),
// which takes at most (name length × glob length) steps, and a path by the same idea one segment
// at a time, with `**` as the only segment-level wildcard (a set of positions, never
// backtracking). Characters are Unicode code points.
import { GlobSyntaxError, classEnd } from './pattern.js';

type Token =
  | { kind: 'char'; cp: number }
  | { kind: 'one' } // `?`
  | { kind: 'star' } // `*` (a run of them is one)
  | { kind: 'class'; negated: boolean; ranges: readonly (readonly [number, number])[] };

/** Something that tests a string, as a RegExp does (`.test`). */
export interface GlobTest {
  test(s: string): boolean;
}

const SLASH = 0x2f;

/** One brace-free segment (no `/` outside classes) as tokens. `whole` is named in errors. */
export function segmentTokens(seg: string, whole: string = seg): Token[] {
  const out: Token[] = [];
  const chars = Array.from(seg);
  // Code-point offsets for classEnd, which works on the string's own indices.
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i]!;
    if (c === '\\') {
      const next = chars[i + 1];
      if (next === undefined) throw new GlobSyntaxError(whole, 'dangling escape at the end');
      out.push({ kind: 'char', cp: next.codePointAt(0)! });
      i++;
    } else if (c === '*') {
      if (out[out.length - 1]?.kind !== 'star') out.push({ kind: 'star' });
    } else if (c === '?') {
      out.push({ kind: 'one' });
    } else if (c === '[') {
      const rest = chars.slice(i).join('');
      const end = classEnd(rest, 0);
      if (end < 0) throw new GlobSyntaxError(whole, "unclosed character class; missing ']'");
      const body = Array.from(rest.slice(1, end - 1));
      let j = 0;
      let negated = false;
      if (body[0] === '!' || body[0] === '^') {
        negated = true;
        j = 1;
      }
      const members: number[] = [];
      for (; j < body.length; j++) {
        if (body[j] === '\\' && j + 1 < body.length) {
          members.push(body[j + 1]!.codePointAt(0)!);
          j++;
        } else {
          members.push(body[j]!.codePointAt(0)!);
        }
        // A range: `a-z` (a `-` first or last is itself).
        if (body[j + 1] === '-' && j + 2 < body.length) {
          const lo = members.pop()!;
          let hiCh = body[j + 2]!;
          let skip = 2;
          if (hiCh === '\\' && j + 3 < body.length) {
            hiCh = body[j + 3]!;
            skip = 3;
          }
          const hi = hiCh.codePointAt(0)!;
          ranges(members, lo, hi);
          j += skip;
        }
      }
      out.push({ kind: 'class', negated, ranges: toRanges(members) });
      i += Array.from(rest.slice(0, end)).length - 1;
    } else {
      out.push({ kind: 'char', cp: c.codePointAt(0)! });
    }
  }
  return out;
}

// Members are kept as numbers; a range is marked by a negative pair so that `a-z` costs two
// entries, not twenty-six.
function ranges(members: number[], lo: number, hi: number): void {
  if (lo > hi) return; // an empty range matches nothing (as a regex class refuses it; here: nothing)
  members.push(-lo - 1, -hi - 1);
}

function toRanges(members: number[]): [number, number][] {
  const out: [number, number][] = [];
  for (let i = 0; i < members.length; i++) {
    const m = members[i]!;
    if (m < 0) {
      out.push([-m - 1, -members[i + 1]! - 1]);
      i++;
    } else {
      out.push([m, m]);
    }
  }
  return out;
}

function oneMatches(t: Token, cp: number): boolean {
  switch (t.kind) {
    case 'char':
      return t.cp === cp;
    case 'one':
      return cp !== SLASH;
    case 'star':
      return false;
    case 'class': {
      if (cp === SLASH) return false;
      let inside = false;
      for (const [lo, hi] of t.ranges) {
        if (cp >= lo && cp <= hi) {
          inside = true;
          break;
        }
      }
      return inside !== t.negated;
    }
  }
}

/** The code point at `i` of `s` and how many UTF-16 units it takes. */
function at(s: string, i: number): [cp: number, width: number] {
  const cp = s.codePointAt(i)!;
  return [cp, cp > 0xffff ? 2 : 1];
}

/**
 * Whether `name[from, to)` matches the tokens: at most (name × tokens) steps. On a mismatch the
 * last `*` takes one more character (never a `/`) and the rest is tried again from there — no
 * earlier `*` need ever be revisited, so nothing backtracks further.
 */
export function matchTokens(tokens: readonly Token[], name: string, from = 0, to = name.length): boolean {
  let t = 0;
  let n = from;
  let starT = -1;
  let starN = 0;
  while (n < to) {
    const tok = tokens[t];
    if (tok !== undefined && tok.kind === 'star') {
      starT = t++;
      starN = n;
      continue;
    }
    if (tok !== undefined) {
      const [cp, width] = at(name, n);
      if (oneMatches(tok, cp)) {
        t++;
        n += width;
        continue;
      }
    }
    if (starT < 0) return false;
    const [cp, width] = at(name, starN);
    if (cp === SLASH) return false;
    t = starT + 1;
    starN += width;
    n = starN;
  }
  while (tokens[t]?.kind === 'star') t++;
  return t === tokens.length;
}

/** A test for one brace-free segment. */
export function segmentTest(seg: string, whole: string = seg): GlobTest {
  const tokens = segmentTokens(seg, whole);
  return { test: (s) => matchTokens(tokens, s) };
}

/** A test for names matching any of several brace-free segments. */
export function anySegmentTest(segs: readonly string[], whole: string): GlobTest {
  const alts = segs.map((s) => segmentTokens(s, whole));
  return {
    test: (s) => alts.some((a) => matchTokens(a, s)),
  };
}

type PathPart = { kind: 'globstar'; last: boolean } | { kind: 'segment'; tokens: Token[] };

/**
 * A test for `/`-separated paths, for alternatives each a list of segments (`**` a whole segment:
 * any number of directories; as the last segment, one or more — `dir/**` is what is inside `dir`,
 * not `dir` itself). A segment never matches across a `/`.
 */
export function pathTest(alternatives: readonly (readonly string[])[], whole: string): GlobTest {
  const alts: PathPart[][] = alternatives.map((segs) =>
    segs.map((s, i): PathPart => (s === '**' ? { kind: 'globstar', last: i === segs.length - 1 } : { kind: 'segment', tokens: segmentTokens(s, whole) })),
  );
  return { test: (p) => alts.some((alt) => matchPath(alt, p)) };
}

/**
 * A set of positions in `alt` (flags, one per position), advanced one path segment at a time:
 * at most (path segments × pattern segments) segment tests.
 */
function matchPath(alt: readonly PathPart[], p: string): boolean {
  let states = new Uint8Array(alt.length + 1);
  let next = new Uint8Array(alt.length + 1);
  states[0] = 1;
  closure(alt, states);
  let from = 0;
  for (;;) {
    const slash = p.indexOf('/', from);
    const to = slash < 0 ? p.length : slash;
    next.fill(0);
    let any = false;
    for (let s = 0; s < alt.length; s++) {
      if (states[s] === 0) continue;
      const part = alt[s]!;
      if (part.kind === 'globstar') {
        next[s] = 1; // one more directory
        if (part.last) next[s + 1] = 1;
        any = true;
      } else if (matchTokens(part.tokens, p, from, to)) {
        next[s + 1] = 1;
        any = true;
      }
    }
    if (!any) return false;
    closure(alt, next);
    [states, next] = [next, states];
    if (slash < 0) return states[alt.length] === 1;
    from = slash + 1;
  }
}

/** A `**` that is not last may match no directory at all. */
function closure(alt: readonly PathPart[], states: Uint8Array): void {
  for (let s = 0; s < alt.length; s++) {
    const part = alt[s]!;
    if (states[s] === 1 && part.kind === 'globstar' && !part.last) states[s + 1] = 1;
  }
}
