// The read-only judgement and the danger list of one simple command.
//
// Read-only is an allowlist of programs AND of their options: a program is read-only only if it
// is listed here and every option it is given is in its table (getopt.ts; an unknown or
// ambiguous option, or a missing value, is not read-only), no option writes or runs anything,
// and its operand rule holds (uniq: no OUTPUT; date: only +FORMAT).
// • No table, any arguments: echo, true, false, pwd, cd, which, type, `[[`, test/[ without -v,
//   read into non-sensitive names (the analyser already failed closed on their risky forms).
// • Special: printf without -v; hostname without arguments; `command -v|-V`; env without a
//   command (only -i/-u/-0 and NAME=val).
// • Tables: cat head tail wc ls stat du df cut tr diff cmp sort uniq date file tree grep egrep
//   fgrep rg realpath readlink basename dirname id uname whoami (programs/coreutils.ts), find
//   (programs/find.ts), git (programs/git.ts: harmless global options, the subcommands status
//   diff log show whatchanged rev-list rev-parse ls-files ls-tree blame describe merge-base,
//   branch listing, remote [-v]).
// A non-literal word, or arguments appended at run time (xargs), keep a command read-only only
// when its table has no option that writes or runs anything and no operand rule.
// argv[0] must be a bare name or in a trusted system dir (/bin/ls yes, ./ls no).
//
// Dangers (SimpleCommand.dangers, see types.ts) come from the same tables: every option whose
// effect is write/exec (however abbreviated), an ambiguous abbreviation one of whose candidates
// is dangerous, a non-literal word that could be such an option, operands (uniq OUTPUT, date
// MMDDhhmm), and for script languages their own scanners (programs/awk.ts, sed.ts, tar.ts,
// interpreters.ts). A read-only command has no dangers.
import { parseArgs } from './getopt.js';
import { programSpec } from './programs/index.js';
import type { ArgDanger, Judgement, ProgramSpec } from './programs/spec.js';
import type { Danger } from './types.js';
import { literalArgs, programName, SENSITIVE_VAR, type ArgWord } from './words.js';

/** Programs none of whose arguments can write files or run other programs. */
const ANY_ARGS = new Set(['echo', 'true', 'false', 'pwd', 'cd', 'which', 'type', ':']);

/**
 * True when `argv` (a literal, already unwrapped command) is on the read-only allowlist and uses
 * no option that writes files, changes the system or runs another program.
 */
export function isReadOnlyCommand(argv: readonly string[]): boolean {
  return judgeCommand(literalArgs(argv), false).readOnly;
}

export interface CommandJudgement {
  readOnly: boolean;
  /** Indices into argv. */
  dangers: Danger[];
}

export function judgeCommand(argv: readonly ArgWord[], openArgs: boolean): CommandJudgement {
  const first = argv[0];
  if (first === undefined || first.dynamic) return { readOnly: false, dangers: [] };
  const prog = programName(first.value);
  if (prog === null) return { readOnly: false, dangers: [] };
  const args = argv.slice(1);
  const spec = programSpec(prog);
  if (spec !== undefined) {
    const j = judgeProgram(prog, spec, args, openArgs);
    const dangers = j.dangers.map((d) => ({ word: d.index + 1, kind: d.kind, description: d.description, spelling: d.spelling }));
    return { readOnly: j.readOnly && dangers.length === 0, dangers };
  }
  return { readOnly: simpleReadOnly(prog, args, openArgs), dangers: [] };
}

function simpleReadOnly(prog: string, args: readonly ArgWord[], openArgs: boolean): boolean {
  if (ANY_ARGS.has(prog) || prog === '[[') return true;
  if (prog === 'test' || prog === '[') return !args.some((a) => a.value === '-v');
  if (prog === 'read') return args.every((a) => !SENSITIVE_VAR.test(a.value) && !a.value.includes('['));
  if (openArgs || args.some((a) => a.dynamic)) return false;
  const v = args.map((a) => a.value);
  switch (prog) {
    case 'printf':
      return !(v[0]?.startsWith('-v') ?? false);
    case 'hostname':
      return v.length === 0;
    case 'command':
      return v.length > 0 && /^-[pvV]*[vV][pvV]*$/.test(v[0]!);
    case 'env':
      return envWithoutCommand(v);
    default:
      return false;
  }
}

function envWithoutCommand(args: readonly string[]): boolean {
  for (let i = 0; i < args.length; i++) {
    const v = args[i]!;
    if (['-', '-i', '--ignore-environment', '-0', '--null'].includes(v)) continue;
    if (v === '-u' || v === '--unset') {
      i++;
      continue;
    }
    if (/^-u./.test(v) || v.startsWith('--unset=')) continue;
    if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(v)) continue;
    return false;
  }
  return true;
}

/** Arguments xargs or find -exec append at run time could be any option. */
function appended(prog: string, args: readonly ArgWord[]): ArgDanger {
  return { index: args.length, kind: 'exec', description: `${prog}: arguments appended at run time could be options that write or run a program`, spelling: '' };
}

function judgeProgram(prog: string, spec: ProgramSpec, args: readonly ArgWord[], openArgs: boolean): Judgement {
  const anyDynamic = args.some((a) => a.dynamic);
  if (spec.judge) {
    const j = spec.judge(args, openArgs);
    const dangers = openArgs ? [...j.dangers, appended(prog, args)] : j.dangers;
    return { readOnly: j.readOnly && !anyDynamic, dangers };
  }
  const t = spec.options;
  if (t === undefined) return { readOnly: false, dangers: [] };
  const p = parseArgs(t, args);
  const dangers: ArgDanger[] = [];
  for (const o of p.options) {
    if (o.effect) dangers.push({ index: o.index, kind: o.effect, description: `${prog} ${o.name} ${o.effect === 'write' ? 'writes a file' : 'runs a program'}`, spelling: o.spelling });
  }
  if (t.hasDangers) {
    for (const pr of p.problems) {
      const w = args[pr.index]!;
      if (pr.kind === 'dynamic') {
        dangers.push({ index: pr.index, kind: 'exec', description: `${prog}: ${w.value} is not a literal word and could be an option that writes or runs a program`, spelling: w.value });
      } else if (pr.kind === 'ambiguous') {
        // Our notion of ambiguity may differ from the program's: assume the worst candidate.
        const name = w.value.slice(2).split('=')[0]!;
        const effect = t.longNames.filter((n) => n.startsWith(name)).map((n) => t.long.get(n)!.effect).find((e) => e !== null);
        if (effect) dangers.push({ index: pr.index, kind: effect, description: `${prog}: ${pr.message} and could be an option that ${effect === 'write' ? 'writes a file' : 'runs a program'}`, spelling: w.value });
      }
    }
    if (openArgs) dangers.push(appended(prog, args));
  }
  if (spec.dangers) dangers.push(...spec.dangers(args, p));
  const dynamicSafe = !t.hasDangers && spec.operands === undefined;
  const readOnly =
    spec.readOnly &&
    p.problems.every((pr) => pr.kind === 'dynamic' && dynamicSafe) &&
    (dynamicSafe || (!anyDynamic && !openArgs)) &&
    (spec.operands?.(p, args) ?? true);
  return { readOnly, dangers };
}

