// Fail-closed checks for builtins that change the shell itself, take variable names (which
// bash evaluates as arithmetic when they carry a subscript), or evaluate strings as code.
import { checkSet, checkShopt } from './shells.js';
import { fail } from './types.js';
import { SENSITIVE_VAR, type WordInfo } from './words.js';

/** Builtins that define shell state in ways that hide later commands or evaluate strings as code. */
export const ALWAYS_FAIL: Record<string, string> = {
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

const VAR_BUILTINS = new Set(['read', 'mapfile', 'readarray', 'declare', 'typeset', 'local', 'export', 'readonly', 'unset', 'getopts', 'wait']);
const DECLARE_LIKE = new Set(['declare', 'typeset', 'local', 'export', 'readonly']);

/** Checks a builtin's arguments; returns the assignments it exports to later commands. */
export function builtinChecks(prog: string, words: readonly WordInfo[]): string[] {
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
  switch (prog) {
    case 'printf': {
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
    case 'test':
    case '[':
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
    case 'hash':
      if (args.some((a) => /^-[a-zA-Z]*p/.test(a.value) || a.dynamic)) fail('hash -p changes which program a name runs');
      return exports;
    case 'complete':
    case 'compgen':
      if (args.some((a) => /^-[a-zA-Z]*[CF]/.test(a.value) || a.dynamic)) fail(`${prog} -C/-F runs commands`);
      return exports;
    case 'set':
      checkSet(args);
      return exports;
    case 'shopt':
      checkShopt(args);
      return exports;
    default:
      return exports;
  }
}
