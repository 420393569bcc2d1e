// What changed between two recorded states: statuses, binary files, line counts, modes and links;
// and the unified diff, which `git apply` takes to turn the old tree into the new one (text files,
// modes and links), with binary files named.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { changesBetween, unifiedDiff, walkOrder } from '../../src/checkpoints/changes.js';
import { ObjectStore } from '../../src/checkpoints/objects.js';
import { ScanCache, scanTree } from '../../src/checkpoints/scan.js';

const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await fs.rm(d, { recursive: true, force: true });
});
async function tmp(): Promise<string> {
  const d = await fs.mkdtemp(path.join(os.tmpdir(), 'norma-changes-'));
  dirs.push(d);
  return d;
}
const LIMITS = { maxFileBytes: 1024 * 1024, maxEntries: 10_000 };
const sha = (s: string | Buffer) => createHash('sha256').update(s).digest('hex');

async function tree(root: string, files: Record<string, string | Buffer | { link: string } | { mode: number; text: string }>): Promise<void> {
  for (const [p, v] of Object.entries(files)) {
    const full = path.join(root, p);
    await fs.mkdir(path.dirname(full), { recursive: true });
    if (typeof v === 'object' && 'link' in v) await fs.symlink(v.link, full);
    else if (typeof v === 'object' && 'mode' in v) await fs.writeFile(full, v.text, { mode: v.mode });
    else await fs.writeFile(full, v);
  }
}

