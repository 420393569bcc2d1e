// Sealed spill files (src/evidence/sealed-file.ts): round trips at chunk boundaries, random ranges
// against the plaintext, the format pinned by decrypting by hand, and every way of changing a
// sealed file (a byte, the header, a chunk removed, swapped or appended, another key or place)
// failing authentication without giving out the changed chunk's bytes.
import { seededRandom } from '../helpers/schema-fuzz.js';
import { describe, it, expect, beforeEach, afterEach } from 'vitest';
import fs, { type FileHandle } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createDecipheriv, createHash } from 'node:crypto';
import {
  SEALED_MAGIC,
  SealedFileError,
  SealedWriter,
  isSealedFile,
  readSealedHeader,
  type SealedHeader,
} from '../../src/evidence/sealed-file.js';
import { readSealed, sealedRangeStream } from '../../src/evidence/sealed-read.js';

const KEY = Buffer.alloc(32, 7);
const OTHER_KEY = Buffer.alloc(32, 8);
const KEY_ID = 'dk_2024-01';
const CONTEXT = 'spill:sess_1/out_1';
const SMALL = 64;
const TAG = 16;
const DEFAULT_CHUNK = 65536;

const prng = seededRandom;

function bytes(n: number, seed: number): Buffer {
  const rand = prng(seed);
  const out = Buffer.alloc(n);
  for (let i = 0; i < n; i++) out[i] = Math.floor(rand() * 256);
  return out;
}

let dir: string;
let counter = 0;

beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'sealed-file-'));
});

afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

/** Seals `plain` to a new file, feeding the writer pieces of pseudo-random sizes. */
async function seal(plain: Buffer, opts: { chunkSize?: number; context?: string; seed?: number } = {}): Promise<string> {
  const file = path.join(dir, `sealed-${counter++}`);
  const handle = await fs.open(file, 'w');
  try {
    const writer = new SealedWriter(handle, KEY, KEY_ID, opts.context ?? CONTEXT, opts.chunkSize);
    const rand = prng(opts.seed ?? 1);
    // One reused buffer, overwritten after each write settles: the writer must have copied it.
    const scratch = Buffer.alloc(3 * (opts.chunkSize ?? DEFAULT_CHUNK) + 7);
    let offset = 0;
    while (offset < plain.length) {
      const n = Math.min(plain.length - offset, 1 + Math.floor(rand() * scratch.length));
      plain.copy(scratch, 0, offset, offset + n);
      await writer.write(scratch.subarray(0, n));
      scratch.fill(0xee);
      offset += n;
    }
    await writer.finish();
  } finally {
    await handle.close();
  }
  return file;
}

async function withHandle<T>(file: string, fn: (handle: FileHandle) => Promise<T>): Promise<T> {
  const handle = await fs.open(file, 'r');
  try {
    return await fn(handle);
  } finally {
    await handle.close();
  }
}

const header = (file: string): Promise<SealedHeader> => withHandle(file, readSealedHeader);

async function readAll(file: string, key = KEY, context = CONTEXT): Promise<Buffer> {
  const parts: Buffer[] = [];
  await withHandle(file, async (h) => readSealed(h, await readSealedHeader(h), key, context, (p) => parts.push(Buffer.from(p))));
  return Buffer.concat(parts);
}

/** Reads start..end through the range stream; returns what was emitted and the error, if any. */
async function readRange(file: string, start: number, end: number, key = KEY, context = CONTEXT): Promise<{ data: Buffer; error: unknown }> {
  const handle = await fs.open(file, 'r');
  let h: SealedHeader;
  try {
    h = await readSealedHeader(handle);
  } catch (e) {
    await handle.close();
    return { data: Buffer.alloc(0), error: e };
  }
  const stream = sealedRangeStream(handle, h, key, context, start, end);
  const parts: Buffer[] = [];
  const error = await new Promise<unknown>((resolve) => {
    stream.on('data', (p: Buffer) => parts.push(Buffer.from(p)));
    stream.on('error', resolve);
    stream.on('close', () => resolve(null));
  });
  // The stream closes its handle whether it ended or failed.
  expect(handle.fd).toBe(-1);
  return { data: Buffer.concat(parts), error };
}

