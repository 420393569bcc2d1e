// Permission patterns: matchCommandPattern(pattern, cmd, behavior = 'allow').
//
// For rules like Bash(git status), Bash(npm run test:*), Bash(npm run test *). A trailing `:*` or
// ` *` makes it a PREFIX pattern: the words before it must equal the command's first words,
// followed by anything including nothing (word boundaries: `npm run test:*` matches `npm run test`
// and `npm run test --watch`, not `npm run testx` nor `npm run test:unit`). Otherwise the pattern
// is EXACT: same number of words. The rest is split into words by the same shell parser (unbash)
// and the same word decoding (expand.ts) as commands, so its quoting is the shell's ('…', "…",
// $'…', \x, `'it''s'` is one word) and each word is what the analyser puts in argv for the same
// text. An unquoted `*` is a wildcard inside ONE word, matching any characters including `/`
// (`git * --dry-run`, `cat *.md`); a quoted or escaped `*` is literal. The pattern `*` matches
// every command (dangers included: it allows everything). Leading NAME=value words in the pattern
// are assignments (as the shell reads them: `'A'=1` is a word), written like the command's
// assignments: they must all be among them, and they have no wildcards.
// A pattern is ONE simple command of literal words, so the parser's other readings are refused
// as malformed: `;` `&` `&&` `||` `|` and line breaks, redirections (`>f`, `2>&1`, `<<EOF`),
// comments, leading keywords (`!`, `time`, `if`, `{`, `[[` …), expansions (`$HOME`, `${X}`,
// `{a,b}`), backquote substitutions and the other globs (`?`, `[…]`); quoted they are literal
// text. Unquoted `(` and `)` are ordinary characters (the rule's own parentheses nest around
// them): `echo $(date)` has the literal word `$(date)`, and `f (a) b` three words.
// Patterns apply to ONE SimpleCommand, so they never match across ; && | or into a substitution:
// the caller checks every command of an analysis (deny if any part matches a deny rule; allow only
// if every part is allowed by a rule or read-only).
//
// behavior 'allow' (the default, strict): argv[0] must equal the pattern's first word exactly; a
// dynamic word can only be covered by the trailing `*`; a command with openArgs (xargs, find -exec
// with {}) only matches prefix patterns; every assignment outside SAFE_ENV must be written in the
// pattern; and every danger of the command (an option or construct that writes or runs code,
// types.ts) must be spelled out: the pattern word that matches the danger's word is that literal
// word, or a wildcard word whose text before its first `*` starts with the danger's spelling
// (`sort -o *` and `sort -o* *` cover `sort -o out`; `sort *` does not). git may also match with
// its harmless global options left out (`Bash(git log *)` allows `git --no-pager -C sub log`).
//
// behavior 'deny' / 'ask' (lenient, so a rule cannot be dodged): argv[0] also matches by its
// basename (`/bin/rm` and `./rm` match `rm`); from the first dynamic word on, the rest is considered
// matched (it could expand to anything); with openArgs, missing trailing words are considered
// supplied at run time; the command's extra assignments are ignored; global options before a
// subcommand are skipped and subcommand aliases compared by their canonical name
// (programs/globals.ts: `git -C r -c x=y push`, `npm --prefix x i`, `cargo +nightly b`); for
// programs whose options may follow the subcommand (kubectl, docker, podman, helm, make) the
// pattern's words after the program name match as a subsequence of the command's words (this may
// also catch a command that merely mentions them: deny errs on the side of matching).
// A malformed pattern (unbalanced quote, empty, only assignments, refused syntax) matches nothing;
// reject it when rules are loaded with validateCommandPattern(pattern) (error string or null), or
// parse it once with parseCommandPattern and match the parsed form (rules.ts keeps it on the rule).
//
// Matching is linear in the word lengths: wildcards are matched segment by segment, never with
// a backtracking regular expression.
import { parse } from 'unbash';
import type { Assignment, Command, ParsedScript, Word, WordPart } from 'unbash';
import { HereDocBodies, MAX_HEREDOCS_PER_LINE, maxHereDocsOnALine } from './coverage.js';
import { WordWalker, type Acc, type Ctx } from './expand.js';
import { allowVariants, lenientVariants, type Variant } from './programs/globals.js';
import { fail, Fail, type PatternBehavior, type SimpleCommand } from './types.js';
import { assignmentName, baseName, SAFE_ENV, type WordInfo } from './words.js';

