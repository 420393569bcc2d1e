// Glob compilation shared by Glob (shell-style, segment by segment) and Grep's `glob`/`type`
// filters (gitignore-style, like ripgrep's `--glob` and `--type`).
//
// Syntax: `*` (any run of characters except `/`), `?` (one character except `/`), `[abc]`,
// `[a-z]`, `[!abc]`/`[^abc]`, `{a,b}` (alternatives; may nest and may contain `/`), `**` as a
// whole path segment (zero or more directories), `\x` (the character x literally).
// A malformed pattern (unclosed `[` or `{`) is an error, never silently taken literally.

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
      if (end < 0) throw new GlobSyntaxError(glob, "unclosed character class; missing ']'");
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
        if (end < 0) throw new GlobSyntaxError(glob, "unclosed character class; missing ']'");
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

const REGEX_SPECIAL = /[.*+?^${}()|[\]\\/]/;

function escapeRegexChar(c: string): string {
  return REGEX_SPECIAL.test(c) ? `\\${c}` : c;
}

/** RegExp source for one brace-free segment (no `/` inside). */
export function segmentSource(seg: string, whole: string = seg): string {
  let re = '';
  for (let i = 0; i < seg.length; i++) {
    const c = seg[i]!;
    if (c === '\\') {
      const next = seg[i + 1];
      if (next === undefined) throw new GlobSyntaxError(whole, 'dangling escape at the end');
      re += escapeRegexChar(next);
      i++;
    } else if (c === '*') {
      while (seg[i + 1] === '*') i++; // `**` inside a segment is just `*`
      re += '[^/]*';
    } else if (c === '?') {
      re += '[^/]';
    } else if (c === '[') {
      const end = classEnd(seg, i);
      if (end < 0) throw new GlobSyntaxError(whole, "unclosed character class; missing ']'");
      let j = i + 1;
      let cls = '[';
      if (seg[j] === '!' || seg[j] === '^') {
        cls += '^';
        j++;
      }
      for (; j < end - 1; j++) {
        const d = seg[j]!;
        if (d === '\\') {
          cls += `\\${seg[j + 1] ?? '\\'}`;
          j++;
        } else if (d === ']' || d === '[' || d === '^') {
          cls += `\\${d}`;
        } else {
          cls += d;
        }
      }
      re += `${cls}]`;
      i = end - 1;
    } else {
      re += escapeRegexChar(c);
    }
  }
  return re;
}

/** True when a segment has no glob syntax (it names exactly one entry). */
export function isLiteralSegment(seg: string): boolean {
  return !/[*?[\]{}\\]/.test(seg);
}

/** Removes glob escapes from a literal segment. */
export function unescapeSegment(seg: string): string {
  return seg.replace(/\\(.)/g, '$1');
}

// ---------------------------------------------------------------------------------------------
// Shell-style path globs (the Glob tool): matched one path segment at a time, so the walk only
// descends into directories the pattern can still match.

export type Segment = { kind: 'globstar' } | { kind: 'literal'; value: string } | { kind: 'regex'; re: RegExp };

export interface SegmentGlob {
  /** Brace-expanded alternatives, each a list of segments. */
  readonly alternatives: readonly (readonly Segment[])[];
}

/** Splits a relative, brace-free pattern into segments (`.` and empty segments dropped). */
function splitSegments(pattern: string): string[] {
  return pattern.split('/').filter((s) => s !== '' && s !== '.');
}

export function compileSegmentGlob(pattern: string): SegmentGlob {
  const alternatives = expandBraces(pattern).map((alt) =>
    splitSegments(alt).map((seg): Segment => {
      if (seg === '**') return { kind: 'globstar' };
      if (isLiteralSegment(seg)) return { kind: 'literal', value: seg };
      return { kind: 'regex', re: new RegExp(`^${segmentSource(seg, pattern)}$`) };
    }),
  );
  return { alternatives };
}

