// A session's checkpoints as a whole: a rewind a crash cut off halfway is finished by the next
// open (and said); a damaged journal is reported, never replayed; the disk budget leaves files
// out, says so, and a rewind leaves those paths alone; a torn log line is not a record.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SessionCheckpoints } from '../../src/checkpoints/session.js';
import { readLog } from '../../src/checkpoints/log.js';
import { newId } from '../../src/ids.js';

const dirs: string[] = [];
const open: SessionCheckpoints[] = [];
afterEach(async () => {
  for (const c of open.splice(0)) await c.close().catch(() => undefined);
  for (const d of dirs.splice(0)) await fs.rm(d, { recursive: true, force: true });
});
async function tmp(): Promise<string> {
  const d = await fs.mkdtemp(path.join(os.tmpdir(), 'norma-ckpt-session-'));
  dirs.push(d);
  return d;
}

const LIMITS = { maxFileBytes: 1024 * 1024, maxEntries: 10_000, maxSessionBytes: 64 * 1024 * 1024 };

async function writer(dir: string, root: string, limits = LIMITS) {
  const r = await SessionCheckpoints.openWriter({ dir, root, limits, newId, clock: () => new Date() });
  open.push(r.checkpoints);
  return r;
}

const all = () => true;

describe('session checkpoints', () => {
  it('a rewind cut off halfway (the process died) is finished by the next open, and said', async () => {
    const root = await tmp();
    const dir = path.join(await tmp(), 'ckpt');
    for (let i = 0; i < 6; i++) await fs.writeFile(path.join(root, `f${i}.txt`), `v1 ${i}\n`);
    const { checkpoints: cp } = await writer(dir, root);
    const target = await cp.take({ reason: 'turn_start', turnId: 'turn_a' });
    for (let i = 0; i < 6; i++) await fs.writeFile(path.join(root, `f${i}.txt`), `v2 ${i}\n`);
    await fs.writeFile(path.join(root, 'extra.txt'), 'made later\n');
    await cp.take({ reason: 'turn_end', turnId: 'turn_a' });

    // The process dies while the third file is restored: reading its content never returns.
    let reads = 0;
    const real = cp.content;
    cp.content = async (sha) => {
      if (++reads === 3) throw new Error('killed');
      return real(sha);
    };
    await expect(cp.rewind(target, all, { force: false, by: 'key_1', check: () => undefined })).rejects.toThrow('killed');
    const halfway = await Promise.all([0, 1, 2, 3, 4, 5].map((i) => fs.readFile(path.join(root, `f${i}.txt`), 'utf8')));
    expect(halfway.filter((t) => t.startsWith('v1')).length).toBe(2); // cut off: two of six back
    expect(await fs.stat(path.join(dir, 'rewind.json')).then(() => true)).toBe(true);
    await cp.close();

    const { checkpoints: again, recovered } = await writer(dir, root);
    expect(recovered).toMatchObject({ journal: { to: target.id, by: 'key_1' }, after: { reason: 'after_rewind' } });
    expect(recovered!.error).toBeUndefined();
    for (let i = 0; i < 6; i++) expect(await fs.readFile(path.join(root, `f${i}.txt`), 'utf8')).toBe(`v1 ${i}\n`);
    await expect(fs.stat(path.join(root, 'extra.txt'))).rejects.toThrow();
    await expect(fs.stat(path.join(dir, 'rewind.json'))).rejects.toThrow();
    // The log: the two checkpoints, the one made before the rewind, the one after it finished.
    expect(again.list().map((r) => r.reason)).toEqual(['turn_start', 'turn_end', 'before_rewind', 'after_rewind']);
  });

  it('a damaged journal is reported and removed, never replayed', async () => {
    const root = await tmp();
    const dir = path.join(await tmp(), 'ckpt');
    await fs.writeFile(path.join(root, 'a.txt'), 'a\n');
    const { checkpoints: cp } = await writer(dir, root);
    await cp.take({ reason: 'turn_start', turnId: 't' });
    await cp.close();
    await fs.writeFile(path.join(dir, 'rewind.json'), '{"to": "ckpt_x", "plan": {"write": [');
    const { recovered } = await writer(dir, root);
    expect(recovered?.error).toMatch(/journal is damaged/);
    expect(await fs.readFile(path.join(root, 'a.txt'), 'utf8')).toBe('a\n');
    await expect(fs.stat(path.join(dir, 'rewind.json'))).rejects.toThrow();
  });

  it('over the disk budget: files left out are said, the checkpoint is not complete, and a rewind leaves them alone', async () => {
    const root = await tmp();
    const dir = path.join(await tmp(), 'ckpt');
    await fs.writeFile(path.join(root, 'small.txt'), 'small\n');
    // Random bytes do not compress: 200 KiB cannot fit a 64 KiB budget.
    await fs.writeFile(path.join(root, 'big.bin'), Buffer.from(Array.from({ length: 200 * 1024 }, () => Math.floor(Math.random() * 256))));
    const { checkpoints: cp } = await writer(dir, root, { ...LIMITS, maxSessionBytes: 64 * 1024 });
    const first = await cp.take({ reason: 'turn_start', turnId: 't' });
    expect(first.complete).toBe(false);
    expect(first.not_captured).toBe(1);
    expect(first.warnings[0]).toMatch(/over the session's checkpoint budget/);
    expect((await cp.manifest(first)).notCaptured).toEqual([{ path: 'big.bin', reason: 'over the checkpoint disk budget' }]);
    expect(cp.bytesUsed).toBeLessThanOrEqual(64 * 1024);

    await fs.writeFile(path.join(root, 'small.txt'), 'changed\n');
    await fs.writeFile(path.join(root, 'big.bin'), 'now small\n');
    await cp.take({ reason: 'turn_end', turnId: 't' });
    const { view } = await cp.rewind(first, all, { force: false, by: null, check: () => undefined });
    expect(view.restored).toEqual(['small.txt']);
    expect(view.skipped).toEqual(['big.bin']);
    expect(await fs.readFile(path.join(root, 'small.txt'), 'utf8')).toBe('small\n');
    expect(await fs.readFile(path.join(root, 'big.bin'), 'utf8')).toBe('now small\n');
  });

  it('a log line cut short by a crash is not a record; the ones before it are', async () => {
    const root = await tmp();
    const dir = path.join(await tmp(), 'ckpt');
    await fs.writeFile(path.join(root, 'a.txt'), 'a\n');
    const { checkpoints: cp } = await writer(dir, root);
    const a = await cp.take({ reason: 'turn_start', turnId: 't' });
    const b = await cp.take({ reason: 'turn_end', turnId: 't' });
    await cp.close();
    await fs.appendFile(path.join(dir, 'log.jsonl'), '{"id":"ckpt_torn","manifest":"ab');
    expect((await readLog(dir)).map((r) => r.id)).toEqual([a.id, b.id]);
    const { checkpoints: again } = await writer(dir, root);
    const c = await again.take({ reason: 'turn_start', turnId: 'u' });
    // The next record starts a line of its own, after the torn one.
    expect((await readLog(dir)).map((r) => r.id)).toEqual([a.id, b.id, c.id]);
    expect(c.seq).toBe(3);
  });

  it('nothing changed since the last checkpoint: the next one is the same manifest, made without a walk', async () => {
    const root = await tmp();
    const dir = path.join(await tmp(), 'ckpt');
    await fs.mkdir(path.join(root, 'd'));
    await fs.writeFile(path.join(root, 'd/a.txt'), 'a\n');
    const { checkpoints: cp } = await writer(dir, root);
    const a = await cp.take({ reason: 'turn_start', turnId: 't' });
    const b = await cp.take({ reason: 'before_call', turnId: 't', toolUseId: 'x' });
    expect(b.manifest).toBe(a.manifest);
    expect(b.added_bytes).toBe(0);
    await fs.writeFile(path.join(root, 'd/a.txt'), 'b\n');
    const c = await cp.take({ reason: 'after_call', turnId: 't', toolUseId: 'x' });
    expect(c.manifest).not.toBe(a.manifest);
    expect(await cp.changes((await cp.manifest(b)).entries, (await cp.manifest(c)).entries)).toMatchObject([{ path: 'd/a.txt', status: 'modified', additions: 1, deletions: 1 }]);
  });
});