export interface PatternWord {
  literal: string;
  /** The literal pieces between unquoted `*`s; null without wildcards. */
  segments: string[] | null;
}

/** A parsed command pattern (an immutable value). */
export interface CommandPattern {
  readonly assigns: string[];
  readonly words: PatternWord[];
  readonly prefix: boolean;
  readonly all: boolean;
}

/** A pattern as given, or as parsed by parseCommandPattern. */
export type PatternSource = string | CommandPattern;

/** Parses a command pattern; a string is the problem with a malformed one. */
export function parseCommandPattern(pattern: string): CommandPattern | string {
  let s = pattern.trim();
  if (s === '') return 'empty pattern';
  if (s === '*' || s === ':*') return { assigns: [], words: [], prefix: true, all: true };
  let prefix = false;
  if (s.endsWith(':*') && !s.endsWith('\\:*')) {
    prefix = true;
    s = s.slice(0, -2);
  } else if (/\s\*$/.test(s)) {
    prefix = true;
    s = s.slice(0, -1);
  }
  try {
    const { assigns, words } = new PatternReader(s).read();
    if (words.length === 0) return 'pattern names no command';
    return { assigns, words, prefix, all: false };
  } catch (e) {
    if (e instanceof Fail) return e.message;
    throw e;
  }
}

/**
 * Reads a pattern with the shell parser and the analyser's own word decoding (expand.ts), so a
 * pattern's words are exactly the argv the analyser would make of the same text. Every `(` and
 * `)` is swapped for one of two characters the pattern does not contain before parsing and
 * swapped back in the words, so an unquoted one is an ordinary character (the `Bash(…)` rule
 * syntax nests parentheses) and a quoted one stays what it was.
 */
class PatternReader extends WordWalker {
  private readonly ctx: Ctx;
  private readonly open: string;
  private readonly close: string;
  /** Offsets of the unquoted `*`s in the value of the word being read. */
  private stars: number[] = [];
  /** The value of the word read last and its unquoted `*`s. */
  private last: { value: string; stars: number[] } = { value: '', stars: [] };

  constructor(private readonly text: string) {
    super();
    [this.open, this.close] = freeChars(text);
    const src = text.replaceAll('(', this.open).replaceAll(')', this.close);
    this.ctx = { src, nested: false, depth: 0, env: [], bodies: HereDocBodies.none };
  }

  read(): { assigns: string[]; words: PatternWord[] } {
    // The parser's time grows with the square of the here-documents pending on one line.
    if (maxHereDocsOnALine(this.text) > MAX_HEREDOCS_PER_LINE) {
      fail(`more than ${MAX_HEREDOCS_PER_LINE} here-documents on one line`);
    }
    const script = parse(this.ctx.src);
    const error = script.errors?.[0];
    if (error) {
      fail(/unterminated .*(quote|locale string)/.test(error.message) ? 'unterminated quote' : `the shell cannot parse it: ${error.message}`);
    }
    const cmd = this.simpleCommand(script);
    const items = [...cmd.prefix, ...(cmd.name ? [cmd.name] : []), ...cmd.suffix];
    for (const r of cmd.redirects) fail(`a pattern has no redirections: "${this.source(r)}" is not allowed`);
    let at = 0;
    for (const item of [...items, { pos: this.text.length, end: this.text.length }]) {
      const gap = this.text.slice(at, item.pos).replace(/^(\s|\\\n)+/, '');
      if (gap.startsWith('#')) fail(comment(gap));
      if (gap.trim() !== '') fail(`a pattern is one simple command: "${gap.split(/\s/)[0]}" is not allowed`);
      at = item.end;
    }
    if (/(^|[^\\])(\\\\)*\\$/.test(this.text)) fail('trailing backslash');
    const assigns: string[] = [];
    for (const a of cmd.prefix) {
      if (a.type !== 'Assignment') continue;
      const w = this.assignmentWord(a);
      if (w.segments) fail(`a pattern's assignments have no wildcards: "${this.source(a)}" is not allowed`);
      assigns.push(w.literal);
    }
    const words: PatternWord[] = [];
    if (cmd.name) words.push(this.patternWord(cmd.name));
    for (const a of cmd.args) words.push(a.type === 'Word' ? this.patternWord(a) : this.assignmentWord(a));
    return { assigns, words };
  }

