// Unified diffs in tool results, as the file tools write them (jsdiff's createTwoFilesPatch
// without its `====` line), found among prose and split into lines.
import { createTwoFilesPatch } from 'diff';
import { describe, expect, it } from 'vitest';
import { hasDiff, splitDiffs, type FileDiff } from '../../console/src/lib/diff.js';

/** The diff as src/capabilities/files/file-edit.ts makes it. */
const patch = (path: string, before: string, after: string) =>
  createTwoFilesPatch(`a/${path}`, `b/${path}`, before, after, undefined, undefined, { context: 3 }).split('\n').slice(1).join('\n').trimEnd();

describe('splitDiffs', () => {
  it('finds the diff after a Write summary', () => {
    const text = `Created a.txt (2 bytes).\n${patch('a.txt', '', 'hi')}`;
    const parts = splitDiffs(text);
    expect(parts.map((p) => p.kind)).toEqual(['text', 'diff']);
    expect(parts[0]).toEqual({ kind: 'text', text: 'Created a.txt (2 bytes).' });
    const diff = (parts[1] as { diff: FileDiff }).diff;
    expect(diff.path).toBe('a.txt');
    expect(diff.lines.map((l) => l.kind)).toEqual(['hunk', 'add', 'note']);
    expect(diff.lines[1]!.text).toBe('+hi');
    expect([diff.added, diff.removed]).toEqual([1, 0]);
  });

  it('splits context, removed and added lines of several hunks', () => {
    const before = Array.from({ length: 30 }, (_, i) => `line ${i}`).join('\n') + '\n';
    const after = before.replace('line 2\n', 'line two\n').replace('line 25\n', '');
    const diff = (splitDiffs(`Edited src/x.ts.\n${patch('src/x.ts', before, after)}`)[1] as { diff: FileDiff }).diff;
    expect(diff.path).toBe('src/x.ts');
    expect(diff.lines.filter((l) => l.kind === 'hunk')).toHaveLength(2);
    expect(diff.lines.filter((l) => l.kind === 'del').map((l) => l.text)).toEqual(['-line 2', '-line 25']);
    expect(diff.lines.filter((l) => l.kind === 'add').map((l) => l.text)).toEqual(['+line two']);
    expect(diff.lines.filter((l) => l.kind === 'context').every((l) => l.text.startsWith(' '))).toBe(true);
    expect([diff.added, diff.removed]).toEqual([1, 2]);
  });

  it('keeps text after a diff as prose, using the hunk counts to know where it ends', () => {
    const text = `${patch('a.txt', 'a\n', 'b\n')}\n+ this line is prose, not part of the hunk\nDone.`;
    const parts = splitDiffs(text);
    expect(parts.map((p) => p.kind)).toEqual(['diff', 'text']);
    expect((parts[1] as { text: string }).text).toBe('+ this line is prose, not part of the hunk\nDone.');
  });

  it('reads two files, and the ==== line jsdiff prints belongs to no prose', () => {
    const full = (p: string, a: string, b: string) => createTwoFilesPatch(`a/${p}`, `b/${p}`, a, b).trimEnd();
    const parts = splitDiffs(`${full('one.txt', 'x\n', 'y\n')}\n${full('two.txt', 'p\n', 'q\n')}`);
    expect(parts.map((p) => (p.kind === 'diff' ? p.diff.path : p.text))).toEqual(['one.txt', 'two.txt']);
  });

  it('a text without a diff is prose, even with --- lines', () => {
    const text = '--- not a diff\njust text\n@@ nor this';
    expect(splitDiffs(text)).toEqual([{ kind: 'text', text }]);
    expect(hasDiff(text)).toBe(false);
    expect(hasDiff(patch('a', 'x', 'y'))).toBe(true);
  });

  it('a deleted file is named by its old path', () => {
    const text = '--- a/gone.txt\n+++ /dev/null\n@@ -1,1 +0,0 @@\n-bye';
    const diff = (splitDiffs(text)[0] as { diff: FileDiff }).diff;
    expect(diff.path).toBe('gone.txt');
    expect(diff.removed).toBe(1);
  });
});
