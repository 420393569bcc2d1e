// Permission patterns: matchCommandPattern(pattern, cmd, behavior = 'allow').
//
// For rules like Bash(git status), Bash(npm run test:*), Bash(npm run test *). The pattern is split
// into words with shell quoting ('…', "…", \x). A trailing `:*` or ` *` makes it a PREFIX pattern:
// the words before it must equal the command's first words, followed by anything including nothing
// (word boundaries: `npm run test:*` matches `npm run test` and `npm run test --watch`, not
// `npm run testx` nor `npm run test:unit`). Otherwise the pattern is EXACT: same number of words.
// An unquoted `*` elsewhere is a wildcard inside ONE word, matching any characters including `/`
// (`git * --dry-run`, `cat *.md`); a quoted `*` is literal. The pattern `*` matches every command
// (dangers included: it allows everything). Leading NAME=value words in the pattern are
// assignments: they must all be among the command's assignments.
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
// A malformed pattern (unbalanced quote, empty, only assignments) matches nothing; reject it when
// rules are loaded with validateCommandPattern(pattern) (error string or null), or parse it once
// with parseCommandPattern and match the parsed form (rules.ts keeps it on the rule).
//
// Matching is linear in the word lengths: wildcards are matched segment by segment, never with
// a backtracking regular expression.
import { allowVariants, lenientVariants, type Variant } from './programs/globals.js';
import type { PatternBehavior, SimpleCommand } from './types.js';
import { assignmentName, baseName, SAFE_ENV } from './words.js';

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
  const words: PatternWord[] = [];
  let i = 0;
  while (i < s.length) {
    while (i < s.length && /\s/.test(s[i]!)) i++;
    if (i >= s.length) break;
    let literal = '';
    const segments: string[] = [''];
    let wild = false;
    const add = (text: string): void => {
      literal += text;
      segments[segments.length - 1] += text;
    };
    while (i < s.length && !/\s/.test(s[i]!)) {
      const c = s[i]!;
      if (c === "'") {
        const j = s.indexOf("'", i + 1);
        if (j === -1) return 'unterminated quote';
        add(s.slice(i + 1, j));
        i = j + 1;
      } else if (c === '"') {
        let j = i + 1;
        let chunk = '';
        for (; j < s.length && s[j] !== '"'; j++) {
          if (s[j] === '\\' && j + 1 < s.length && '"\\$`'.includes(s[j + 1]!)) j++;
          chunk += s[j];
        }
        if (j >= s.length) return 'unterminated quote';
        add(chunk);
        i = j + 1;
      } else if (c === '\\') {
        if (i + 1 >= s.length) return 'trailing backslash';
        add(s[i + 1]!);
        i += 2;
      } else if (c === '*') {
        wild = true;
        literal += '*';
        segments.push('');
        i++;
      } else {
        add(c);
        i++;
      }
    }
    words.push({ literal, segments: wild ? segments : null });
  }
  const assigns: string[] = [];
  while (words.length > 0 && words[0]!.segments === null && /^[A-Za-z_][A-Za-z0-9_]*\+?=/.test(words[0]!.literal)) {
    assigns.push(words.shift()!.literal);
  }
  if (words.length === 0) return 'pattern names no command';
  return { assigns, words, prefix, all: false };
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