async function expectSealedError(p: Promise<unknown>, pattern: RegExp = /./): Promise<void> {
  const error = await p.then(() => null, (e: unknown) => e);
  expect(error).toBeInstanceOf(SealedFileError);
  expect((error as Error).message).toMatch(pattern);
}

/** Whole-file and range reads both fail with SealedFileError. */
async function expectUnreadable(file: string, key = KEY, context = CONTEXT, pattern?: RegExp): Promise<void> {
  await expectSealedError(readAll(file, key, context), pattern);
  const h = await header(file).catch(() => null);
  const { error } = await readRange(file, 0, Math.max(0, (h?.plainSize ?? 1) - 1), key, context);
  await expectSealedError(Promise.reject(error), pattern);
}

const AUTH = /failed authentication \(changed, truncated, reordered, or sealed for another place or key\)/;

const headerLength = (): number => 8 + 4 + 1 + KEY_ID.length + 8;

describe('sealed file: round trip', () => {
  for (const size of [0, 1, SMALL - 1, SMALL, SMALL + 1, 3 * SMALL + 5]) {
    it(`seals and reads back ${size} bytes with ${SMALL}-byte chunks, in whole and in ranges`, async () => {
      const plain = bytes(size, size + 11);
      const file = await seal(plain, { chunkSize: SMALL, seed: size });
      const h = await header(file);
      expect(h.plainSize).toBe(size);
      expect(h.chunkSize).toBe(SMALL);
      expect(h.keyId).toBe(KEY_ID);
      expect(h.headerLength).toBe(headerLength());
      const chunks = Math.max(1, Math.ceil(size / SMALL));
      expect((await fs.stat(file)).size).toBe(headerLength() + size + chunks * TAG);
      expect((await readAll(file)).equals(plain)).toBe(true);
      if (size === 0) {
        const { data, error } = await readRange(file, 0, -1);
        expect(error).toBeNull();
        expect(data.length).toBe(0);
        return;
      }
      const rand = prng(size * 31 + 5);
      for (let i = 0; i < 60; i++) {
        const a = Math.floor(rand() * size);
        const b = Math.floor(rand() * size);
        const [start, end] = a <= b ? [a, b] : [b, a];
        const { data, error } = await readRange(file, start, end);
        expect(error).toBeNull();
        expect(data.equals(plain.subarray(start, end + 1))).toBe(true);
      }
      // A range end past the plaintext is clamped to it.
      const { data } = await readRange(file, 0, size + 1000);
      expect(data.equals(plain)).toBe(true);
    });
  }

  it('seals ~200 KB with the default chunk size and serves random ranges', async () => {
    const plain = bytes(200_000, 42);
    const file = await seal(plain);
    const h = await header(file);
    expect(h.chunkSize).toBe(DEFAULT_CHUNK);
    expect(h.plainSize).toBe(200_000);
    expect((await fs.stat(file)).size).toBe(headerLength() + 200_000 + 4 * TAG);
    const hashed = createHash('sha256');
    const handle = await fs.open(file, 'r');
    try {
      await readSealed(handle, h, KEY, CONTEXT, (p) => hashed.update(p));
    } finally {
      await handle.close();
    }
    expect(hashed.digest('hex')).toBe(createHash('sha256').update(plain).digest('hex'));
    const rand = prng(99);
    for (let i = 0; i < 40; i++) {
      const start = Math.floor(rand() * 200_000);
      const end = Math.min(199_999, start + Math.floor(rand() * (i % 2 ? 150_000 : 300)));
      const { data, error } = await readRange(file, start, end);
      expect(error).toBeNull();
      expect(data.equals(plain.subarray(start, end + 1))).toBe(true);
    }
  });

  it('keeps the plaintext out of the ciphertext', async () => {
    const marker = 'PLAINTEXT-MARKER-7f3a9c';
    const file = await seal(Buffer.from(`${marker}\n`.repeat(500)), { chunkSize: SMALL });
    const raw = await fs.readFile(file);
    expect(raw.includes(Buffer.from(marker.slice(0, 12)))).toBe(false);
    expect((await readAll(file)).toString()).toBe(`${marker}\n`.repeat(500));
  });

  it('lays the file out as documented (header fields, nonce, AAD)', async () => {
    const plain = bytes(SMALL + 10, 5);
    const file = await seal(plain, { chunkSize: SMALL });
    const raw = await fs.readFile(file);
    const hl = headerLength();
    expect(raw.subarray(0, 8).equals(SEALED_MAGIC)).toBe(true);
    expect(SEALED_MAGIC.toString('ascii')).toBe('NORMASF1');
    expect(raw.readUInt32BE(8)).toBe(SMALL);
    expect(raw[12]).toBe(KEY_ID.length);
    expect(raw.toString('ascii', 13, 13 + KEY_ID.length)).toBe(KEY_ID);
    const head = raw.subarray(0, hl);
    const prefix = raw.subarray(hl - 8, hl);
    const open = (index: number, last: boolean, at: number, plainLength: number): Buffer => {
      const nonce = Buffer.concat([prefix, Buffer.from([0, 0, 0, index])]);
      const d = createDecipheriv('aes-256-gcm', KEY, nonce);
      d.setAAD(Buffer.concat([head, Buffer.from([0, 0, 0, index, last ? 1 : 0]), Buffer.from(CONTEXT, 'utf8')]));
      d.setAuthTag(raw.subarray(at + plainLength, at + plainLength + TAG));
      return Buffer.concat([d.update(raw.subarray(at, at + plainLength)), d.final()]);
    };
    expect(open(0, false, hl, SMALL).equals(plain.subarray(0, SMALL))).toBe(true);
    expect(open(1, true, hl + SMALL + TAG, 10).equals(plain.subarray(SMALL))).toBe(true);
    // Two files of the same plaintext differ: each has its own random nonce prefix.
    const again = await fs.readFile(await seal(plain, { chunkSize: SMALL }));
    expect(again.subarray(hl - 8, hl).equals(prefix)).toBe(false);
  });

  it('refuses a bad key, key id or chunk size when writing', async () => {
    const handle = await fs.open(path.join(dir, 'w'), 'w');
    try {
      expect(() => new SealedWriter(handle, Buffer.alloc(16), KEY_ID, CONTEXT)).toThrow(SealedFileError);
      expect(() => new SealedWriter(handle, KEY, 'bad id!', CONTEXT)).toThrow(SealedFileError);
      expect(() => new SealedWriter(handle, KEY, 'x'.repeat(65), CONTEXT)).toThrow(SealedFileError);
      expect(() => new SealedWriter(handle, KEY, KEY_ID, CONTEXT, 0)).toThrow(SealedFileError);
      expect(() => new SealedWriter(handle, KEY, KEY_ID, CONTEXT, 16 * 1024 * 1024 + 1)).toThrow(SealedFileError);
      const writer = new SealedWriter(handle, KEY, KEY_ID, CONTEXT, SMALL);
      await writer.finish();
      await expectSealedError(writer.write(Buffer.from('late')), /already finished/);
    } finally {
      await handle.close();
    }
  });
});

