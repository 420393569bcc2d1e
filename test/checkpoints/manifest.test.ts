// A checkpoint's manifest stored as a delta of the last full one: what it reads back is exactly
// the state recorded, over drawn changes (files changed, added and removed, a directory replaced
// by a file, names around the `/` that decides walk order); a delta past its bound, or of a
// small tree, is a full manifest; a delta never stands as another delta's base.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { walkOrder } from '../../src/checkpoints/changes.js';
import { applyDelta, deltaJson, fullJson, isDelta, parseManifest } from '../../src/checkpoints/manifest.js';
import { CheckpointReader, SessionCheckpoints } from '../../src/checkpoints/session.js';
import type { Entry } from '../../src/checkpoints/scan.js';
import { ObjectStore } from '../../src/checkpoints/objects.js';
import { ScanCache, scanTree } from '../../src/checkpoints/scan.js';
import { newId } from '../../src/ids.js';

const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await fs.rm(d, { recursive: true, force: true });
});
async function tmp(): Promise<string> {
  const d = await fs.mkdtemp(path.join(os.tmpdir(), 'norma-manifest-'));
  dirs.push(d);
  return d;
}

let seed = 11;
const draw = (n: number) => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % n;
const file = (p: string, v: number): Entry => ({ kind: 'file', path: p, mode: 0o644, size: v, sha256: v.toString(16).padStart(64, '0') });
const sorted = (es: Entry[]) => es.sort((a, b) => walkOrder(a.path, b.path));

describe('manifest deltas', () => {
  it('apply to their base to give back the entries recorded, over drawn changes', () => {
    const names = ['a', 'a.txt', 'a-b', 'a0', 'b', 'z'];
    const base = sorted(Array.from({ length: 700 }, (_, i) => file(`d${i % 7}/${names[i % names.length]}${Math.floor(i / 7)}`, i)));
    const dirs7 = Array.from({ length: 7 }, (_, d): Entry => ({ kind: 'dir', path: `d${d}`, mode: 0o755 }));
    const start = sorted([...dirs7, ...base]);
    const stored = parseManifest(Buffer.from(fullJson({ entries: start, notCaptured: [] })));
    expect(isDelta(stored)).toBe(false);
    for (let round = 0; round < 30; round++) {
      const byPath = new Map(start.map((e) => [e.path, e]));
      for (let k = 0; k < 1 + draw(40); k++) {
        const p = `d${draw(8)}/${names[draw(names.length)]}${draw(120)}`;
        const op = draw(4);
        if (op === 0) byPath.delete(p);
        else if (op === 3) {
          // A directory where a file was, with a file below it.
          byPath.set(p, { kind: 'dir', path: p, mode: 0o700 });
          byPath.set(`${p}/x`, file(`${p}/x`, 9_000 + k));
        } else byPath.set(p, file(p, 10_000 * (round + 1) + k));
        if (!byPath.has(p.slice(0, p.indexOf('/')))) byPath.set(p.slice(0, p.indexOf('/')), { kind: 'dir', path: p.slice(0, p.indexOf('/')), mode: 0o755 });
      }
      const after = sorted([...byPath.values()]);
      const notCaptured = round % 3 ? [] : [{ path: 'fifo', reason: 'a FIFO (never captured)' }];
      const json = deltaJson('f'.repeat(64), start, { entries: after, notCaptured });
      expect(json).not.toBeNull();
      const delta = parseManifest(Buffer.from(json!));
      expect(isDelta(delta)).toBe(true);
      if (!isDelta(delta) || isDelta(stored)) return;
      expect(delta.set.length + delta.gone.length).toBeLessThan(after.length / 4);
      expect(applyDelta(stored, delta)).toEqual({ entries: after, notCaptured });
    }
  });

  it('are not made for a small tree, past their bound, or of lists out of walk order', () => {
    const small = sorted(Array.from({ length: 100 }, (_, i) => file(`f${i}`, i)));
    expect(deltaJson('0'.repeat(64), small, { entries: small, notCaptured: [] })).toBeNull();
    const big = sorted(Array.from({ length: 4_000 }, (_, i) => file(`f${i}`, i)));
    const changed = big.map((e, i) => (i < 501 ? file(e.path, 50_000 + i) : e));
    expect(deltaJson('0'.repeat(64), big, { entries: changed, notCaptured: [] })).toBeNull(); // 501 > 4000/8
    expect(deltaJson('0'.repeat(64), big, { entries: changed.slice(0, 3_990).concat(changed.slice(0, 10)), notCaptured: [] })).toBeNull();
    expect(deltaJson('0'.repeat(64), big, { entries: big.slice(1), notCaptured: [] })).toContain('"gone":["f0"]');
    // Two entries swapped (no walk lists them so): no delta, however small it would be.
    const swapped = [...big];
    [swapped[10], swapped[11]] = [file(big[11]!.path, 1), file(big[10]!.path, 2)];
    expect(deltaJson('0'.repeat(64), big, { entries: swapped, notCaptured: [] })).toBeNull();
  });

  it('through a session: a reader from disk sees each checkpoint as a whole walk saw it, and a delta is small', async () => {
    const root = await tmp();
    const dir = path.join(await tmp(), 'ckpt');
    for (let d = 0; d < 6; d++) {
      await fs.mkdir(path.join(root, `d${d}`));
      for (let f = 0; f < 100; f++) await fs.writeFile(path.join(root, `d${d}`, `f${f}.txt`), `${d} ${f}\n`);
    }
    const { checkpoints: cp } = await SessionCheckpoints.openWriter({ dir, root, limits: { maxFileBytes: 1 << 20, maxEntries: 10_000, maxSessionBytes: 1 << 30 }, newId, clock: () => new Date() });
    const check = await ObjectStore.open(await tmp());
    const checkCache = new ScanCache();
    const expected: Entry[][] = [];
    const records = [];
    try {
      const first = await cp.take({ reason: 'turn_start', turnId: 't0' });
      records.push(first);
      expected.push((await scanTree(root, check, checkCache, { maxFileBytes: 1 << 20, maxEntries: 10_000 })).entries);
      for (let round = 0; round < 12; round++) {
        for (let k = 0; k < 4; k++) {
          const p = path.join(root, [`d0`, `d1`, `d2`, `d3`, `d4`, `d6`][draw(6)]!, `f${draw(110)}.txt`);
          const op = draw(3);
          if (op === 0) await fs.rm(p, { force: true });
          else await fs.mkdir(path.dirname(p), { recursive: true }).then(() => fs.writeFile(p, `round ${round} ${k}\n`));
        }
        if (round === 6) {
          await fs.rm(path.join(root, 'd5'), { recursive: true });
          await fs.writeFile(path.join(root, 'd5'), 'a file where a directory was\n');
        }
        records.push(await cp.take({ reason: 'turn_end', turnId: `t${round}` }));
        expected.push((await scanTree(root, check, checkCache, { maxFileBytes: 1 << 20, maxEntries: 10_000 })).entries);
      }
      // The first is the full base (~600 entries); the others are deltas of it, each far smaller.
      expect(first.added_bytes).toBeGreaterThan(10_000);
      for (const r of records.slice(1, 6)) expect(r.added_bytes).toBeLessThan(3_000);
    } finally {
      await cp.close();
      await check.close();
    }
    const reader = (await CheckpointReader.open(dir))!;
    try {
      for (const [i, r] of records.entries()) expect((await reader.manifest(r)).entries).toEqual(expected[i]);
    } finally {
      await reader.close();
    }
  });
});
