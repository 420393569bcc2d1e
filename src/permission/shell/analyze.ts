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
// • Wrappers (timeout, env, sudo, xargs …) are unwrapped as wrappers.ts describes; leading
//   `NAME=val` assignments too. `bash|sh|zsh|dash|ksh|mksh|ash -c 'literal'` runs its script as
//   nested commands (only with the shell options shells.ts allows); the command of
//   `find … -exec|-execdir|-ok|-okdir CMD… ;|+` is reported as nested and find itself too.
// • A wrapper/command name is recognised by its bare name or as /bin/X, /usr/bin/X, /usr/local/bin/X,
//   /sbin/X, /usr/sbin/X; any other path (./bash, ~/bin/timeout) is an opaque program reported as is.
// • Programs that run code in their own way (python -c, node -e, make, npm run, ssh, a script
//   file given to bash …) are reported as themselves: their argv is all we can know, and their
//   dangers (read-only.ts) say which words run code.
// • Words are decoded as expand.ts describes; a word known only at run time is allowed in
//   argument positions, never where it could choose what runs.
//
// Always ok:false: parse errors or any text the parser did not account for; arithmetic ($(( )),
// $[ ], (( )), for ((…)), let, declare/typeset/local -i, [[ x -eq y ]] unless both sides are integer
// literals); ${!x} indirection, ${x:off:len}, ${x@op}, ${x:=v}, non-literal array subscripts (these
// evaluate strings as code); function definitions, coproc, alias, source/., trap, bind, enable, fc,
// hash -p, complete/compgen -C/-F, declare/typeset/local -n; `exec` without a command; `set`/`shopt`
// options and shell flags outside shells.ts's allowlist; a shell that would read its script from
// stdin (`bash`, `bash -s`, `bash <<EOF`, `curl x | sh`); `bash -c "$X"`; `eval "$X"`; with
// `xargs -I R` / `-i` / `find -exec`, a command name or an sh -c / eval script containing R / `{}`
// (run-time input would be spliced into code); `{fd}>file` redirects; a git subcommand git does
// not have (it would run a configured alias) or an unknown git global option; assigning a
// shell-sensitive variable (PATH, HOME, IFS, PS1, PROMPT_COMMAND, BASH_ENV, LD_*, GIT_* …, see
// SENSITIVE_VAR) other than as a one-command prefix; builtins taking variable names (read,
// printf -v, unset, export, test -v …) given a dynamic name or an array subscript;
// `test`/`[` with an unquoted expansion or a dynamic word followed by a dynamic or `[`-containing
// word (could become `-v a[$(cmd)]`); likewise printf's first argument; unknown options of the
// wrappers / xargs / sudo / watch / shells; eval/bash -c nesting deeper than MAX_DEPTH; more than
// MAX_COMMANDS simple commands, MAX_WORK words and syntax nodes, MAX_HEREDOCS_PER_LINE
// here-documents on one line, or MAX_ASSIGNMENTS assignments for one command or exported (the
// analysis and the rule matching after it stay bounded); input longer than MAX_INPUT or
// containing NUL.
// Not failures: an empty line or comments only (ok, no commands, readOnly true); a line with only
// assignments/redirects (`x=1`, `> f`: no command, the redirect is reported).
//
// ─── Assignments ─────────────────────────────────────────────────────────────────────────────
// SimpleCommand.assignments lists `NAME=value` pairs the command runs with: its prefix assignments,
// `env NAME=val`, `sudo NAME=val`, those of enclosing wrappers / bash -c, and the latest
// `export NAME=val` (or declare/typeset -x) of each name earlier in the same line. Plain `x=1`
// (not exported) and loop variables are not propagated (the sandbox's environment is scrubbed and
// every sensitive name fails closed). Names in SAFE_ENV (LANG, LC_*, TZ, NO_COLOR, COLUMNS …) are
// harmless; any other assignment makes the command not read-only and blocks allow-matching unless
// the pattern names it.
//
// Redirects: which ones write is decided in redirects.ts.
//
// ─── Read-only ───────────────────────────────────────────────────────────────────────────────
// CommandAnalysis.readOnly is true only if every SimpleCommand.readOnly is true and no redirect
// writes. SimpleCommand.readOnly is the judgement of read-only.ts, and also requires: no
// assignment outside SAFE_ENV; not running under sudo/doas/su or nohup (nohup may write
// nohup.out); no argument naming an inherited descriptor (/dev/fd/N with N > 2, /proc/*/fd/*).
// A plain, non-sensitive `x=1` does not affect readOnly.
import { parse } from 'unbash';
import type { Assignment, CaseItem, Command, CompoundList, ParsedScript, Redirection, Statement, TestExpression } from 'unbash';
import { ALWAYS_FAIL, builtinChecks } from './builtins.js';
import { checkOwnText, HereDocBodies, MAX_HEREDOCS_PER_LINE, maxHereDocsOnALine } from './coverage.js';
import { newAcc, WordWalker, type Ctx } from './expand.js';
import { findExecCommands } from './programs/find.js';
import { checkGit } from './programs/git.js';
import { judgeCommand } from './read-only.js';
import { FOREIGN_FD_PATH, redirectWrites } from './redirects.js';
import { shellInvocation, SHELLS } from './shells.js';
import { fail, Fail, MAX_COMMANDS, MAX_DEPTH, MAX_INPUT, type CommandAnalysis, type Redirect, type SimpleCommand } from './types.js';
import {
  own,
  assignmentName,
  programName,
  quoteAssignment,
  quoteWord,
  SAFE_ENV,
  SENSITIVE_VAR,
  type WordInfo,
} from './words.js';
import { WRAPPERS, type RunState } from './wrappers.js';