/**
 * A set of positions in the pattern alternatives: `alt * STRIDE + index`. Position `index ===
 * segments.length` means "the whole pattern matched".
 */
export type MatchState = readonly number[];
const STRIDE = 1 << 16;

function closure(glob: SegmentGlob, states: number[]): number[] {
  const out = new Set<number>();
  const stack = [...states];
  while (stack.length > 0) {
    const s = stack.pop()!;
    if (out.has(s)) continue;
    out.add(s);
    const alt = glob.alternatives[Math.floor(s / STRIDE)]!;
    const idx = s % STRIDE;
    if (alt[idx]?.kind === 'globstar') stack.push(s + 1); // `**` may match zero segments
  }
  return [...out];
}

export function initialState(glob: SegmentGlob): MatchState {
  return closure(
    glob,
    glob.alternatives.map((_, i) => i * STRIDE),
  );
}

/** The state after one more path segment named `name`; empty when nothing can match any more. */
export function stepState(glob: SegmentGlob, state: MatchState, name: string): MatchState {
  const next: number[] = [];
  for (const s of state) {
    const alt = glob.alternatives[Math.floor(s / STRIDE)]!;
    const seg = alt[s % STRIDE];
    if (seg === undefined) continue; // already complete: nothing more may follow
    if (seg.kind === 'globstar') next.push(s);
    else if (seg.kind === 'literal' ? seg.value === name : seg.re.test(name)) next.push(s + 1);
  }
  return next.length === 0 ? next : closure(glob, next);
}

/** The path walked so far is a complete match. */
export function isAccepting(glob: SegmentGlob, state: MatchState): boolean {
  return state.some((s) => s % STRIDE === glob.alternatives[Math.floor(s / STRIDE)]!.length);
}

/** More segments could still match below this point (worth descending). */
export function canContinue(glob: SegmentGlob, state: MatchState): boolean {
  return state.some((s) => s % STRIDE < glob.alternatives[Math.floor(s / STRIDE)]!.length);
}

// ---------------------------------------------------------------------------------------------
// Gitignore-style globs (Grep's `glob` filter and file types), as ripgrep applies them:
//   - a leading `!` makes the glob an exclusion;
//   - a trailing `/` restricts it to directories;
//   - a glob with no `/` (other than a trailing one) matches the name at any depth;
//   - otherwise it is anchored at the workspace root (a leading `/` is dropped);
//   - `**/` = any number of directories, `/**` at the end = everything below.

export interface IgnoreGlob {
  readonly source: string;
  readonly negated: boolean;
  readonly dirOnly: boolean;
  readonly re: RegExp;
}

function fullPathSource(glob: string, whole: string): string {
  const segs = glob.split('/');
  let re = '';
  for (let i = 0; i < segs.length; i++) {
    const seg = segs[i]!;
    const last = i === segs.length - 1;
    if (seg === '**') {
      re += last ? '.*' : '(?:.*/)?';
    } else {
      re += segmentSource(seg, whole) + (last ? '' : '/');
    }
  }
  return re;
}

