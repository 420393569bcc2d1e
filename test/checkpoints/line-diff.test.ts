// The line diff, checked against GNU diff and patch on drawn cases: every script turns the old
// lines into the new ones, is as short as `diff --minimal`'s, and its unified hunks apply with
// `patch` to give the new file exactly.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { counts, diffLines, hunks, linesOf } from '../../src/checkpoints/line-diff.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'norma-linediff-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function draw(seed: number): () => number {
  let x = seed >>> 0;
  return () => {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
    return x / 2 ** 32;
  };
}

/** A file of n lines over a small alphabet (so lines repeat, as braces and blank lines do). */
function file(rand: () => number, n: number): string[] {
  return Array.from({ length: n }, () => ['{', '}', '', 'a', 'b', 'return x;', 'c'][Math.floor(rand() * 7)]!);
}

function edit(rand: () => number, lines: string[]): string[] {
  const out = [...lines];
  const edits = 1 + Math.floor(rand() * 6);
  for (let i = 0; i < edits; i++) {
    const at = Math.floor(rand() * (out.length + 1));
    const r = rand();
    if (r < 0.4) out.splice(at, 0, `new ${Math.floor(rand() * 1000)}`);
    else if (r < 0.7 && out.length > 0) out.splice(Math.min(at, out.length - 1), 1);
    else if (out.length > 0) out[Math.min(at, out.length - 1)] = `changed ${Math.floor(rand() * 1000)}`;
  }
  return out;
}

describe('the line diff', () => {
  it('on 300 drawn pairs: turns old into new, as short as diff --minimal, and its hunks apply with patch', () => {
    const rand = draw(42);
    for (let i = 0; i < 300; i++) {
      const a = file(rand, Math.floor(rand() * 40));
      const b = i % 10 === 0 ? file(rand, Math.floor(rand() * 40)) : edit(rand, a);
      const ops = diffLines(a, b);
      expect(ops.filter((o) => o.kind !== 'add').map((o) => o.line)).toEqual(a);
      expect(ops.filter((o) => o.kind !== 'del').map((o) => o.line)).toEqual(b);
      const aText = a.map((l) => `${l}\n`).join('');
      const bText = b.map((l) => `${l}\n`).join('');
      const fa = path.join(dir, 'a');
      const fb = path.join(dir, 'b');
      fs.writeFileSync(fa, aText);
      fs.writeFileSync(fb, bText);
      const gnu = spawnSync('diff', ['--minimal', '-U0', fa, fb], { encoding: 'utf8' }).stdout;
      const gnuChanged = gnu.split('\n').filter((l) => /^[-+]/.test(l) && !/^(---|\+\+\+) /.test(l)).length;
      const { additions, deletions } = counts(ops);
      expect(additions + deletions).toBe(gnuChanged);
      const patchText = `--- a\n+++ b\n${hunks(ops)}`;
      const target = path.join(dir, 'target');
      fs.writeFileSync(target, aText);
      if (hunks(ops) !== '') execFileSync('patch', ['--quiet', '--force', target], { input: patchText });
      expect(fs.readFileSync(target, 'utf8')).toBe(bText);
    }
  });

  it('two unrelated large files are one replacement', () => {
    const rand = draw(7);
    const a = Array.from({ length: 30_000 }, (_, i) => `old ${i} ${rand()}`);
    const b = Array.from({ length: 30_000 }, (_, i) => `new ${i} ${rand()}`);
    const ops = diffLines(a, b);
    expect(counts(ops)).toEqual({ additions: 30_000, deletions: 30_000 });
    expect(ops.filter((o) => o.kind !== 'add').map((o) => o.line)).toEqual(a);
    expect(ops.filter((o) => o.kind !== 'del').map((o) => o.line)).toEqual(b);
  });

  it('splits text into lines, a last line without newline kept', () => {
    expect(linesOf('')).toEqual([]);
    expect(linesOf('a\nb\n')).toEqual(['a', 'b']);
    expect(linesOf('a\nb')).toEqual(['a', 'b']);
    expect(linesOf('\n')).toEqual(['']);
  });
});
