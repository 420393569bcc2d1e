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
//
// This file writes sealed files and reads their headers; sealed-read.ts reads their chunks.
import { createCipheriv, randomBytes } from 'node:crypto';
import type { FileHandle } from 'node:fs/promises';

export const SEALED_MAGIC: Buffer = Buffer.from('NORMASF1', 'ascii');

/** Default plaintext bytes per chunk. */
export const DEFAULT_CHUNK_SIZE = 65536;
/** The largest chunk size a reader accepts (so a hostile header cannot make it allocate more). */
export const MAX_CHUNK_SIZE = 16 * 1024 * 1024;

export const TAG = 16;
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

export function checkKey(key: Buffer): void {
  if (!Buffer.isBuffer(key) || key.length !== KEY_BYTES) throw new SealedFileError(`a sealed file data key must be ${KEY_BYTES} bytes`);
}

/** Reads up to `length` bytes at `position`, stopping early only at the end of the file. */
export async function readAt(handle: FileHandle, buf: Buffer, length: number, position: number): Promise<number> {
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

export function nonceOf(prefix: Buffer, index: number): Buffer {
  const nonce = Buffer.alloc(PREFIX + 4);
  prefix.copy(nonce, 0, 0, PREFIX);
  nonce.writeUInt32BE(index, PREFIX);
  return nonce;
}

export function aadOf(raw: Buffer, index: number, last: boolean, context: Buffer): Buffer {
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
