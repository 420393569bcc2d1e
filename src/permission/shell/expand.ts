// Reading words: decoding quotes and escapes, and walking the code inside them.
//
// ─── Words ───────────────────────────────────────────────────────────────────────────────────
// argv holds fully decoded words: quotes removed, `\x` escapes, `$'…'` (ANSI-C) and `$"…"` decoded,
// so r''m, \rm, "r"m, $'\x72\x6d', $'\162\155', $"rm" all give `rm`.
// Decision: parameter expansions ($VAR, ${VAR}, ${VAR:-x}, ${#VAR}, $1, $@ …), command/process
// substitutions, unquoted globs (* ? […] extglobs) and brace expansion ({a,b}, kept literal, not
// expanded) ARE allowed in argument positions: argv keeps their literal source text (e.g. `$HOME`,
// `*.ts`, `{a,b}`) and `dynamic[i]` is true for such a word. They are NEVER allowed where they could
// choose the command: the command name (also after unwrapping), wrapper/xargs/env/sudo/find option
// areas, find -exec bodies, eval/bash -c/watch/su -c scripts, git's options and subcommand → ok:false.
// A word records whether it is dynamic, may split into several words (unquoted expansion or
// glob), may make new words of any text (unquoted parameter or command expansion: `fields`), and
// its literal start (`lead`): option parsers use these to tell whether it could be an option.
import type { ArrayValue, Assignment, ParameterExpansionPart, ParsedScript, TestExpression, Word, WordPart } from 'unbash';
import type { HereDocBodies } from './coverage.js';
import { fail, MAX_WORK } from './types.js';
import { mayBeOption, PLAIN_WORD, quoteWord, staticWord, type WordInfo } from './words.js';

export interface Ctx {
  /** The string node positions index into. */
  src: string;
  nested: boolean;
  depth: number;
  /** Assignments inherited from enclosing commands (prefixes, env, sudo, bash -c). */
  env: readonly string[];
  /** Here-doc bodies in src (the coverage check skips them). */
  bodies: HereDocBodies;
}

export interface Acc {
  value: string;
  dynamic: boolean;
  split: boolean;
  fields: boolean;
  lead: string;
}

export const newAcc = (): Acc => ({ value: '', dynamic: false, split: false, fields: false, lead: '' });

export abstract class WordWalker {
  /** Syntax nodes and words still allowed: analysis stays bounded whatever the input. */
  private work = MAX_WORK;

  /** Analyses the commands of a substitution's script. */
  protected abstract script(script: ParsedScript | undefined, ctx: Ctx): void;

  protected spend(): void {
    if (--this.work < 0) fail(`the line is too large to analyse (more than ${MAX_WORK} words and syntax nodes)`);
  }

  protected word(w: Word, ctx: Ctx): WordInfo {
    this.spend();
    if (!w.parts) {
      // An unquoted leading ~ (tilde expansion) is kept literally and displayed unquoted.
      if (w.text.startsWith('~') && w.text === w.value && PLAIN_WORD.test(w.value)) return { ...staticWord(w.value), display: w.value };
      return staticWord(w.value);
    }
    const acc = newAcc();
    for (const p of w.parts) this.part(p, ctx, acc, false);
    const lead = acc.dynamic ? acc.lead : acc.value;
    return { ...acc, lead, mayBeOption: mayBeOption(acc.dynamic, acc.fields, lead), display: acc.dynamic ? w.text : quoteWord(acc.value) };
  }

  protected part(p: WordPart, ctx: Ctx, acc: Acc, quoted: boolean): void {
    if (!quoted && !['Literal', 'SingleQuoted', 'AnsiCQuoted', 'DoubleQuoted', 'LocaleString'].includes(p.type)) acc.split = true;
    switch (p.type) {
      case 'Literal':
      case 'SingleQuoted':
      case 'AnsiCQuoted':
        acc.value += p.value;
        if (!acc.dynamic) acc.lead += p.value;
        return;
      case 'DoubleQuoted':
      case 'LocaleString':
        for (const c of p.parts) this.part(c, ctx, acc, true);
        return;
      case 'SimpleExpansion':
        acc.value += p.text;
        acc.dynamic = true;
        if (!quoted) acc.fields = true;
        return;
      case 'ParameterExpansion':
        this.parameter(p, ctx);
        acc.value += p.text;
        acc.dynamic = true;
        if (!quoted) acc.fields = true;
        return;
      case 'CommandExpansion':
      case 'ProcessSubstitution':
        this.script(p.script, { ...ctx, nested: true, depth: ctx.depth + 1 });
        acc.value += p.text;
        // A process substitution becomes one /dev/fd/N path.
        if (p.type === 'ProcessSubstitution' && !acc.dynamic) acc.lead += '/';
        acc.dynamic = true;
        if (!quoted && p.type === 'CommandExpansion') acc.fields = true;
        return;
      case 'ArithmeticExpansion':
        fail('arithmetic expansion is not supported');
        break;
      case 'Glob':
      case 'ExtendedGlob':
      case 'BraceExpansion': {
        // Only an expansion inside a glob or brace can run anything (`*$(cmd)`, `{a,$(cmd)}`).
        const sub = newAcc();
        if (/[$`]/.test(p.text)) for (const c of p.parts ?? []) this.part(c, ctx, sub, quoted);
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

  protected assignment(a: Assignment, ctx: Ctx): { name: string; text: string; dynamic: boolean } {
    if (a.index !== undefined) {
      const idx = this.word(a.index, ctx);
      if (idx.dynamic || !/^\d+$/.test(idx.value)) fail(`array subscript in ${a.text} is evaluated as arithmetic`);
    }
    const op = a.append ? '+=' : '=';
    const lhs = a.index !== undefined ? `${a.name}[${a.index.text}]` : a.name;
    const value = a.value;
    if (value.type === 'ArrayValue') {
      const els = (value as ArrayValue).elements.map((e) => this.word(e, ctx));
      return { name: a.name, text: `${lhs}${op}(${els.map((e) => e.value).join(' ')})`, dynamic: els.some((e) => e.dynamic) };
    }
    const v = this.word(value, ctx);
    return { name: a.name, text: `${lhs}${op}${v.value}`, dynamic: v.dynamic };
  }

  /** The pseudo argv of `[[ … ]]`: ['[[', …, ']]']. */
  protected testWords(expr: TestExpression, ctx: Ctx): WordInfo[] {
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
    return words;
  }
}
