// Reading sealed files (layout and reasons: sealed-file.ts): a byte range as a stream that
// decrypts only the chunks it overlaps, and the whole plaintext in order for hashing. Nothing of a
// chunk is given out before its tag verifies.
import { createDecipheriv } from 'node:crypto';
import type { FileHandle } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { SealedFileError, TAG, aadOf, checkKey, nonceOf, readAt, type SealedHeader } from './sealed-file.js';

/** Where chunk `index` sits in the file, and how many plaintext bytes it holds. */
function chunkPlace(header: SealedHeader, index: number): { offset: number; plainLength: number; last: boolean } {
  const count = chunkCount(header);
  const last = index === count - 1;
  return {
    offset: header.headerLength + index * (header.chunkSize + TAG),
    plainLength: last ? header.plainSize - (count - 1) * header.chunkSize : header.chunkSize,
    last,
  };
}

function chunkCount(header: SealedHeader): number {
  // An empty plaintext is still one (empty) chunk.
  return Math.max(1, Math.ceil(header.plainSize / header.chunkSize));
}

/**
 * Reads chunk `index` as stored (ciphertext and tag) into `scratch`, which must hold
 * chunkSize + 16 bytes; nothing is decrypted.
 */
async function readChunkRaw(handle: FileHandle, header: SealedHeader, index: number, scratch: Buffer): Promise<Buffer> {
  const { offset, plainLength } = chunkPlace(header, index);
  const length = plainLength + TAG;
  const got = await readAt(handle, scratch, length, offset);
  if (got < length) throw new SealedFileError(`sealed file is truncated (chunk ${index} is incomplete)`);
  return scratch.subarray(0, length);
}

/**
 * Authenticates and decrypts chunk `index` read by readChunkRaw, returning its plaintext (a buffer
 * of its own: `raw` may be reused). Nothing of a chunk is returned unless its tag verifies: the
 * decrypted bytes are held until `final()` has checked the tag.
 */
function openChunkRaw(header: SealedHeader, key: Buffer, context: Buffer, index: number, raw: Buffer): Buffer {
  const { plainLength, last } = chunkPlace(header, index);
  const decipher = createDecipheriv('aes-256-gcm', key, nonceOf(header.prefix, index), { authTagLength: TAG });
  decipher.setAAD(aadOf(header.raw, index, last, context));
  decipher.setAuthTag(raw.subarray(plainLength, plainLength + TAG));
  const plain = decipher.update(raw.subarray(0, plainLength));
  try {
    decipher.final();
  } catch {
    throw new SealedFileError(`sealed file chunk ${index} failed authentication (changed, truncated, reordered, or sealed for another place or key)`);
  }
  return plain;
}

/**
 * Reads chunks in order with the next one's bytes read from the file while this one is decrypted
 * (two scratch buffers, used in turn): the disk and the cipher overlap. At most one read ahead.
 */
class ChunkReader {
  private readonly scratch: [Buffer, Buffer];
  private ahead: { index: number; read: Promise<Buffer> } | null = null;

  constructor(
    private readonly handle: FileHandle,
    private readonly header: SealedHeader,
    private readonly key: Buffer,
    private readonly context: Buffer,
    /** The last chunk that will be asked for (nothing is read past it). */
    private readonly lastIndex: number,
  ) {
    this.scratch = [Buffer.allocUnsafe(header.chunkSize + TAG), Buffer.allocUnsafe(header.chunkSize + TAG)];
  }

  /** Chunk `index`'s plaintext, authenticated. */
  async open(index: number): Promise<Buffer> {
    const ahead = this.ahead;
    this.ahead = null;
    const raw = await (ahead?.index === index ? ahead.read : readChunkRaw(this.handle, this.header, index, this.scratch[index % 2]!));
    if (index + 1 <= this.lastIndex) {
      const read = readChunkRaw(this.handle, this.header, index + 1, this.scratch[(index + 1) % 2]!);
      // Its failure is reported when that chunk is asked for; never unhandled meanwhile.
      read.catch(() => {});
      this.ahead = { index: index + 1, read };
    }
    return openChunkRaw(this.header, this.key, this.context, index, raw);
  }

  /** Waits for a read still under way (before the handle is closed). */
  async settle(): Promise<void> {
    await this.ahead?.read.catch(() => {});
  }
}

