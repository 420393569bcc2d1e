// What the read-only judgement and the danger list know about one program.
import type { Effect, OptionTable, ParsedArgs } from '../getopt.js';
import type { ArgWord } from '../words.js';

/** A danger found in a program's arguments; `index` counts from the first argument (argv[1]). */
export interface ArgDanger {
  index: number;
  kind: Effect;
  description: string;
  spelling: string;
}

export interface Judgement {
  readOnly: boolean;
  dangers: ArgDanger[];
}

export interface ProgramSpec {
  /** The program's options (getopt.ts); read-only and dangers follow from it. */
  options?: OptionTable;
  /** Whether a clean parse can be read-only at all (sed, awk … have tables for dangers only). */
  readOnly: boolean;
  /** Operand rule for read-only (date: only +FORMAT; uniq: no output file). */
  operands?: (p: ParsedArgs, args: readonly ArgWord[]) => boolean;
  /** Dangers the option table cannot express (operands, script languages). */
  dangers?: (args: readonly ArgWord[], p: ParsedArgs) => ArgDanger[];
  /** A judgement of its own, replacing the table-based one (git, find, tar …). */
  judge?: (args: readonly ArgWord[], openArgs: boolean) => Judgement;
}

/** A danger for the whole word `i` (its text must be spelled out). */
export function wordDanger(args: readonly ArgWord[], index: number, kind: Effect, description: string): ArgDanger {
  return { index, kind, description, spelling: args[index]?.value ?? '' };
}