  /** The script's one simple command; anything else is refused. */
  private simpleCommand(script: ParsedScript): Command {
    const [st, next] = script.commands;
    if (st === undefined) fail(this.text.startsWith('#') ? comment(this.text) : 'pattern names no command');
    if (st.background) fail('a pattern is one simple command: "&" is not allowed');
    if (next !== undefined) {
      const sep = this.text.slice(st.end, next.pos).trim();
      if (sep.startsWith('#')) fail(comment(sep));
      fail(`a pattern is one simple command: ${sep === '' ? 'a line break' : `"${sep[0]}"`} is not allowed`);
    }
    const node = st.command;
    if (node.type === 'Command') return node;
    if (node.type === 'Pipeline' && node.prefixes.length === 0 && node.operators[0] !== undefined) {
      fail(`a pattern is one simple command: "${node.operators[0]}" is not allowed`);
    }
    if (node.type === 'AndOr' && node.operators[0] !== undefined) {
      fail(`a pattern is one simple command: "${node.operators[0]}" is not allowed`);
    }
    // `!`, `time`, `if`, `for`, `{`, `[[` …: the keyword it starts with.
    fail(`a pattern is one simple command: "${this.text.slice(node.pos).split(/\s/)[0]}" is not allowed`);
  }

  private patternWord(w: Word): PatternWord {
    this.word(w, this.ctx);
    return patternWord(this.restore(this.last.value), this.last.stars);
  }

  /** `NAME=value` as the analyser writes it, with the value's wildcards. */
  private assignmentWord(a: Assignment): PatternWord {
    if (a.value.type === 'ArrayValue') fail(`a pattern has no array assignments: "${this.source(a)}" is not allowed`);
    const { text } = this.assignment(a, this.ctx);
    const shift = text.length - this.last.value.length;
    return patternWord(this.restore(text), this.last.stars.map((k) => k + shift));
  }

  protected override word(w: Word, ctx: Ctx): WordInfo {
    this.stars = [];
    const info = super.word(w, ctx);
    this.last = { value: info.value, stars: this.stars };
    return info;
  }

  protected override part(p: WordPart, ctx: Ctx, acc: Acc, quoted: boolean): void {
    switch (p.type) {
      case 'Glob':
        if (p.kind !== 'star') fail(`a pattern has only the "*" wildcard: "${this.restore(p.text)}" is not allowed`);
        // One part per run of stars (`**`): each is a wildcard.
        for (let k = 0; k < p.text.length; k++) this.stars.push(acc.value.length + k);
        break;
      case 'ExtendedGlob':
        fail(`a pattern has only the "*" wildcard: "${this.restore(p.text)}" is not allowed`);
      case 'SimpleExpansion':
      case 'ParameterExpansion':
      case 'ArithmeticExpansion':
      case 'BraceExpansion':
        fail(`a pattern has no expansions: "${this.restore(p.text)}" is not allowed`);
      case 'CommandExpansion':
      case 'ProcessSubstitution':
        fail(`a pattern has no substitutions: "${this.restore(p.text)}" is not allowed`);
    }
    super.part(p, ctx, acc, quoted);
  }

  protected script(): void {
    fail('a pattern has no substitutions');
  }

  private source(node: { pos: number; end: number }): string {
    return this.text.slice(node.pos, node.end);
  }

