// awk (mawk, gawk, busybox): its options, and a conservative scanner of the program text.
// Dangers: `system`, any `|` or `|&` (print | "cmd", "cmd" | getline), `>`/`>>` that are not
// inside parentheses in a print/printf statement (output redirection; "/dev/stdout" and
// "/dev/stderr" excepted), `@` (gawk @load, @include, indirect calls), "/inet/…" special files,
// program files (-f, -E, -i, -l) and the options that write files (-d, -o, -p).
//
// `/` starts a regular expression where an operand is expected (after an operator, `(`, `,`,
// `{`, `;`, a newline, `!`, `~`, keywords such as print/return/else, and the `)` closing an
// if/while/for condition) and divides elsewhere, as awk's grammar decides. Text the scanner
// cannot follow (an unterminated string or regular expression) is a danger too.
import { parseArgs, table } from '../getopt.js';
import type { ArgWord } from '../words.js';
import { wordDanger, type ArgDanger, type ProgramSpec } from './spec.js';

const AWK = table({
  short: 'F:v:f:E:i:l:d::o::p::D::e:W:bcCghL::MNnOPrsStVk',
  long:
    'field-separator= assign= file= exec= include= load= dump-variables[=] pretty-print[=] profile[=] debug[=] ' +
    'source= characters-as-bytes traditional copyright gen-pot help lint[=] bignum use-lc-numeric non-decimal-data ' +
    'optimize posix re-interval no-optimize sandbox lint-old version csv',
  exec: ['f', 'file', 'E', 'exec', 'i', 'include', 'l', 'load', 'D', 'debug', 'W'],
  write: ['d', 'dump-variables', 'o', 'pretty-print', 'p', 'profile'],
});

const REGEX_AFTER_KEYWORD = new Set(['print', 'printf', 'return', 'else', 'do', 'case', 'in', 'delete', 'exit']);
const CONDITION_KEYWORD = new Set(['if', 'while', 'for']);
const HARMLESS_OUTPUT = new Set(['/dev/stdout', '/dev/stderr']);

/** Descriptions of the dangers in an awk program. */
export function awkProgramDangers(src: string): string[] {
  const out: string[] = [];
  let i = 0;
  /** The previous significant token ends an operand (so `/` divides). */
  let operand = false;
  let prevWord = '';
  const parens: boolean[] = []; // true: an if/while/for condition
  let printDepth = -1; // paren depth of the print statement being read, -1 outside one
  const endStatement = (): void => {
    printDepth = -1;
  };
  const fail = (what: string): string[] => [...out, `awk program could not be scanned (${what})`];
  while (i < src.length) {
    const c = src[i]!;
    if (c === ' ' || c === '\t' || c === '\r') {
      i++;
      continue;
    }
    if (c === '\\' && src[i + 1] === '\n') {
      i += 2;
      continue;
    }
    if (c === '#') {
      while (i < src.length && src[i] !== '\n') i++;
      continue;
    }
    if (c === '\n') {
      // A newline ends a statement unless it follows an operator (`,`, `&&`, `{` …).
      if (operand && parens.length === 0) endStatement();
      operand = false;
      prevWord = '';
      i++;
      continue;
    }
    if (c === '"') {
      let j = i + 1;
      for (; j < src.length && src[j] !== '"'; j++) {
        if (src[j] === '\\') j++;
        else if (src[j] === '\n') return fail('string');
      }
      if (j >= src.length) return fail('string');
      const text = src.slice(i + 1, j);
      if (text.startsWith('/inet')) out.push(`awk ${text} opens a network connection`);
      i = j + 1;
      operand = true;
      prevWord = '';
      continue;
    }
    if (c === '/' && !operand) {
      let j = i + 1;
      let bracket = false;
      for (; j < src.length; j++) {
        const d = src[j]!;
        if (d === '\n') return fail('regular expression');
        if (d === '\\') {
          j++;
          continue;
        }
        if (bracket) {
          if (d === ']') bracket = false;
          continue;
        }
        if (d === '[') {
          bracket = true;
          if (src[j + 1] === '^') j++;
          if (src[j + 1] === ']') j++;
          continue;
        }
        if (d === '/') break;
      }
      if (j >= src.length) return fail('regular expression');
      i = j + 1;
      operand = true;
      prevWord = '';
      continue;
    }
    if (/[A-Za-z_]/.test(c)) {
      let j = i;
      while (j < src.length && /[A-Za-z0-9_]/.test(src[j]!)) j++;
      const word = src.slice(i, j);
      i = j;
      if (word === 'system') out.push('awk system() runs a shell command');
      if (word === 'print' || word === 'printf') printDepth = parens.length;
      operand = !(REGEX_AFTER_KEYWORD.has(word) || CONDITION_KEYWORD.has(word));
      prevWord = word;
      continue;
    }
    if (/[0-9.]/.test(c)) {
      while (i < src.length && /[0-9.eExXa-fA-F]/.test(src[i]!)) i++;
      operand = true;
      prevWord = '';
      continue;
    }
    i++;
    switch (c) {
      case '(':
        parens.push(CONDITION_KEYWORD.has(prevWord));
        operand = false;
        break;
      case ')':
        operand = !(parens.pop() ?? false);
        break;
      case ']':
        operand = true;
        break;
      case ';':
      case '{':
      case '}':
        if (parens.length === 0 || c !== ';') endStatement();
        operand = false;
        break;
      case '|':
        if (src[i] === '|') i++;
        else {
          if (src[i] === '&') i++;
          out.push('awk | runs a shell command');
        }
        operand = false;
        break;
      case '>': {
        if (src[i] === '=') {
          i++;
        } else if (printDepth !== -1 && parens.length === printDepth) {
          if (src[i] === '>') i++;
          const target = /^\s*"([^"\\]*)"\s*(?=[;\n}]|$)/.exec(src.slice(i));
          if (!(target && HARMLESS_OUTPUT.has(target[1]!))) out.push('awk print > writes a file');
        }
        operand = false;
        break;
      }
      case '@':
        out.push('awk @ loads code or calls a function by name');
        operand = false;
        break;
      case '+':
      case '-':
        // `x++ / 2` divides; `++x` keeps expecting an operand.
        if (src[i] === c) i++;
        else operand = false;
        break;
      case '$':
      default:
        operand = false;
    }
    prevWord = '';
  }
  return out;
}

function awkDangers(args: readonly ArgWord[]): ArgDanger[] {
  const p = parseArgs(AWK, args);
  const out: ArgDanger[] = [];
  const programs = p.options.filter((o) => o.name === '-e' || o.name === '--source').map((o) => ({ index: o.valueIndex ?? o.index, text: o.value ?? '' }));
  const fromFile = p.options.some((o) => ['-f', '--file', '-E', '--exec'].includes(o.name));
  if (programs.length === 0 && !fromFile && p.operands.length > 0) programs.push({ index: p.operands[0]!, text: args[p.operands[0]!]!.value });
  for (const { index, text } of programs) {
    if (args[index]!.dynamic) {
      out.push(wordDanger(args, index, 'exec', 'the awk program is not a literal word'));
      continue;
    }
    for (const d of awkProgramDangers(text)) out.push(wordDanger(args, index, /writes/.test(d) ? 'write' : 'exec', d));
  }
  for (const pr of p.problems) if (pr.kind === 'unknown') out.push(wordDanger(args, pr.index, 'exec', `awk: ${pr.message}`));
  return out;
}

export const AWK_SPEC: ProgramSpec = { options: AWK, readOnly: false, dangers: (args) => awkDangers(args) };