/** Most assignments one command may run with (each later command carries its own copy). */
export const MAX_ASSIGNMENTS = 64;


class Analyzer extends WordWalker {
  readonly commands: SimpleCommand[] = [];
  readonly redirects: Redirect[] = [];
  /** Assignments exported earlier in the line, latest per name; they reach every later command. */
  private readonly exported = new Map<string, string>();

  parseAndRun(source: string, ctx: Omit<Ctx, 'src' | 'bodies'>): void {
    if (ctx.depth > MAX_DEPTH) fail(`nesting deeper than ${MAX_DEPTH} levels`);
    // The parser's time grows with the square of the here-documents pending on one line.
    if (maxHereDocsOnALine(source) > MAX_HEREDOCS_PER_LINE) fail(`more than ${MAX_HEREDOCS_PER_LINE} here-documents on one line`);
    this.script(parse(source), { ...ctx, src: source, bodies: HereDocBodies.none }, source);
  }

  /** `ownSource`: the text the script was parsed from (none for a substitution's script). */
  protected script(script: ParsedScript | undefined, outer: Ctx, ownSource?: string): void {
    if (script === undefined) fail('unparsable substitution');
    if (script.errors && script.errors.length > 0) fail(`parse error: ${script.errors[0]?.message ?? 'unknown'}`);
    if (outer.depth > MAX_DEPTH) fail(`nesting deeper than ${MAX_DEPTH} levels`);
    const src = script.source ?? outer.src;
    const ctx: Ctx = { ...outer, src, bodies: HereDocBodies.of(script, ownSource ?? script.source) };
    this.check(script, ctx);
    for (const st of script.commands) this.statement(st, ctx);
  }

  /** The coverage check of one node, counted against the work budget. */
  private check(node: Parameters<typeof checkOwnText>[0], ctx: Ctx): void {
    this.spend();
    checkOwnText(node, ctx.src, ctx.bodies);
  }

  private list(list: CompoundList, ctx: Ctx): void {
    this.check(list, ctx);
    for (const st of list.commands) this.statement(st, ctx);
  }

  private statement(st: Statement, ctx: Ctx): void {
    this.check(st, ctx);
    this.node(st.command, ctx);
  }

