// Sealed files: a file's bytes encrypted at rest with AES-256-GCM, in fixed-size chunks, so a byte
// range of the plaintext can be served by decrypting only the chunks it overlaps (spill files can
// be large, and a client asking for a slice should not cost a decryption of the whole file).
//
// Layout (all integers big-endian):
//
//   header  = "NORMASF1"            8 bytes, ASCII magic
//             chunk size C           4 bytes, plaintext bytes per chunk (writer default 65536;
//                                    readers accept 1..16 MiB)
//             key id length L        1 byte, 1..64
//             key id                 L bytes, ASCII, ^[A-Za-z0-9_-]{1,64}$ (which data key sealed it)
//             nonce prefix           8 random bytes, fresh for every file
//   header length = 8 + 4 + 1 + L + 8
//
//   chunk i (0-based) = AES-256-GCM ciphertext of its plaintext, then its 16-byte tag.
//     Every chunk but the last holds exactly C plaintext bytes; the last holds 0..C (an empty
//     plaintext is a single empty final chunk: just a tag). Only an empty plaintext has an empty
//     chunk: a plaintext of exactly k full chunks is k chunks, so every plaintext has one layout.
//     nonce = nonce prefix (8) || i (4)
//     AAD   = the whole header || i (4) || 1 byte: 1 for the last chunk, 0 otherwise || UTF-8 of
//             the caller's context string (for example "spill:<session_id>/<output_id>")
//
// Why each AAD part is there: the header makes any change to it (chunk size, key id, prefix) fail
// every chunk; the index makes reordered or swapped chunks fail; the final flag makes a file cut
// at a chunk boundary fail (its new last chunk was sealed as "not last"), and an appended chunk
// fail; the context makes a sealed file copied to another place fail to open there. The header is
// self-delimiting and the index and flag have fixed sizes, so the context needs no length prefix.
//
// The plaintext size follows from the file size S alone: body = S - header length (at least one
// tag, 16); chunks m = ceil(body / (C + 16)); last chunk plaintext = body - (m - 1)(C + 16) - 16,
// which must be 0..C (and not 0 when m > 1: an empty chunk after full ones), or the file is malformed.
//
// Nonces: with one data key for many files, two files share nonces only if their random 8-byte
// prefixes collide, which stays negligible for any realistic count of files per key (rotate keys
// long before billions of files). A 4-byte index caps a file at 2^32 chunks (256 TiB at 64 KiB).
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { FileHandle } from 'node:fs/promises';
import { Readable } from 'node:stream';

export const SEALED_MAGIC: Buffer = Buffer.from('NORMASF1', 'ascii');

/** Default plaintext bytes per chunk. */
export const DEFAULT_CHUNK_SIZE = 65536;
/** The largest chunk size a reader accepts (so a hostile header cannot make it allocate more). */
export const MAX_CHUNK_SIZE = 16 * 1024 * 1024;

const TAG = 16;
const PREFIX = 8;
const KEY_BYTES = 32;
const MAX_CHUNKS = 2 ** 32;
const KEY_ID = /^[A-Za-z0-9_-]{1,64}$/;
const MAX_HEADER = 8 + 4 + 1 + 64 + PREFIX;

/** Anything wrong with a sealed file (malformed, truncated, changed, wrong key or place) or its use. */
export class SealedFileError extends Error {
  override name = 'SealedFileError';
}

export interface SealedHeader {
  /** Plaintext bytes per chunk (the last chunk may hold fewer). */
  chunkSize: number;
  /** The id of the data key the file was sealed with. */
  keyId: string;
  /** Bytes of header before the first chunk. */
  headerLength: number;
  /** Bytes of plaintext the file holds. */
  plainSize: number;
  /** The file's 8-byte nonce prefix. */
  prefix: Buffer;
  /** The header exactly as stored (part of every chunk's AAD). */
  raw: Buffer;
}

function checkKey(key: Buffer): void {
  if (!Buffer.isBuffer(key) || key.length !== KEY_BYTES) throw new SealedFileError(`a sealed file data key must be ${KEY_BYTES} bytes`);
}

/** Reads up to `length` bytes at `position`, stopping early only at the end of the file. */
async function readAt(handle: FileHandle, buf: Buffer, length: number, position: number): Promise<number> {
  let got = 0;
  while (got < length) {
    const { bytesRead } = await handle.read(buf, got, length - got, position + got);
    if (bytesRead === 0) break;
    got += bytesRead;
  }
  return got;
}

