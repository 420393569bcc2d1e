// git: its global options (git.c's own parser: exact names, no abbreviations), the subcommand
// (an unknown one would run a configured alias: the line is not analysed), the read-only
// subcommands with their option allowlists, and the options, operands and configuration keys
// that make a git command write files or run programs.
import { parseArgs, type Effect } from '../getopt.js';
import { fail } from '../types.js';
import { own, type ArgWord } from '../words.js';
import {
  GIT_COMMANDS,
  GIT_DANGEROUS,
  GIT_EXEC_CONFIG,
  GIT_EXEC_OPERANDS,
  GIT_EXEC_SUBCOMMANDS,
  GIT_READ_ONLY_TABLES,
  GIT_SAFE_PREFIXES,
} from './git-tables.js';
import { wordDanger, type ArgDanger, type Judgement, type ProgramSpec } from './spec.js';

interface GlobalDef {
  /** none; next: value in the next word only; either: `=value` or the next word; optional: `=value` only. */
  takes: 'none' | 'next' | 'either' | 'optional';
  /** Changes nothing about what the subcommand does to files or which programs run. */
  harmless: boolean;
  effect: Effect | null;
  /** Prints something and exits (no subcommand needed). */
  info: boolean;
  what?: string;
}

const info = (takes: GlobalDef['takes'] = 'none'): GlobalDef => ({ takes, harmless: true, effect: null, info: true });
const harmless = (takes: GlobalDef['takes'] = 'none'): GlobalDef => ({ takes, harmless: true, effect: null, info: false });
const danger = (takes: GlobalDef['takes'], what: string): GlobalDef => ({ takes, harmless: false, effect: 'exec', info: false, what });

export const GIT_GLOBALS: Record<string, GlobalDef> = {
  '-h': info(),
  '-v': info(),
  '--version': info(),
  '--html-path': info(),
  '--man-path': info(),
  '--info-path': info(),
  '--list-cmds': info('optional'),
  // `git --help` starts man and its pager.
  '--help': { takes: 'none', harmless: false, effect: null, info: true },
  '--exec-path': { takes: 'optional', harmless: false, effect: 'exec', info: true, what: 'git --exec-path=DIR runs git commands from DIR' },
  '-p': danger('none', 'git -p runs the configured pager'),
  '--paginate': danger('none', 'git --paginate runs the configured pager'),
  '-c': danger('next', 'git -c sets configuration, which can name programs to run'),
  '--config-env': danger('either', 'git --config-env sets configuration, which can name programs to run'),
  '--git-dir': danger('either', 'git --git-dir uses another repository, whose configuration can name programs to run'),
  '--work-tree': danger('either', 'git --work-tree works on another tree, whose files and attributes git acts on'),
  '--super-prefix': danger('either', 'git --super-prefix is internal to git'),
  '--attr-source': danger('either', 'git --attr-source takes attributes, which select drivers, from a tree'),
  '-C': harmless('next'),
  '-P': harmless(),
  '--no-pager': harmless(),
  '--namespace': harmless('either'),
  '--bare': harmless(),
  '--no-replace-objects': harmless(),
  '--no-lazy-fetch': harmless(),
  '--no-advice': harmless(),
  '--no-optional-locks': harmless(),
  '--literal-pathspecs': harmless(),
  '--no-literal-pathspecs': harmless(),
  '--glob-pathspecs': harmless(),
  '--noglob-pathspecs': harmless(),
  '--icase-pathspecs': harmless(),
};

export interface GitGlobal {
  index: number;
  /** One past the last word of the option (its value included). */
  end: number;
  name: string;
  def: GlobalDef;
  hasValue: boolean;
}

export interface GitCommandLine {
  globals: GitGlobal[];
  /** Index of the subcommand (args.length when there is none). */
  sub: number;
  problem: string | null;
}

