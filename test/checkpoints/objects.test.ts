// The checkpoint object store: content-defined chunks, each stored once, whole or not at all,
// checked when read.
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { chunks, MAX_CHUNK, MIN_CHUNK } from '../../src/checkpoints/chunker.js';
import { ObjectStore } from '../../src/checkpoints/objects.js';

const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await fs.rm(d, { recursive: true, force: true });
});
async function store(): Promise<ObjectStore> {
  const d = await fs.mkdtemp(path.join(os.tmpdir(), 'norma-objects-'));
  dirs.push(d);
  return ObjectStore.open(d);
}

/** Deterministic pseudo-random bytes. */
function noise(n: number, seed = 1): Buffer {
  const b = Buffer.alloc(n);
  let x = seed >>> 0;
  for (let i = 0; i < n; i++) {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
    b[i] = x >>> 24;
  }
  return b;
}

/** A text file of `lines` lines that do not repeat, as source code or logs are. */
function text(lines: number): string[] {
  return Array.from({ length: lines }, (_, i) => `line ${i}: ${createHash('sha256').update(String(i)).digest('hex').slice(0, 40)}`);
}

async function diskBytes(dir: string): Promise<number> {
  let n = 0;
  for (const e of await fs.readdir(dir, { withFileTypes: true, recursive: true })) {
    if (e.isFile()) n += (await fs.stat(path.join(e.parentPath, e.name))).size;
  }
  return n;
}

describe('content-defined chunks', () => {
  it('cover the content exactly, within the size bounds, the same on every call', () => {
    const buf = noise(3 * 1024 * 1024);
    const cs = chunks(buf);
    let at = 0;
    for (const [i, c] of cs.entries()) {
      expect(c.offset).toBe(at);
      if (i < cs.length - 1) expect(c.length).toBeGreaterThanOrEqual(MIN_CHUNK);
      expect(c.length).toBeLessThanOrEqual(MAX_CHUNK);
      at += c.length;
    }
    expect(at).toBe(buf.length);
    expect(chunks(buf)).toEqual(cs);
    const mean = buf.length / cs.length;
    expect(mean).toBeGreaterThan(2 * 1024);
    expect(mean).toBeLessThan(12 * 1024);
    expect(chunks(Buffer.alloc(0))).toEqual([]);
    expect(chunks(Buffer.from('x'))).toHaveLength(1);
  });

  it('an insertion near the start changes the chunks around it only, not every one after it', () => {
    const buf = noise(1024 * 1024, 7);
    const edited = Buffer.concat([buf.subarray(0, 1000), Buffer.from('inserted bytes'), buf.subarray(1000)]);
    const before = new Set(chunks(buf).map((c) => c.sha256));
    const after = chunks(edited);
    const fresh = after.filter((c) => !before.has(c.sha256));
    expect(fresh.length).toBeLessThanOrEqual(2);
    expect(after.length).toBeGreaterThan(80);
  });

  it('a run of one byte (no content to cut on) is cut at the maximum size', () => {
    const cs = chunks(Buffer.alloc(150 * 1024, 0x61));
    expect(cs.slice(0, -1).every((c) => c.length === MAX_CHUNK)).toBe(true);
    expect(new Set(cs.slice(0, -1).map((c) => c.sha256)).size).toBe(1);
  });
});

