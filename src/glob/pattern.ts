// The glob syntax every glob of the server is written in, checked before picomatch sees it:
// picomatch accepts any string (an unclosed `[` or `{` silently becomes literal text), while a
// malformed glob here is an error that names the problem. This module also expands `{a,b}`
// (the Glob tool walks one brace-free path segment at a time) and rewrites a brace-free glob
// into picomatch's syntax with every literal character escaped, so that characters picomatch
// gives a meaning to (`(…)`, `|`, `"`, `x{2}`, extglobs) stay literal as they are here.
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
function classEnd(glob: string, start: number): number {
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

/**
 * A literal character as picomatch reads it: letters and digits as they are, others escaped;
 * a backslash as `\x5c`, since picomatch loses an escaped backslash next to another escape
 * (`\\\\*`, `\\\|`, `[a\\\\]`).
 */
function literal(c: string, inClass: boolean): string {
  if (c === '\\') return inClass ? '\\x5c' : '[\\x5c]';
  return /[A-Za-z0-9]/.test(c) || c.charCodeAt(0) > 0x7f ? c : `\\${c}`;
}

/**
 * picomatch's spelling of one brace-free path segment: the wildcards as they are, `[!…]` as
 * `[^…]`, every literal character escaped. `whole` is the glob as written, for error messages.
 */
export function picomatchSource(seg: string, whole: string = seg): string {
  let out = '';
  for (let i = 0; i < seg.length; i++) {
    const c = seg[i]!;
    if (c === '\\') {
      const next = seg[i + 1];
      if (next === undefined) throw new GlobSyntaxError(whole, 'dangling escape at the end');
      out += literal(next, false);
      i++;
    } else if (c === '*' || c === '?') {
      out += c;
    } else if (c === '[') {
      const end = classEnd(seg, i);
      if (end < 0) throw new GlobSyntaxError(whole, UNCLOSED_CLASS);
      let j = i + 1;
      let cls = '[';
      if (seg[j] === '!' || seg[j] === '^') {
        cls += '^';
        j++;
      }
      for (; j < end - 1; j++) {
        const d = seg[j]!;
        if (d === '\\') {
          cls += literal(seg[j + 1] ?? '\\', true);
          j++;
        } else {
          cls += d === '-' ? d : literal(d, true); // `-` keeps its range meaning
        }
      }
      out += `${cls}]`;
      i = end - 1;
    } else {
      out += literal(c, false);
    }
  }
  return out;
}

/** True when a segment has no glob syntax (it names exactly one entry). */
export function isLiteralSegment(seg: string): boolean {
  return !/[*?[\]{}\\]/.test(seg);
}

/** Removes glob escapes from a literal segment. */
export function unescapeSegment(seg: string): string {
  return seg.replace(/\\(.)/g, '$1');
}