async function writeAt(handle: FileHandle, buf: Buffer, position: number): Promise<void> {
  let done = 0;
  while (done < buf.length) {
    const { bytesWritten } = await handle.write(buf, done, buf.length - done, position + done);
    if (bytesWritten <= 0) throw new SealedFileError('could not write the sealed file (no bytes written)');
    done += bytesWritten;
  }
}

/** True when the first bytes are the magic (a sealed file); false for a plain file. */
export async function isSealedFile(handle: FileHandle): Promise<boolean> {
  const buf = Buffer.alloc(SEALED_MAGIC.length);
  const got = await readAt(handle, buf, buf.length, 0);
  return got === SEALED_MAGIC.length && buf.equals(SEALED_MAGIC);
}

/** Reads and checks the header and derives the plaintext size from the file's size; SealedFileError when malformed. */
export async function readSealedHeader(handle: FileHandle): Promise<SealedHeader> {
  const { size } = await handle.stat();
  const buf = Buffer.alloc(Math.min(size, MAX_HEADER));
  const got = await readAt(handle, buf, buf.length, 0);
  if (got < SEALED_MAGIC.length || !buf.subarray(0, SEALED_MAGIC.length).equals(SEALED_MAGIC)) throw new SealedFileError('not a sealed file');
  if (got < 13) throw new SealedFileError('sealed file is truncated (its header is incomplete)');
  const chunkSize = buf.readUInt32BE(8);
  if (chunkSize < 1 || chunkSize > MAX_CHUNK_SIZE) throw new SealedFileError(`sealed file has an unsupported chunk size ${chunkSize} (must be 1..${MAX_CHUNK_SIZE})`);
  const idLength = buf.readUInt8(12);
  if (idLength < 1 || idLength > 64) throw new SealedFileError(`unknown key id length ${idLength} in sealed file header (must be 1..64)`);
  const headerLength = 13 + idLength + PREFIX;
  if (got < headerLength) throw new SealedFileError('sealed file is truncated (its header is incomplete)');
  const keyId = buf.toString('latin1', 13, 13 + idLength);
  if (!KEY_ID.test(keyId)) throw new SealedFileError('sealed file header has an invalid key id (must match ^[A-Za-z0-9_-]{1,64}$)');
  const body = size - headerLength;
  if (body < TAG) throw new SealedFileError('sealed file is truncated (too short to hold even one chunk tag)');
  const stride = chunkSize + TAG;
  const chunks = Math.ceil(body / stride);
  if (chunks > MAX_CHUNKS) throw new SealedFileError('sealed file has more chunks than its 4-byte chunk index allows');
  const lastPlain = body - (chunks - 1) * stride - TAG;
  // Only the lower bound can fail: a remainder of 1..15 bytes is a partial tag.
  if (lastPlain < 0 || lastPlain > chunkSize) throw new SealedFileError('sealed file is truncated or padded (it ends inside a chunk tag)');
  // The chunk count is later derived from plainSize alone, which needs the one canonical layout.
  if (lastPlain === 0 && chunks > 1) throw new SealedFileError('sealed file is malformed (an empty chunk after full ones)');
  const raw = Buffer.from(buf.subarray(0, headerLength));
  return {
    chunkSize,
    keyId,
    headerLength,
    plainSize: (chunks - 1) * chunkSize + lastPlain,
    prefix: Buffer.from(raw.subarray(headerLength - PREFIX)),
    raw,
  };
}

function nonceOf(prefix: Buffer, index: number): Buffer {
  const nonce = Buffer.alloc(PREFIX + 4);
  prefix.copy(nonce, 0, 0, PREFIX);
  nonce.writeUInt32BE(index, PREFIX);
  return nonce;
}

function aadOf(raw: Buffer, index: number, last: boolean, context: Buffer): Buffer {
  const tail = Buffer.alloc(5);
  tail.writeUInt32BE(index, 0);
  tail[4] = last ? 1 : 0;
  return Buffer.concat([raw, tail, context]);
}

/** Writes under way at once per sealed file (a chunk's ciphertext and its tag are two). */
const WRITES_AHEAD = 4;

/** Writes a sealed file through `handle` (opened for writing, empty). Buffers at most one chunk, and WRITES_AHEAD writes. */
export class SealedWriter {
  private readonly header: Buffer;
  private readonly prefix: Buffer;
  private readonly context: Buffer;
  private readonly buf: Buffer;
  private fill = 0;
  private index = 0;
  private position = 0;
  private headerWritten = false;
  private finished = false;
  private failure: unknown = null;
  /**
   * Writes to the file under way: each chunk has its own place in the file, so the next chunk is
   * sealed while the last is written (the disk and the cipher overlap). At most WRITES_AHEAD.
   */
  private readonly writing: Promise<void>[] = [];
  private writeFailure: unknown = null;
  // Operations run one after another even if a caller does not await each one, since every chunk
  // depends on the buffer state the previous operation left behind.
  private queue: Promise<void> = Promise.resolve();

