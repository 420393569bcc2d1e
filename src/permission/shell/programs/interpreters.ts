// Interpreters given code on the command line (python -c, node -e/-p/-r/--import/--loader,
// perl -e/-E/-M/-d, perl/ruby -i, ruby -e/-r, php -r/-B/-R/-E/-d, lua -e/-l, bun -e, deno eval):
// inline code cannot be analysed, so the word holding it (or naming code to load) is a danger
// that an allow rule must spell out. Running a script file is what the program is for: not a
// danger.
import { own, type ArgWord } from '../words.js';
import { wordDanger, type ArgDanger, type ProgramSpec } from './spec.js';

/**
 * What an option letter does: its value is code (exec), loads code (exec), is an in-place edit
 * suffix (write); or it takes a value (the rest of the word or the next word), only the rest of
 * the word, ends the options (python -m), or is a plain flag.
 */
type Kind = 'code' | 'load' | 'inplace' | 'value' | 'rest' | 'stop' | 'flag';

interface Lang {
  name: string;
  letters: Record<string, Kind>;
  long?: Record<string, Kind>;
  /** Unknown letters are plain flags (otherwise: the rest of the command is not followed, a danger). */
  unknownIsFlag: boolean;
}

function langDangers(lang: Lang, args: readonly ArgWord[]): ArgDanger[] {
  const out: ArgDanger[] = [];
  const danger = (i: number, kind: Kind): void => {
    const what = kind === 'inplace' ? 'edits files in place' : kind === 'load' ? 'loads code named on the command line' : 'runs code given on the command line';
    out.push(wordDanger(args, i, kind === 'inplace' ? 'write' : 'exec', `${lang.name} ${what}`));
  };
  for (let i = 0; i < args.length; i++) {
    const w = args[i]!;
    if (w.dynamic) {
      if (w.mayBeOption) out.push(wordDanger(args, i, 'exec', `${lang.name} argument ${w.value} is not a literal word and could be code`));
      return out;
    }
    const v = w.value;
    if (v === '--' || v === '-' || !v.startsWith('-')) return out;
    if (v.startsWith('--')) {
      const eq = v.indexOf('=');
      const kind = lang.long ? own(lang.long, v.slice(2, eq === -1 ? undefined : eq)) : undefined;
      if (kind === 'code' || kind === 'load' || kind === 'inplace') {
        if (eq !== -1) danger(i, kind);
        else if (i + 1 < args.length) danger(++i, kind);
      } else if (kind === 'value' && eq === -1) i++;
      else if (kind === 'stop') return out;
      continue;
    }
    for (let k = 1; k < v.length; k++) {
      const kind = own(lang.letters, v[k]!) ?? (lang.unknownIsFlag ? 'flag' : undefined);
      if (kind === undefined) {
        out.push(wordDanger(args, i, 'exec', `${lang.name} option -${v[k]} is not known`));
        return out;
      }
      if (kind === 'flag') continue;
      if (kind === 'stop') return out;
      const attached = k + 1 < v.length;
      if (kind === 'rest') break;
      if (kind === 'inplace') {
        danger(i, kind);
        break;
      }
      if (kind === 'value') {
        if (!attached) i++;
        break;
      }
      // code / load: the rest of the word, or the next word.
      if (attached) danger(i, kind);
      else if (i + 1 < args.length) danger(++i, kind);
      break;
    }
  }
  return out;
}

const PYTHON: Lang = {
  name: 'python',
  letters: { c: 'code', m: 'stop', W: 'value', X: 'value', Q: 'value' },
  long: { 'check-hash-based-pycs': 'value' },
  unknownIsFlag: true,
};
const NODE: Lang = {
  name: 'node',
  letters: { e: 'code', p: 'code', r: 'load', C: 'value' },
  long: {
    eval: 'code', print: 'code', require: 'load', import: 'load', loader: 'load', 'experimental-loader': 'load',
    conditions: 'value', title: 'value', 'input-type': 'value', 'env-file': 'value', 'inspect-port': 'value',
  },
  unknownIsFlag: true,
};
const PERL: Lang = {
  name: 'perl',
  letters: { e: 'code', E: 'code', M: 'load', m: 'load', d: 'load', i: 'inplace', I: 'value', l: 'rest', '0': 'rest', C: 'rest', D: 'rest', V: 'rest', x: 'rest', F: 'rest' },
  unknownIsFlag: true,
};
const RUBY: Lang = {
  name: 'ruby',
  letters: { e: 'code', r: 'load', i: 'inplace', I: 'value', C: 'value', E: 'value', F: 'rest', W: 'rest', x: 'rest', '0': 'rest', K: 'rest' },
  long: { require: 'load', enable: 'value', disable: 'value', encoding: 'value' },
  unknownIsFlag: true,
};
const PHP: Lang = {
  name: 'php',
  // -d sets ini entries such as auto_prepend_file; -c chooses the php.ini; -z loads an extension.
  letters: { r: 'code', B: 'code', R: 'code', E: 'code', d: 'load', c: 'load', z: 'load', f: 'stop', F: 'value', t: 'value', S: 'value' },
  unknownIsFlag: true,
};
const LUA: Lang = { name: 'lua', letters: { e: 'code', l: 'load' }, unknownIsFlag: true };
const BUN: Lang = { name: 'bun', letters: { e: 'code', p: 'code', r: 'load' }, long: { eval: 'code', print: 'code', preload: 'load' }, unknownIsFlag: true };

const spec = (lang: Lang): ProgramSpec => ({ readOnly: false, judge: (args) => ({ readOnly: false, dangers: langDangers(lang, args) }) });

export const INTERPRETERS: Record<string, ProgramSpec> = {
  python: spec(PYTHON),
  python2: spec(PYTHON),
  python3: spec(PYTHON),
  pypy: spec(PYTHON),
  pypy3: spec(PYTHON),
  node: spec(NODE),
  nodejs: spec(NODE),
  perl: spec(PERL),
  ruby: spec(RUBY),
  php: spec(PHP),
  lua: spec(LUA),
  luajit: spec(LUA),
  bun: spec(BUN),
  deno: {
    readOnly: false,
    judge: (args) => {
      const i = args.findIndex((a) => a.dynamic || !a.value.startsWith('-'));
      const sub = args[i];
      const code = sub && !sub.dynamic && sub.value === 'eval' ? args.slice(i + 1).findIndex((a) => a.dynamic || !a.value.startsWith('-')) : -1;
      return { readOnly: false, dangers: code === -1 ? [] : [wordDanger(args, i + 1 + code, 'exec', 'deno eval runs code given on the command line')] };
    },
  },
};

/** Versioned interpreter names (python3.12, perl5.36, lua5.4). */
export function interpreterFor(name: string): ProgramSpec | undefined {
  const m = /^(python|pypy|perl|ruby|php|lua)\d+(\.\d+)*$/.exec(name);
  return m ? INTERPRETERS[m[1]!] : undefined;
}
