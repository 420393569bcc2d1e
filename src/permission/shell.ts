// Shell command analysis for permissions, shared by the Bash tool and the PTY tool (SPEC §4, §9.3, §9.7).
//
// analyzeCommand(command) parses a bash command line with a real bash parser (unbash) and returns
// every simple command it would run, every redirection, and whether the whole line is read-only.
// It FAILS CLOSED: anything it cannot fully account for gives { ok: false, reason } and the caller
// must ask a person (or deny where nobody can be asked). Being conservative is the point.
//
// ─── What counts as a command ────────────────────────────────────────────────────────────────
// • Compound syntax is split: `;` `&&` `||` `|` `|&` `&` newlines, `( )`, `{ }`, if/while/until/
//   for/select/case bodies, `[[ … ]]` (reported as a pseudo command argv ['[[', …, ']]']).
// • Commands inside `$( )`, backticks, `<( )`, `>( )` (in words, assignment values, redirect targets
//   and unquoted here-doc bodies) are reported with nested: true.
// • Unwrapped (the wrapper itself is NOT reported, the inner command keeps the current nesting):
//   `timeout`, `time` (keyword and program), `nice`, `nohup`, `env` (its NAME=val words become
//   assignments), `command`, `builtin`, `exec`, `stdbuf`, `ionice`, `setsid`, `busybox`,
//   leading `NAME=val` assignments.
// • Reported as nested (nested: true): the script of `eval 'literal'`, `bash|sh|zsh|dash|ksh|mksh|ash
//   -c 'literal'`, `watch 'literal'`, `su -c 'literal'`; the command of `xargs CMD…` and of
//   `find … -exec|-execdir|-ok|-okdir CMD… ;|+`; the command run by `sudo`/`doas`.
//   `sudo`, `doas`, `su` and `find` are ALSO reported themselves (full argv), so a rule must allow
//   them too. xargs is not reported itself (only what it runs; with no command that is `echo`).
// • A wrapper/command name is recognised by its bare name or as /bin/X, /usr/bin/X, /usr/local/bin/X,
//   /sbin/X, /usr/sbin/X; any other path (./bash, ~/bin/timeout) is an opaque program reported as is.
// • Programs that run code in their own way (python -c, node -e, make, npm run, ssh, git aliases,
//   a script file given to bash …) are reported as themselves: their argv is all we can know.
//
// ─── Words ───────────────────────────────────────────────────────────────────────────────────
// argv holds fully decoded words: quotes removed, `\x` escapes, `$'…'` (ANSI-C) and `$"…"` decoded,
// so r''m, \rm, "r"m, $'\x72\x6d', $'\162\155', $"rm" all give `rm`.
// Decision: parameter expansions ($VAR, ${VAR}, ${VAR:-x}, ${#VAR}, $1, $@ …), command/process
// substitutions, unquoted globs (* ? […] extglobs) and brace expansion ({a,b}, kept literal, not
// expanded) ARE allowed in argument positions: argv keeps their literal source text (e.g. `$HOME`,
// `*.ts`, `{a,b}`) and `dynamic[i]` is true for such a word. They are NEVER allowed where they could
// choose the command: the command name (also after unwrapping), wrapper/xargs/env/sudo/find option
// areas, find -exec bodies, eval/bash -c/watch/su -c scripts → ok:false.
// Always ok:false: parse errors or any text the parser did not account for; arithmetic ($(( )),
// $[ ], (( )), for ((…)), let, declare/typeset/local -i, [[ x -eq y ]] unless both sides are integer
// literals); ${!x} indirection, ${x:off:len}, ${x@op}, ${x:=v}, non-literal array subscripts (these
// evaluate strings as code); function definitions, coproc, alias, source/., trap, bind, enable, fc,
// hash -p, complete/compgen -C/-F, declare/typeset/local -n; `exec` without a command; a shell that
// would read its script from stdin (`bash`, `bash -s`, `bash <<EOF`, `curl x | sh`); `bash -c "$X"`;
// `eval "$X"`; with `xargs -I R` / `-i` / `find -exec`, a command name or an sh -c / eval script
// containing R / `{}` (run-time input would be spliced into code); `{fd}>file` redirects; assigning a shell-sensitive variable (PATH, HOME, IFS, PS1,
// PROMPT_COMMAND, BASH_ENV, LD_*, GIT_* …, see SENSITIVE_VAR) other than as a one-command prefix;
// builtins taking variable names (read, printf -v, unset, export, test -v …) given a dynamic name or
// an array subscript; `test`/`[` with an unquoted expansion or a dynamic word followed by a dynamic
// or `[`-containing word (could become `-v a[$(cmd)]`); likewise printf's first argument; unknown
// options of the wrappers / xargs / sudo / watch / shells; eval/bash -c nesting deeper than
// MAX_DEPTH; input longer than MAX_INPUT or containing NUL.
// Not failures: an empty line or comments only (ok, no commands, readOnly true); a line with only
// assignments/redirects (`x=1`, `> f`: no command, the redirect is reported).
//
// ─── Assignments ─────────────────────────────────────────────────────────────────────────────
// SimpleCommand.assignments lists `NAME=value` pairs the command runs with: its prefix assignments,
// `env NAME=val`, `sudo NAME=val`, those of enclosing wrappers / bash -c, and every earlier
// `export NAME=val` (or declare/typeset -x) in the same line. Plain `x=1` (not exported) and loop
// variables are not propagated (the sandbox's environment is scrubbed and every sensitive name fails
// closed). Names in SAFE_ENV (LANG, LC_*, TZ, NO_COLOR, COLUMNS …) are harmless; any other
// assignment makes the command not read-only and blocks allow-matching unless the pattern names it.
//
// ─── Redirects ───────────────────────────────────────────────────────────────────────────────
// Redirect.op is the descriptor (if written) plus the operator: '>', '2>', '>>', '&>', '&>>', '>|',
// '<>', '<', '2>&', '<<', '<<-', '<<<'. writes is true for > >> >| &> &>> <> (and `>& file`) unless
// the target is /dev/null, /dev/stdout, /dev/stderr or /dev/fd/N, false for fd duplications (2>&1,
// >&2, >&-), input redirects, here-docs and here-strings (target null). A non-literal target writes.
//
// ─── Read-only ───────────────────────────────────────────────────────────────────────────────
// CommandAnalysis.readOnly is true only if every SimpleCommand.readOnly is true and no redirect
// writes. SimpleCommand.readOnly = isReadOnlyCommand(argv) with these extra conditions: if any word
// is dynamic or more arguments are appended at run time (openArgs), the command must be one whose
// options can never write or execute (ANY_ARGS_SAFE: ls cat head tail wc pwd echo true false which
// type stat du df grep egrep fgrep cut tr diff cmp basename dirname realpath readlink id whoami
// uname cd, plus `[[`, test/[ and read whose risky forms already failed closed); it must have no
// assignment outside SAFE_ENV; it must not run under sudo/doas/su or nohup (nohup may write
// nohup.out). A plain, non-sensitive `x=1` does not affect readOnly.
// Allowlist (isReadOnlyCommand): the ANY_ARGS_SAFE commands; `[[`; test/[ without -v; read into
// non-sensitive names; printf without -v; hostname with no args; `command -v|-V`; env without a
// command (only -i/-u/-0 and NAME=val); find without -exec/-execdir/-ok/-okdir/-delete/-fprint*/-fls;
// sort without -o/--output/--compress-program; uniq with at most one operand; date without -s/--set
// and with only +FORMAT operands; rg without --pre/--hostname-bin; file without -C/--compile; tree
// without -o/-R/--output/--fromfile; git with only -C/--no-pager/--no-optional-locks/--git-dir=/
// --work-tree=/… global options (no -c, --config-env, --exec-path, -p) and subcommand status, diff,
// log, show, rev-parse, ls-files, ls-tree, blame, describe, merge-base, rev-list, branch (only
// --list/-l/-a/-r/-v/-vv/--show-current/--color flags), remote (none or -v), without --output,
// --ext-diff, --textconv, -o/-O (ls-files -o allowed). sed, less, more, awk … are NOT read-only.
// argv[0] must be a bare name or in a trusted system dir (/bin/ls yes, ./ls no).
// isReadOnlyCommand(argv) is the allowlist check on a literal, already unwrapped argv (it does not
// unwrap wrappers: `timeout 5 ls` is not read-only there; analyzeCommand reports `ls`).
//
// ─── Permission patterns: matchCommandPattern(pattern, cmd, behavior = 'allow') ────────────────
// For rules like Bash(git status), Bash(npm run test:*), Bash(npm run test *). The pattern is split
// into words with shell quoting ('…', "…", \x). A trailing `:*` or ` *` makes it a PREFIX pattern:
// the words before it must equal the command's first words, followed by anything including nothing
// (word boundaries: `npm run test:*` matches `npm run test` and `npm run test --watch`, not
// `npm run testx` nor `npm run test:unit`). Otherwise the pattern is EXACT: same number of words.
// An unquoted `*` elsewhere is a wildcard inside ONE word, matching any characters including `/`
// (`git * --dry-run`, `cat *.md`); a quoted `*` is literal. The pattern `*` matches every command. Leading NAME=value words in the pattern are
// assignments: they must all be among the command's assignments.
// Patterns apply to ONE SimpleCommand, so they never match across ; && | or into a substitution:
// the caller checks every command of an analysis (deny if any part matches a deny rule; allow only
// if every part is allowed by a rule or read-only).
// behavior 'allow' (the default, strict): argv[0] must equal the pattern's first word exactly; a
// dynamic word can only be covered by the trailing `*`; a command with openArgs (xargs, find -exec
// with {}) only matches prefix patterns; every assignment outside SAFE_ENV must be written in the
// pattern. behavior 'deny' / 'ask' (lenient, so a rule cannot be dodged): argv[0] also matches by its
// basename (`/bin/rm` and `./rm` match `rm`); from the first dynamic word on, the rest is considered
// matched (it could expand to anything); with openArgs, missing trailing words are considered
// supplied at run time; the command's extra assignments are ignored.
// A malformed pattern (unbalanced quote, empty, only assignments) matches nothing; reject it when
// rules are loaded with validateCommandPattern(pattern) (error string or null).

