// One getopt_long-style parser over declarative option tables (programs/*.ts).
//
// A table lists a program's short options (clustered `-abc`, values attached `-ofile` or in the
// next word) and long options (`--name`, `--name=value`, `--name value` for a required value),
// each with the kind of value it takes and its effect: none, or 'write' (writes a file the
// command line names) or 'exec' (runs another program or code). Long options may be
// abbreviated like getopt_long does it: an exact name wins, a unique prefix resolves, an
// ambiguous prefix is an error. `--` ends the options; with GNU permutation, options after
// operands still count.
//
// The parser never guesses: an unknown or ambiguous option, a missing value, or a non-literal
// word that could be an option is reported as a problem, and callers treat a problem as "not
// read-only" (and, for programs with dangerous options, as a danger).
import type { ArgWord } from './words.js';

export type ArgKind = 'none' | 'required' | 'optional';
export type Effect = 'write' | 'exec';

export interface OptDef {
  arg: ArgKind;
  effect: Effect | null;
}

export interface OptionTable {
  readonly short: ReadonlyMap<string, OptDef>;
  readonly long: ReadonlyMap<string, OptDef>;
  readonly longNames: readonly string[];
  readonly abbreviate: boolean;
  readonly permute: boolean;
  /** `-NUM` is an option (head -5, grep -3). */
  readonly numeric: boolean;
  /** Some option writes or runs something. */
  readonly hasDangers: boolean;
}

export interface TableSpec {
  /** getopt optstring: a letter, `x:` takes a value, `x::` takes an attached optional value. */
  short?: string;
  /** Space-separated names: `name`, `name=` (value required), `name[=]` (value optional). */
  long?: string;
  write?: readonly string[];
  exec?: readonly string[];
  /** getopt_long prefix matching (default true: GNU programs). */
  abbreviate?: boolean;
  /** Options after operands count (default true: GNU programs). */
  permute?: boolean;
  numeric?: boolean;
}

export function table(spec: TableSpec): OptionTable {
  const effectOf = (name: string): Effect | null =>
    spec.exec?.includes(name) ? 'exec' : spec.write?.includes(name) ? 'write' : null;
  const short = new Map<string, OptDef>();
  const s = spec.short ?? '';
  for (let i = 0; i < s.length; i++) {
    const ch = s[i]!;
    let arg: ArgKind = 'none';
    if (s[i + 1] === ':') {
      arg = s[i + 2] === ':' ? 'optional' : 'required';
      i += arg === 'optional' ? 2 : 1;
    }
    short.set(ch, { arg, effect: effectOf(ch) });
  }
  const long = new Map<string, OptDef>();
  for (const item of (spec.long ?? '').split(/\s+/).filter(Boolean)) {
    const m = /^([A-Za-z0-9][A-Za-z0-9_.-]*)(=|\[=\])?$/.exec(item);
    if (!m) throw new Error(`bad long option spec ${item}`);
    const arg: ArgKind = m[2] === '=' ? 'required' : m[2] === '[=]' ? 'optional' : 'none';
    long.set(m[1]!, { arg, effect: effectOf(m[1]!) });
  }
  for (const name of [...(spec.write ?? []), ...(spec.exec ?? [])]) {
    if (!short.has(name) && !long.has(name)) throw new Error(`effect for unknown option ${name}`);
  }
  return {
    short,
    long,
    longNames: [...long.keys()].sort(),
    abbreviate: spec.abbreviate ?? true,
    permute: spec.permute ?? true,
    numeric: spec.numeric ?? false,
    hasDangers: [...short.values(), ...long.values()].some((d) => d.effect !== null),
  };
}

export interface ParsedOption {
  /** Index of the word (in the words given to parseArgs). */
  index: number;
  /** Canonical name: `-o` or `--output`. */
  name: string;
  /** The part of the word that named it (`--outp`, `-uo`). */
  spelling: string;
  value: string | null;
  /** Index of the word holding the value when it is the next word. */
  valueIndex: number | null;
  effect: Effect | null;
}

export type ProblemKind = 'unknown' | 'ambiguous' | 'missing' | 'dynamic';

export interface ParseProblem {
  index: number;
  kind: ProblemKind;
  message: string;
}

export interface ParsedArgs {
  options: ParsedOption[];
  operands: number[];
  problems: ParseProblem[];
}

/** Resolves a long option name (without `--`) the way getopt_long does. */
export function resolveLong(t: OptionTable, name: string): { name: string; def: OptDef } | 'unknown' | 'ambiguous' {
  const exact = t.long.get(name);
  if (exact) return { name, def: exact };
  if (!t.abbreviate || name === '') return 'unknown';
  // longNames is sorted: the names with this prefix are contiguous.
  let lo = 0;
  let hi = t.longNames.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (t.longNames[mid]! < name) lo = mid + 1;
    else hi = mid;
  }
  const first = t.longNames[lo];
  if (first === undefined || !first.startsWith(name)) return 'unknown';
  const second = t.longNames[lo + 1];
  if (second !== undefined && second.startsWith(name)) return 'ambiguous';
  return { name: first, def: t.long.get(first)! };
}