describe('sealed file: writes that fail', () => {
  /** A handle over a real file whose `failAt`-th write (and every one after) fails with EIO. */
  async function failingHandle(failAt: number): Promise<{ handle: FileHandle; writes: () => number }> {
    const real = await fs.open(path.join(dir, `failing-${counter++}`), 'w');
    let n = 0;
    const handle = new Proxy(real, {
      get(target, prop) {
        if (prop === 'write') {
          return async (...args: unknown[]) => {
            n++;
            if (n >= failAt) throw Object.assign(new Error('EIO: i/o error, write'), { code: 'EIO' });
            return (target.write as (...a: unknown[]) => Promise<unknown>)(...args);
          };
        }
        const v = Reflect.get(target, prop, target) as unknown;
        return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
      },
    });
    return { handle, writes: () => n };
  }

  // Writes run ahead of the caller: a failure must still reach it, at a later write or at finish,
  // and the file must never be reported finished. Every write position fails once.
  // 19 is the last tag: only finish can tell.
  for (const failAt of [1, 2, 3, 6, 11, 19]) {
    it(`a write failing (the ${failAt}. write of the file) fails the file`, async () => {
      const { handle, writes } = await failingHandle(failAt);
      try {
        const writer = new SealedWriter(handle, KEY, KEY_ID, CONTEXT, SMALL);
        const plain = bytes(8 * SMALL + 5, failAt);
        let failed: unknown = null;
        try {
          for (let i = 0; i < plain.length; i += 20) await writer.write(plain.subarray(i, i + 20));
          await writer.finish();
        } catch (err) {
          failed = err;
        }
        expect(writes()).toBeGreaterThanOrEqual(failAt);
        expect(String(failed)).toMatch(/EIO/);
        // Unusable from then on, with the same cause.
        await expect(writer.write(Buffer.from('more'))).rejects.toThrow(/EIO/);
        await expect(writer.finish()).rejects.toThrow(/EIO/);
      } finally {
        await handle.close();
      }
    });
  }
});

