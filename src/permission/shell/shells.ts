// Shell options: what `bash -c`, `set` and `shopt` may be given without changing how the words
// of the script (or of later lines) are read or which files the shell itself runs.
//
// Fail closed on every other flag: `-k` makes later `a=b` words assignments, `-a` exports every
// assignment, `-l`/`--login`/`-i`/`--rcfile` run profile and rc files, `--debugger` loads a
// debugger profile, `-H` turns `!` into history expansion, `-O`, `-p`, `-o vi` (keys become
// commands in an interactive shell) and so on.
import { fail } from './types.js';
import type { WordInfo } from './words.js';

export const SHELLS = new Set(['bash', 'sh', 'zsh', 'dash', 'ksh', 'mksh', 'ash']);

/** Single-letter flags that change neither parsing nor which files the shell reads. */
const SAFE_FLAGS = new Set('ceuxvnfCETPtbmhBr');
/** `set -o NAME` names with the same property. */
const SAFE_SET_O = new Set([
  'errexit', 'nounset', 'xtrace', 'pipefail', 'verbose', 'noclobber', 'noglob', 'errtrace', 'functrace', 'physical',
  'braceexpand', 'posix', 'noexec', 'hashall', 'notify', 'monitor', 'ignoreeof',
]);
/** What may be turned off in addition (history expansion off is what the PTY shell starts with). */
const SAFE_UNSET_O = new Set([...SAFE_SET_O, 'histexpand', 'history']);
const SAFE_SHOPT = new Set(['nullglob', 'failglob', 'dotglob', 'globstar', 'nocaseglob', 'extglob']);
const SAFE_LONG = new Set(['--norc', '--noprofile', '--posix', '--verbose', '--noediting', '--restricted']);

function checkSetName(name: WordInfo | undefined, on: boolean, what: string): void {
  if (name === undefined) return; // `set -o` lists the options
  if (name.dynamic) fail(`${what} option name ${name.display} is not a literal word`);
  if (!(on ? SAFE_SET_O : SAFE_UNSET_O).has(name.value)) fail(`${what} ${on ? '-o' : '+o'} ${name.value} changes how later commands are read or run`);
}

/** Checks one `-abc` / `+abc` flag cluster; returns how many following words it used. */
function flagCluster(v: string, next: WordInfo | undefined, what: string, onC?: () => void, onS?: () => void): number {
  const on = v.startsWith('-');
  let used = 0;
  for (const ch of v.slice(1)) {
    if (ch === 'o') {
      checkSetName(next, on, what);
      used = 1;
      continue;
    }
    if (on && ch === 'c' && onC) {
      onC();
      continue;
    }
    if (on && ch === 's' && onS) {
      onS();
      continue;
    }
    if (!(SAFE_FLAGS.has(ch) || (!on && ch === 'H'))) fail(`${what} ${on ? '-' : '+'}${ch} changes how commands are read or run, or which files the shell reads`);
  }
  return used;
}

export type ShellInvocation =
  | { kind: 'script'; script: WordInfo }
  | { kind: 'file' }
  | { kind: 'info' }
  | { kind: 'stdin' };

/** Parses `bash [options] [-c script | file | -s]` (words[0] is the shell). */
export function shellInvocation(words: readonly WordInfo[]): ShellInvocation {
  const name = words[0]!.value;
  const rest = words.slice(1);
  let dashC = false;
  let dashS = false;
  let i = 0;
  for (; i < rest.length; i++) {
    const w = rest[i]!;
    if (w.dynamic) fail(`${name} option ${w.display} is not a literal word`);
    const v = w.value;
    if (v === '--' || v === '-') {
      i++;
      break;
    }
    if (v === '--version' || v === '--help') return { kind: 'info' };
    if (v.startsWith('--')) {
      if (SAFE_LONG.has(v)) continue;
      fail(`${name} option ${v} is not supported: it changes how commands are read or which files the shell runs`);
    }
    if (/^[-+][A-Za-z]+$/.test(v)) {
      i += flagCluster(v, rest[i + 1], name, () => (dashC = true), () => (dashS = true));
      continue;
    }
    if (v.startsWith('-') || v.startsWith('+')) fail(`${name} option ${v} is not supported`);
    break;
  }
  if (dashC) {
    const script = rest[i];
    if (script === undefined) fail(`${name} -c without a script`);
    if (script.dynamic) fail(`${name} -c script ${script.display} is not a literal word`);
    return { kind: 'script', script };
  }
  if (i < rest.length && !dashS) return { kind: 'file' };
  return { kind: 'stdin' };
}

/** `set`: only the options that leave parsing and execution as the analyser assumes. */
export function checkSet(args: readonly WordInfo[]): void {
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a.dynamic) fail(`set argument ${a.display} is not a literal word`);
    const v = a.value;
    if (v === '--' || v === '-') return; // the rest are positional parameters
    if (!/^[-+]/.test(v)) return;
    if (!/^[-+][A-Za-z]+$/.test(v)) fail(`set option ${v} is not supported`);
    i += flagCluster(v, args[i + 1], 'set');
  }
}

/** `shopt -s|-u NAME`: only globbing options; listing and querying are fine. */
export function checkShopt(args: readonly WordInfo[]): void {
  let setting = false;
  let setO = false;
  const names: WordInfo[] = [];
  for (const a of args) {
    if (a.dynamic) fail(`shopt argument ${a.display} is not a literal word`);
    if (/^-[supqo]+$/.test(a.value)) {
      if (/[su]/.test(a.value)) setting = true;
      if (a.value.includes('o')) setO = true;
      continue;
    }
    names.push(a);
  }
  if (!setting) return;
  for (const n of names) {
    if (!(setO ? SAFE_SET_O : SAFE_SHOPT).has(n.value)) fail(`shopt ${n.value} changes how later commands are read or run`);
  }
}