import { parse } from 'unbash';
import type {
  ArrayValue,
  Assignment,
  CaseItem,
  Command,
  CompoundList,
  ParameterExpansionPart,
  ParsedScript,
  Redirection,
  Script,
  Statement,
  SyntaxNode,
  TestExpression,
  Word,
  WordPart,
} from 'unbash';
import { forEachChild } from 'unbash';

export interface SimpleCommand {
  /** Fully decoded words after unwrapping; dynamic words keep their literal source text (`$HOME`). */
  argv: string[];
  /** Display form: assignments then argv, joined by single spaces, words quoted where needed. */
  text: string;
  /** Found inside $(), backticks, <(), >(), eval, bash -c, watch, su -c, xargs, find -exec, sudo. */
  nested: boolean;
  /** Parallel to argv: true where the run-time value is not known statically. */
  dynamic: boolean[];
  /** `NAME=value` pairs this command runs with (see the header). */
  assignments: string[];
  /** More arguments are appended at run time (xargs; find -exec with {}). */
  openArgs: boolean;
  /** This command alone is read-only (see the header). */
  readOnly: boolean;
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

// ────────────────────────────────────────────────────────────────────────────────────────────
// Tables

const SAFE_ENV = /^(LANG|LANGUAGE|LC_[A-Z_]+|TZ|NO_COLOR|FORCE_COLOR|CLICOLOR|CLICOLOR_FORCE|COLUMNS|LINES)$/;

const SENSITIVE_VAR =
  /^(PATH|HOME|IFS|ENV|BASH_ENV|SHELLOPTS|BASHOPTS|GLOBIGNORE|CDPATH|EXECIGNORE|FIGNORE|PROMPT_COMMAND|PS[0-4]|BASH_XTRACEFD|BASH_COMPAT|HISTFILE|HOSTFILE|INPUTRC|MAIL|MAILPATH|SHELL|TMPDIR|PWD|OLDPWD|PAGER|EDITOR|VISUAL|LESSOPEN|LESSCLOSE|PYTHONPATH|PYTHONSTARTUP|PYTHONHOME|NODE_OPTIONS|NODE_PATH|PERL5LIB|PERL5OPT|RUBYOPT|RUBYLIB|LD_\w*|DYLD_\w*|GIT_\w*|XDG_\w*|BASH_FUNC_\w*|npm_config_\w*|NPM_CONFIG_\w*)$/;

const TRUSTED_DIRS = ['/bin/', '/usr/bin/', '/usr/local/bin/', '/sbin/', '/usr/sbin/'];

const SHELLS = new Set(['bash', 'sh', 'zsh', 'dash', 'ksh', 'mksh', 'ash']);

/** Commands none of whose options or operands can write files or run other programs. */
const ANY_ARGS_SAFE = new Set([
  'ls', 'cat', 'head', 'tail', 'wc', 'pwd', 'echo', 'true', 'false', 'which', 'type', 'stat', 'du', 'df',
  'grep', 'egrep', 'fgrep', 'cut', 'tr', 'diff', 'cmp', 'basename', 'dirname', 'realpath', 'readlink',
  'id', 'whoami', 'uname', 'cd',
]);

/** Builtins that define shell state in ways that hide later commands or evaluate strings as code. */
const ALWAYS_FAIL: Record<string, string> = {
  source: 'source runs a script file that cannot be analysed',
  '.': '. (source) runs a script file that cannot be analysed',
  alias: 'alias definitions can change what a later command runs',
  trap: 'trap runs a string as a command later',
  bind: 'bind can run commands on key presses',
  enable: 'enable can load or hide builtins',
  fc: 'fc re-runs commands from history',
  let: 'let evaluates arithmetic, which can run commands through array subscripts',
  coproc: 'coproc is not supported',
  function: 'function definitions are not supported',
};

const VAR_BUILTINS = new Set([
  'read', 'mapfile', 'readarray', 'declare', 'typeset', 'local', 'export', 'readonly', 'unset', 'getopts', 'wait',
]);
const DECLARE_LIKE = new Set(['declare', 'typeset', 'local', 'export', 'readonly']);

const GIT_READ_ONLY = new Set([
  'status', 'diff', 'log', 'show', 'branch', 'rev-parse', 'ls-files', 'ls-tree', 'blame', 'remote', 'describe',
  'merge-base', 'rev-list',
]);

// ────────────────────────────────────────────────────────────────────────────────────────────
// Words

class Fail extends Error {}

function fail(reason: string): never {
  throw new Fail(reason);
}

interface WordInfo {
  value: string;
  dynamic: boolean;
  /** Has an unquoted expansion, substitution or glob: may become several words (or none). */
  split: boolean;
  /** How to display it: quoted value for static words, the source text for dynamic ones. */
  display: string;
}

function staticWord(value: string): WordInfo {
  return { value, dynamic: false, split: false, display: quoteWord(value) };
}

const PLAIN_WORD = /^[A-Za-z0-9_@%+=:,./~^-]+$/;

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

function baseName(path: string): string {
  const i = path.lastIndexOf('/');
  return i === -1 ? path : path.slice(i + 1);
}

/** The name to recognise a program by: bare names and trusted system paths; null for other paths. */
function programName(word: string): string | null {
  if (!word.includes('/')) return word;
  for (const dir of TRUSTED_DIRS) {
    if (word.startsWith(dir) && !word.slice(dir.length).includes('/')) return word.slice(dir.length);
  }
  return null;
}

// ────────────────────────────────────────────────────────────────────────────────────────────
// Coverage check: unbash is a tolerant parser and can silently drop tokens (e.g. the `(` of
// `ls ( x`). Every character of a structural node that is not inside one of its children must be
// whitespace, a comment, a line continuation, or one of the node's own keywords/operators.

const OWN_TOKENS: Record<string, readonly string[]> = {
  Script: [';', '&'],
  CompoundList: [';', '&'],
  Statement: [';', '&'],
  AndOr: ['&&', '||'],
  Pipeline: ['|', '|&'],
  Command: [],
  Redirected: [],
  If: ['if', 'then', 'else', 'fi', ';', '&'],
  Elif: ['elif', 'then', ';', '&'],
  For: ['for', 'in', 'do', 'done', ';', '&', '{', '}'],
  Select: ['select', 'in', 'do', 'done', ';', '&', '{', '}'],
  While: ['while', 'until', 'do', 'done', ';', '&'],
  Subshell: ['(', ')', ';', '&'],
  BraceGroup: ['{', '}', ';', '&'],
  Case: ['case', 'in', 'esac', ';', '&'],
  CaseItem: ['(', ')', '|', ';;', ';&', ';;&'],
  TestCommand: ['[[', ']]'],
};

const GAP_TOKEN = /\s+|\\\n|#[^\n]*|\[\[|\]\]|;;&|;;|;&|&&|\|\||\|&|[;&|(){}]|[A-Za-z]+|[^]/y;

type Range = readonly [number, number];

function checkOwnText(node: SyntaxNode & { pos: number; end: number }, src: string, skip: readonly Range[]): void {
  const allowed = OWN_TOKENS[node.type];
  if (allowed === undefined) fail(`unsupported syntax: ${node.type}`);
  const children: Range[] = [];
  forEachChild(node, (child) => {
    if ('pos' in child && 'end' in child) children.push([child.pos, child.end]);
  });
  const covered = [...children, ...skip].sort((a, b) => a[0] - b[0]);
  let at = node.pos;
  const gaps: Range[] = [];
  for (const [s, e] of covered) {
    if (e <= at) continue;
    if (s >= node.end) break;
    if (s > at) gaps.push([at, Math.min(s, node.end)]);
    at = Math.max(at, e);
  }
  if (at < node.end) gaps.push([at, node.end]);
  for (const [s, e] of gaps) {
    const text = src.slice(s, e);
    GAP_TOKEN.lastIndex = 0;
    while (GAP_TOKEN.lastIndex < text.length) {
      const m = GAP_TOKEN.exec(text);
      if (m === null) fail('parse error');
      const tok = m[0];
      if (/^\s/.test(tok) || tok.startsWith('#') || tok === '\\\n') continue;
      if (!allowed.includes(tok)) fail(`parse error near ${JSON.stringify(tok)}`);
    }
  }
}

function hereDocRanges(script: Script): Range[] {
  const out: Range[] = [];
  const visit = (node: SyntaxNode): void => {
    if (node.type === 'HereDoc') {
      out.push([node.body.pos, node.closing ? node.closing.end : node.body.end]);
      return;
    }
    if (node.type === 'Word' || node.type === 'Assignment' || node.type === 'Redirect' || node.type === 'HereString') return;
    forEachChild(node, visit);
  };
  visit(script);
  return out;
}

// ────────────────────────────────────────────────────────────────────────────────────────────
// The analyser

interface Ctx {
  /** The string node positions index into. */
  src: string;
  nested: boolean;
  depth: number;
  /** Assignments inherited from enclosing commands (prefixes, env, sudo, bash -c). */
  env: readonly string[];
  /** Ranges of here-doc bodies in src (the coverage check skips them). */
  heredocs: readonly Range[];
}

interface Acc {
  value: string;
  dynamic: boolean;
  split: boolean;
}

interface RunState {
  nested: boolean;
  env: string[];
  openArgs: boolean;
  /** Runs under sudo/doas/su or nohup: never read-only. */
  tainted: boolean;
  /** stdin is a here-doc or here-string (a shell would run it). */
  stdinScript: boolean;
  /** Text that xargs -I / find -exec replaces with run-time input inside arguments ({}), if any. */
  replace: string | null;
}

class Analyzer {
  readonly commands: SimpleCommand[] = [];
  readonly redirects: Redirect[] = [];
  /** Assignments exported earlier in the line; they reach every later command. */
  private readonly exported: string[] = [];