describe('sealed file: tampering', () => {
  // Four full 64-byte chunks and a last one of 10 bytes.
  const PLAIN_SIZE = 4 * SMALL + 10;
  const STRIDE = SMALL + TAG;
  let plain: Buffer;
  let file: string;
  let hl: number;

  beforeEach(async () => {
    plain = bytes(PLAIN_SIZE, 77);
    file = await seal(plain, { chunkSize: SMALL });
    hl = headerLength();
  });

  async function mutate(fn: (raw: Buffer) => Buffer): Promise<void> {
    await fs.writeFile(file, fn(await fs.readFile(file)));
  }

  const chunkAt = (i: number): number => hl + i * STRIDE;
  const flip = (at: number, mask: number) => mutate((raw) => ((raw[at]! ^= mask), raw));

  it('a flipped byte in a chunk (ciphertext or tag) fails that chunk', async () => {
    await flip(chunkAt(2) + 5, 0x01);
    await expectUnreadable(file, KEY, CONTEXT, /chunk 2 failed authentication/);
    file = await seal(plain, { chunkSize: SMALL });
    await flip(chunkAt(1) + SMALL + 3, 0x80);
    await expectUnreadable(file, KEY, CONTEXT, /chunk 1 failed authentication/);
  });

  it('any flipped header byte makes the file unreadable', async () => {
    const pristine = await fs.readFile(file);
    for (let i = 0; i < hl; i++) {
      const raw = Buffer.from(pristine);
      raw[i]! ^= 0x01;
      await fs.writeFile(file, raw);
      await expectUnreadable(file);
    }
  });

  it('removing the last chunk (a cut at a chunk boundary) fails', async () => {
    await mutate((raw) => raw.subarray(0, chunkAt(4)));
    expect((await header(file)).plainSize).toBe(4 * SMALL);
    await expectUnreadable(file, KEY, CONTEXT, /chunk 3 failed authentication/);
  });

  it('removing the last chunk of an exact multiple of the chunk size fails', async () => {
    const exact = bytes(3 * SMALL, 8);
    file = await seal(exact, { chunkSize: SMALL });
    await mutate((raw) => raw.subarray(0, chunkAt(2)));
    await expectUnreadable(file, KEY, CONTEXT, /chunk 1 failed authentication/);
  });

  it('a truncated tag fails (authentication, or a malformed size)', async () => {
    await mutate((raw) => raw.subarray(0, raw.length - 5));
    await expectUnreadable(file, KEY, CONTEXT, /chunk 4 failed authentication/);
    // A cut that leaves part of a tag, or less than one tag, is malformed.
    await mutate((raw) => raw.subarray(0, chunkAt(4) + 7));
    await expectSealedError(header(file), /truncated or padded/);
    file = await seal(Buffer.alloc(0), { chunkSize: SMALL });
    await mutate((raw) => raw.subarray(0, raw.length - 3));
    await expectSealedError(header(file), /truncated/);
  });

  it('two chunks swapped fail', async () => {
    await mutate((raw) => {
      const a = Buffer.from(raw.subarray(chunkAt(0), chunkAt(1)));
      raw.copy(raw, chunkAt(0), chunkAt(1), chunkAt(2));
      a.copy(raw, chunkAt(1));
      return raw;
    });
    await expectUnreadable(file, KEY, CONTEXT, /chunk 0 failed authentication/);
  });

  it('another context string fails: a file sealed for one place does not open in another', async () => {
    await expectUnreadable(file, KEY, 'spill:sess_1/out_2', /chunk 0 failed authentication/);
    await expectUnreadable(await seal(plain, { chunkSize: SMALL, context: 'spill:sess_9/out_9' }), KEY, CONTEXT, AUTH);
  });

  it('the wrong key fails', async () => {
    await expectUnreadable(file, OTHER_KEY, CONTEXT, AUTH);
  });

  it('an extra chunk appended fails', async () => {
    await mutate((raw) => Buffer.concat([raw, raw.subarray(chunkAt(0), chunkAt(1))]));
    await expectUnreadable(file, KEY, CONTEXT, AUTH);
    // A bare tag appended after a full last chunk is refused as malformed.
    file = await seal(bytes(2 * SMALL, 4), { chunkSize: SMALL });
    await mutate((raw) => Buffer.concat([raw, raw.subarray(raw.length - TAG)]));
    await expectSealedError(header(file), /empty chunk after full ones/);
  });

  it('a chunk moved in from another file of the same plaintext, key and context fails', async () => {
    const twin = await fs.readFile(await seal(plain, { chunkSize: SMALL }));
    await mutate((raw) => (twin.copy(raw, chunkAt(1), chunkAt(1), chunkAt(2)), raw));
    await expectUnreadable(file, KEY, CONTEXT, /chunk 1 failed authentication/);
  });

  it('a range over intact chunks reads despite a damaged chunk elsewhere; one touching it fails without its bytes', async () => {
    await flip(chunkAt(3) + 1, 0x10);
    const ok = await readRange(file, 10, 2 * SMALL + 20);
    expect(ok.error).toBeNull();
    expect(ok.data.equals(plain.subarray(10, 2 * SMALL + 21))).toBe(true);
    const tail = await readRange(file, 4 * SMALL, PLAIN_SIZE - 1);
    expect(tail.error).toBeNull();
    expect(tail.data.equals(plain.subarray(4 * SMALL))).toBe(true);

    const start = 2 * SMALL + 5;
    const bad = await readRange(file, start, PLAIN_SIZE - 1);
    expect(bad.error).toBeInstanceOf(SealedFileError);
    expect((bad.error as Error).message).toMatch(/chunk 3 failed authentication/);
    // Whatever came out is a prefix of chunk 2's part of the range, never anything of chunk 3.
    expect(bad.data.length).toBeLessThanOrEqual(3 * SMALL - start);
    expect(bad.data.equals(plain.subarray(start, start + bad.data.length))).toBe(true);
    const inside = await readRange(file, 3 * SMALL + 2, 3 * SMALL + 9);
    expect(inside.error).toBeInstanceOf(SealedFileError);
    expect(inside.data.length).toBe(0);
    await expectSealedError(readAll(file), /chunk 3 failed authentication/);
  });
});