/**
 * A stream of plaintext bytes start..end (inclusive, clamped like an HTTP range already validated
 * against plainSize), decrypting only the chunks that overlap the range; it errors (stream 'error'
 * with SealedFileError) as soon as a chunk fails authentication, never emitting unauthenticated
 * bytes of that chunk. It closes `handle` when it ends, errors or is destroyed.
 *
 * Only the chunks read are authenticated: a range that avoids a damaged chunk still succeeds. The
 * whole file is vouched for only by reading all of it (readSealed).
 */
export function sealedRangeStream(handle: FileHandle, header: SealedHeader, key: Buffer, context: string, start: number, end: number): Readable {
  return new SealedRangeReadable(handle, header, key, context, start, end);
}

class SealedRangeReadable extends Readable {
  private readonly contextBytes: Buffer;
  private readonly first: number;
  private readonly endChunk: number;
  private readonly from: number;
  private readonly to: number;
  private next: number;
  private chunks: ChunkReader | null = null;
  private reading = false;
  private closing: Promise<void> | null = null;

  constructor(
    private readonly handle: FileHandle,
    private readonly header: SealedHeader,
    private readonly key: Buffer,
    context: string,
    start: number,
    end: number,
  ) {
    super();
    this.contextBytes = Buffer.from(context, 'utf8');
    // Clamp to the plaintext; an empty range (start past end, or an empty file) ends at once.
    this.from = Math.max(0, Math.floor(start));
    this.to = Math.min(Math.floor(end), header.plainSize - 1);
    this.first = Math.floor(this.from / header.chunkSize);
    this.endChunk = this.from > this.to ? -1 : Math.floor(this.to / header.chunkSize);
    this.next = this.first;
  }

  override _read(): void {
    // One chunk in flight at a time: the stream asks again when its consumer wants more, which is
    // what keeps a large file from ever being held in memory.
    if (this.reading) return;
    if (this.next > this.endChunk) {
      this.push(null);
      return;
    }
    this.reading = true;
    const index = this.next++;
    this.readChunk(index).then(
      (slice) => {
        this.reading = false;
        if (this.destroyed) return;
        this.push(slice);
      },
      (err: unknown) => {
        this.reading = false;
        if (this.destroyed) return;
        this.destroy(err instanceof SealedFileError ? err : new SealedFileError(`could not read the sealed file: ${(err as Error)?.message ?? String(err)}`));
      },
    );
  }

  private async readChunk(index: number): Promise<Buffer> {
    checkKey(this.key);
    this.chunks ??= new ChunkReader(this.handle, this.header, this.key, this.contextBytes, this.endChunk);
    const plain = await this.chunks.open(index);
    const base = index * this.header.chunkSize;
    const lo = Math.max(this.from, base) - base;
    const hi = Math.min(this.to + 1, base + plain.length) - base;
    return plain.subarray(lo, hi);
  }

  override _destroy(err: Error | null, cb: (err?: Error | null) => void): void {
    // Runs on end (autoDestroy), on error and on destroy(). FileHandle.close waits for a read that
    // is still in flight, and the read's result is dropped because the stream is destroyed.
    this.closing ??= (this.chunks?.settle() ?? Promise.resolve()).then(() => this.handle.close());
    this.closing.then(
      () => cb(err),
      (closeErr: unknown) => cb(err ?? (closeErr as Error)),
    );
  }
}

/**
 * Reads a whole sealed file's plaintext through `fn(chunk)` in order (for hashing it),
 * authenticating every chunk; a chunk reaches `fn` only once it has verified. Rejects with
 * SealedFileError at the first chunk that does not. Leaves `handle` open: the caller owns it.
 */
export async function readSealed(handle: FileHandle, header: SealedHeader, key: Buffer, context: string, fn: (plain: Buffer) => void): Promise<void> {
  checkKey(key);
  const count = chunkCount(header);
  const chunks = new ChunkReader(handle, header, key, Buffer.from(context, 'utf8'), count - 1);
  try {
    for (let index = 0; index < count; index++) fn(await chunks.open(index));
  } finally {
    // The caller closes the handle: no read of it may still be under way then.
    await chunks.settle();
  }
}