  private restore(s: string): string {
    return s.replaceAll(this.open, '(').replaceAll(this.close, ')');
  }
}

function comment(text: string): string {
  return `a pattern has no comments: "${text.split('\n')[0]!.trimEnd()}" is not allowed`;
}

/** Two characters (private-use ones) that do not occur in `s`. */
function freeChars(s: string): [string, string] {
  const used = new Set<number>();
  for (let i = 0; i < s.length; i++) used.add(s.charCodeAt(i));
  const free: string[] = [];
  for (let c = 0xe000; c <= 0xf8ff && free.length < 2; c++) if (!used.has(c)) free.push(String.fromCharCode(c));
  if (free.length < 2) fail('the pattern uses every private-use character');
  return [free[0]!, free[1]!];
}

/** A word's literal text and the offsets of its unquoted `*`s (wildcards). */
function patternWord(literal: string, stars: readonly number[]): PatternWord {
  if (stars.length === 0) return { literal, segments: null };
  const segments: string[] = [];
  let from = 0;
  for (const k of stars) {
    segments.push(literal.slice(from, k));
    from = k + 1;
  }
  segments.push(literal.slice(from));
  return { literal, segments };
}

function parsed(pattern: PatternSource): CommandPattern | string {
  return typeof pattern === 'string' ? parseCommandPattern(pattern) : pattern;
}

/**
 * Patterns indexed by the literal program name they start with and by their first literal word
 * after it: the patterns that may match a command are found without trying the others (a
 * pattern's literal words must all be among the command's words, unless a dynamic word,
 * run-time arguments or a subcommand alias could stand for them). Ids are returned in order.
 */
export class PatternIndex {
  private readonly any: number[] = [];
  private readonly byHead = new Map<string, { all: number[]; noKey: number[]; byKey: Map<string, number[]> }>();

  constructor(patterns: readonly { id: number; pattern: PatternSource }[]) {
    for (const { id, pattern } of patterns) {
      const p = parsed(pattern);
      if (typeof p === 'string') continue;
      if (p.all || p.words[0]!.segments !== null) {
        this.any.push(id);
        continue;
      }
      const head = p.words[0]!.literal;
      let h = this.byHead.get(head);
      if (!h) this.byHead.set(head, (h = { all: [], noKey: [], byKey: new Map() }));
      h.all.push(id);
      const key = p.words.slice(1).find((w) => w.segments === null)?.literal;
      if (key === undefined) h.noKey.push(id);
      else h.byKey.set(key, [...(h.byKey.get(key) ?? []), id]);
    }
  }

  candidates(cmd: SimpleCommand, behavior: PatternBehavior): number[] {
    const lenient = behavior !== 'allow';
    const name = cmd.argv[0] ?? '';
    const heads = lenient && name.includes('/') ? [name, baseName(name)] : [name];
    const lists: number[][] = [this.any];
    for (const head of heads) {
      const h = this.byHead.get(head);
      if (!h) continue;
      if (lenient && (cmd.openArgs || cmd.dynamic.some(Boolean) || lenientVariants(cmd).some((v) => v.canonical))) {
        lists.push(h.all);
        continue;
      }
      lists.push(h.noKey);
      for (const w of new Set(cmd.argv.slice(1))) {
        const l = h.byKey.get(w);
        if (l) lists.push(l);
      }
    }
    const nonEmpty = lists.filter((l) => l.length > 0);
    if (nonEmpty.length <= 1) return nonEmpty[0] ?? [];
    return [...new Set(nonEmpty.flat())].sort((a, b) => a - b);
  }
}

/** Returns an error message for a malformed command pattern, or null when it is valid. */
export function validateCommandPattern(pattern: string): string | null {
  const p = parseCommandPattern(pattern);
  return typeof p === 'string' ? p : null;
}

