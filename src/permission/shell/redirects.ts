// Redirects: which ones write.
//
// ─── Redirects ───────────────────────────────────────────────────────────────────────────────
// Redirect.op is the descriptor (if written) plus the operator: '>', '2>', '>>', '&>', '&>>', '>|',
// '<>', '<', '2>&', '<<', '<<-', '<<<'. writes is true for > >> >| &> &>> <> (and `>& file`) unless
// the target is /dev/null, /dev/stdout, /dev/stderr or /dev/fd/0-2. A duplication from a
// descriptor above 2 (`>&3`, `2>&5`, `<&4`, `1>&3-`) writes: such a descriptor was inherited from
// outside the line, and reading or writing it reaches whatever holds its other end. So do
// targets /dev/fd/N (N > 2), /proc/*/fd/*, /dev/tcp/… and /dev/udp/… for any operator, input
// included. Duplications among 0-2 (2>&1, >&2), onto a higher descriptor from 0-2 (3>&1), and
// closing (>&-) do not write; neither do plain input redirects, here-docs and here-strings
// (target null). A non-literal target writes.
//
import type { WordInfo } from './words.js';

/** An inherited descriptor or a network socket, as a path. */
export const FOREIGN_FD_PATH = /^\/(dev\/fd\/0*([3-9]|\d{2,})|proc\/[^/]+\/fd\/[^/]|dev\/(tcp|udp)\/)/;

function isHarmlessSink(t: WordInfo): boolean {
  return !t.dynamic && /^\/dev\/(null|stdout|stderr|fd\/[0-2])$/.test(t.value);
}

/** Does a redirect with operator `op` (`>`, `<&` …, without its descriptor) and target `t` write? */
export function redirectWrites(op: string, t: WordInfo): boolean | 'not-a-descriptor' {
  const foreign = !t.dynamic && FOREIGN_FD_PATH.test(t.value);
  if (op === '<') return foreign;
  if (op === '<&' || op === '>&') {
    const dup = !t.dynamic && /^(\d+-?|-)$/.test(t.value);
    if (op === '<&' && !dup) return 'not-a-descriptor';
    // Duplicating from a descriptor above 2 reaches one inherited from outside the line.
    if (dup) return t.value !== '-' && Number.parseInt(t.value, 10) > 2;
    return !isHarmlessSink(t);
  }
  return !isHarmlessSink(t);
}