describe('changes between two states', () => {
  it('says what was added, modified and deleted, with line counts; binary files are named; a rename is a deletion and an addition', async () => {
    const ws = await tmp();
    const objects = await ObjectStore.open(await tmp());
    const cache = new ScanCache();
    await tree(ws, {
      'keep.txt': 'same\n',
      'edit.txt': 'one\ntwo\nthree\n',
      'gone.txt': 'bye\nbye\n',
      'old-name.txt': 'moved\n',
      'tool.sh': { mode: 0o644, text: 'echo\n' },
      'img.bin': Buffer.from([0, 1, 2, 3]),
      'ln': { link: 'keep.txt' },
      'tail.txt': 'no newline',
    });
    const before = (await scanTree(ws, objects, cache, LIMITS)).entries;
    await fs.writeFile(path.join(ws, 'edit.txt'), 'one\n2\nthree\nfour\n');
    await fs.rm(path.join(ws, 'gone.txt'));
    await fs.rename(path.join(ws, 'old-name.txt'), path.join(ws, 'new-name.txt'));
    await fs.chmod(path.join(ws, 'tool.sh'), 0o755);
    await fs.writeFile(path.join(ws, 'img.bin'), Buffer.from([0, 9, 9]));
    await fs.rm(path.join(ws, 'ln'));
    await fs.symlink('edit.txt', path.join(ws, 'ln'));
    await fs.writeFile(path.join(ws, 'tail.txt'), 'no newline\nnow');
    await fs.writeFile(path.join(ws, 'added/deep.txt').replace('added/deep.txt', 'added.txt'), 'a\nb\n');
    const after = (await scanTree(ws, objects, cache, LIMITS)).entries;
    const contentOf = (s: string) => objects.get(s);
    expect(await changesBetween(before, after, contentOf)).toEqual([
      { path: 'added.txt', status: 'added', binary: false, after_sha256: sha('a\nb\n'), additions: 2, deletions: 0 },
      { path: 'edit.txt', status: 'modified', binary: false, before_sha256: sha('one\ntwo\nthree\n'), after_sha256: sha('one\n2\nthree\nfour\n'), additions: 2, deletions: 1 },
      { path: 'gone.txt', status: 'deleted', binary: false, before_sha256: sha('bye\nbye\n'), additions: 0, deletions: 2 },
      { path: 'img.bin', status: 'modified', binary: true, before_sha256: sha(Buffer.from([0, 1, 2, 3])), after_sha256: sha(Buffer.from([0, 9, 9])), additions: 0, deletions: 0 },
      { path: 'ln', status: 'modified', binary: false, additions: 1, deletions: 1 },
      { path: 'new-name.txt', status: 'added', binary: false, after_sha256: sha('moved\n'), additions: 1, deletions: 0 },
      { path: 'old-name.txt', status: 'deleted', binary: false, before_sha256: sha('moved\n'), additions: 0, deletions: 1 },
      { path: 'tail.txt', status: 'modified', binary: false, before_sha256: sha('no newline'), after_sha256: sha('no newline\nnow'), additions: 2, deletions: 1 },
      { path: 'tool.sh', status: 'modified', binary: false, before_sha256: sha('echo\n'), after_sha256: sha('echo\n'), additions: 0, deletions: 0 },
    ]);
    expect(await changesBetween(after, after, contentOf)).toEqual([]);

    // The diff, applied by git to a copy of the old tree (binary files left out), gives the new one.
    const diff = await unifiedDiff(before, after, contentOf);
    expect(diff).toContain('Binary files a/img.bin and b/img.bin differ');
    expect(diff).toContain('old mode 100644\nnew mode 100755');
    expect(diff).toContain('\\ No newline at end of file');
    const copy = await tmp();
    await tree(copy, { 'keep.txt': 'same\n', 'edit.txt': 'one\ntwo\nthree\n', 'gone.txt': 'bye\nbye\n', 'old-name.txt': 'moved\n', 'tool.sh': { mode: 0o644, text: 'echo\n' }, ln: { link: 'keep.txt' }, 'tail.txt': 'no newline' });
    const textOnly = diff
      .split(/(?=^diff --git )/m)
      .filter((part) => !part.includes('Binary files'))
      .join('');
    try {
      execFileSync('git', ['apply', '--unsafe-paths', '-p1', '-'], { cwd: copy, input: textOnly, stdio: ['pipe', 'pipe', 'pipe'] });
    } catch (err) {
      throw new Error(`${String((err as { stderr?: Buffer }).stderr)}\n${textOnly}`);
    }
    for (const p of ['edit.txt', 'new-name.txt', 'tail.txt', 'added.txt', 'keep.txt']) expect(await fs.readFile(path.join(copy, p), 'utf8')).toBe(await fs.readFile(path.join(ws, p), 'utf8'));
    await expect(fs.access(path.join(copy, 'gone.txt'))).rejects.toThrow();
    expect(await fs.readlink(path.join(copy, 'ln'))).toBe('edit.txt');
    expect((await fs.stat(path.join(copy, 'tool.sh'))).mode & 0o111).not.toBe(0);
    await objects.close();
  });

  it('a file name cannot forge a diff header: names with control characters, quotes or non-ASCII bytes are quoted as git quotes them', async () => {
    const a = await tmp();
    const b = await tmp();
    const objects = await ObjectStore.open(await tmp());
    const forged = 'x\n+++ b/etc/passwd\n@@ -0,0 +1 @@';
    await tree(b, { [forged]: 'evil\n', 'caf\u00e9 "q".txt': 'ok\n', 'plain.txt': 'p\n' });
    const cache = new ScanCache();
    const diff = await unifiedDiff((await scanTree(a, objects, cache, LIMITS)).entries, (await scanTree(b, objects, cache, LIMITS)).entries, (h) => objects.get(h));
    const headers = diff.split('\n').filter((l) => l.startsWith('diff --git') || l.startsWith('+++') || l.startsWith('---'));
    expect(headers).toContain('diff --git "a/x\\n+++ b/etc/passwd\\n@@ -0,0 +1 @@" "b/x\\n+++ b/etc/passwd\\n@@ -0,0 +1 @@"');
    expect(headers).toContain('diff --git "a/caf\\303\\251 \\"q\\".txt" "b/caf\\303\\251 \\"q\\".txt"');
    expect(headers).toContain('+++ b/plain.txt');
    // No line of the diff is a header naming a file that is not in the workspace.
    expect(headers.filter((l) => l.includes('etc/passwd') && !l.startsWith('diff --git') && !l.startsWith('+++ "b/x'))).toEqual([]);
    // git reads the quoted names back: the diff applies to an empty tree.
    const check = await tmp();
    await fs.writeFile(path.join(check, 'p.diff'), diff);
    execFileSync('git', ['init', '-q'], { cwd: check });
    execFileSync('git', ['apply', 'p.diff'], { cwd: check });
    expect(await fs.readFile(path.join(check, forged), 'utf8')).toBe('evil\n');
    await objects.close();
  });

  it('a unified diff stops past its size bound and says how many files it left out', async () => {
    const a = await tmp();
    const b = await tmp();
    const objects = await ObjectStore.open(await tmp());
    await tree(b, Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`f${String(i).padStart(2, '0')}.txt`, 'line\n'.repeat(50)])));
    const cache = new ScanCache();
    const diff = await unifiedDiff((await scanTree(a, objects, cache, LIMITS)).entries, (await scanTree(b, objects, cache, LIMITS)).entries, (h) => objects.get(h), 1_000);
    expect(diff.match(/^diff --git/gm)).toHaveLength(3);
    expect(diff.trimEnd().split('\n').at(-1)).toBe('# the diff stops here at 1000 characters: 17 more changed file(s) not shown (GET …/changes lists them all)');
    await objects.close();
  });

  it('a walk lists entries in walk order, and changes found by merging two walks equal those found by path, over drawn trees', async () => {
    // Names around the `/` that decides the order: `a`, `a.txt`, `a-b`, `a/b`, `a0`, `A`, `é`.
    const names = ['a', 'a.txt', 'a-b', 'a0', 'A', '\u00e9', 'b', 'b~'];
    let seed = 7;
    const draw = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) % n);
    const ws = await tmp();
    const objects = await ObjectStore.open(await tmp());
    const cache = new ScanCache();
    const byPath = <T,>(e: T[]): T[] => [...e].reverse(); // out of walk order: compared by path
    let before = (await scanTree(ws, objects, cache, LIMITS)).entries;
    for (let round = 0; round < 25; round++) {
      for (let k = 0; k < 6; k++) {
        const parts = Array.from({ length: 1 + draw(3) }, () => names[draw(names.length)]!);
        const full = path.join(ws, ...parts);
        const op = draw(3);
        await fs.rm(full, { recursive: true, force: true }).catch(() => undefined);
        if (op === 0) continue;
        try {
          await fs.mkdir(path.dirname(full), { recursive: true });
          if (op === 1) await fs.writeFile(full, `${round}-${k}\n`);
          else await fs.mkdir(full, { recursive: true });
        } catch {
          // A file where a directory is needed: the draw is skipped.
        }
      }
      const after = (await scanTree(ws, objects, cache, LIMITS)).entries;
      for (let i = 1; i < after.length; i++) expect(walkOrder(after[i - 1]!.path, after[i]!.path)).toBeLessThan(0);
      const content = (sha256: string) => objects.get(sha256);
      const merged = await changesBetween(before, after, content);
      expect(merged).toEqual(await changesBetween(byPath(before), byPath(after), content));
      expect(merged.map((f) => f.path)).toEqual(merged.map((f) => f.path).sort());
      before = after;
    }
  });
});
