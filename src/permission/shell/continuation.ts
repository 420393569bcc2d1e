// What an interactive shell runs as text is typed into it (ShellWrite, PtyShells).
//
// bash runs a command when a line end completes it. Until then it holds the text: an open
// quote, a here-document waiting for its delimiter, a line ending in a backslash, an `if`
// without `fi`, a line ending in `|` or `&&` … continue on the next line. Judging such lines
// one by one would let a harmless-looking line carry commands into the one that completes it,
// so the held text is kept (pending) and analysed as a whole once it is complete.
//
// advance(pending, input) returns the complete commands the input makes the shell run now (`run`,
// ending at a line end; '' when none) and the new pending text. A line is incomplete only when
// that is certain: every parse error is one an end of input causes (an unterminated quote or
// substitution, `expected 'fi'` with nothing after it …), a here-document has no delimiter line
// yet, or the last line ends in a backslash that continues it. Anything else counts as
// complete, so it is analysed now (and fails to analyse, so it is asked about) rather than
// held: holding text bash has already run is what must never happen.
//
// `\r` (Enter) and `\n` are each a line end. Control keys (editing, history, completion) change
// the line in ways this cannot follow: such input is not judged (`unknown`), and afterwards the
// shell's state is unknown (pending is UNKNOWN) until a Ctrl-C, which makes bash drop the line
// and any unfinished command. Past MAX_PENDING characters of unfinished text the state is
// unknown too.
import { parse, type ParsedScript, type SyntaxNode } from 'unbash';
import { forEachChild } from 'unbash';
import { MAX_HEREDOCS_PER_LINE, maxHereDocsOnALine } from './coverage.js';

/** Most unfinished text (held plus typed) followed; beyond it every input is asked about. */
export const MAX_PENDING = 100_000;
/** The pending text of a shell whose state is not known. */
export const UNKNOWN = '\u0000';

// Anything but printable text and line ends: Ctrl keys, escapes (arrows recall history), tab
// completion, backspace.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u0009\u000b\u000c\u000e-\u001f\u007f]/;
const CTRL_C = '\u0003';

export interface Advance {
  /** Complete commands the shell runs now ('' when none). */
  run: string;
  /** What the shell holds afterwards. */
  pending: string;
  /** Why this input cannot be judged, or null. */
  unknown: string | null;
}

const memo: { key: [string, string]; value: Advance }[] = [];

export function advance(pending: string, input: string): Advance {
  const hit = memo.find((m) => m.key[0] === pending && m.key[1] === input);
  if (hit) return hit.value;
  const value = advanceUncached(pending, input);
  memo.unshift({ key: [pending, input], value });
  memo.length = Math.min(memo.length, 4);
  return value;
}

function advanceUncached(pending: string, input: string): Advance {
  if (CONTROL.test(input)) {
    const cut = input.lastIndexOf(CTRL_C);
    const after = cut === -1 ? null : input.slice(cut + 1);
    const next = after === null || CONTROL.test(after) ? UNKNOWN : advanceText('', after).pending;
    return { run: '', pending: next, unknown: 'the input contains control keys (editing, history or completion) whose effect on the command line cannot be checked' };
  }
  if (pending === UNKNOWN || CONTROL.test(pending)) {
    return {
      run: '',
      pending: UNKNOWN,
      unknown: 'earlier control keys or too much unfinished input left the shell line in a state that cannot be checked (Ctrl-C starts afresh)',
    };
  }
  return advanceText(pending, input);
}

function advanceText(pending: string, input: string): Advance {
  const text = (pending + input).replace(/\r/g, '\n');
  if (text.length > MAX_PENDING) {
    return { run: '', pending: UNKNOWN, unknown: `the shell would hold more than ${MAX_PENDING} characters of unfinished input` };
  }
  const last = text.lastIndexOf('\n');
  if (last === -1) return { run: '', pending: text, unknown: null };
  const head = text.slice(0, last + 1);
  const tail = text.slice(last + 1);
  if (!incomplete(head)) return { run: head, pending: tail, unknown: null };
  const split = completePrefix(head);
  // Not sure where the complete part ends: analyse all of it now (it does not parse: asked) and
  // keep holding all of it, so nothing bash may still be holding escapes the next analysis.
  if (split === null) return { run: head, pending: text, unknown: null };
  return { run: head.slice(0, split), pending: head.slice(split) + tail, unknown: null };
}

/** Parse errors that mean "the input ended too soon", by message. */
const UNTERMINATED = /^unterminated (single quote|double quote|ANSI-C quote|backtick|command substitution|process substitution|parameter expansion|arithmetic expansion)$/;
const EXPECTED = /^expected (command after|'(fi|then|do|done|esac|in|\)|\}|\]\])')/;
const EXPECTED_INSIDE = /^expected command in (subshell|brace group)$/;

const blankFrom = (text: string, pos: number): boolean => /^(\s|#[^\n]*)*$/.test(text.slice(pos));

/** Would bash wait for more lines after `text` (which ends with a line end)? */
export function incomplete(text: string): boolean {
  if (maxHereDocsOnALine(text) > MAX_HEREDOCS_PER_LINE) return false;
  let script: ParsedScript;
  try {
    script = parse(text);
  } catch {
    return false;
  }
  const errors = script.errors ?? [];
  for (const e of errors) {
    const eof =
      UNTERMINATED.test(e.message) ||
      (EXPECTED.test(e.message) && blankFrom(text, e.pos)) ||
      (EXPECTED_INSIDE.test(e.message) && /^[({](\s|#[^\n]*)*$/.test(text.slice(e.pos)));
    if (!eof) return false; // a syntax error: bash reports it and drops the line
  }
  if (errors.length > 0) return true;
  if (openHereDoc(script)) return true;
  return continuedLine(text, script);
}

function openHereDoc(script: ParsedScript): boolean {
  let open = false;
  const visit = (node: SyntaxNode): void => {
    if (open) return;
    if (node.type === 'HereDoc') {
      if (node.closing === undefined) open = true;
      return;
    }
    if (node.type === 'Word' || node.type === 'Assignment' || node.type === 'HereString') return;
    forEachChild(node, visit);
  };
  visit(script);
  return open;
}

/** Does the last line end in a backslash that joins the next line to it (not in a comment)? */
function continuedLine(text: string, script: ParsedScript): boolean {
  let k = text.length - 2;
  while (k >= 0 && text[k] === '\\') k--;
  if ((text.length - 2 - k) % 2 === 0) return false;
  // If the backslash continues the line, a word typed next joins the last statement.
  try {
    const probe = parse(text + 'x');
    return (probe.errors?.length ?? 0) === 0 && probe.commands.length === script.commands.length && script.commands.length > 0;
  } catch {
    return false;
  }
}

/** Where the complete commands of an incomplete text end: the start of the line of its last statement. */
function completePrefix(text: string): number | null {
  let script: ParsedScript;
  try {
    script = parse(text);
  } catch {
    return null;
  }
  const lastStmt = script.commands[script.commands.length - 1];
  const split = lastStmt === undefined ? 0 : text.lastIndexOf('\n', lastStmt.pos - 1) + 1;
  if (split === 0) return 0;
  return incomplete(text.slice(0, split)) ? null : split;
}