  parseAndRun(source: string, ctx: Omit<Ctx, 'src' | 'heredocs'>): void {
    if (ctx.depth > MAX_DEPTH) fail(`nesting deeper than ${MAX_DEPTH} levels`);
    const script = parse(source);
    this.script(script, { ...ctx, src: source, heredocs: [] });
  }

  private script(script: ParsedScript | undefined, outer: Ctx): void {
    if (script === undefined) fail('unparsable substitution');
    if (script.errors && script.errors.length > 0) fail(`parse error: ${script.errors[0]?.message ?? 'unknown'}`);
    if (outer.depth > MAX_DEPTH) fail(`nesting deeper than ${MAX_DEPTH} levels`);
    const src = script.source ?? outer.src;
    const ctx: Ctx = { ...outer, src, heredocs: hereDocRanges(script) };
    checkOwnText(script, src, ctx.heredocs);
    for (const st of script.commands) this.statement(st, ctx);
  }

  private list(list: CompoundList, ctx: Ctx): void {
    checkOwnText(list, ctx.src, ctx.heredocs);
    for (const st of list.commands) this.statement(st, ctx);
  }

  private statement(st: Statement, ctx: Ctx): void {
    checkOwnText(st, ctx.src, ctx.heredocs);
    this.node(st.command, ctx);
  }

  private node(node: Statement['command'], ctx: Ctx): void {
    switch (node.type) {
      case 'AndOr':
        checkOwnText(node, ctx.src, ctx.heredocs);
        for (const c of node.commands) this.node(c, ctx);
        return;
      case 'Pipeline':
        checkOwnText(node, ctx.src, ctx.heredocs);
        for (const c of node.commands) this.node(c, ctx);
        return;
      case 'Command':
        this.command(node, ctx);
        return;
      case 'Redirected':
        checkOwnText(node, ctx.src, ctx.heredocs);
        for (const r of node.redirects) this.redirect(r, ctx);
        this.node(node.command, ctx);
        return;
      case 'Subshell':
      case 'BraceGroup':
        checkOwnText(node, ctx.src, ctx.heredocs);
        this.list(node.body, ctx);
        return;
      case 'If':
        checkOwnText(node, ctx.src, ctx.heredocs);
        this.list(node.clause, ctx);
        this.list(node.then, ctx);
        for (const e of node.elif) {
          checkOwnText(e, ctx.src, ctx.heredocs);
          this.list(e.clause, ctx);
          this.list(e.then, ctx);
        }
        if (node.else) this.list(node.else, ctx);
        return;
      case 'While':
        checkOwnText(node, ctx.src, ctx.heredocs);
        this.list(node.clause, ctx);
        this.list(node.body, ctx);
        return;
      case 'For':
      case 'Select': {
        checkOwnText(node, ctx.src, ctx.heredocs);
        const name = this.word(node.name, ctx);
        if (name.dynamic) fail('loop variable name is not literal');
        this.assignVariable(name.value, node.type === 'For' ? 'for' : 'select');
        for (const w of node.wordlist ?? []) this.word(w, ctx);
        this.list(node.body, ctx);
        return;
      }
      case 'Case':
        checkOwnText(node, ctx.src, ctx.heredocs);
        this.word(node.word, ctx);
        for (const item of node.items) this.caseItem(item, ctx);
        return;
      case 'TestCommand':
        checkOwnText(node, ctx.src, ctx.heredocs);
        this.testCommand(node.expression, ctx);
        return;
      case 'Function':
        fail('function definitions are not supported');
        break;
      case 'Coproc':
        fail('coproc is not supported');
        break;
      case 'ArithmeticCommand':
      case 'ArithmeticFor':
        fail('arithmetic evaluation is not supported');
        break;
      default:
        fail(`unsupported syntax: ${(node as { type: string }).type}`);
    }
  }

  private caseItem(item: CaseItem, ctx: Ctx): void {
    checkOwnText(item, ctx.src, ctx.heredocs);
    for (const p of item.pattern) this.word(p, ctx);
    this.list(item.body, ctx);
  }

