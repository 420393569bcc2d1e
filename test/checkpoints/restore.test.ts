// Putting a workspace back: the whole tree or some paths; files, bits, links, directories (empty
// ones too), a directory where a file was and the other way round; again after a crash halfway;
// and never outside the workspace when a directory on the way was swapped for a link out.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ObjectStore } from '../../src/checkpoints/objects.js';
import { applyRestore, planRestore } from '../../src/checkpoints/restore.js';
import { ScanCache, scanTree } from '../../src/checkpoints/scan.js';

const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await fs.rm(d, { recursive: true, force: true });
});
async function tmp(): Promise<string> {
  const d = await fs.mkdtemp(path.join(os.tmpdir(), 'norma-restore-'));
  dirs.push(d);
  return d;
}
const LIMITS = { maxFileBytes: 1024 * 1024, maxEntries: 10_000 };

async function setup(): Promise<{ ws: string; objects: ObjectStore; scan: () => ReturnType<typeof scanTree> }> {
  const ws = await tmp();
  const objects = await ObjectStore.open(await tmp());
  const cache = new ScanCache();
  return { ws, objects, scan: () => scanTree(ws, objects, cache, LIMITS) };
}

async function mess(ws: string): Promise<void> {
  await fs.writeFile(path.join(ws, 'a.txt'), 'changed\n');
  await fs.rm(path.join(ws, 'src'), { recursive: true });
  await fs.writeFile(path.join(ws, 'src'), 'a file where a directory was\n');
  await fs.rm(path.join(ws, 'was-file'));
  await fs.mkdir(path.join(ws, 'was-file'));
  await fs.writeFile(path.join(ws, 'was-file/inner.txt'), 'x');
  await fs.writeFile(path.join(ws, 'new.txt'), 'new\n');
  await fs.chmod(path.join(ws, 'run.sh'), 0o644);
  await fs.rm(path.join(ws, 'ln'));
  await fs.symlink('/etc/passwd', path.join(ws, 'ln'));
  await fs.rm(path.join(ws, 'empty'), { recursive: true });
}

describe('restoring a workspace', () => {
  it('puts the whole tree back as it was: contents, bits, links, directories; a plan that is already true does nothing', async () => {
    const { ws, objects, scan } = await setup();
    await fs.mkdir(path.join(ws, 'src/deep'), { recursive: true });
    await fs.mkdir(path.join(ws, 'empty'));
    await fs.writeFile(path.join(ws, 'a.txt'), 'alpha\n');
    await fs.writeFile(path.join(ws, 'src/deep/b.bin'), Buffer.from([0, 1, 2]));
    await fs.writeFile(path.join(ws, 'run.sh'), '#!/bin/sh\n', { mode: 0o755 });
    await fs.writeFile(path.join(ws, 'was-file'), 'I was a file\n');
    await fs.symlink('a.txt', path.join(ws, 'ln'));
    const before = await scan();
    await mess(ws);
    const plan = planRestore(before.entries, (await scan()).entries);
    expect(plan.write.map((e) => e.path)).toEqual(['a.txt', 'ln', 'run.sh', 'src/deep/b.bin', 'was-file']);
    expect(plan.remove).toEqual(['was-file/inner.txt', 'new.txt', 'src']);
    expect(plan.rmdir).toEqual(['was-file']);
    expect(plan.mkdir.map((d) => d.path)).toEqual(['empty', 'src', 'src/deep']);
    await applyRestore(ws, plan, (s) => objects.get(s));
    const after = await scan();
    expect(after.entries).toEqual(before.entries);
    expect(await fs.readlink(path.join(ws, 'ln'))).toBe('a.txt');
    expect((await fs.stat(path.join(ws, 'run.sh'))).mode & 0o777).toBe(0o755);
    expect(planRestore(before.entries, after.entries)).toEqual({ write: [], remove: [], mkdir: [], rmdir: [] });
    expect((await fs.readdir(ws)).some((n) => n.endsWith('.rewind'))).toBe(false);
    await objects.close();
  });

  it('only the paths asked for: the rest stays as it is now', async () => {
    const { ws, objects, scan } = await setup();
    await fs.writeFile(path.join(ws, 'a.txt'), 'alpha\n');
    await fs.writeFile(path.join(ws, 'b.txt'), 'beta\n');
    const before = await scan();
    await fs.writeFile(path.join(ws, 'a.txt'), 'A\n');
    await fs.writeFile(path.join(ws, 'b.txt'), 'B\n');
    await fs.writeFile(path.join(ws, 'c.txt'), 'C\n');
    await applyRestore(ws, planRestore(before.entries, (await scan()).entries, (p) => p === 'a.txt' || p === 'c.txt'), (s) => objects.get(s));
    expect(await fs.readFile(path.join(ws, 'a.txt'), 'utf8')).toBe('alpha\n');
    expect(await fs.readFile(path.join(ws, 'b.txt'), 'utf8')).toBe('B\n');
    await expect(fs.access(path.join(ws, 'c.txt'))).rejects.toThrow();
    await objects.close();
  });

  it('applied again after a crash halfway, the plan converges on the same tree', async () => {
    const { ws, objects, scan } = await setup();
    for (let i = 0; i < 20; i++) await fs.writeFile(path.join(ws, `f${i}.txt`), `v1 ${i}\n`);
    const before = await scan();
    for (let i = 0; i < 20; i++) await fs.writeFile(path.join(ws, `f${i}.txt`), `v2 ${i}\n`);
    const plan = planRestore(before.entries, (await scan()).entries);
    // The crash: content stops coming after 7 files.
    let served = 0;
    await expect(
      applyRestore(ws, plan, async (s) => {
        if (++served > 7) throw new Error('crashed');
        return objects.get(s);
      }),
    ).rejects.toThrow('crashed');
    const half = await scan();
    expect(half.entries.filter((e) => e.kind === 'file' && before.entries.some((b) => b.path === e.path && b.kind === 'file' && b.sha256 === e.sha256))).toHaveLength(7);
    await applyRestore(ws, plan, (s) => objects.get(s));
    expect((await scan()).entries).toEqual(before.entries);
    await objects.close();
  });

  it('writes nothing outside when a directory on the way was swapped for a link out of the workspace', async () => {
    const { ws, objects, scan } = await setup();
    const outside = await tmp();
    await fs.mkdir(path.join(ws, 'sub'));
    await fs.writeFile(path.join(ws, 'sub/target.txt'), 'mine\n');
    const before = await scan();
    await fs.rm(path.join(ws, 'sub'), { recursive: true });
    await fs.symlink(outside, path.join(ws, 'sub'));
    // The plan was made while sub was a directory (the swap comes between plan and apply).
    const plan = planRestore(before.entries, before.entries.filter((e) => e.path !== 'sub/target.txt'));
    await expect(applyRestore(ws, plan, (s) => objects.get(s))).rejects.toThrow();
    expect(await fs.readdir(outside)).toEqual([]);
    await objects.close();
  });
});