  private node(node: Statement['command'], ctx: Ctx): void {
    switch (node.type) {
      case 'AndOr':
      case 'Pipeline':
        this.check(node, ctx);
        for (const c of node.commands) this.node(c, ctx);
        return;
      case 'Command':
        this.command(node, ctx);
        return;
      case 'Redirected':
        this.check(node, ctx);
        for (const r of node.redirects) this.redirect(r, ctx);
        this.node(node.command, ctx);
        return;
      case 'Subshell':
      case 'BraceGroup':
        this.check(node, ctx);
        this.list(node.body, ctx);
        return;
      case 'If':
        this.check(node, ctx);
        this.list(node.clause, ctx);
        this.list(node.then, ctx);
        for (const e of node.elif) {
          this.check(e, ctx);
          this.list(e.clause, ctx);
          this.list(e.then, ctx);
        }
        if (node.else) this.list(node.else, ctx);
        return;
      case 'While':
        this.check(node, ctx);
        this.list(node.clause, ctx);
        this.list(node.body, ctx);
        return;
      case 'For':
      case 'Select': {
        this.check(node, ctx);
        const name = this.word(node.name, ctx);
        if (name.dynamic) fail('loop variable name is not literal');
        this.assignVariable(name.value, node.type === 'For' ? 'for' : 'select');
        for (const w of node.wordlist ?? []) this.word(w, ctx);
        this.list(node.body, ctx);
        return;
      }
      case 'Case':
        this.check(node, ctx);
        this.word(node.word, ctx);
        for (const item of node.items) this.caseItem(item, ctx);
        return;
      case 'TestCommand':
        this.check(node, ctx);
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
    this.check(item, ctx);
    for (const p of item.pattern) this.word(p, ctx);
    this.list(item.body, ctx);
  }

  private testCommand(expr: TestExpression, ctx: Ctx): void {
    this.push(this.testWords(expr, ctx), { nested: ctx.nested, env: [...ctx.env], openArgs: false, tainted: false, stdinScript: false, replace: null });
  }

  /** A variable set in the shell itself (standalone assignment, loop variable, read …). */
  private assignVariable(name: string, how: string): void {
    if (SENSITIVE_VAR.test(name)) fail(`${how} sets ${name}, which changes what later commands run`);
  }

  // ── redirects ──

  /** Returns whether the redirect feeds stdin from a here-doc or here-string. */
  private redirect(r: Redirection, ctx: Ctx): boolean {
    const fd = r.descriptor;
    if (fd?.type === 'FileDescriptorVariable') fail('{fd} redirects are not supported');
    const prefix = fd ? String(fd.value) : '';
    if (r.type === 'HereDoc') {
      if (r.body.parts && !r.delimiter?.quoted) {
        const acc = newAcc();
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
    const writes = redirectWrites(op, t);
    if (writes === 'not-a-descriptor') fail(`${op} needs a file descriptor`);
    this.redirects.push({ op: prefix + op, target: t.value, writes });
    return false;
  }

  // ── simple commands ──

  private command(cmd: Command, ctx: Ctx): void {
    this.check(cmd, ctx);
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
        const lead = info.dynamic ? `${a.name}=` : info.text;
        words.push({ value: info.text, dynamic: info.dynamic, mayBeOption: false, split: false, fields: false, lead, display: info.dynamic ? a.text : quoteWord(info.text) });
      }
    }
    if (ctx.env.length + prefix.length > MAX_ASSIGNMENTS) fail(`a command runs with more than ${MAX_ASSIGNMENTS} assignments`);
    this.run(words, { nested: ctx.nested, env: [...ctx.env, ...prefix], openArgs: false, tainted: false, stdinScript, replace: null }, ctx);
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
      const always = own(ALWAYS_FAIL, prog);
      if (always !== undefined) fail(always);
      const wrapper = own(WRAPPERS, prog);
      if (wrapper !== undefined) {
        const step = wrapper(words.slice(1), st);
        switch (step.kind) {
          case 'self':
            this.push(words, st);
            return;
          case 'nothing':
            return;
          case 'script':
            if (step.reportSelf) this.push(words, st);
            this.runScript(step.script, st, ctx);
            return;
          case 'inner':
            if (step.reportSelf) this.push(words, st);
            words = step.words;
            if (step.st) st = { ...st, ...step.st };
            continue;
        }
      }
      if (SHELLS.has(prog)) {
        const inv = shellInvocation(words);
        if (inv.kind === 'script') this.runScript(inv.script.value, st, ctx);
        else if (inv.kind === 'info' || inv.kind === 'file') this.push(words, st); // `bash script.sh`: an opaque program
        else fail(`${first.value} would read its script from ${st.stdinScript ? 'a here-document' : 'standard input'}, which cannot be analysed`);
        return;
      }
      if (prog === 'find') {
        this.find(words, st, ctx);
        return;
      }
      if (prog === 'git') checkGit(words.slice(1));
      const exports = builtinChecks(prog, words);
      this.push(words, st);
      for (const e of exports) {
        const name = assignmentName(e);
        this.exported.delete(name);
        this.exported.set(name, e);
        if (this.exported.size > MAX_ASSIGNMENTS) fail(`more than ${MAX_ASSIGNMENTS} variables exported`);
      }
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

  private find(words: WordInfo[], st: RunState, ctx: Ctx): void {
    const inner = findExecCommands(words);
    this.push(words, st);
    for (const argv of inner) {
      const open = argv.some((a) => a.value.includes('{}'));
      this.run(argv, { ...st, nested: true, openArgs: open, stdinScript: false, replace: '{}' }, ctx);
    }
  }

  private push(words: WordInfo[], st: RunState): void {
    if (this.commands.length >= MAX_COMMANDS) fail(`the line runs more than ${MAX_COMMANDS} commands`);
    const argv = words.map((w) => w.value);
    const dynamic = words.map((w) => w.dynamic);
    const assignments = [...st.env];
    if (this.exported.size > 0) {
      const own = new Set(st.env.map(assignmentName));
      for (const [name, e] of this.exported) if (!own.has(name)) assignments.push(e);
    }
    let display = '';
    for (const a of assignments) display += `${quoteAssignment(a)} `;
    for (let k = 0; k < words.length; k++) display += k === 0 ? words[k]!.display : ` ${words[k]!.display}`;
    const j = judgeCommand(words, st.openArgs);
    const readOnly =
      j.readOnly &&
      !st.tainted &&
      assignments.every((a) => SAFE_ENV.test(assignmentName(a))) &&
      !words.some((w) => !w.dynamic && w.value.startsWith('/') && FOREIGN_FD_PATH.test(w.value));
    this.commands.push({ argv, text: display, nested: st.nested, dynamic, assignments, openArgs: st.openArgs, readOnly, dangers: j.dangers });
  }
}

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