  private testCommand(expr: TestExpression, ctx: Ctx): void {
    const words: WordInfo[] = [staticWord('[[')];
    const walk = (e: TestExpression): void => {
      switch (e.type) {
        case 'TestUnary': {
          words.push(staticWord(e.operator));
          const w = this.word(e.operand, ctx);
          if (e.operator === '-v' && (w.dynamic || w.value.includes('['))) fail('[[ -v ]] with a subscript or non-literal name evaluates code');
          words.push(w);
          return;
        }
        case 'TestBinary': {
          const l = this.word(e.left, ctx);
          const r = this.word(e.right, ctx);
          if (['-eq', '-ne', '-lt', '-le', '-gt', '-ge'].includes(e.operator)) {
            const int = (w: WordInfo): boolean => !w.dynamic && /^\s*[+-]?\d+\s*$/.test(w.value);
            if (!int(l) || !int(r)) fail(`[[ ${e.operator} ]] evaluates its operands as arithmetic`);
          }
          words.push(l, staticWord(e.operator), r);
          return;
        }
        case 'TestLogical':
          e.operands.forEach((o, i) => {
            if (i > 0) words.push(staticWord(e.operator));
            walk(o);
          });
          return;
        case 'TestNot':
          for (let i = 0; i < e.negations.length; i++) words.push(staticWord('!'));
          walk(e.operand);
          return;
        case 'TestGroup':
          words.push(staticWord('('));
          walk(e.expression);
          words.push(staticWord(')'));
          return;
        default:
          fail('unsupported [[ ]] expression');
      }
    };
    walk(expr);
    words.push(staticWord(']]'));
    this.push(words, { nested: ctx.nested, env: [...ctx.env], openArgs: false, tainted: false, stdinScript: false, replace: null });
  }

  // ── words ──

  private word(w: Word, ctx: Ctx): WordInfo {
    if (!w.parts) {
      // An unquoted leading ~ (tilde expansion) is kept literally and displayed unquoted.
      if (w.text.startsWith('~') && w.text === w.value && PLAIN_WORD.test(w.value)) return { ...staticWord(w.value), display: w.value };
      return staticWord(w.value);
    }
    const acc: Acc = { value: '', dynamic: false, split: false };
    for (const p of w.parts) this.part(p, ctx, acc, false);
    return { ...acc, display: acc.dynamic ? w.text : quoteWord(acc.value) };
  }

  private part(p: WordPart, ctx: Ctx, acc: Acc, quoted: boolean): void {
    if (!quoted && !['Literal', 'SingleQuoted', 'AnsiCQuoted', 'DoubleQuoted', 'LocaleString'].includes(p.type)) acc.split = true;
    switch (p.type) {
      case 'Literal':
      case 'SingleQuoted':
      case 'AnsiCQuoted':
        acc.value += p.value;
        return;
      case 'DoubleQuoted':
      case 'LocaleString':
        for (const c of p.parts) this.part(c, ctx, acc, true);
        return;
      case 'SimpleExpansion':
        acc.value += p.text;
        acc.dynamic = true;
        return;
      case 'ParameterExpansion':
        this.parameter(p, ctx);
        acc.value += p.text;
        acc.dynamic = true;
        return;
      case 'CommandExpansion':
      case 'ProcessSubstitution':
        this.script(p.script, { ...ctx, nested: true, depth: ctx.depth + 1 });
        acc.value += p.text;
        acc.dynamic = true;
        return;
      case 'ArithmeticExpansion':
        fail('arithmetic expansion is not supported');
        break;
      case 'Glob':
      case 'ExtendedGlob':
      case 'BraceExpansion': {
        const sub: Acc = { value: '', dynamic: false, split: false };
        for (const c of p.parts ?? []) this.part(c, ctx, sub, quoted);
        acc.value += p.text;
        acc.dynamic = true;
        return;
      }
      default:
        fail(`unsupported word part: ${(p as { type: string }).type}`);
    }
  }

  private parameter(p: ParameterExpansionPart, ctx: Ctx): void {
    if (p.prefix === '!') fail(`indirect expansion ${p.text} is not supported`);
    if (p.index !== undefined) {
      const idx = this.word(p.index, ctx);
      if (idx.dynamic || !/^(@|\*|\d+)$/.test(idx.value)) fail(`array subscript in ${p.text} is evaluated as arithmetic`);
    }
    const op = p.operation;
    if (op === undefined) return;
    switch (op.type) {
      case 'Default':
        if (op.operator === '=' || op.operator === ':=') fail(`${p.text} assigns a variable`);
        this.word(op.operand, ctx);
        return;
      case 'Remove':
        this.word(op.operand, ctx);
        return;
      case 'Replace':
        this.word(op.pattern, ctx);
        this.word(op.replacement, ctx);
        return;
      case 'CaseModification':
        if (op.operand) this.word(op.operand, ctx);
        return;
      default:
        fail(`parameter expansion ${p.text} is not supported`);
    }
  }

  private assignment(a: Assignment, ctx: Ctx): { name: string; text: string; dynamic: boolean } {
    if (a.index !== undefined) {
      const idx = this.word(a.index, ctx);
      if (idx.dynamic || !/^\d+$/.test(idx.value)) fail(`array subscript in ${a.text} is evaluated as arithmetic`);
    }
    const op = a.append ? '+=' : '=';
    const lhs = a.index !== undefined ? `${a.name}[${a.index.text}]` : a.name;
    const value = a.value;
    if (value.type === 'ArrayValue') {
      const els = (value as ArrayValue).elements.map((e) => this.word(e, ctx));
      return {
        name: a.name,
        text: `${lhs}${op}(${els.map((e) => e.value).join(' ')})`,
        dynamic: els.some((e) => e.dynamic),
      };
    }
    const v = this.word(value, ctx);
    return { name: a.name, text: `${lhs}${op}${v.value}`, dynamic: v.dynamic };
  }

  /** A variable set in the shell itself (standalone assignment, loop variable, read …). */
  private assignVariable(name: string, how: string): void {
    if (SENSITIVE_VAR.test(name)) fail(`${how} sets ${name}, which changes what later commands run`);
  }

  // ── redirects ──

  private redirect(r: Redirection, ctx: Ctx): RunState['stdinScript'] {
    const fd = r.descriptor;
    if (fd?.type === 'FileDescriptorVariable') fail('{fd} redirects are not supported');
    const prefix = fd ? String(fd.value) : '';
    if (r.type === 'HereDoc') {
      if (r.body.parts && !r.delimiter?.quoted) {
        const acc: Acc = { value: '', dynamic: false, split: false };
        for (const p of r.body.parts) this.part(p, ctx, acc, true);
      }
      this.redirects.push({ op: prefix + r.operator, target: null, writes: false });
      return fd === undefined || fd.value === 0;
    }
    if (r.type === 'HereString') {
      if (r.target) this.word(r.target, ctx);
      this.redirects.push({ op: prefix + r.operator, target: null, writes: false });
      return fd === undefined || fd.value === 0;
    }
    if (r.target === undefined) fail('redirect without a target');
    const t = this.word(r.target, ctx);
    const op = r.operator;
    let writes: boolean;
    if (op === '<') writes = false;
    else if (op === '<&' || op === '>&') {
      const dup = !t.dynamic && /^(\d+-?|-)$/.test(t.value);
      writes = op === '>&' && !dup && !isHarmlessSink(t);
      if (op === '<&' && !dup) fail(`${op} needs a file descriptor`);
    } else writes = !isHarmlessSink(t);
    this.redirects.push({ op: prefix + op, target: t.value, writes });
    return false;
  }

  // ── simple commands ──

  private command(cmd: Command, ctx: Ctx): void {
    checkOwnText(cmd, ctx.src, ctx.heredocs);
    let stdinScript = false;
    for (const r of cmd.redirects) if (this.redirect(r, ctx)) stdinScript = true;
    const prefix: string[] = [];
    const assigns = cmd.prefix.filter((x): x is Assignment => x.type === 'Assignment');
    for (const a of assigns) {
      const info = this.assignment(a, ctx);
      prefix.push(info.text);
      if (cmd.name === undefined) this.assignVariable(info.name, 'assignment');
    }
    if (cmd.name === undefined) return; // assignments and/or redirects only
    const words: WordInfo[] = [this.word(cmd.name, ctx)];
    for (const a of cmd.args) {
      if (a.type === 'Word') words.push(this.word(a, ctx));
      else {
        const info = this.assignment(a, ctx);
        words.push({ value: info.text, dynamic: info.dynamic, split: false, display: info.dynamic ? a.text : quoteWord(info.text) });
      }
    }
    this.run(words, {
      nested: ctx.nested,
      env: [...ctx.env, ...prefix],
      openArgs: false,
      tainted: false,
      stdinScript,
      replace: null,
    }, ctx);
  }