describe('sealed file: handles', () => {
  it('the range stream closes its handle when destroyed before or during reading', async () => {
    const plain = bytes(10 * SMALL, 6);
    const file = await seal(plain, { chunkSize: SMALL });
    for (const reads of [0, 1]) {
      const handle = await fs.open(file, 'r');
      const h = await readSealedHeader(handle);
      const stream = sealedRangeStream(handle, h, KEY, CONTEXT, 0, plain.length - 1);
      if (reads) await new Promise<void>((resolve) => stream.once('readable', () => resolve()));
      const closed = new Promise<void>((resolve) => stream.once('close', () => resolve()));
      stream.destroy();
      await closed;
      expect(handle.fd).toBe(-1);
    }
  });

  it('the range stream reads a chunk at a time and stops at its high-water mark while nobody consumes', async () => {
    const CHUNK = 1024;
    const plain = bytes(256 * CHUNK, 12);
    const file = await seal(plain, { chunkSize: CHUNK });
    const handle = await fs.open(file, 'r');
    const h = await readSealedHeader(handle);
    let reads = 0;
    const read = handle.read.bind(handle) as (...args: unknown[]) => unknown;
    (handle as unknown as { read: (...args: unknown[]) => unknown }).read = (...args: unknown[]) => {
      reads++;
      return read(...args);
    };
    const stream = sealedRangeStream(handle, h, KEY, CONTEXT, 0, plain.length - 1);
    await new Promise<void>((resolve) => stream.once('readable', () => resolve()));
    for (let i = 0; i < 50; i++) await new Promise<void>((resolve) => setImmediate(resolve));
    // Upper bounds that hold at any moment, however far the reading has got: never more than the
    // high-water mark plus one chunk is buffered, so never the whole file.
    const bound = Math.ceil(stream.readableHighWaterMark / CHUNK) + 2;
    expect(reads).toBeLessThanOrEqual(bound);
    expect(stream.readableLength).toBeLessThanOrEqual(stream.readableHighWaterMark + CHUNK);
    const parts: Buffer[] = [];
    for await (const p of stream) parts.push(p as Buffer);
    expect(Buffer.concat(parts).equals(plain)).toBe(true);
    expect(reads).toBeGreaterThanOrEqual(256);
    expect(handle.fd).toBe(-1);
  });
});

