// The glob syntax every glob of the server is written in, checked before anything matches it: a
// malformed glob (an unclosed `[` or `{`) is an error that names the problem, never quietly
// literal text. This module also expands `{a,b}` (the matchers, linear.ts, see brace-free globs).
//
// Syntax: `*` (any run of characters except `/`), `?` (one character except `/`), `[abc]`,
// `[a-z]`, `[!abc]`/`[^abc]` (a leading `]` is a member), `{a,b}` (alternatives; may nest and
// may contain `/`), `**` as a whole path segment (zero or more directories), `\x` (the
// character x literally).

export class GlobSyntaxError extends Error {
  constructor(
    readonly glob: string,
    readonly problem: string,
  ) {
    super(`invalid glob "${glob}": ${problem}`);
    this.name = 'GlobSyntaxError';
  }
}

/** Most alternatives one pattern may expand to (`{a,b}{c,d}` is four). */
export const MAX_BRACE_EXPANSION = 256;

const UNCLOSED_CLASS = "unclosed character class; missing ']'";

/** Index just past the `]` closing the class that opens at `start` (a `[`); -1 when unclosed. */
export function classEnd(glob: string, start: number): number {
  let i = start + 1;
  if (glob[i] === '!' || glob[i] === '^') i++;
  if (glob[i] === ']') i++; // a leading `]` is a member, not the end
  for (; i < glob.length; i++) {
    const c = glob[i];
    if (c === '\\') i++;
    else if (c === ']') return i + 1;
  }
  return -1;
}

/** Expands `{a,b}` alternatives (nested allowed) into brace-free patterns. */
export function expandBraces(glob: string, max = MAX_BRACE_EXPANSION): string[] {
  // Find the first top-level `{` (outside classes and escapes).
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === '\\') {
      i++;
      continue;
    }
    if (c === '[') {
      const end = classEnd(glob, i);
      if (end < 0) throw new GlobSyntaxError(glob, UNCLOSED_CLASS);
      i = end - 1;
      continue;
    }
    if (c === '}') throw new GlobSyntaxError(glob, "unopened alternate group; missing '{'");
    if (c !== '{') continue;
    // Split the group at its top-level commas.
    const alts: string[] = [];
    let depth = 0;
    let from = i + 1;
    let close = -1;
    for (let j = i + 1; j < glob.length; j++) {
      const d = glob[j];
      if (d === '\\') {
        j++;
      } else if (d === '[') {
        const end = classEnd(glob, j);
        if (end < 0) throw new GlobSyntaxError(glob, UNCLOSED_CLASS);
        j = end - 1;
      } else if (d === '{') {
        depth++;
      } else if (d === '}') {
        if (depth === 0) {
          close = j;
          break;
        }
        depth--;
      } else if (d === ',' && depth === 0) {
        alts.push(glob.slice(from, j));
        from = j + 1;
      }
    }
    if (close < 0) throw new GlobSyntaxError(glob, "unclosed alternate group; missing '}'");
    alts.push(glob.slice(from, close));
    const prefix = glob.slice(0, i);
    const suffixes = expandBraces(glob.slice(close + 1), max);
    const out: string[] = [];
    for (const alt of alts) {
      for (const inner of expandBraces(alt, max)) {
        for (const suffix of suffixes) {
          out.push(prefix + inner + suffix);
          if (out.length > max) throw new GlobSyntaxError(glob, `expands to more than ${max} alternatives`);
        }
      }
    }
    return out;
  }
  return [glob];
}

/** True when a segment has no glob syntax (it names exactly one entry). */
export function isLiteralSegment(seg: string): boolean {
  return !/[*?[\]{}\\]/.test(seg);
}

/** Removes glob escapes from a literal segment. */
export function unescapeSegment(seg: string): string {
  return seg.replace(/\\(.)/g, '$1');
}