  /** Unwraps wrappers and dispatches on the program name; pushes what runs. */
  private run(words: WordInfo[], st: RunState, ctx: Ctx): void {
    for (;;) {
      const first = words[0];
      if (first === undefined) return;
      if (first.dynamic) fail(`command name ${first.display} is not a literal word`);
      if (st.replace !== null && first.value.includes(st.replace)) fail(`command name ${first.display} is replaced by run-time input`);
      const prog = programName(first.value);
      if (prog === null) {
        this.push(words, st);
        return;
      }
      const always = ALWAYS_FAIL[prog];
      if (always !== undefined) fail(always);
      const rest = words.slice(1);
      switch (prog) {
        case 'eval': {
          if (rest.length === 0) return;
          requireStatic(rest, 'eval');
          this.runScript(rest.map((w) => w.value).join(' '), st, ctx);
          return;
        }
        case 'exec': {
          const i = skipOptions(rest, 'exec', { flags: 'cl', withValue: 'a' });
          if (i >= rest.length) fail('exec without a command changes the shell itself');
          words = rest.slice(i);
          continue;
        }
        case 'command': {
          let i = 0;
          let query = false;
          while (i < rest.length && /^-[pvV]+$/.test(rest[i]!.value)) {
            if (/[vV]/.test(rest[i]!.value)) query = true;
            i++;
          }
          if (rest[i]?.value === '--') i++;
          if (query || i >= rest.length) {
            this.push(words, st);
            return;
          }
          words = rest.slice(i);
          continue;
        }
        case 'builtin':
          if (rest.length === 0) return;
          words = rest;
          continue;
        case 'nohup':
          st = { ...st, tainted: true };
          if (rest[0]?.value === '--') rest.shift();
          if (rest.length === 0) {
            this.push(words, st);
            return;
          }
          words = rest;
          continue;
        case 'time': {
          requireStaticOptions(rest, 'time');
          let i = 0;
          while (i < rest.length && rest[i]!.value.startsWith('-')) {
            const v = rest[i]!.value;
            if (v === '--') { i++; break; }
            if (['-p', '--portability', '-v', '--verbose', '-q', '--quiet'].includes(v) || v.startsWith('--format=')) i++;
            else if (v === '-f' || v === '--format') i += 2;
            else fail(`time option ${v} is not supported`);
          }
          if (i >= rest.length) return;
          words = rest.slice(i);
          continue;
        }
        case 'timeout': {
          const i = skipOptions(rest, 'timeout', {
            flags: 'v',
            withValue: 'sk',
            long: ['--preserve-status', '--foreground', '--verbose'],
            longWithValue: ['--signal', '--kill-after'],
          });
          if (i >= rest.length) {
            this.push(words, st);
            return;
          }
          requireStatic(rest.slice(i, i + 1), 'timeout');
          if (i + 1 >= rest.length) {
            this.push(words, st);
            return;
          }
          words = rest.slice(i + 1);
          continue;
        }
        case 'nice': {
          let i = 0;
          requireStaticOptions(rest, 'nice');
          while (i < rest.length) {
            const v = rest[i]!.value;
            if (v === '--') { i++; break; }
            if (v === '-n' || v === '--adjustment') i += 2;
            else if (/^-n-?\d+$/.test(v) || /^--adjustment=-?\d+$/.test(v) || /^--?\d+$/.test(v)) i++;
            else if (v.startsWith('-')) fail(`nice option ${v} is not supported`);
            else break;
          }
          if (i >= rest.length) {
            this.push(words, st);
            return;
          }
          words = rest.slice(i);
          continue;
        }
        case 'stdbuf': {
          const i = skipOptions(rest, 'stdbuf', { flags: '', withValue: 'ioe', longWithValue: ['--input', '--output', '--error'] });
          if (i >= rest.length) {
            this.push(words, st);
            return;
          }
          words = rest.slice(i);
          continue;
        }
        case 'ionice': {
          requireStaticOptions(rest, 'ionice');
          if (rest.some((w) => /^(-[a-zA-Z]*[pPu]|--pid|--pgid|--uid)/.test(w.value) && w.value.startsWith('-'))) {
            this.push(words, st);
            return;
          }
          const i = skipOptions(rest, 'ionice', { flags: 't', withValue: 'cn', long: ['--ignore'], longWithValue: ['--class', '--classdata'] });
          if (i >= rest.length) {
            this.push(words, st);
            return;
          }
          words = rest.slice(i);
          continue;
        }
        case 'setsid': {
          const i = skipOptions(rest, 'setsid', { flags: 'cfw', long: ['--ctty', '--fork', '--wait'] });
          if (i >= rest.length) {
            this.push(words, st);
            return;
          }
          words = rest.slice(i);
          continue;
        }
        case 'busybox':
          if (rest.length === 0 || rest[0]!.value.startsWith('-')) {
            this.push(words, st);
            return;
          }
          words = rest;
          continue;
        case 'env': {
          let i = 0;
          const env = [...st.env];
          for (; i < rest.length; i++) {
            requireStatic([rest[i]!], 'env');
            const v = rest[i]!.value;
            if (v === '--') { i++; break; }
            if (v === '-' || v === '-i' || v === '--ignore-environment' || v === '-0' || v === '--null' || v === '-v' || v === '--debug') continue;
            if (v === '-u' || v === '--unset' || v === '-C' || v === '--chdir') { i++; continue; }
            if (/^-[uC]./.test(v) || /^--(unset|chdir)=/.test(v)) continue;
            if (v.startsWith('-')) fail(`env option ${v} is not supported`);
            break;
          }
          for (; i < rest.length && /^[A-Za-z_][A-Za-z0-9_]*=/.test(rest[i]!.value); i++) {
            requireStatic([rest[i]!], 'env');
            env.push(rest[i]!.value);
          }
          if (i >= rest.length) {
            this.push(words, st); // prints the environment
            return;
          }
          st = { ...st, env };
          words = rest.slice(i);
          continue;
        }
        case 'sudo':
        case 'doas': {
          this.push(words, st);
          const i = prog === 'sudo' ? sudoOptions(rest) : skipOptions(rest, 'doas', { flags: 'nsL', withValue: 'Cu' });
          const env = [...st.env];
          let j = i;
          for (; j < rest.length && /^[A-Za-z_][A-Za-z0-9_]*=/.test(rest[j]!.value); j++) {
            requireStatic([rest[j]!], prog);
            env.push(rest[j]!.value);
          }
          if (j >= rest.length) return;
          words = rest.slice(j);
          st = { ...st, env, nested: true, tainted: true };
          continue;
        }
        case 'su': {
          this.push(words, st);
          requireStatic(rest, 'su');
          for (let i = 0; i < rest.length; i++) {
            const v = rest[i]!.value;
            let script: string | undefined;
            if (v === '-c' || v === '--command') script = rest[i + 1]?.value;
            else if (v.startsWith('--command=')) script = v.slice('--command='.length);
            if (script !== undefined) {
              this.runScript(script, st, ctx);
              break;
            }
          }
          return;
        }
        case 'xargs': {
          const { index: i, replace } = xargsOptions(rest);
          const inner = i >= rest.length ? [staticWord('echo')] : rest.slice(i);
          st = { ...st, nested: true, openArgs: true, stdinScript: false, replace };
          words = inner;
          continue;
        }
        case 'watch': {
          const { index, exec } = watchOptions(rest);
          const inner = rest.slice(index);
          if (inner.length === 0) {
            this.push(words, st);
            return;
          }
          if (exec) {
            words = inner;
            st = { ...st, nested: true, stdinScript: false };
            continue;
          }
          requireStatic(inner, 'watch');
          this.runScript(inner.map((w) => w.value).join(' '), st, ctx);
          return;
        }
        case 'find':
          this.find(words, st, ctx);
          return;
        default:
          break;
      }
      if (SHELLS.has(prog)) {
        this.shell(words, st, ctx);
        return;
      }
      const exports = this.builtinChecks(prog, words);
      this.push(words, st);
      this.exported.push(...exports);
      return;
    }
  }

  /** Runs a literal script string (eval, sh -c, watch, su -c) as nested commands. */
  private runScript(script: string, st: RunState, ctx: Ctx): void {
    if (st.replace !== null && script.includes(st.replace)) {
      fail(`script ${quoteWord(script)} has ${st.replace} replaced by run-time input, which could inject commands`);
    }
    this.parseAndRun(script, { nested: true, depth: ctx.depth + 1, env: [...st.env] });
  }

