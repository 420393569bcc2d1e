// sed (GNU sed 4.9): its options, and a parser of its script language that finds the commands
// writing files (`w`, `W`, the `w` flag of `s`) or running the shell (`e`, the `e` flag of `s`).
// `r`/`R` only read. Whatever the parser cannot account for is a danger too.
import { parseArgs, table } from '../getopt.js';
import type { ArgWord } from '../words.js';
import { wordDanger, type ArgDanger, type ProgramSpec } from './spec.js';

const SED = table({
  short: 'nrsuzEe:f:i::l:b',
  long:
    'quiet silent debug expression= file= follow-symlinks in-place[=] line-length= null-data zero-terminated posix ' +
    'regexp-extended separate sandbox unbuffered binary help version',
  write: ['i', 'in-place'],
  // A script file cannot be analysed.
  exec: ['f', 'file'],
});

const HARMLESS_FILES = new Set(['/dev/stdout', '/dev/stderr']);

/** The dangers of a sed script (descriptions), or a parse problem as a danger. */
export function sedScriptDangers(script: string): string[] {
  const out: string[] = [];
  const s = script;
  let i = 0;
  let depth = 0;
  const at = (k = 0): string => s[i + k] ?? '';
  const skipBlanks = (): void => {
    while (at() === ' ' || at() === '\t') i++;
  };
  const restOfLine = (): string => {
    const e = s.indexOf('\n', i);
    const text = s.slice(i, e === -1 ? s.length : e);
    i = e === -1 ? s.length : e;
    return text;
  };
  /** Reads up to an unescaped delimiter (GNU match_slash); false when it is missing. */
  const delimited = (delim: string): boolean => {
    for (; i < s.length; i++) {
      const c = s[i]!;
      if (c === '\\') {
        i++;
        continue;
      }
      if (c === delim) {
        i++;
        return true;
      }
      if (c === '\n' && delim !== '\n') return false;
    }
    return false;
  };
  const address = (): boolean => {
    if (/[0-9]/.test(at())) {
      while (/[0-9]/.test(at())) i++;
      if (at() === '~') {
        i++;
        while (/[0-9]/.test(at())) i++;
      }
      return true;
    }
    if (at() === '$') {
      i++;
      return true;
    }
    if (at() === '/' || at() === '\\') {
      if (at() === '\\') i++;
      const delim = at();
      if (delim === '' || delim === '\n' || delim === '\\') return false;
      i++;
      if (!delimited(delim)) return false;
      while (at() === 'I' || at() === 'M') i++;
      return true;
    }
    return true; // no address
  };
  const endOfCommand = (): boolean => {
    skipBlanks();
    const c = at();
    if (c === ';' || c === '\n') {
      i++;
      return true;
    }
    return c === '' || c === '}' || c === '#';
  };
  const problem = (what: string): string[] => [...out, `sed script could not be parsed (${what})`];
  while (i < s.length) {
    while (/[\s;]/.test(at())) i++;
    if (i >= s.length) break;
    if (at() === '#') {
      restOfLine();
      continue;
    }
    if (!address()) return problem('address');
    skipBlanks();
    if (at() === ',') {
      i++;
      skipBlanks();
      if (at() === '+' || at() === '~') {
        i++;
        if (!/[0-9]/.test(at())) return problem('address');
        while (/[0-9]/.test(at())) i++;
      } else if (!address()) return problem('address');
      skipBlanks();
    }
    while (at() === '!' || at() === ' ' || at() === '\t') i++;
    const cmd = at();
    i++;
    switch (cmd) {
      case '{':
        depth++;
        continue;
      case '}':
        if (--depth < 0) return problem('unmatched }');
        if (!endOfCommand()) return problem('after }');
        continue;
      case '=': case 'd': case 'D': case 'g': case 'G': case 'h': case 'H': case 'n': case 'N':
      case 'p': case 'P': case 'x': case 'z': case 'F':
        if (!endOfCommand()) return problem(`after ${cmd}`);
        continue;
      case 'l': case 'L': case 'q': case 'Q':
        skipBlanks();
        while (/[0-9]/.test(at())) i++;
        if (!endOfCommand()) return problem(`after ${cmd}`);
        continue;
      case ':':
        skipBlanks();
        while (i < s.length && !/[;\n]/.test(at())) i++;
        continue;
      case 'b': case 't': case 'T': case 'v':
        while (i < s.length && !/[;\n}]/.test(at())) i++;
        continue;
      case 'a': case 'i': case 'c':
        // Text to the end of the line; a line ending in a backslash continues it.
        for (;;) {
          const line = restOfLine();
          if (!/(^|[^\\])(\\\\)*\\$/.test(line) || i >= s.length) break;
          i++;
        }
        continue;
      case 'r': case 'R':
        restOfLine();
        continue;
      case 'w': case 'W': {
        skipBlanks();
        const file = restOfLine();
        if (!HARMLESS_FILES.has(file)) out.push(`sed ${cmd} writes ${file || 'a file'}`);
        continue;
      }
      case 'e':
        restOfLine();
        out.push('sed e runs a shell command');
        continue;
      case 's': case 'y': {
        const delim = at();
        if (delim === '' || delim === '\n' || delim === '\\') return problem(`${cmd} delimiter`);
        i++;
        if (!delimited(delim) || !delimited(delim)) return problem(`unterminated ${cmd}`);
        if (cmd === 'y') {
          if (!endOfCommand()) return problem('after y');
          continue;
        }
        for (;;) {
          const f = at();
          if (/[gpiImM0-9]/.test(f) && f !== '') {
            i++;
            continue;
          }
          if (f === 'e') {
            i++;
            out.push('sed s///e runs the result as a shell command');
            continue;
          }
          if (f === 'w') {
            i++;
            skipBlanks();
            const file = restOfLine();
            if (!HARMLESS_FILES.has(file)) out.push(`sed s///w writes ${file || 'a file'}`);
          }
          break;
        }
        if (!endOfCommand()) return problem('after s');
        continue;
      }
      default:
        return problem(`command ${JSON.stringify(cmd)}`);
    }
  }
  if (depth !== 0) return problem('unmatched {');
  return out;
}

function sedDangers(args: readonly ArgWord[]): ArgDanger[] {
  const p = parseArgs(SED, args);
  const out: ArgDanger[] = [];
  if (p.options.some((o) => o.name === '--sandbox')) return out; // sed refuses e, w and r then
  const scripts = p.options
    .filter((o) => o.name === '-e' || o.name === '--expression')
    .map((o) => ({ index: o.valueIndex ?? o.index, text: o.value ?? '' }));
  const hasFile = p.options.some((o) => o.name === '-f' || o.name === '--file');
  if (scripts.length === 0 && !hasFile && p.operands.length > 0) scripts.push({ index: p.operands[0]!, text: args[p.operands[0]!]!.value });
  for (const { index, text } of scripts) {
    if (args[index]!.dynamic) {
      out.push(wordDanger(args, index, 'exec', 'the sed script is not a literal word'));
      continue;
    }
    for (const d of sedScriptDangers(text)) out.push(wordDanger(args, index, /writes/.test(d) ? 'write' : 'exec', d));
  }
  return out;
}

export const SED_SPEC: ProgramSpec = { options: SED, readOnly: false, dangers: (args) => sedDangers(args) };