/** `*`-only glob match: first and last pieces anchored, the middle ones found left to right. */
function globMatch(segments: readonly string[], value: string): boolean {
  const first = segments[0]!;
  const last = segments[segments.length - 1]!;
  if (value.length < first.length + last.length || !value.startsWith(first) || !value.endsWith(last)) return false;
  let at = first.length;
  const end = value.length - last.length;
  for (let k = 1; k < segments.length - 1; k++) {
    const seg = segments[k]!;
    if (seg === '') continue;
    const found = value.indexOf(seg, at);
    if (found === -1 || found + seg.length > end) return false;
    at = found + seg.length;
  }
  return true;
}

function wordMatches(p: PatternWord, value: string): boolean {
  return p.segments ? globMatch(p.segments, value) : p.literal === value;
}

/** Does a pattern word spell out a danger whose word it matched? */
function spellsOut(p: PatternWord, spelling: string): boolean {
  return p.segments === null || p.segments[0]!.startsWith(spelling);
}

/**
 * Does the permission pattern (the specifier of `Bash(...)`) match this one simple command?
 * 'allow' (default) is strict, 'deny'/'ask' lenient — see the header for the exact semantics.
 * A malformed pattern matches nothing (validate rules with validateCommandPattern).
 */
export function matchCommandPattern(pattern: PatternSource, cmd: SimpleCommand, behavior: PatternBehavior = 'allow'): boolean {
  const p = parsed(pattern);
  if (typeof p === 'string') return false;
  if (p.all) return true;
  if (!p.assigns.every((a) => cmd.assignments.includes(a))) return false;
  if (behavior === 'allow') {
    if (!cmd.assignments.every((a) => SAFE_ENV.test(assignmentName(a)) || p.assigns.includes(a))) return false;
    return allowVariants(cmd).some((v) => strictMatch(p, cmd, v));
  }
  return lenientVariants(cmd).some((v) => (v.subsequence ? subsequenceMatch(p, cmd, v) : lenientMatch(p, cmd, v)));
}

function strictMatch(p: CommandPattern, cmd: SimpleCommand, v: Variant): boolean {
  const n = v.idx.length;
  if (!p.prefix && (cmd.openArgs || n !== p.words.length)) return false;
  if (n < p.words.length) return false;
  for (let k = 0; k < p.words.length; k++) {
    const i = v.idx[k]!;
    if (cmd.dynamic[i] || !wordMatches(p.words[k]!, cmd.argv[i]!)) return false;
  }
  return cmd.dangers.every((d) => {
    const k = v.idx.indexOf(d.word);
    return k !== -1 && k < p.words.length && spellsOut(p.words[k]!, d.spelling);
  });
}

function firstWordMatches(w: PatternWord, v: string): boolean {
  return wordMatches(w, v) || (v.includes('/') && wordMatches(w, baseName(v)));
}

function lenientMatch(p: CommandPattern, cmd: SimpleCommand, v: Variant): boolean {
  for (let k = 0; k < p.words.length; k++) {
    if (k >= v.idx.length) return cmd.openArgs;
    const i = v.idx[k]!;
    if (cmd.dynamic[i]) return true;
    const w = p.words[k]!;
    const value = cmd.argv[i]!;
    if (k === 0 ? firstWordMatches(w, value) : wordMatches(w, value)) continue;
    if (k === v.sub && v.canonical && w.segments === null) {
      const c = v.canonical(value);
      if (c !== null && c === v.canonical(w.literal)) continue;
    }
    return false;
  }
  return p.prefix || v.idx.length === p.words.length;
}

function subsequenceMatch(p: CommandPattern, cmd: SimpleCommand, v: Variant): boolean {
  const i0 = v.idx[0];
  if (i0 === undefined || cmd.dynamic[i0] || !firstWordMatches(p.words[0]!, cmd.argv[i0]!)) return false;
  let j = 1;
  for (let k = 1; k < p.words.length; k++) {
    for (;;) {
      if (j >= v.idx.length) return cmd.openArgs;
      const i = v.idx[j++]!;
      if (cmd.dynamic[i]) return true;
      if (wordMatches(p.words[k]!, cmd.argv[i]!)) break;
    }
  }
  return true;
}