  private shell(words: WordInfo[], st: RunState, ctx: Ctx): void {
    const rest = words.slice(1);
    let i = 0;
    let dashC = false;
    let dashS = false;
    for (; i < rest.length; i++) {
      const w = rest[i]!;
      if (w.dynamic) fail(`${words[0]!.value} option ${w.display} is not a literal word`);
      const v = w.value;
      if (v === '--' || v === '-') { i++; break; }
      if (v === '--version' || v === '--help') {
        this.push(words, st);
        return;
      }
      if (['--norc', '--noprofile', '--posix', '--login', '--restricted', '--verbose', '--noediting', '--debugger'].includes(v)) continue;
      if (v.startsWith('--')) fail(`${words[0]!.value} option ${v} is not supported`);
      if (/^[-+][A-Za-z]+$/.test(v)) {
        for (const ch of v.slice(1)) {
          if (ch === 'c' && v.startsWith('-')) dashC = true;
          else if (ch === 's' && v.startsWith('-')) dashS = true;
          else if (ch === 'o' || ch === 'O') i++; // takes an option name
          else if (!'abefhkmnptuvxBCEHPTlrsi'.includes(ch)) fail(`${words[0]!.value} option -${ch} is not supported`);
        }
        continue;
      }
      break;
    }
    if (dashC) {
      const script = rest[i];
      if (script === undefined) fail(`${words[0]!.value} -c without a script`);
      if (script.dynamic) fail(`${words[0]!.value} -c script ${script.display} is not a literal word`);
      this.runScript(script.value, st, ctx);
      return;
    }
    if (i < rest.length && !dashS) {
      // `bash script.sh args…`: an opaque program; report the shell invocation itself.
      this.push(words, st);
      return;
    }
    fail(`${words[0]!.value} would read its script from ${st.stdinScript ? 'a here-document' : 'standard input'}, which cannot be analysed`);
  }

  private find(words: WordInfo[], st: RunState, ctx: Ctx): void {
    const VALUE_PRIMARIES = new Set([
      '-name', '-iname', '-path', '-ipath', '-wholename', '-iwholename', '-regex', '-iregex', '-lname', '-ilname',
      '-newer', '-anewer', '-cnewer', '-samefile', '-type', '-xtype', '-user', '-group', '-perm', '-size', '-mtime',
      '-mmin', '-atime', '-amin', '-ctime', '-cmin', '-maxdepth', '-mindepth', '-uid', '-gid', '-inum', '-links',
      '-printf', '-fprint', '-fprint0', '-fls', '-fstype', '-context', '-used', '-newerXY',
    ]);
    const inner: { argv: WordInfo[] }[] = [];
    for (let i = 1; i < words.length; i++) {
      const w = words[i]!;
      if (w.dynamic) {
        const prev = words[i - 1]!;
        if (prev.dynamic || !(VALUE_PRIMARIES.has(prev.value) || /^-newer..$/.test(prev.value))) {
          fail(`find argument ${w.display} is not a literal word and could be an action`);
        }
        continue;
      }
      if (['-exec', '-execdir', '-ok', '-okdir'].includes(w.value)) {
        let j = i + 1;
        const body: WordInfo[] = [];
        for (; j < words.length; j++) {
          const b = words[j]!;
          if (b.dynamic) fail(`find ${w.value} argument ${b.display} is not a literal word`);
          if (b.value === ';' || (b.value === '+' && body.at(-1)?.value === '{}')) break;
          body.push(b);
        }
        if (j >= words.length) fail(`find ${w.value} without a terminating ';' or '+'`);
        if (body.length === 0) fail(`find ${w.value} without a command`);
        inner.push({ argv: body });
        i = j;
      }
    }
    this.push(words, st);
    for (const { argv } of inner) {
      const open = argv.some((a) => a.value.includes('{}'));
      this.run(argv, { ...st, nested: true, openArgs: open, stdinScript: false, replace: '{}' }, ctx);
    }
  }

  /** Fail-closed checks for builtins that take variable names or change the shell. */
  /** Returns the assignments this command exports to later commands. */
  private builtinChecks(prog: string, words: WordInfo[]): string[] {
    const args = words.slice(1);
    const exports: string[] = [];
    if (VAR_BUILTINS.has(prog)) {
      const declareLike = DECLARE_LIKE.has(prog);
      let exporting = prog === 'export';
      for (const a of args) {
        if (a.dynamic && !(declareLike && /^[A-Za-z_][A-Za-z0-9_]*\+?=/.test(a.value))) {
          fail(`${prog} argument ${a.display} is not a literal word`);
        }
        const eq = a.value.indexOf('=');
        const name = eq === -1 ? a.value : a.value.slice(0, eq).replace(/\+$/, '');
        if (name.includes('[')) fail(`${prog} with an array subscript evaluates it as arithmetic`);
        if (/^[-+][A-Za-z]+$/.test(a.value)) {
          if (declareLike && /[ni]/.test(a.value)) fail(`${prog} ${a.value} is not supported (nameref / integer attribute)`);
          if (declareLike && a.value.startsWith('-') && a.value.includes('x')) exporting = true;
          continue;
        }
        if (prog === 'unset' || prog === 'wait') continue;
        if (SENSITIVE_VAR.test(name)) fail(`${prog} sets ${name}, which changes what later commands run`);
        if (exporting && eq !== -1) exports.push(a.value);
      }
      return exports;
    }
    if (prog === 'printf') {
      const a = args[0];
      if (a?.split) fail('printf with an unquoted expansion as its first argument could become -v');
      if (a?.dynamic && (args[1]?.dynamic || args[1]?.value.includes('['))) fail('printf with a non-literal first argument could become -v');
      if (a && a.value.startsWith('-v')) {
        const name = a.value === '-v' ? args[1] : { ...a, value: a.value.slice(2) };
        if (name === undefined || name.dynamic || name.value.includes('[')) fail('printf -v with a subscript or non-literal name evaluates code');
        if (SENSITIVE_VAR.test(name.value)) fail(`printf -v sets ${name.value}, which changes what later commands run`);
      }
      return exports;
    }
    if (prog === 'test' || prog === '[') {
      args.forEach((a, i) => {
        if (a.split) fail(`${prog} with an unquoted expansion could become -v and evaluate code`);
        const next = args[i + 1];
        if (a.dynamic && next && (next.dynamic || next.value.includes('['))) fail(`${prog} with a non-literal operator could become -v and evaluate code`);
        if (a.value === '-v') {
          const n = args[i + 1];
          if (n === undefined || n.dynamic || n.value.includes('[')) fail(`${prog} -v with a subscript or non-literal name evaluates code`);
        }
      });
      return exports;
    }
    if (prog === 'hash' && args.some((a) => /^-[a-zA-Z]*p/.test(a.value) || a.dynamic)) fail('hash -p changes which program a name runs');
    if ((prog === 'complete' || prog === 'compgen') && args.some((a) => /^-[a-zA-Z]*[CF]/.test(a.value) || a.dynamic)) {
      fail(`${prog} -C/-F runs commands`);
    }
    return exports;
  }