/** Parses `words` (the arguments after the program name) from `start`. */
export function parseArgs(t: OptionTable, words: readonly ArgWord[], start = 0): ParsedArgs {
  const out: ParsedArgs = { options: [], operands: [], problems: [] };
  let onlyOperands = false;
  const operand = (i: number): void => {
    out.operands.push(i);
    if (!t.permute) onlyOperands = true;
  };
  const problem = (index: number, kind: ProblemKind, message: string): void => {
    out.problems.push({ index, kind, message });
  };
  /** The next word as a value; a value that may split could push words into option position. */
  const takeValue = (i: number, opt: string): boolean => {
    const v = words[i + 1];
    if (v === undefined) {
      problem(i, 'missing', `${opt} needs a value`);
      return false;
    }
    if (v.split) {
      // `-k $K`: an unquoted expansion may become several words, the later ones options.
      problem(i + 1, 'dynamic', `the value of ${opt} is not a literal word and may become several words`);
    }
    return true;
  };
  for (let i = start; i < words.length; i++) {
    const w = words[i]!;
    if (onlyOperands) {
      out.operands.push(i);
      continue;
    }
    if (w.dynamic) {
      const lead = w.lead;
      if (!w.mayBeOption) {
        operand(i);
        continue;
      }
      // A literal option name followed by a run-time value is still that option.
      const known = lead.startsWith('--') && !w.split ? /^--([^=]+)=/.exec(lead) : null;
      if (known) {
        const r = resolveLong(t, known[1]!);
        if (typeof r === 'string') problem(i, r, `option --${known[1]} is ${r}`);
        else out.options.push({ index: i, name: `--${r.name}`, spelling: `--${known[1]}`, value: w.value.slice(known[0].length), valueIndex: null, effect: r.def.effect });
        continue;
      }
      if (!w.split && /^-[^-]/.test(lead) && shortLeadResolves(t, lead)) {
        parseShort(t, lead, i, out, problem, () => false);
        continue;
      }
      problem(i, 'dynamic', 'a word that is not literal could be an option');
      continue;
    }
    const v = w.value;
    if (v === '--') {
      onlyOperands = true;
      continue;
    }
    if (v === '-' || !v.startsWith('-')) {
      operand(i);
      continue;
    }
    if (t.numeric && /^-\d+$/.test(v)) {
      out.options.push({ index: i, name: '-NUM', spelling: v, value: v.slice(1), valueIndex: null, effect: null });
      continue;
    }
    if (v.startsWith('--')) {
      const eq = v.indexOf('=');
      const name = eq === -1 ? v.slice(2) : v.slice(2, eq);
      const r = resolveLong(t, name);
      if (typeof r === 'string') {
        problem(i, r, `option --${name} is ${r === 'unknown' ? 'not known' : 'ambiguous'}`);
        continue;
      }
      const opt: ParsedOption = { index: i, name: `--${r.name}`, spelling: `--${name}`, value: null, valueIndex: null, effect: r.def.effect };
      if (eq !== -1) {
        if (r.def.arg === 'none') problem(i, 'unknown', `option --${r.name} takes no value`);
        opt.value = v.slice(eq + 1);
      } else if (r.def.arg === 'required') {
        if (takeValue(i, opt.name)) {
          opt.value = words[i + 1]!.value;
          opt.valueIndex = i + 1;
          i++;
        }
      }
      out.options.push(opt);
      continue;
    }
    i = parseShort(t, v, i, out, problem, (opt) => {
      if (!takeValue(i, opt.name)) return false;
      opt.value = words[i + 1]!.value;
      opt.valueIndex = i + 1;
      return true;
    });
  }
  return out;
}

/** Does a short cluster's literal start reach a value-taking option (so the rest is its value)? */
function shortLeadResolves(t: OptionTable, lead: string): boolean {
  for (let k = 1; k < lead.length; k++) {
    const def = t.short.get(lead[k]!);
    if (!def) return false;
    if (def.arg !== 'none') return true;
  }
  return false;
}

/** Parses one short-option cluster; returns the index of the last word it used. */
function parseShort(
  t: OptionTable,
  v: string,
  i: number,
  out: ParsedArgs,
  problem: (index: number, kind: ProblemKind, message: string) => void,
  takeNext: (opt: ParsedOption) => boolean,
): number {
  for (let k = 1; k < v.length; k++) {
    const ch = v[k]!;
    const def = t.short.get(ch);
    if (!def) {
      problem(i, 'unknown', `option -${ch} is not known`);
      return i;
    }
    const opt: ParsedOption = { index: i, name: `-${ch}`, spelling: v.slice(0, k + 1), value: null, valueIndex: null, effect: def.effect };
    out.options.push(opt);
    if (def.arg === 'none') continue;
    const rest = v.slice(k + 1);
    if (rest !== '') opt.value = rest;
    else if (def.arg === 'required' && takeNext(opt)) return i + 1;
    return i;
  }
  return i;
}