describe('sealed file: detection and malformed headers', () => {
  async function write(name: string, content: Buffer | string): Promise<string> {
    const file = path.join(dir, name);
    await fs.writeFile(file, content);
    return file;
  }

  const sealed = (file: string): Promise<boolean> => withHandle(file, isSealedFile);

  function rawHeader(opts: { chunkSize?: number; idLength?: number; keyId?: string } = {}): Buffer {
    const keyId = Buffer.from(opts.keyId ?? 'k1', 'latin1');
    const fixed = Buffer.alloc(13);
    SEALED_MAGIC.copy(fixed);
    fixed.writeUInt32BE(opts.chunkSize ?? SMALL, 8);
    fixed[12] = opts.idLength ?? keyId.length;
    return Buffer.concat([fixed, keyId, Buffer.alloc(8, 1)]);
  }

  it('tells a sealed file from a plain one', async () => {
    expect(await sealed(await write('plain.txt', 'hello, this is a plain text file\n'))).toBe(false);
    expect(await sealed(await write('empty', ''))).toBe(false);
    expect(await sealed(await write('short', 'NORMA'))).toBe(false);
    expect(await sealed(await seal(Buffer.from('x')))).toBe(true);
    await expectSealedError(header(await write('plain2.txt', 'just text, long enough to hold a header......')), /not a sealed file/);
  });

  it('refuses short files, bad key-id lengths, bad chunk sizes and bodies shorter than a tag', async () => {
    const tag = Buffer.alloc(TAG);
    await expectSealedError(header(await write('a', 'NORM')), /not a sealed file/);
    await expectSealedError(header(await write('b', '')), /not a sealed file/);
    await expectSealedError(header(await write('c', Buffer.concat([SEALED_MAGIC, Buffer.from([0, 0])]))), /truncated/);
    await expectSealedError(header(await write('d', rawHeader().subarray(0, 18))), /truncated/);
    await expectSealedError(header(await write('e', Buffer.concat([rawHeader({ idLength: 0 }), tag]))), /unknown key id length 0/);
    await expectSealedError(header(await write('f', Buffer.concat([rawHeader({ idLength: 65 }), Buffer.alloc(200)]))), /unknown key id length 65/);
    await expectSealedError(header(await write('g', Buffer.concat([rawHeader({ keyId: 'k 1' }), tag]))), /invalid key id/);
    await expectSealedError(header(await write('h', Buffer.concat([rawHeader({ chunkSize: 0 }), tag]))), /unsupported chunk size 0/);
    await expectSealedError(header(await write('i', Buffer.concat([rawHeader({ chunkSize: 16 * 1024 * 1024 + 1 }), tag]))), /unsupported chunk size/);
    await expectSealedError(header(await write('j', Buffer.concat([rawHeader(), Buffer.alloc(10)]))), /too short to hold even one chunk tag/);
    await expectSealedError(header(await write('k', rawHeader())), /too short/);
    // A header with a bare tag parses (an empty plaintext), and the maximum chunk size is accepted.
    expect((await header(await write('l', Buffer.concat([rawHeader(), tag])))).plainSize).toBe(0);
    expect((await header(await write('m', Buffer.concat([rawHeader({ chunkSize: 16 * 1024 * 1024 }), tag, Buffer.alloc(5)])))).plainSize).toBe(5);
    // A forged header with an all-zero tag is still refused when read.
    await expectSealedError(readAll(path.join(dir, 'l')), AUTH);
  });
});