export function compileIgnoreGlob(source: string): IgnoreGlob {
  let g = source;
  const negated = g.startsWith('!');
  if (negated) g = g.slice(1);
  const dirOnly = g.endsWith('/') && g.length > 1;
  if (dirOnly) g = g.slice(0, -1);
  if (g.length === 0) throw new GlobSyntaxError(source, 'empty glob');
  const anchored = g.includes('/');
  if (g.startsWith('/')) g = g.slice(1);
  const alts = expandBraces(g).map((alt) => (anchored ? '' : '(?:.*/)?') + fullPathSource(alt, source));
  return { source, negated, dirOnly, re: new RegExp(`^(?:${alts.join('|')})$`) };
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

// ripgrep's file types (from ripgrep 14's default type table) for the types the fallback knows.
// ripgrep itself knows many more; with ripgrep present its own table applies.
export const FILE_TYPES: Readonly<Record<string, readonly string[]>> = {
  c: ['*.[chH]', '*.[chH].in', '*.cats'],
  cmake: ['*.cmake', 'CMakeLists.txt'],
  config: ['*.cfg', '*.conf', '*.config', '*.ini'],
  cpp: ['*.[ChH]', '*.cc', '*.[ch]pp', '*.[ch]xx', '*.hh', '*.inl', '*.[ChH].in', '*.cc.in', '*.[ch]pp.in', '*.[ch]xx.in', '*.hh.in'],
  cs: ['*.cs'],
  csharp: ['*.cs'],
  css: ['*.css', '*.scss'],
  csv: ['*.csv'],
  dart: ['*.dart'],
  docker: ['*Dockerfile*'],
  elixir: ['*.ex', '*.eex', '*.exs'],
  go: ['*.go'],
  h: ['*.h', '*.hh', '*.hpp'],
  html: ['*.htm', '*.html', '*.ejs'],
  java: ['*.java', '*.jsp', '*.jspx', '*.properties'],
  js: ['*.js', '*.jsx', '*.vue', '*.cjs', '*.mjs'],
  json: ['*.json', 'composer.lock'],
  jsonl: ['*.jsonl'],
  kotlin: ['*.kt', '*.kts'],
  less: ['*.less'],
  lock: ['*.lock', 'package-lock.json'],
  log: ['*.log'],
  lua: ['*.lua'],
  make: ['[Gg][Nn][Uu]makefile', '[Mm]akefile', '[Gg][Nn][Uu]makefile.am', '[Mm]akefile.am', '[Gg][Nn][Uu]makefile.in', '[Mm]akefile.in', '*.mk', '*.mak'],
  markdown: ['*.markdown', '*.md', '*.mdown', '*.mdwn', '*.mkd', '*.mkdn'],
  md: ['*.markdown', '*.md', '*.mdown', '*.mdwn', '*.mkd', '*.mkdn'],
  php: ['*.php', '*.php3', '*.php4', '*.php5', '*.php7', '*.php8', '*.pht', '*.phtml'],
  protobuf: ['*.proto'],
  py: ['*.py'],
  ruby: ['config.ru', 'Gemfile', '.irbrc', 'Rakefile', '*.gemspec', '*.rb', '*.rbw'],
  rust: ['*.rs'],
  sass: ['*.sass', '*.scss'],
  scala: ['*.scala', '*.sbt'],
  sh: ['*.bash', '*.csh', '*.ksh', '*.sh', '*.tcsh', '*.zsh', '.bashrc', 'bashrc', '*.bashrc', '.bash_profile', 'bash_profile', '.profile', 'profile', '.zshrc', 'zshrc', '.zprofile', 'zprofile', '.zshenv', 'zshenv'],
  sql: ['*.sql', '*.psql'],
  svg: ['*.svg'],
  swift: ['*.swift'],
  tf: ['*.tf', '*.auto.tfvars', 'terraform.tfvars', '*.tf.json'],
  toml: ['*.toml', 'Cargo.lock'],
  ts: ['*.ts', '*.tsx', '*.cts', '*.mts'],
  txt: ['*.txt'],
  xml: ['*.xml', '*.xml.dist', '*.dtd', '*.xsl', '*.xslt', '*.xsd', '*.xjb', '*.rng', '*.sch', '*.xhtml'],
  yaml: ['*.yaml', '*.yml'],
  zig: ['*.zig'],
};

/** A file-name test for a known type; null for a type this table does not know. */
export function fileTypeMatcher(type: string): ((name: string) => boolean) | null {
  const globs = Object.hasOwn(FILE_TYPES, type) ? FILE_TYPES[type] : undefined;
  if (!globs) return null;
  const re = new RegExp(`^(?:${globs.flatMap((g) => expandBraces(g)).map((g) => segmentSource(g)).join('|')})$`);
  return (name) => re.test(name);
}