/** Splits git's arguments into global options and the subcommand. */
export function parseGitCommandLine(args: readonly ArgWord[]): GitCommandLine {
  const globals: GitGlobal[] = [];
  let i = 0;
  while (i < args.length) {
    const w = args[i]!;
    if (w.dynamic) {
      if (w.mayBeOption) return { globals, sub: i, problem: `git option ${w.value} is not a literal word` };
      return { globals, sub: i, problem: `git subcommand ${w.value} is not a literal word` };
    }
    if (!w.value.startsWith('-')) return { globals, sub: i, problem: null };
    const eq = w.value.startsWith('--') ? w.value.indexOf('=') : -1;
    const name = eq === -1 ? w.value : w.value.slice(0, eq);
    const def = own(GIT_GLOBALS, name);
    if (def === undefined) return { globals, sub: i, problem: `git option ${w.value} is not known` };
    if (eq !== -1) {
      if (def.takes !== 'either' && def.takes !== 'optional') return { globals, sub: i, problem: `git option ${name} takes no value` };
      globals.push({ index: i, end: i + 1, name, def, hasValue: true });
      i++;
      continue;
    }
    if (def.takes === 'next' || def.takes === 'either') {
      if (i + 1 >= args.length) return { globals, sub: args.length, problem: `git option ${name} needs a value` };
      globals.push({ index: i, end: i + 2, name, def, hasValue: true });
      i += 2;
      continue;
    }
    globals.push({ index: i, end: i + 1, name, def, hasValue: false });
    i++;
  }
  return { globals, sub: args.length, problem: null };
}

/** Fails closed on what cannot be known statically: unknown options, aliases, dynamic names. */
export function checkGit(args: readonly ArgWord[]): void {
  const c = parseGitCommandLine(args);
  if (c.problem !== null) fail(c.problem);
  const sub = args[c.sub];
  if (sub !== undefined && !GIT_COMMANDS.has(sub.value)) {
    fail(`git ${sub.value} is not a git command: it would run an alias from the configuration`);
  }
}

function globalEffect(g: GitGlobal): Effect | null {
  if (g.name === '--exec-path') return g.hasValue ? 'exec' : null;
  return g.def.effect;
}

/** Dangerous options of a subcommand, by exact name or abbreviation (git abbreviates long options). */
function subcommandDangers(sub: string, args: readonly ArgWord[], start: number): ArgDanger[] {
  const lists = [GIT_DANGEROUS['*']!, own(GIT_DANGEROUS, sub)].filter((l) => l !== undefined);
  const roTable = own(GIT_READ_ONLY_TABLES as Record<string, { long: ReadonlyMap<string, { effect: Effect | null }> }>, sub);
  const out: ArgDanger[] = [];
  for (let i = start; i < args.length; i++) {
    const w = args[i]!;
    if (w.dynamic) {
      if (w.mayBeOption) out.push(wordDanger(args, i, 'exec', `git ${sub} argument ${w.value} is not a literal word and could be an option that writes or runs a program`));
      continue;
    }
    const v = w.value;
    if (v === '--') break;
    if (v.startsWith('--')) {
      const eq = v.indexOf('=');
      const name = v.slice(2, eq === -1 ? undefined : eq);
      if (name === '') continue;
      const exact = roTable?.long.get(name);
      if ((exact && exact.effect === null) || GIT_SAFE_PREFIXES.has(name)) continue;
      for (const l of lists) {
        const hit = Object.entries(l.long).find(([d]) => d === name || d.startsWith(name));
        if (hit) {
          out.push({ index: i, kind: hit[1], description: `git ${sub} --${hit[0]} ${hit[1] === 'write' ? 'writes a file' : 'runs a program'}`, spelling: `--${name}` });
          break;
        }
      }
    } else if (v.length > 1 && v.startsWith('-')) {
      for (let k = 1; k < v.length; k++) {
        const kind = lists.map((l) => l.short?.[v[k]!]).find((x) => x !== undefined);
        if (kind) {
          out.push({ index: i, kind, description: `git ${sub} -${v[k]} ${kind === 'write' ? 'writes a file' : 'runs a program'}`, spelling: v.slice(0, k + 1) });
          break;
        }
      }
    }
  }
  const subIdx = start - 1;
  const execSub = own(GIT_EXEC_SUBCOMMANDS, sub);
  if (execSub) out.push(wordDanger(args, subIdx, 'exec', execSub));
  const execOperand = own(GIT_EXEC_OPERANDS, sub);
  if (execOperand) {
    const first = args.slice(start).findIndex((a) => !a.value.startsWith('-'));
    if (first !== -1 && (args[start + first]!.dynamic || args[start + first]!.value === execOperand)) {
      out.push(wordDanger(args, start + first, 'exec', `git ${sub} ${execOperand} runs a command`));
    }
  }
  if (sub === 'config') out.push(...configDangers(args, start));
  return out;
}