  private push(words: WordInfo[], st: RunState): void {
    const argv = words.map((w) => w.value);
    const dynamic = words.map((w) => w.dynamic);
    const assignments = [...st.env, ...this.exported.filter((e) => !st.env.includes(e))];
    const display = [...assignments.map(quoteAssignment), ...words.map((w) => w.display)].join(' ');
    const readOnly =
      !st.tainted &&
      assignments.every((a) => SAFE_ENV.test(assignmentName(a))) &&
      readOnlyArgv(argv, dynamic.some(Boolean) || st.openArgs);
    this.commands.push({ argv, text: display, nested: st.nested, dynamic, assignments, openArgs: st.openArgs, readOnly });
  }
}

function isHarmlessSink(t: WordInfo): boolean {
  return !t.dynamic && /^\/dev\/(null|stdout|stderr|fd\/[0-2])$/.test(t.value);
}

function requireStatic(words: readonly WordInfo[], what: string): void {
  for (const w of words) if (w.dynamic) fail(`${what} argument ${w.display} is not a literal word`);
}

/** The option area and the first operand of a wrapper must be literal words. */
function requireStaticOptions(words: readonly WordInfo[], what: string): void {
  for (const w of words) {
    if (w.dynamic) fail(`${what} argument ${w.display} is not a literal word`);
    if (!w.value.startsWith('-')) return;
  }
}

function assignmentName(a: string): string {
  const m = /^[A-Za-z_][A-Za-z0-9_]*/.exec(a);
  return m ? m[0] : a;
}

function quoteAssignment(a: string): string {
  const name = /^[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?\+?=/.exec(a);
  if (!name) return quoteWord(a);
  const v = a.slice(name[0].length);
  return name[0] + (v === '' ? '' : quoteWord(v));
}

interface OptionSpec {
  /** Short flags without a value (may be clustered). */
  flags: string;
  /** Short options taking a value (attached or next word). */
  withValue?: string;
  long?: readonly string[];
  longWithValue?: readonly string[];
}

/** Skips leading options; returns the index of the first operand. Unknown options fail closed. */
function skipOptions(words: readonly WordInfo[], prog: string, spec: OptionSpec): number {
  let i = 0;
  while (i < words.length) {
    const w = words[i]!;
    if (w.dynamic) fail(`${prog} argument ${w.display} is not a literal word`);
    const v = w.value;
    if (v === '--') return i + 1;
    if (!v.startsWith('-') || v === '-') return i;
    if (v.startsWith('--')) {
      const eq = v.indexOf('=');
      const name = eq === -1 ? v : v.slice(0, eq);
      if (spec.long?.includes(v)) { i++; continue; }
      if (spec.longWithValue?.includes(name)) { i += eq === -1 ? 2 : 1; continue; }
      fail(`${prog} option ${v} is not supported`);
    }
    let consumedNext = false;
    for (let k = 1; k < v.length; k++) {
      const ch = v[k]!;
      if (spec.flags.includes(ch)) continue;
      if (spec.withValue?.includes(ch)) {
        if (k === v.length - 1) consumedNext = true;
        break;
      }
      fail(`${prog} option -${ch} is not supported`);
    }
    i += consumedNext ? 2 : 1;
  }
  if (i > words.length) fail(`${prog}: option value missing`);
  return i;
}

function sudoOptions(words: readonly WordInfo[]): number {
  return skipOptions(words, 'sudo', {
    flags: 'AbEHnPSkKlvVBNsi',
    withValue: 'CghpRrtTUuD',
    long: [
      '--askpass', '--background', '--preserve-env', '--set-home', '--non-interactive', '--preserve-groups', '--stdin',
      '--reset-timestamp', '--remove-timestamp', '--list', '--validate', '--version', '--bell', '--shell', '--login',
    ],
    longWithValue: [
      '--close-from', '--group', '--host', '--prompt', '--role', '--type', '--command-timeout', '--other-user', '--user',
      '--chdir', '--chroot', '--preserve-env',
    ],
  });
}

function xargsOptions(words: readonly WordInfo[]): { index: number; replace: string | null } {
  let i = 0;
  let replace: string | null = null;
  const done = (index: number): { index: number; replace: string | null } => {
    if (replace === '') fail('xargs with an empty replace string');
    return { index, replace };
  };
  while (i < words.length) {
    const w = words[i]!;
    if (w.dynamic) fail(`xargs argument ${w.display} is not a literal word`);
    const v = w.value;
    if (v === '--') return done(i + 1);
    if (!v.startsWith('-') || v === '-') return done(i);
    if (['-0', '--null', '-r', '--no-run-if-empty', '-t', '--verbose', '-x', '--exit', '-p', '--interactive', '-o', '--open-tty', '--show-limits'].includes(v)) { i++; continue; }
    if (v === '-I') {
      const r = words[i + 1];
      if (r === undefined || r.dynamic) fail('xargs -I needs a literal replace string');
      replace = r.value;
      i += 2;
      continue;
    }
    if (['-L', '-n', '-P', '-s', '-d', '-E', '-a'].includes(v)) { i += 2; continue; }
    if (v.startsWith('-I')) { replace = v.slice(2); i++; continue; }
    if (v.startsWith('-i')) { replace = v.length > 2 ? v.slice(2) : '{}'; i++; continue; }
    if (v === '--replace') { replace = '{}'; i++; continue; }
    if (v.startsWith('--replace=')) { replace = v.slice('--replace='.length); i++; continue; }
    if (/^-[LnPsdEa]./.test(v) || /^-[le]/.test(v)) { i++; continue; }
    if (/^--(arg-file|delimiter|max-args|max-procs|max-lines|max-chars|eof|process-slot-var)(=|$)/.test(v)) { i++; continue; }
    if (/^-[0rtxp]+$/.test(v)) { i++; continue; }
    fail(`xargs option ${v} is not supported`);
  }
  return done(i);
}

function watchOptions(words: readonly WordInfo[]): { index: number; exec: boolean } {
  let exec = false;
  let i = 0;
  while (i < words.length) {
    const w = words[i]!;
    if (w.dynamic) fail(`watch argument ${w.display} is not a literal word`);
    const v = w.value;
    if (v === '--') return { index: i + 1, exec };
    if (!v.startsWith('-')) break;
    if (v === '-x' || v === '--exec') { exec = true; i++; continue; }
    if (v === '-n' || v === '--interval') { i += 2; continue; }
    if (/^-n[\d.]+$/.test(v) || v.startsWith('--interval=') || v.startsWith('--differences')) { i++; continue; }
    if (/^-[dtbegcpwqrC]+$/.test(v) || ['--no-title', '--beep', '--errexit', '--chgexit', '--color', '--no-color', '--precise', '--no-wrap', '--no-rerun'].includes(v)) {
      i++;
      continue;
    }
    fail(`watch option ${v} is not supported`);
  }
  return { index: i, exec };
}

// ────────────────────────────────────────────────────────────────────────────────────────────
// Read-only allowlist

/**
 * True when `argv` (a literal, already unwrapped command) is on the read-only allowlist and uses
 * no option that writes files, changes the system or runs another program. See the header.
 */
export function isReadOnlyCommand(argv: readonly string[]): boolean {
  return readOnlyArgv(argv, false);
}

function readOnlyArgv(argv: readonly string[], dynamicOrOpen: boolean): boolean {
  const name = argv[0];
  if (name === undefined) return false;
  const prog = programName(name);
  if (prog === null) return false;
  const args = argv.slice(1);
  if (ANY_ARGS_SAFE.has(prog) || prog === '[[') return true;
  // test/[ and read: analyzeCommand already failed closed on words that could become `-v NAME[…]`
  // or name a sensitive variable.
  if (prog === 'test' || prog === '[') return !args.includes('-v');
  if (prog === 'read') return args.every((a) => !SENSITIVE_VAR.test(a) && !a.includes('['));
  if (dynamicOrOpen) return false;
  const shortHas = (letters: RegExp): boolean => optionsBeforeDashDash(args).some((a) => /^-[^-]/.test(a) && letters.test(a.slice(1)));
  const opts = optionsBeforeDashDash(args);
  switch (prog) {
    case 'printf':
      return !(args[0]?.startsWith('-v') ?? false);
    case 'hostname':
      return args.length === 0;
    case 'command':
      return args.length > 0 && /^-[pvV]*[vV][pvV]*$/.test(args[0]!);
    case 'env':
      return envWithoutCommand(args);
    case 'find':
      return !args.some((a) => ['-exec', '-execdir', '-ok', '-okdir', '-delete', '-fprint', '-fprint0', '-fprintf', '-fls'].includes(a));
    case 'sort':
      return !opts.some((a) => /^--(output|compress-program)(=|$)/.test(a)) && !shortHas(/o/);
    case 'uniq':
      return uniqOperands(args) <= 1;
    case 'date':
      return dateReadOnly(args);
    case 'rg':
      return !opts.some((a) => /^--(pre|hostname-bin)(=|$)/.test(a));
    case 'file':
      return !opts.includes('--compile') && !shortHas(/C/);
    case 'tree':
      return !opts.some((a) => a.startsWith('--output') || a === '--fromfile') && !shortHas(/[oR]/);
    case 'git':
      return gitReadOnly(args);
    default:
      return false;
  }
}

function optionsBeforeDashDash(args: readonly string[]): string[] {
  const i = args.indexOf('--');
  return (i === -1 ? args : args.slice(0, i)).filter((a) => a.startsWith('-') && a !== '-');
}

function envWithoutCommand(args: readonly string[]): boolean {
  for (let i = 0; i < args.length; i++) {
    const v = args[i]!;
    if (['-', '-i', '--ignore-environment', '-0', '--null'].includes(v)) continue;
    if (v === '-u' || v === '--unset') { i++; continue; }
    if (/^-u./.test(v) || v.startsWith('--unset=')) continue;
    if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(v)) continue;
    return false;
  }
  return true;
}

function uniqOperands(args: readonly string[]): number {
  let n = 0;
  let options = true;
  for (let i = 0; i < args.length; i++) {
    const v = args[i]!;
    if (options && v === '--') { options = false; continue; }
    if (options && v.startsWith('-') && v !== '-') {
      if (['-f', '-s', '-w'].includes(v)) i++;
      continue;
    }
    n++;
  }
  return n;
}

function dateReadOnly(args: readonly string[]): boolean {
  for (let i = 0; i < args.length; i++) {
    const v = args[i]!;
    if (v === '-s' || v.startsWith('--set') || /^-[a-zA-Z]*s/.test(v)) return false;
    if (['-d', '-f', '-r', '--date', '--file', '--reference'].includes(v)) { i++; continue; }
    if (v.startsWith('-')) continue;
    if (!v.startsWith('+')) return false;
  }
  return true;
}

function gitReadOnly(args: readonly string[]): boolean {
  let i = 0;
  for (; i < args.length; i++) {
    const v = args[i]!;
    if (v === '-C') { i++; continue; }
    if (['--no-pager', '--no-optional-locks', '--bare', '--literal-pathspecs', '--no-replace-objects', '--glob-pathspecs', '--noglob-pathspecs', '--icase-pathspecs', '-P'].includes(v)) continue;
    if (/^--(git-dir|work-tree|namespace)=/.test(v)) continue;
    if (v.startsWith('-')) return false; // -c, --config-env, --exec-path, -p/--paginate, …
    break;
  }
  const sub = args[i];
  if (sub === undefined || !GIT_READ_ONLY.has(sub)) return false;
  const rest = args.slice(i + 1);
  const opts = optionsBeforeDashDash(rest);
  if (opts.some((a) => /^--(output|ext-diff|textconv|open-files-in-pager)(=|$)/.test(a))) return false;
  if (sub !== 'ls-files' && opts.some((a) => a === '-o' || /^-O/.test(a))) return false;
  if (sub === 'branch') {
    const ok = ['--list', '-l', '-a', '--all', '-r', '--remotes', '-v', '-vv', '--verbose', '--show-current', '--no-color', '--color'];
    return rest.every((a) => ok.includes(a));
  }
  if (sub === 'remote') return rest.length === 0 || (rest.length === 1 && (rest[0] === '-v' || rest[0] === '--verbose'));
  return true;
}

// ────────────────────────────────────────────────────────────────────────────────────────────
// Entry point

/** Parses `command` and accounts for every command it would run. Fails closed (see the header). */
export function analyzeCommand(command: string): CommandAnalysis {
  if (command.length > MAX_INPUT) return { ok: false, reason: `command longer than ${MAX_INPUT} characters` };
  if (command.includes('\0')) return { ok: false, reason: 'command contains a NUL character' };
  const a = new Analyzer();
  try {
    a.parseAndRun(command, { nested: false, depth: 0, env: [] });
  } catch (e) {
    if (e instanceof Fail) return { ok: false, reason: e.message };
    return { ok: false, reason: `cannot analyse the command: ${e instanceof Error ? e.message : String(e)}` };
  }
  const readOnly = a.commands.every((c) => c.readOnly) && a.redirects.every((r) => !r.writes);
  return { ok: true, commands: a.commands, redirects: a.redirects, readOnly };
}

// ────────────────────────────────────────────────────────────────────────────────────────────
// Permission patterns

interface PatternWord {
  literal: string;
  /** Set when the word has an unquoted `*`. */
  re: RegExp | null;
}

interface ParsedPattern {
  assigns: string[];
  words: PatternWord[];
  prefix: boolean;
  all: boolean;
}

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

// Rules are matched against every command of every call: keep patterns parsed (they are
// immutable values; a rule set rarely has more than a few hundred).
const parsedPatterns = new Map<string, ParsedPattern | string>();
function parsePattern(pattern: string): ParsedPattern | string {
  let p = parsedPatterns.get(pattern);
  if (p === undefined) {
    p = parsePatternUncached(pattern);
    if (parsedPatterns.size >= 4096) parsedPatterns.delete(parsedPatterns.keys().next().value!);
    parsedPatterns.set(pattern, p);
  }
  return p;
}

function parsePatternUncached(pattern: string): ParsedPattern | string {
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
    let re = '';
    let wild = false;
    while (i < s.length && !/\s/.test(s[i]!)) {
      const c = s[i]!;
      if (c === "'") {
        const j = s.indexOf("'", i + 1);
        if (j === -1) return 'unterminated quote';
        literal += s.slice(i + 1, j);
        re += escapeRe(s.slice(i + 1, j));
        i = j + 1;
      } else if (c === '"') {
        let j = i + 1;
        let chunk = '';
        for (; j < s.length && s[j] !== '"'; j++) {
          if (s[j] === '\\' && j + 1 < s.length && '"\\$`'.includes(s[j + 1]!)) j++;
          chunk += s[j];
        }
        if (j >= s.length) return 'unterminated quote';
        literal += chunk;
        re += escapeRe(chunk);
        i = j + 1;
      } else if (c === '\\') {
        if (i + 1 >= s.length) return 'trailing backslash';
        literal += s[i + 1];
        re += escapeRe(s[i + 1]!);
        i += 2;
      } else if (c === '*') {
        wild = true;
        literal += '*';
        re += '.*';
        i++;
      } else {
        literal += c;
        re += escapeRe(c);
        i++;
      }
    }
    words.push({ literal, re: wild ? new RegExp(`^${re}$`, 's') : null });
  }
  const assigns: string[] = [];
  while (words.length > 0 && words[0]!.re === null && /^[A-Za-z_][A-Za-z0-9_]*\+?=/.test(words[0]!.literal)) {
    assigns.push(words.shift()!.literal);
  }
  if (words.length === 0) return 'pattern names no command';
  return { assigns, words, prefix, all: false };
}

