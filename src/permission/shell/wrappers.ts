// Programs that run another command: how to find the command they run, and with what.
//
// Unwrapped (the wrapper itself is NOT reported, the inner command keeps the current nesting):
// `timeout`, `time` (keyword and program), `nice`, `nohup`, `env` (its NAME=val words become
// assignments), `command`, `builtin`, `exec`, `stdbuf`, `ionice`, `setsid`, `busybox`.
// Reported as nested: the script of `eval 'literal'`, `watch 'literal'`, `su -c 'literal'`; the
// command of `xargs CMD…` (with no command that is `echo`) and of `watch -x`; the command run
// by `sudo`/`doas`. `sudo`, `doas` and `su` are ALSO reported themselves (full argv), so a rule
// must allow them too. Unknown options of a wrapper, or non-literal words in its option area,
// fail closed.
import { fail } from './types.js';
import { staticWord, type WordInfo } from './words.js';

export interface RunState {
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

export type Step =
  /** Report the words as they are. */
  | { kind: 'self' }
  /** Nothing runs. */
  | { kind: 'nothing' }
  /** Go on with the inner command (after reporting the wrapper itself when `reportSelf`). */
  | { kind: 'inner'; words: WordInfo[]; st?: Partial<RunState>; reportSelf?: boolean }
  /** Run a literal script as nested commands. */
  | { kind: 'script'; script: string; reportSelf?: boolean };

type Wrapper = (rest: WordInfo[], st: RunState) => Step;

interface OptionSpec {
  /** Short flags without a value (may be clustered). */
  flags: string;
  /** Short options taking a value (attached or next word). */
  withValue?: string;
  long?: readonly string[];
  longWithValue?: readonly string[];
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
      if (spec.long?.includes(v)) {
        i++;
        continue;
      }
      if (spec.longWithValue?.includes(name)) {
        i += eq === -1 ? 2 : 1;
        continue;
      }
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

const innerOrSelf = (rest: WordInfo[], i: number, st?: Partial<RunState>): Step =>
  i >= rest.length ? { kind: 'self' } : { kind: 'inner', words: rest.slice(i), ...(st ? { st } : {}) };

function leadingAssignments(rest: WordInfo[], from: number, prog: string, env: string[]): number {
  let j = from;
  for (; j < rest.length && /^[A-Za-z_][A-Za-z0-9_]*=/.test(rest[j]!.value); j++) {
    requireStatic([rest[j]!], prog);
    env.push(rest[j]!.value);
  }
  return j;
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
    if (['-0', '--null', '-r', '--no-run-if-empty', '-t', '--verbose', '-x', '--exit', '-p', '--interactive', '-o', '--open-tty', '--show-limits'].includes(v)) {
      i++;
      continue;
    }
    if (v === '-I') {
      const r = words[i + 1];
      if (r === undefined || r.dynamic) fail('xargs -I needs a literal replace string');
      replace = r.value;
      i += 2;
      continue;
    }
    if (['-L', '-n', '-P', '-s', '-d', '-E', '-a'].includes(v)) {
      i += 2;
      continue;
    }
    if (v.startsWith('-I')) {
      replace = v.slice(2);
      i++;
      continue;
    }
    if (v.startsWith('-i')) {
      replace = v.length > 2 ? v.slice(2) : '{}';
      i++;
      continue;
    }
    if (v === '--replace') {
      replace = '{}';
      i++;
      continue;
    }
    if (v.startsWith('--replace=')) {
      replace = v.slice('--replace='.length);
      i++;
      continue;
    }
    if (/^-[LnPsdEa]./.test(v) || /^-[le]/.test(v)) {
      i++;
      continue;
    }
    if (/^--(arg-file|delimiter|max-args|max-procs|max-lines|max-chars|eof|process-slot-var)(=|$)/.test(v)) {
      i++;
      continue;
    }
    if (/^-[0rtxp]+$/.test(v)) {
      i++;
      continue;
    }
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
    if (v === '-x' || v === '--exec') {
      exec = true;
      i++;
      continue;
    }
    if (v === '-n' || v === '--interval') {
      i += 2;
      continue;
    }
    if (/^-n[\d.]+$/.test(v) || v.startsWith('--interval=') || v.startsWith('--differences')) {
      i++;
      continue;
    }
    if (/^-[dtbegcpwqrC]+$/.test(v) || ['--no-title', '--beep', '--errexit', '--chgexit', '--color', '--no-color', '--precise', '--no-wrap', '--no-rerun'].includes(v)) {
      i++;
      continue;
    }
    fail(`watch option ${v} is not supported`);
  }
  return { index: i, exec };
}

export const WRAPPERS: Record<string, Wrapper> = {
  eval: (rest) => {
    if (rest.length === 0) return { kind: 'nothing' };
    requireStatic(rest, 'eval');
    return { kind: 'script', script: rest.map((w) => w.value).join(' ') };
  },
  exec: (rest) => {
    const i = skipOptions(rest, 'exec', { flags: 'cl', withValue: 'a' });
    if (i >= rest.length) fail('exec without a command changes the shell itself');
    return { kind: 'inner', words: rest.slice(i) };
  },
  command: (rest) => {
    let i = 0;
    let query = false;
    while (i < rest.length && /^-[pvV]+$/.test(rest[i]!.value)) {
      if (/[vV]/.test(rest[i]!.value)) query = true;
      i++;
    }
    if (rest[i]?.value === '--') i++;
    if (query || i >= rest.length) return { kind: 'self' };
    return { kind: 'inner', words: rest.slice(i) };
  },
  builtin: (rest) => (rest.length === 0 ? { kind: 'nothing' } : { kind: 'inner', words: rest }),
  // nohup may write nohup.out.
  nohup: (rest) => innerOrSelf(rest, rest[0]?.value === '--' ? 1 : 0, { tainted: true }),
  time: (rest) => {
    requireStaticOptions(rest, 'time');
    let i = 0;
    while (i < rest.length && rest[i]!.value.startsWith('-')) {
      const v = rest[i]!.value;
      if (v === '--') {
        i++;
        break;
      }
      if (['-p', '--portability', '-v', '--verbose', '-q', '--quiet'].includes(v) || v.startsWith('--format=')) i++;
      else if (v === '-f' || v === '--format') i += 2;
      else fail(`time option ${v} is not supported`);
    }
    return i >= rest.length ? { kind: 'nothing' } : { kind: 'inner', words: rest.slice(i) };
  },
  timeout: (rest) => {
    const i = skipOptions(rest, 'timeout', {
      flags: 'v',
      withValue: 'sk',
      long: ['--preserve-status', '--foreground', '--verbose'],
      longWithValue: ['--signal', '--kill-after'],
    });
    if (i >= rest.length) return { kind: 'self' };
    requireStatic(rest.slice(i, i + 1), 'timeout');
    return innerOrSelf(rest, i + 1);
  },
  nice: (rest) => {
    let i = 0;
    requireStaticOptions(rest, 'nice');
    while (i < rest.length) {
      const v = rest[i]!.value;
      if (v === '--') {
        i++;
        break;
      }
      if (v === '-n' || v === '--adjustment') i += 2;
      else if (/^-n-?\d+$/.test(v) || /^--adjustment=-?\d+$/.test(v) || /^--?\d+$/.test(v)) i++;
      else if (v.startsWith('-')) fail(`nice option ${v} is not supported`);
      else break;
    }
    return innerOrSelf(rest, i);
  },
  stdbuf: (rest) => innerOrSelf(rest, skipOptions(rest, 'stdbuf', { flags: '', withValue: 'ioe', longWithValue: ['--input', '--output', '--error'] })),
  ionice: (rest) => {
    requireStaticOptions(rest, 'ionice');
    if (rest.some((w) => /^(-[a-zA-Z]*[pPu]|--pid|--pgid|--uid)/.test(w.value) && w.value.startsWith('-'))) return { kind: 'self' };
    return innerOrSelf(rest, skipOptions(rest, 'ionice', { flags: 't', withValue: 'cn', long: ['--ignore'], longWithValue: ['--class', '--classdata'] }));
  },
  setsid: (rest) => innerOrSelf(rest, skipOptions(rest, 'setsid', { flags: 'cfw', long: ['--ctty', '--fork', '--wait'] })),
  busybox: (rest) => (rest.length === 0 || rest[0]!.value.startsWith('-') ? { kind: 'self' } : { kind: 'inner', words: rest }),
  env: (rest, st) => {
    let i = 0;
    const env = [...st.env];
    for (; i < rest.length; i++) {
      requireStatic([rest[i]!], 'env');
      const v = rest[i]!.value;
      if (v === '--') {
        i++;
        break;
      }
      if (['-', '-i', '--ignore-environment', '-0', '--null', '-v', '--debug'].includes(v)) continue;
      if (v === '-u' || v === '--unset' || v === '-C' || v === '--chdir') {
        i++;
        continue;
      }
      if (/^-[uC]./.test(v) || /^--(unset|chdir)=/.test(v)) continue;
      if (v.startsWith('-')) fail(`env option ${v} is not supported`);
      break;
    }
    i = leadingAssignments(rest, i, 'env', env);
    return i >= rest.length ? { kind: 'self' } : { kind: 'inner', words: rest.slice(i), st: { env } };
  },
  sudo: (rest, st) => {
    const env = [...st.env];
    const j = leadingAssignments(rest, sudoOptions(rest), 'sudo', env);
    return j >= rest.length ? { kind: 'self' } : { kind: 'inner', words: rest.slice(j), st: { env, nested: true, tainted: true }, reportSelf: true };
  },
  doas: (rest, st) => {
    const env = [...st.env];
    const j = leadingAssignments(rest, skipOptions(rest, 'doas', { flags: 'nsL', withValue: 'Cu' }), 'doas', env);
    return j >= rest.length ? { kind: 'self' } : { kind: 'inner', words: rest.slice(j), st: { env, nested: true, tainted: true }, reportSelf: true };
  },
  su: (rest) => {
    requireStatic(rest, 'su');
    for (let i = 0; i < rest.length; i++) {
      const v = rest[i]!.value;
      let script: string | undefined;
      if (v === '-c' || v === '--command') script = rest[i + 1]?.value;
      else if (v.startsWith('--command=')) script = v.slice('--command='.length);
      if (script !== undefined) return { kind: 'script', script, reportSelf: true };
    }
    return { kind: 'self' };
  },
  xargs: (rest) => {
    const { index: i, replace } = xargsOptions(rest);
    const inner = i >= rest.length ? [staticWord('echo')] : rest.slice(i);
    return { kind: 'inner', words: inner, st: { nested: true, openArgs: true, stdinScript: false, replace } };
  },
  watch: (rest) => {
    const { index, exec } = watchOptions(rest);
    const inner = rest.slice(index);
    if (inner.length === 0) return { kind: 'self' };
    if (exec) return { kind: 'inner', words: inner, st: { nested: true, stdinScript: false } };
    requireStatic(inner, 'watch');
    return { kind: 'script', script: inner.map((w) => w.value).join(' ') };
  },
};
