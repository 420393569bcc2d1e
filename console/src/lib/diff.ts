// Unified diffs inside a tool result's text (Write, Edit and MultiEdit end their results with
// one): `--- a/…`, `+++ b/…`, then `@@ -l,n +l,n @@` hunks whose line counts say where each
// hunk ends, so text after the diff is not mistaken for it.

export type DiffLineKind = 'hunk' | 'add' | 'del' | 'context' | 'note';

export interface DiffLine {
  kind: DiffLineKind;
  /** The line as in the diff, sign included (`+x`, `-x`, ` x`, `@@ … @@`, `\ No newline…`). */
  text: string;
}

export interface FileDiff {
  /** The file, without the `a/`/`b/` prefix. */
  path: string;
  lines: DiffLine[];
  added: number;
  removed: number;
}

/** A text split into prose and the diffs in it, in order. */
export type TextPart = { kind: 'text'; text: string } | { kind: 'diff'; diff: FileDiff };

const HUNK = /^@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@/;

function cleanPath(raw: string): string {
  const name = raw.replace(/\t.*$/, '').trim();
  return name.replace(/^[ab]\//, '');
}

function isFileHeader(lines: readonly string[], i: number): boolean {
  return (lines[i]?.startsWith('--- ') ?? false) && (lines[i + 1]?.startsWith('+++ ') ?? false) && HUNK.test(lines[i + 2] ?? '');
}

/** Reads the hunks from `lines[i]` on; returns them and the index after the last one. */
function readHunks(lines: readonly string[], start: number): { diffLines: DiffLine[]; next: number; added: number; removed: number } {
  const diffLines: DiffLine[] = [];
  let i = start;
  let added = 0;
  let removed = 0;
  for (;;) {
    const header = HUNK.exec(lines[i] ?? '');
    if (!header) break;
    diffLines.push({ kind: 'hunk', text: lines[i]! });
    i++;
    let oldLeft = header[1] === undefined ? 1 : Number(header[1]);
    let newLeft = header[2] === undefined ? 1 : Number(header[2]);
    while (i < lines.length && (oldLeft > 0 || newLeft > 0 || lines[i]!.startsWith('\\'))) {
      const line = lines[i]!;
      const sign = line[0];
      if (sign === '\\') diffLines.push({ kind: 'note', text: line });
      else if (sign === '+' && newLeft > 0) {
        diffLines.push({ kind: 'add', text: line });
        newLeft--;
        added++;
      } else if (sign === '-' && oldLeft > 0) {
        diffLines.push({ kind: 'del', text: line });
        oldLeft--;
        removed++;
      } else if ((sign === ' ' || line === '') && oldLeft > 0 && newLeft > 0) {
        // An empty context line may have lost its leading space to trimming.
        diffLines.push({ kind: 'context', text: line === '' ? ' ' : line });
        oldLeft--;
        newLeft--;
      } else break; // not what the hunk header promised: stop here
      i++;
    }
  }
  return { diffLines, next: i, added, removed };
}

/** Splits a text into prose and unified diffs; a text without a diff is one text part. */
export function splitDiffs(text: string): TextPart[] {
  const lines = text.split('\n');
  const parts: TextPart[] = [];
  let prose: string[] = [];
  const flush = () => {
    // The `====` line some tools print above a diff belongs to the diff, not the prose.
    while (prose.length && /^=+$/.test(prose[prose.length - 1]!)) prose.pop();
    if (prose.length && prose.some((l) => l.trim() !== '')) parts.push({ kind: 'text', text: prose.join('\n') });
    prose = [];
  };
  let i = 0;
  while (i < lines.length) {
    if (isFileHeader(lines, i)) {
      const oldPath = cleanPath(lines[i]!.slice(4));
      const newPath = cleanPath(lines[i + 1]!.slice(4));
      const { diffLines, next, added, removed } = readHunks(lines, i + 2);
      flush();
      parts.push({ kind: 'diff', diff: { path: newPath === '/dev/null' ? oldPath : newPath, lines: diffLines, added, removed } });
      i = next;
    } else {
      prose.push(lines[i]!);
      i++;
    }
  }
  flush();
  return parts;
}

/** Whether a text holds at least one unified diff. */
export function hasDiff(text: string): boolean {
  return splitDiffs(text).some((p) => p.kind === 'diff');
}

/** Tools whose results end with a diff of the file they changed. */
export const DIFF_TOOLS: ReadonlySet<string> = new Set(['Write', 'Edit', 'MultiEdit']);
