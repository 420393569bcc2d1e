// Incremental checkpoints: after any change, by this process or another, the scan that walks only
// the directories that changed records exactly what a whole scan records, and walks few of them.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ObjectStore } from '../../src/checkpoints/objects.js';
import { ScanCache, scanTree, type Scan } from '../../src/checkpoints/scan.js';
import { DirtyTracker } from '../../src/checkpoints/watch.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});
async function tmp(): Promise<string> {
  const d = await fs.mkdtemp(path.join(os.tmpdir(), 'norma-watch-'));
  cleanups.push(() => fs.rm(d, { recursive: true, force: true }));
  return d;
}
const LIMITS = { maxFileBytes: 1024 * 1024, maxEntries: 100_000 };

async function harness() {
  const ws = await tmp();
  const objects = await ObjectStore.open(await tmp());
  const tracker = new DirtyTracker(await tmp());
  cleanups.push(() => tracker.close());
  cleanups.push(() => objects.close());
  const cache = new ScanCache();
  let last: Scan | undefined;
  return {
    ws,
    tracker,
    /** An incremental checkpoint: the scan and how many directories it walked. */
    async checkpoint(): Promise<{ scan: Scan; walked: number }> {
      await tracker.settle();
      const { inc, finish } = tracker.begin(last);
      const scan = await scanTree(ws, objects, cache, LIMITS, inc);
      const walked = finish();
      last = scan;
      return { scan, walked };
    },
    /** A whole scan from nothing, the truth to compare with. */
    async whole(): Promise<Scan> {
      return scanTree(ws, objects, new ScanCache(), LIMITS);
    },
  };
}

describe('incremental checkpoints', () => {
  it('walk only the directory that changed, and record what a whole scan records', async () => {
    const h = await harness();
    for (let d = 0; d < 30; d++) {
      await fs.mkdir(path.join(h.ws, `d${d}/inner`), { recursive: true });
      for (let f = 0; f < 5; f++) await fs.writeFile(path.join(h.ws, `d${d}/inner/f${f}.txt`), `${d} ${f}\n`);
    }
    const first = await h.checkpoint();
    expect(first.walked).toBe(61);
    expect(h.tracker.watching).toBe(61);
    const idle = await h.checkpoint();
    expect(idle.walked).toBe(0);
    expect(idle.scan.entries).toEqual(first.scan.entries);
    // A file written deep down by another process.
    execFileSync('/bin/sh', ['-c', `echo changed > '${path.join(h.ws, 'd17/inner/f3.txt')}'`]);
    const after = await h.checkpoint();
    expect(after.walked).toBe(1);
    expect(after.scan.entries).toEqual((await h.whole()).entries);
    expect(after.scan.entries.find((e) => e.path === 'd17/inner/f3.txt')).toMatchObject({ size: 8 });
  });

  it('on 40 rounds of drawn changes (files, bits, links, directories made, removed, moved in and out), equals a whole scan each time', async () => {
    const h = await harness();
    const outside = await tmp();
    let x = 99;
    const rand = (n: number) => {
      x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
      return x % n;
    };
    const dirsNow = async (): Promise<string[]> => ['', ...(await h.whole()).entries.filter((e) => e.kind === 'dir').map((e) => e.path)];
    await fs.mkdir(path.join(h.ws, 'a/b'), { recursive: true });
    await h.checkpoint();
    for (let round = 0; round < 40; round++) {
      for (let k = 0; k < 3; k++) {
        const dirs = await dirsNow();
        const d = path.join(h.ws, dirs[rand(dirs.length)]!);
        const name = `n${rand(6)}`;
        const target = path.join(d, name);
        const st = await fs.lstat(target).catch(() => null);
        switch (rand(7)) {
          case 0:
            if (!st || st.isFile()) await fs.writeFile(target, `round ${round}\n`);
            break;
          case 1:
            if (st?.isFile()) await fs.chmod(target, rand(2) ? 0o755 : 0o644);
            break;
          case 2:
            if (!st) await fs.symlink(rand(2) ? '/etc' : name, target);
            break;
          case 3:
            if (!st) await fs.mkdir(target);
            break;
          case 4:
            if (st) await fs.rm(target, { recursive: true, force: true });
            break;
          case 5: {
            // Moved within the workspace, to a directory drawn again.
            const to = path.join(h.ws, dirs[rand(dirs.length)]!, `m${rand(6)}`);
            if (st && !(await fs.lstat(to).catch(() => null)) && !to.startsWith(`${target}/`)) await fs.rename(target, to);
            break;
          }
          case 6:
            // A directory made outside and moved in, with content the watches never saw.
            if (!st) {
              const made = path.join(outside, `o${round}-${k}`);
              await fs.mkdir(path.join(made, 'deep'), { recursive: true });
              await fs.writeFile(path.join(made, 'deep/file.txt'), `outside ${round}\n`);
              await fs.rename(made, target);
            }
            break;
        }
      }
      const { scan } = await h.checkpoint();
      expect(scan.entries, `round ${round}`).toEqual((await h.whole()).entries);
    }
  });
});
