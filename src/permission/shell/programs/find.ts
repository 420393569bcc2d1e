// find: its primaries (findutils 4.9 `find --help` and find(1)). Read-only when every primary
// is a test or a printing action; -delete, -fprint*, -fls write files; -exec/-execdir/-ok/-okdir
// run the commands the analyser reports as nested (so they are not dangers of find itself).
import { fail } from '../types.js';
import type { ArgWord, WordInfo } from '../words.js';
import { wordDanger, type ArgDanger, type Judgement, type ProgramSpec } from './spec.js';

const NO_ARG = new Set([
  '-daystart', '-follow', '-nowarn', '-warn', '-depth', '-d', '-mount', '-noleaf', '-xdev', '-ignore_readdir_race',
  '-noignore_readdir_race', '-empty', '-false', '-true', '-nouser', '-nogroup', '-readable', '-writable', '-executable',
  '-print', '-print0', '-ls', '-prune', '-quit', '-delete',
  '(', ')', '!', ',', '-not', '-a', '-and', '-o', '-or',
]);

/** Primaries that take one value (the analyser accepts a non-literal word only as such a value). */
export const FIND_VALUE_PRIMARIES = new Set([
  '-name', '-iname', '-path', '-ipath', '-wholename', '-iwholename', '-regex', '-iregex', '-lname', '-ilname',
  '-newer', '-anewer', '-cnewer', '-samefile', '-type', '-xtype', '-user', '-group', '-perm', '-size', '-mtime',
  '-mmin', '-atime', '-amin', '-ctime', '-cmin', '-maxdepth', '-mindepth', '-uid', '-gid', '-inum', '-links',
  '-printf', '-fprint', '-fprint0', '-fls', '-fstype', '-context', '-used', '-regextype', '-files0-from',
]);

const WRITES = new Set(['-delete', '-fprint', '-fprint0', '-fls', '-fprintf']);
const EXECS = new Set(['-exec', '-execdir', '-ok', '-okdir']);

export function isFindValuePrimary(word: string): boolean {
  return FIND_VALUE_PRIMARIES.has(word) || /^-newer[aBcmt][aBcmt]$/.test(word);
}

function judgeFind(args: readonly ArgWord[], openArgs: boolean): Judgement {
  const dangers: ArgDanger[] = [];
  let readOnly = !openArgs;
  let i = 0;
  // Leading options, then the starting points (up to the first word that starts an expression).
  for (; i < args.length; i++) {
    const v = args[i]!.value;
    if (args[i]!.dynamic) break;
    if (v === '-H' || v === '-L' || v === '-P' || /^-O\d*$/.test(v)) continue;
    if (v === '-D') {
      i++;
      continue;
    }
    break;
  }
  for (; i < args.length; i++) {
    const w = args[i]!;
    if (w.dynamic || !(w.value.startsWith('-') || ['(', ')', '!', ','].includes(w.value))) continue;
    break;
  }
  for (; i < args.length; i++) {
    const w = args[i]!;
    const v = w.value;
    if (w.dynamic) {
      readOnly = false;
      continue;
    }
    if (WRITES.has(v)) {
      readOnly = false;
      dangers.push(wordDanger(args, i, 'write', `find ${v} ${v === '-delete' ? 'deletes files' : 'writes a file'}`));
      i += v === '-fprintf' ? 2 : v === '-delete' ? 0 : 1;
      continue;
    }
    if (EXECS.has(v)) {
      readOnly = false;
      let j = i + 1;
      for (; j < args.length; j++) {
        if (args[j]!.value === ';' || (args[j]!.value === '+' && args[j - 1]?.value === '{}')) break;
      }
      i = j;
      continue;
    }
    if (NO_ARG.has(v)) continue;
    if (isFindValuePrimary(v)) {
      i++;
      continue;
    }
    // An unknown primary or a stray operand: find refuses it, and it is not read-only here.
    readOnly = false;
  }
  return { readOnly, dangers };
}

export const FIND: ProgramSpec = { readOnly: true, judge: judgeFind };

/**
 * The commands of -exec/-execdir/-ok/-okdir (words[0] is find). A non-literal word is allowed
 * only as the value of a test: anywhere else it could be an action, and in a command it could
 * be any program.
 */
export function findExecCommands(words: readonly WordInfo[]): WordInfo[][] {
  const inner: WordInfo[][] = [];
  for (let i = 1; i < words.length; i++) {
    const w = words[i]!;
    if (w.dynamic) {
      const prev = words[i - 1]!;
      if (prev.dynamic || !isFindValuePrimary(prev.value)) fail(`find argument ${w.display} is not a literal word and could be an action`);
      continue;
    }
    if (!EXECS.has(w.value)) continue;
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
    inner.push(body);
    i = j;
  }
  return inner;
}