const CONFIG_VALUE_OPTIONS = new Set(['-f', '--file', '--blob', '--type', '--default', '--comment', '--value']);
const CONFIG_VERBS = new Set(['set', 'unset', 'get', 'list', 'edit', 'rename-section', 'remove-section', 'get-color', 'get-colorbool']);
const EXEC_SECTIONS = /^(alias|filter|pager|difftool|mergetool|credential|include|includeif|url|protocol|instaweb|trailer|diff|merge|core|gpg|browser|man|sendemail|submodule|remote|uploadpack|sequence|web|ssh|init|help|imap|safe|receive)(\..*)?$/i;

/** `git config KEY VALUE` with a key that names a program (alias.*, core.pager …). */
function configDangers(args: readonly ArgWord[], start: number): ArgDanger[] {
  const out: ArgDanger[] = [];
  const operands: number[] = [];
  let renaming = false;
  for (let i = start; i < args.length; i++) {
    const w = args[i]!;
    if (!w.dynamic && w.value.startsWith('-')) {
      if (w.value === '--rename-section') renaming = true;
      if (CONFIG_VALUE_OPTIONS.has(w.value)) i++;
      continue;
    }
    operands.push(i);
  }
  let k = 0;
  const verb = args[operands[0] ?? -1];
  if (verb && !verb.dynamic && CONFIG_VERBS.has(verb.value)) {
    if (verb.value === 'edit') out.push(wordDanger(args, operands[0]!, 'exec', 'git config edit runs an editor'));
    if (verb.value === 'rename-section') renaming = true;
    k = 1;
  }
  const key = operands[k];
  if (key !== undefined && args[key]!.dynamic) out.push(wordDanger(args, key, 'exec', 'git config with a key that is not a literal word'));
  for (const i of operands.slice(k)) {
    const v = args[i]!.value;
    if (args[i]!.dynamic) continue;
    const keyPart = v.includes('=') ? v.slice(0, v.indexOf('=')) : v;
    if (GIT_EXEC_CONFIG.test(keyPart) || (renaming && EXEC_SECTIONS.test(v))) {
      out.push(wordDanger(args, i, 'exec', `git config ${keyPart} names a program git runs`));
    }
  }
  return out;
}

function judgeGit(args: readonly ArgWord[], openArgs: boolean): Judgement {
  const c = parseGitCommandLine(args);
  const dangers: ArgDanger[] = [];
  for (const g of c.globals) {
    const e = globalEffect(g);
    if (e) dangers.push({ index: g.index, kind: e, description: g.def.what ?? `git ${g.name}`, spelling: g.name });
  }
  let readOnly = !openArgs && c.problem === null && c.globals.every((g) => g.def.harmless && globalEffect(g) === null);
  const subWord = args[c.sub];
  if (subWord === undefined) {
    return { readOnly: readOnly && c.globals.length > 0 && c.globals.some((g) => g.def.info), dangers };
  }
  const sub = subWord.value;
  if (!subWord.dynamic) dangers.push(...subcommandDangers(sub, args, c.sub + 1));
  const t = own(GIT_READ_ONLY_TABLES as Record<string, (typeof GIT_READ_ONLY_TABLES)['log']>, sub);
  const rest = args.slice(c.sub + 1);
  if (sub === 'remote') {
    readOnly &&= rest.length === 0 || (rest.length === 1 && !rest[0]!.dynamic && ['-v', '--verbose'].includes(rest[0]!.value));
  } else if (t === undefined) {
    readOnly = false;
  } else {
    const p = parseArgs(t, args, c.sub + 1);
    readOnly &&= p.problems.length === 0 && p.options.every((o) => o.effect === null);
    // `git branch NAME` creates a branch; with --list the operands are patterns.
    if (sub === 'branch') readOnly &&= p.operands.length === 0 || p.options.some((o) => o.name === '--list' || o.name === '-l');
  }
  return { readOnly: readOnly && dangers.length === 0, dangers };
}

export const GIT: ProgramSpec = { readOnly: true, judge: judgeGit };

/**
 * For matching rules: where the subcommand starts once the global options are skipped, and
 * whether every skipped option is harmless (only then may an allow rule skip them too).
 */
export function gitSubcommandStart(args: readonly ArgWord[]): { sub: number; harmless: boolean } | null {
  const c = parseGitCommandLine(args);
  if (c.problem !== null || c.sub >= args.length || c.globals.length === 0) return null;
  return { sub: c.sub, harmless: c.globals.every((g) => g.def.harmless && !g.def.info && globalEffect(g) === null) };
}