describe('the object store', () => {
  it('gives back what it was given, stores the same content once, and an empty file too', async () => {
    const s = await store();
    const content = noise(200 * 1024, 3);
    const first = await s.put(content);
    expect(first.sha256).toBe(createHash('sha256').update(content).digest('hex'));
    expect(first.added).toBeGreaterThan(0);
    expect((await s.put(content)).added).toBe(0);
    expect((await s.get(first.sha256)).equals(content)).toBe(true);
    expect(await s.has(first.sha256)).toBe(true);
    const empty = await s.put(Buffer.alloc(0));
    expect((await s.get(empty.sha256)).length).toBe(0);
  });

  it('200 one-line edits of a 1 MB text file cost less than 2 MB on disk', async () => {
    const s = await store();
    const lines = text(20_000);
    const initial = Buffer.from(lines.join('\n'));
    expect(initial.length).toBeGreaterThan(1024 * 1024);
    await s.put(initial);
    let x = 12345;
    for (let i = 0; i < 200; i++) {
      x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
      const at = x % lines.length;
      lines[at] = `${lines[at]} // edit ${i}`;
      await s.put(Buffer.from(lines.join('\n')));
    }
    await s.flush();
    const used = await diskBytes(s.dir);
    expect(used).toBe(await s.bytesOnDisk());
    expect(used).toBeLessThan(2 * 1024 * 1024);
    console.log(`200 one-line edits of a ${(initial.length / 1024 / 1024).toFixed(2)} MB file: ${(used / 1024 / 1024).toFixed(2)} MB on disk`);
    expect((await s.get(createHash('sha256').update(lines.join('\n')).digest('hex'))).toString()).toBe(lines.join('\n'));
  });

  it('leaves out a damaged object and keeps the others; refuses a missing one and a name that is not one', async () => {
    const s = await store();
    const damaged = await s.put(noise(50 * 1024, 9));
    const intact = await s.put(noise(50 * 1024, 10));
    await s.close();
    const pack = path.join(s.dir, 'packs', '000001.pack');
    const bytes = await fs.readFile(pack);
    // A byte of the first chunk's body flipped in place: its digest no longer matches.
    bytes[200] = bytes[200]! ^ 0xff;
    await fs.writeFile(pack, bytes);
    const reopened = await ObjectStore.open(s.dir);
    await expect(reopened.get(damaged.sha256)).rejects.toThrow(/missing/);
    expect((await reopened.get(intact.sha256)).equals(noise(50 * 1024, 10))).toBe(true);
    expect((await fs.stat(pack)).size).toBe(bytes.length);
    await expect(reopened.get('0'.repeat(64))).rejects.toThrow(/missing/);
    await expect(reopened.get('../../etc/passwd')).rejects.toThrow('not an object name');
    // Put again, the damaged content is whole again (its chunk stored anew).
    await reopened.put(noise(50 * 1024, 9));
    expect((await reopened.get(damaged.sha256)).equals(noise(50 * 1024, 9))).toBe(true);
    await reopened.close();
  });

  it('a header that makes no sense mid-pack stops the scan without removing anything; new objects go to a new pack', async () => {
    const s = await store();
    const first = await s.put(noise(10 * 1024, 21));
    await s.close();
    const pack = path.join(s.dir, 'packs', '000001.pack');
    const size = (await fs.stat(pack)).size;
    await fs.appendFile(pack, Buffer.alloc(500, 0x5a));
    const reopened = await ObjectStore.open(s.dir);
    expect((await reopened.get(first.sha256)).equals(noise(10 * 1024, 21))).toBe(true);
    const second = await reopened.put(noise(10 * 1024, 22));
    await reopened.close();
    expect((await fs.stat(pack)).size).toBe(size + 500);
    expect(await fs.readdir(path.join(s.dir, 'packs'))).toEqual(['000001.pack', '000002.pack']);
    const third = await ObjectStore.open(s.dir);
    expect((await third.get(second.sha256)).equals(noise(10 * 1024, 22))).toBe(true);
    await third.close();
  });

  it('after a crash that cut the last record short, what was flushed is intact and the store goes on', async () => {
    const s = await store();
    const kept = await s.put(noise(40 * 1024, 11));
    await s.flush();
    const size = (await fs.stat(path.join(s.dir, 'packs', '000001.pack'))).size;
    const lost = await s.put(noise(40 * 1024, 12));
    await s.close();
    // The second put's records were written only in part.
    await fs.truncate(path.join(s.dir, 'packs', '000001.pack'), size + 1000);
    const again = await ObjectStore.open(s.dir);
    expect((await fs.stat(path.join(s.dir, 'packs', '000001.pack'))).size).toBeLessThanOrEqual(size + 1000);
    expect((await again.get(kept.sha256)).equals(noise(40 * 1024, 11))).toBe(true);
    expect(again.has(lost.sha256)).toBe(false);
    // Put again, it is whole.
    await again.put(noise(40 * 1024, 12));
    await again.close();
    const third = await ObjectStore.open(s.dir);
    expect((await third.get(lost.sha256)).equals(noise(40 * 1024, 12))).toBe(true);
    await third.close();
  });

  it('serves what it stored lately from memory, and only names its own index holds', async () => {
    const s = await store();
    const small = await s.put(noise(200 * 1024, 31));
    const large = await s.put(noise(300 * 1024, 32));
    await s.flush();
    // The packs moved away: a small content just stored is still read; a large one is not kept.
    await fs.rename(path.join(s.dir, 'packs'), path.join(s.dir, 'moved'));
    expect((await s.get(small.sha256)).equals(noise(200 * 1024, 31))).toBe(true);
    await expect(s.get(large.sha256)).rejects.toThrow();
    // Another store never answers for a content it does not hold, though the process has it.
    const other = await store();
    await expect(other.get(small.sha256)).rejects.toThrow(/missing/);
    await fs.rename(path.join(s.dir, 'moved'), path.join(s.dir, 'packs'));
    await s.close();
    await other.close();
  });

  it('a write the disk refuses is taken back whole: the pack as it was, the records out of the index, later puts land right', async () => {
    const s = await store();
    const a = await s.put(noise(300 * 1024, 41));
    await s.flush();
    const pack = path.join(s.dir, 'packs', '000001.pack');
    const sizeA = (await fs.stat(pack)).size;
    const b = await s.put(noise(300 * 1024, 42));
    expect(s.has(b.sha256)).toBe(true); // appended, not written yet
    const handle = (s as unknown as { handle: { writev: (...a: unknown[]) => Promise<unknown> } }).handle;
    const writev = handle.writev.bind(handle);
    handle.writev = async (buffers: unknown) => {
      // Half of it lands, then the disk is full.
      await writev([(buffers as Buffer[])[0]!.subarray(0, 100)]);
      throw Object.assign(new Error('no space left on device'), { code: 'ENOSPC' });
    };
    await expect(s.flush()).rejects.toThrow('no space left');
    handle.writev = writev;
    expect((await fs.stat(pack)).size).toBe(sizeA);
    expect(s.has(b.sha256)).toBe(false);
    expect((await s.get(a.sha256)).equals(noise(300 * 1024, 41))).toBe(true);
    // Put again, it is stored whole; a store opened afresh reads both from its pack (each is
    // larger than what the process keeps in memory).
    expect((await s.put(noise(300 * 1024, 42))).added).toBeGreaterThan(300 * 1024);
    await s.close();
    const again = await ObjectStore.open(s.dir);
    expect((await again.get(a.sha256)).equals(noise(300 * 1024, 41))).toBe(true);
    expect((await again.get(b.sha256)).equals(noise(300 * 1024, 42))).toBe(true);
    await again.close();
  });
});