/** Returns an error message for a malformed command pattern, or null when it is valid. */
export function validateCommandPattern(pattern: string): string | null {
  const p = parsePattern(pattern);
  return typeof p === 'string' ? p : null;
}

function wordMatches(p: PatternWord, value: string): boolean {
  return p.re ? p.re.test(value) : p.literal === value;
}

/**
 * Does the permission pattern (the specifier of `Bash(...)`) match this one simple command?
 * 'allow' (default) is strict, 'deny'/'ask' lenient — see the header for the exact semantics.
 * A malformed pattern matches nothing (validate rules with validateCommandPattern).
 */
export function matchCommandPattern(pattern: string, cmd: SimpleCommand, behavior: PatternBehavior = 'allow'): boolean {
  const p = parsePattern(pattern);
  if (typeof p === 'string') return false;
  if (p.all) return true;
  const argv = cmd.argv;
  const dyn = (i: number): boolean => cmd.dynamic[i] ?? false;
  if (behavior === 'allow') {
    if (!p.assigns.every((a) => cmd.assignments.includes(a))) return false;
    if (!cmd.assignments.every((a) => SAFE_ENV.test(assignmentName(a)) || p.assigns.includes(a))) return false;
    if (!p.prefix && (cmd.openArgs || argv.length !== p.words.length)) return false;
    if (argv.length < p.words.length) return false;
    return p.words.every((w, i) => !dyn(i) && wordMatches(w, argv[i]!));
  }
  if (!p.assigns.every((a) => cmd.assignments.includes(a))) return false;
  for (let i = 0; i < p.words.length; i++) {
    if (i >= argv.length) return cmd.openArgs;
    if (dyn(i)) return true;
    const w = p.words[i]!;
    const v = argv[i]!;
    if (!(wordMatches(w, v) || (i === 0 && v.includes('/') && wordMatches(w, baseName(v))))) return false;
  }
  return p.prefix || argv.length === p.words.length;
}