  constructor(
    private readonly handle: FileHandle,
    private readonly key: Buffer,
    keyId: string,
    context: string,
    private readonly chunkSize: number = DEFAULT_CHUNK_SIZE,
  ) {
    checkKey(key);
    if (typeof keyId !== 'string' || !KEY_ID.test(keyId)) throw new SealedFileError('a sealed file key id must match ^[A-Za-z0-9_-]{1,64}$');
    if (!Number.isInteger(chunkSize) || chunkSize < 1 || chunkSize > MAX_CHUNK_SIZE) {
      throw new SealedFileError(`a sealed file chunk size must be an integer 1..${MAX_CHUNK_SIZE}`);
    }
    this.prefix = randomBytes(PREFIX);
    const fixed = Buffer.alloc(13);
    SEALED_MAGIC.copy(fixed, 0);
    fixed.writeUInt32BE(chunkSize, 8);
    fixed.writeUInt8(keyId.length, 12);
    this.header = Buffer.concat([fixed, Buffer.from(keyId, 'ascii'), this.prefix]);
    this.context = Buffer.from(context, 'utf8');
    this.buf = Buffer.allocUnsafe(chunkSize);
  }

  /** Adds plaintext; the bytes are copied, so the caller may reuse its buffer once this settles. */
  write(chunk: Uint8Array): Promise<void> {
    return this.enqueue(() => this.absorb(chunk));
  }

  /** Seals the last chunk (final flag) and writes it, and waits for every write; does not close or fsync the handle. */
  finish(): Promise<void> {
    return this.enqueue(async () => {
      await this.emit(true);
      await Promise.all(this.writing.splice(0));
      if (this.writeFailure !== null) throw this.writeFailure;
      this.finished = true;
    });
  }

  private enqueue(op: () => Promise<void>): Promise<void> {
    const run = this.queue.then(() => {
      if (this.failure !== null) throw this.failure;
      if (this.finished) throw new SealedFileError('the sealed file is already finished');
      return op();
    });
    // After a failure the file is unusable (a chunk may be half written): later calls fail too.
    this.queue = run.catch((e: unknown) => {
      if (this.failure === null) this.failure = e ?? new SealedFileError('sealed file write failed');
    });
    return run;
  }

  private async absorb(chunk: Uint8Array): Promise<void> {
    let offset = 0;
    while (offset < chunk.length) {
      // A full buffer is sealed only once more bytes arrive: until then it may be the last chunk,
      // and the last chunk must carry the final flag (so a plaintext of exactly k chunks is k
      // chunks, not k plus an empty one).
      if (this.fill === this.chunkSize) await this.emit(false);
      const n = Math.min(this.chunkSize - this.fill, chunk.length - offset);
      this.buf.set(chunk.subarray(offset, offset + n), this.fill);
      this.fill += n;
      offset += n;
    }
  }

  private async emit(last: boolean): Promise<void> {
    if (this.index >= MAX_CHUNKS) throw new SealedFileError('sealed file is too large for its 4-byte chunk index');
    if (this.writeFailure !== null) throw this.writeFailure;
    if (!this.headerWritten) {
      await this.writeAhead(this.header, 0);
      this.position = this.header.length;
      this.headerWritten = true;
    }
    const cipher = createCipheriv('aes-256-gcm', this.key, nonceOf(this.prefix, this.index), { authTagLength: TAG });
    cipher.setAAD(aadOf(this.header, this.index, last, this.context));
    // cipher.update returns a buffer of its own: this.buf may be filled again while it is written.
    const sealed = cipher.update(this.buf.subarray(0, this.fill));
    cipher.final();
    const tag = cipher.getAuthTag();
    await this.writeAhead(sealed, this.position);
    await this.writeAhead(tag, this.position + sealed.length);
    this.position += sealed.length + tag.length;
    this.index += 1;
    this.fill = 0;
  }

  /** Starts writing `buf` at `position`; waits only when WRITES_AHEAD writes are under way. */
  private async writeAhead(buf: Buffer, position: number): Promise<void> {
    if (this.writing.length >= WRITES_AHEAD) await this.writing.shift();
    this.writing.push(
      writeAt(this.handle, buf, position).catch((err: unknown) => {
        if (this.writeFailure === null) this.writeFailure = err ?? new SealedFileError('sealed file write failed');
      }),
    );
    if (this.writeFailure !== null) throw this.writeFailure;
  }
}

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
