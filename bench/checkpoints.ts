// The checkpoint parts on a workspace of BENCH_FILES (5,000) files, 50 MB in all, in 100
// directories, measured in one run (the HTTP-level ratios against a session without checkpoints
// come with the routes):
//   - a whole walk from nothing (every file read and stored), then a whole walk of the unchanged
//     tree (the stat cache: nothing read), as the baseline;
//   - an incremental walk after one file changed (inotify: only its directory read), and after
//     100 files in 10 directories changed, each against the unchanged whole walk;
//   - the changes and unified diff of those 100 files;
//   - restoring those 100 files;
//   - the disk the object packs take.
//   npm run bench:checkpoints
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { changesBetween, unifiedDiff } from '../src/checkpoints/changes.js';
import { ObjectStore } from '../src/checkpoints/objects.js';
import { applyRestore, planRestore } from '../src/checkpoints/restore.js';
import { ScanCache, scanTree, type Scan } from '../src/checkpoints/scan.js';
import { DirtyTracker } from '../src/checkpoints/watch.js';

const FILES = Number(process.env.BENCH_FILES ?? 5_000);
const DIRS = 100;
const SIZE = Math.floor((50 * 1024 * 1024) / FILES);
const LIMITS = { maxFileBytes: 64 * 1024 * 1024, maxEntries: 1_000_000 };

function body(d: number, f: number, version: number): string {
  const line = `// dir ${d} file ${f} v${version} ${'x'.repeat(40)}\n`;
  return line.repeat(Math.ceil(SIZE / line.length)).slice(0, SIZE);
}

async function timed<T>(fn: () => Promise<T>): Promise<[T, number]> {
  const t0 = performance.now();
  const v = await fn();
  return [v, performance.now() - t0];
}

const base = await fs.mkdtemp(path.join(os.tmpdir(), 'norma-bench-ckpt-'));
try {
  const ws = path.join(base, 'ws');
  await fs.mkdir(ws);
  for (let d = 0; d < DIRS; d++) {
    await fs.mkdir(path.join(ws, `d${d}`));
    for (let f = 0; f < FILES / DIRS; f++) await fs.writeFile(path.join(ws, `d${d}`, `f${f}.ts`), body(d, f, 0));
  }
  const objects = await ObjectStore.open(path.join(base, 'objects'));
  await fs.mkdir(path.join(base, 'barrier'));
  const tracker = new DirtyTracker(path.join(base, 'barrier'));
  const cache = new ScanCache();
  let last: Scan | undefined;
  const incremental = async (): Promise<[Scan, number, number]> => {
    const [r, ms] = await timed(async () => {
      await tracker.settle();
      const { inc, finish } = tracker.begin(last);
      const scan = await scanTree(ws, objects, cache, LIMITS, inc);
      return [scan, finish()] as const;
    });
    last = r[0];
    return [r[0], r[1], ms];
  };
  console.log(`checkpoints bench: ${FILES} files, ${((FILES * SIZE) / 1024 / 1024).toFixed(0)} MB in ${DIRS} directories, ${os.cpus().length} CPUs, node ${process.version}`);
  const [firstScan, , firstMs] = await incremental();
  await objects.flush();
  console.log(`  first walk (every file read and stored)        ${firstMs.toFixed(0)} ms, ${firstScan.entries.length} entries, ${firstScan.notCaptured.length} not captured, packs ${((await objects.bytesOnDisk()) / 1024 / 1024).toFixed(1)} MB`);
  const [, wholeMs] = await timed(() => scanTree(ws, objects, cache, LIMITS));
  console.log(`  whole walk, nothing changed (baseline)         ${wholeMs.toFixed(1)} ms`);
  const [, idleWalked, idleMs] = await incremental();
  console.log(`  incremental, nothing changed                   ${idleMs.toFixed(1)} ms (${idleWalked} directories read)   ${(idleMs / wholeMs).toFixed(3)}× the whole walk`);
  const before = last!;
  await fs.writeFile(path.join(ws, 'd42/f7.ts'), body(42, 7, 1));
  const [, oneWalked, oneMs] = await incremental();
  console.log(`  incremental, one file changed                  ${oneMs.toFixed(1)} ms (${oneWalked} directories read)   ${(oneMs / wholeMs).toFixed(3)}× the whole walk`);
  for (let d = 0; d < 10; d++) for (let f = 0; f < 10; f++) await fs.writeFile(path.join(ws, `d${d}`, `f${f}.ts`), body(d, f, 2));
  const [after, manyWalked, manyMs] = await incremental();
  console.log(`  incremental, 100 files in 10 directories       ${manyMs.toFixed(1)} ms (${manyWalked} directories read)   ${(manyMs / wholeMs).toFixed(3)}× the whole walk`);
  const contentOf = (s: string) => objects.get(s);
  const [changes, changesMs] = await timed(() => changesBetween(before.entries, after.entries, contentOf));
  console.log(`  changes of those 101 files                     ${changesMs.toFixed(1)} ms (${changes.length} files)`);
  const [diff, diffMs] = await timed(() => unifiedDiff(before.entries, after.entries, contentOf));
  console.log(`  their unified diff                             ${diffMs.toFixed(1)} ms (${(diff.length / 1024).toFixed(0)} KiB)`);
  const plan = planRestore(before.entries, after.entries);
  const [, restoreMs] = await timed(() => applyRestore(ws, plan, contentOf));
  console.log(`  restoring them                                 ${restoreMs.toFixed(1)} ms (${plan.write.length} files written)`);
  await objects.flush();
  console.log(`  packs after all of it                          ${((await objects.bytesOnDisk()) / 1024 / 1024).toFixed(1)} MB for ${((FILES * SIZE) / 1024 / 1024).toFixed(0)} MB of files`);
  tracker.close();
  await objects.close();
} finally {
  await fs.rm(base, { recursive: true, force: true });
}
