// Words as the analyser sees them, and the tables about names it shares.

/** A word as the analyser reads it; it is also what option parsers see (ArgWord). */
export interface WordInfo extends ArgWord {
  value: string;
  dynamic: boolean;
  /** Has an unquoted expansion, substitution or glob: may become several words (or none). */
  split: boolean;
  /** Has an unquoted parameter or command expansion: word splitting may make new words of any text. */
  fields: boolean;
  /** The literal text before the first part known only at run time (the whole value when static). */
  lead: string;
  /** How to display it: quoted value for static words, the source text for dynamic ones. */
  display: string;
}

/** A word as a program's option parser sees it (see getopt.ts). */
export interface ArgWord {
  value: string;
  dynamic: boolean;
  /** Dynamic only: the run-time text could start with `-` or become several words. */
  mayBeOption: boolean;
  /** Dynamic only: may become several words (unquoted expansion or glob). */
  split: boolean;
  /** Dynamic only: the literal start of the word (`--output=` of `--output=$F`). */
  lead: string;
}

export function staticWord(value: string): WordInfo {
  return { value, dynamic: false, mayBeOption: false, split: false, fields: false, lead: value, display: quoteWord(value) };
}

/** Whether a dynamic word's run-time text could start with `-` or become several words. */
export function mayBeOption(dynamic: boolean, fields: boolean, lead: string): boolean {
  return dynamic && (fields || lead === '' || lead.startsWith('-'));
}

export function literalArgs(argv: readonly string[]): ArgWord[] {
  return argv.map((value) => ({ value, dynamic: false, mayBeOption: false, split: false, lead: value }));
}

export const PLAIN_WORD = /^[A-Za-z0-9_@%+=:,./~^-]+$/;

/** Quotes a word for display (and so that it re-parses to the same word). */
export function quoteWord(s: string): string {
  if (s === '') return "''";
  if ((PLAIN_WORD.test(s) && !s.startsWith('~')) || ['[', '[[', ']', ']]', '!'].includes(s)) return s;
  // eslint-disable-next-line no-control-regex
  if (/[\x00-\x1f\x7f]/.test(s)) {
    let out = "$'";
    for (const ch of s) {
      const code = ch.codePointAt(0) ?? 0;
      if (ch === "'" || ch === '\\') out += '\\' + ch;
      else if (code < 0x20 || code === 0x7f) out += '\\x' + code.toString(16).padStart(2, '0');
      else out += ch;
    }
    return out + "'";
  }
  return "'" + s.replace(/'/g, `'\\''`) + "'";
}

export function quoteAssignment(a: string): string {
  const name = /^[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?\+?=/.exec(a);
  if (!name) return quoteWord(a);
  const v = a.slice(name[0].length);
  return name[0] + (v === '' ? '' : quoteWord(v));
}

export function assignmentName(a: string): string {
  const m = /^[A-Za-z_][A-Za-z0-9_]*/.exec(a);
  return m ? m[0] : a;
}

export function baseName(path: string): string {
  const i = path.lastIndexOf('/');
  return i === -1 ? path : path.slice(i + 1);
}

const TRUSTED_DIRS = ['/bin/', '/usr/bin/', '/usr/local/bin/', '/sbin/', '/usr/sbin/'];

/** The name to recognise a program by: bare names and trusted system paths; null for other paths. */
export function programName(word: string): string | null {
  if (!word.includes('/')) return word;
  for (const dir of TRUSTED_DIRS) {
    if (word.startsWith(dir) && !word.slice(dir.length).includes('/')) return word.slice(dir.length);
  }
  return null;
}

/** Variables that change nothing about what a command does to files or which programs run. */
export const SAFE_ENV = /^(LANG|LANGUAGE|LC_[A-Z_]+|TZ|NO_COLOR|FORCE_COLOR|CLICOLOR|CLICOLOR_FORCE|COLUMNS|LINES)$/;

/** Variables that change what later commands run (or how the shell parses): never set in a line. */
export const SENSITIVE_VAR =
  /^(PATH|HOME|IFS|ENV|BASH_ENV|SHELLOPTS|BASHOPTS|GLOBIGNORE|CDPATH|EXECIGNORE|FIGNORE|PROMPT_COMMAND|PS[0-4]|BASH_XTRACEFD|BASH_COMPAT|HISTFILE|HOSTFILE|INPUTRC|MAIL|MAILPATH|SHELL|TMPDIR|PWD|OLDPWD|PAGER|EDITOR|VISUAL|LESSOPEN|LESSCLOSE|PYTHONPATH|PYTHONSTARTUP|PYTHONHOME|NODE_OPTIONS|NODE_PATH|PERL5LIB|PERL5OPT|RUBYOPT|RUBYLIB|LD_\w*|DYLD_\w*|GIT_\w*|XDG_\w*|BASH_FUNC_\w*|npm_config_\w*|NPM_CONFIG_\w*)$/;

/** A table entry by a name from the command line (never an Object.prototype member). */
export function own<T>(table: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(table, key) ? table[key] : undefined;
}
