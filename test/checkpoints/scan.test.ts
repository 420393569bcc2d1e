// A checkpoint's walk of a workspace: every directory, file and link, links recorded and never
// followed, permission bits kept, what is never captured said, unchanged files not read again,
// and nothing from outside the workspace however the tree is changed during the walk.
import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ObjectStore } from '../../src/checkpoints/objects.js';
import { ScanCache, scanTree } from '../../src/checkpoints/scan.js';

const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await fs.rm(d, { recursive: true, force: true });
});
async function tmp(): Promise<string> {
  const d = await fs.mkdtemp(path.join(os.tmpdir(), 'norma-scan-'));
  dirs.push(d);
  return d;
}
const LIMITS = { maxFileBytes: 1024 * 1024, maxEntries: 10_000 };
const sha = (s: string | Buffer) => createHash('sha256').update(s).digest('hex');

describe('scanning a workspace', () => {
  it('records files with their bits, links as links, directories (empty ones too); says what it leaves out', async () => {
    const ws = await tmp();
    const objects = await ObjectStore.open(await tmp());
    await fs.mkdir(path.join(ws, 'src/empty'), { recursive: true });
    await fs.writeFile(path.join(ws, 'src/a.txt'), 'alpha\n');
    await fs.writeFile(path.join(ws, 'run.sh'), '#!/bin/sh\necho hi\n', { mode: 0o755 });
    await fs.writeFile(path.join(ws, 'bin.dat'), Buffer.from([0, 1, 2, 255]));
    await fs.symlink('/etc/passwd', path.join(ws, 'outside'));
    await fs.symlink('/etc', path.join(ws, 'etc-dir'));
    await fs.symlink('src/a.txt', path.join(ws, 'inside'));
    execFileSync('mkfifo', [path.join(ws, 'pipe')]);
    await fs.writeFile(path.join(ws, 'big.bin'), Buffer.alloc(LIMITS.maxFileBytes + 1));
    const scan = await scanTree(ws, objects, new ScanCache(), LIMITS);
    expect(scan.entries).toEqual([
      { kind: 'file', path: 'bin.dat', mode: 0o644, size: 4, sha256: sha(Buffer.from([0, 1, 2, 255])) },
      { kind: 'link', path: 'etc-dir', target: '/etc' },
      { kind: 'link', path: 'inside', target: 'src/a.txt' },
      { kind: 'link', path: 'outside', target: '/etc/passwd' },
      { kind: 'file', path: 'run.sh', mode: 0o755, size: 18, sha256: sha('#!/bin/sh\necho hi\n') },
      { kind: 'dir', path: 'src', mode: 0o755 },
      { kind: 'file', path: 'src/a.txt', mode: 0o644, size: 6, sha256: sha('alpha\n') },
      { kind: 'dir', path: 'src/empty', mode: 0o755 },
    ]);
    expect(scan.notCaptured).toEqual([
      { path: 'big.bin', reason: `larger than ${LIMITS.maxFileBytes} bytes` },
      { path: 'pipe', reason: 'is a FIFO (never captured)' },
    ]);
    expect((await objects.get(sha('alpha\n'))).toString()).toBe('alpha\n');
    expect(scan.bytes).toBe(4 + 18 + 6);
    await objects.close();
  });

  it('does not read an unchanged file again; a changed one (same size, new content) is read', async () => {
    const ws = await tmp();
    const objects = await ObjectStore.open(await tmp());
    const cache = new ScanCache(3);
    for (let i = 0; i < 50; i++) await fs.writeFile(path.join(ws, `f${i}.txt`), `file ${i}\n`.repeat(100));
    // Older than the racy window, so the cache takes them.
    await new Promise((r) => setTimeout(r, 80));
    const first = await scanTree(ws, objects, cache, LIMITS);
    expect(first.added).toBeGreaterThan(0);
    const second = await scanTree(ws, objects, cache, LIMITS);
    expect(second.added).toBe(0);
    expect(second.entries).toEqual(first.entries);
    await fs.writeFile(path.join(ws, 'f7.txt'), `FILE 7\n`.repeat(100));
    const third = await scanTree(ws, objects, cache, LIMITS);
    expect(third.entries.find((e) => e.path === 'f7.txt')).toMatchObject({ sha256: sha('FILE 7\n'.repeat(100)) });
    // A path gone stays in the cache (it is never taken for a new file) until more than
    // the cache holds more than `slack` paths beyond the tree: then they all leave.
    await fs.rm(path.join(ws, 'f8.txt'));
    await fs.rm(path.join(ws, 'f9.txt'));
    const fourth = await scanTree(ws, objects, cache, LIMITS);
    expect(fourth.entries.some((e) => e.path === 'f8.txt')).toBe(false);
    expect(cache.known.has('f8.txt')).toBe(true);
    for (let i = 10; i < 20; i++) await fs.rm(path.join(ws, `f${i}.txt`));
    await fs.writeFile(path.join(ws, 'f8.txt'), `file 8\n`.repeat(100));
    const fifth = await scanTree(ws, objects, cache, LIMITS);
    expect(fifth.entries.find((e) => e.path === 'f8.txt')).toMatchObject({ sha256: sha('file 8\n'.repeat(100)) });
    expect([...cache.known.keys()].filter((p) => !fifth.entries.some((e) => e.path === p))).toEqual([]);
    await objects.close();
  });

  it('past the entry bound, says what it left out', async () => {
    const ws = await tmp();
    const objects = await ObjectStore.open(await tmp());
    for (let i = 0; i < 12; i++) await fs.writeFile(path.join(ws, `f${String(i).padStart(2, '0')}`), String(i));
    const scan = await scanTree(ws, objects, new ScanCache(), { ...LIMITS, maxEntries: 10 });
    expect(scan.entries).toHaveLength(10);
    expect(scan.notCaptured).toEqual([
      { path: 'f10', reason: 'past the 10 entries a checkpoint holds' },
      { path: 'f11', reason: 'past the 10 entries a checkpoint holds' },
    ]);
    await objects.close();
  });

  it('reads nothing outside the workspace while a process swaps a directory for a link to outside, again and again', async () => {
    const ws = await tmp();
    const outside = await tmp();
    const secret = `secret ${Math.random()}\n`;
    await fs.writeFile(path.join(outside, 'secret.txt'), secret);
    await fs.mkdir(path.join(ws, 'sub'));
    await fs.writeFile(path.join(ws, 'sub/secret.txt'), 'harmless\n');
    const objects = await ObjectStore.open(await tmp());
    // A shell loop: sub is a directory, then a link to the outside directory, then a directory again.
    const flipper = spawn('/bin/sh', ['-c', `cd '${ws}'; while :; do mv sub sub.d; ln -s '${outside}' sub; rm sub; mv sub.d sub; done`], { stdio: 'ignore' });
    try {
      let sawLink = 0;
      for (let i = 0; i < 200; i++) {
        const scan = await scanTree(ws, objects, new ScanCache(), LIMITS);
        for (const e of scan.entries) {
          if (e.kind === 'file') expect(e.sha256).not.toBe(sha(secret));
          if (e.kind === 'link' && e.path === 'sub') sawLink++;
        }
      }
      expect(objects.has(sha(secret))).toBe(false);
      // The race was on: some walks met the link (recorded as a link, never followed).
      expect(sawLink).toBeGreaterThan(0);
    } finally {
      flipper.kill('SIGKILL');
      await new Promise((r) => flipper.once('exit', r));
      await objects.close();
    }
  });

  it('says a name that is not UTF-8 is not captured, rather than record it under another name', async () => {
    const ws = await tmp();
    const objects = await ObjectStore.open(await tmp());
    await fs.writeFile(Buffer.concat([Buffer.from(ws + '/bad-'), Buffer.from([0xff, 0xfe]), Buffer.from('.txt')]), 'x');
    await fs.writeFile(path.join(ws, 'good.txt'), 'y');
    const scan = await scanTree(ws, objects, new ScanCache(), LIMITS);
    expect(scan.entries.map((e) => e.path)).toEqual(['good.txt']);
    expect(scan.notCaptured).toEqual([{ path: 'bad-\uFFFD\uFFFD.txt', reason: 'its name is not UTF-8 (never captured)' }]);
    await objects.close();
  });

  it('a walk reading thousands of small files lets the event loop run meanwhile', async () => {
    const ws = await tmp();
    const objects = await ObjectStore.open(await tmp());
    await Promise.all(Array.from({ length: 3_000 }, (_, i) => fs.writeFile(path.join(ws, `f${i}`), `file ${i}\n`)));
    // Read synchronously, the files would all be stored within one turn of the loop: count the
    // turns that saw some stored and not all.
    const stored = () => (objects as unknown as { index: Map<string, unknown> }).index.size;
    let midway = 0;
    let on = true;
    const spin = () => {
      const n = stored();
      if (n > 0 && n < 3_000) midway++;
      if (on) setImmediate(spin);
    };
    setImmediate(spin);
    const scan = await scanTree(ws, objects, new ScanCache(), LIMITS);
    on = false;
    expect(scan.entries).toHaveLength(3_000);
    expect(midway).toBeGreaterThan(2);
    await objects.close();
  });
});
