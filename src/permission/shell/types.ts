// The public shapes of a command analysis (see analyze.ts for how they are filled in).

export interface SimpleCommand {
  /** Fully decoded words after unwrapping; dynamic words keep their literal source text (`$HOME`). */
  argv: string[];
  /** Display form: assignments then argv, joined by single spaces, words quoted where needed. */
  text: string;
  /** Found inside $(), backticks, <(), >(), eval, bash -c, watch, su -c, xargs, find -exec, sudo. */
  nested: boolean;
  /** Parallel to argv: true where the run-time value is not known statically. */
  dynamic: boolean[];
  /** `NAME=value` pairs this command runs with (see analyze.ts). */
  assignments: string[];
  /** More arguments are appended at run time (xargs; find -exec with {}). */
  openArgs: boolean;
  /** This command alone is read-only (see read-only.ts). */
  readOnly: boolean;
  /**
   * The words that make this command write files or run code beyond what its name says (an
   * option such as `sort -o`, a sed `w` command, `python -c` code …). An allow rule covers the
   * command only if it spells each of them out (see pattern.ts). Empty for programs without a
   * table (dangers.ts).
   */
  dangers: Danger[];
}

export interface Danger {
  /** Index into argv; argv.length for arguments appended at run time. */
  word: number;
  kind: 'write' | 'exec';
  /** What the word does, briefly (`sort --output writes a file`). */
  description: string;
  /**
   * The leading part of the word that names the danger (`--outp` of `--outp=f`, `-o` of `-ofile`,
   * the whole word for a script). A pattern word covers the danger if it is that literal word,
   * or a wildcard word whose text before its first `*` starts with this.
   */
  spelling: string;
}

export interface Redirect {
  op: string;
  target: string | null;
  writes: boolean;
}

export type CommandAnalysis =
  | { ok: true; commands: SimpleCommand[]; redirects: Redirect[]; readOnly: boolean }
  | { ok: false; reason: string };

export type PatternBehavior = 'allow' | 'deny' | 'ask';

/** Longest command accepted (characters). */
export const MAX_INPUT = 1_000_000;
/** Deepest eval / bash -c / nested-substitution nesting accepted. */
export const MAX_DEPTH = 12;
/** Most simple commands one line may run (past it the line is not analysed: rule matching stays bounded). */
export const MAX_COMMANDS = 1_000;
/** Most words and syntax nodes analysed for one line (past it the line is not analysed). */
export const MAX_WORK = 10_000;

/** Thrown inside the analyser; analyzeCommand turns it into { ok: false, reason }. */
export class Fail extends Error {}

export function fail(reason: string): never {
  throw new Fail(reason);
}
