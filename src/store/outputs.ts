// Spill files as evidence (SPEC §7, §9.11): the full text of a capped block, written to a
// temp file while it is produced, fsynced and renamed into place before its record exists,
// with SHA-256, size and provenance (session, turn, tool_use id, tool, time) in the store.
// Retention removes files by age and by a per-session byte budget; the record stays, marked
// `expired`. File names are made from server-made ids only; nothing from a URL is a path. With
// encryption at rest, a file is sealed as it is written (evidence/sealed-file.ts) under its
// tenant's data key, and served and hashed through the same reads whether sealed or not.
import { constants as C } from 'node:fs';
import fs from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from 'pino';
import type { Output } from '../contract/schemas.js';
import { ID_PATTERN } from '../contract/schemas.js';
import type { Clock, IdFactory } from '../ids.js';
import type { Store } from './store.js';
import { isSealedFile, readSealedHeader, SealedWriter } from '../evidence/sealed-file.js';
import { readSealed, sealedRangeStream } from '../evidence/sealed-read.js';
import type { Readable } from 'node:stream';
import { createHash } from 'node:crypto';

/** The tenants' data keys, when spill files are encrypted at rest (evidence/encryption.ts). */
export interface FileKeys {
  dataKey(tenant: string): { id: string; key: Buffer };
  keyById(id: string): Buffer | undefined;
}

/** A spill file opened to be served: its plaintext size and a stream of a range of it. */
export interface OpenOutput {
  size: number;
  /** Bytes start..end (inclusive) of the output; the file is closed when the stream ends. */
  stream(start?: number, end?: number): Readable;
  close(): Promise<void>;
}

/** Where a capped block's full text goes while it is written (a spill file). */
export interface SpillSink {
  /** Writes UTF-8 bytes; the caller reuses the buffer once the promise settles. */
  write(chunk: Uint8Array): Promise<void>;
  /** Makes the spill durable and records it; returns its output id. */
  commit(meta: { chars: number; bytes: number; sha256: string }): Promise<string>;
  /** Discards a spill that will not be used. */
  abort(): Promise<void>;
}

export interface SpillProvenance {
  sessionId: string;
  turnId: string;
  toolUseId: string;
  tool: string;
  blockIndex: number;
  /** The full diff of a permission request's preview, not a block of the call's result. */
  preview?: boolean;
}

export interface RetentionPolicy {
  /** Files older than this are removed. */
  maxAgeMs: number;
  /** When a session's available outputs exceed this many bytes, its oldest are removed. */
  maxBytesPerSession: number;
}

const SAFE_ID = new RegExp(ID_PATTERN);
/** No call streams a spill this long (Bash's longest timeout is 10 minutes). */
const PARTIAL_MAX_AGE_MS = 24 * 3600_000;

export class OutputFiles {
  constructor(
    /** `$NORMA_DATA_DIR/outputs` */
    readonly dir: string,
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly newId: IdFactory,
    readonly retention: RetentionPolicy,
    private readonly logger: Logger,
    /** Set: spill files are sealed (chunked AES-256-GCM under the tenant's data key). */
    private readonly keys?: FileKeys,
  ) {}

  /** What a sealed spill file is bound to: it opens only as this output of this session. */
  private static place(sessionId: string, outputId: string): string {
    return `spill:${sessionId}/${outputId}`;
  }

  /**
   * Opens an output's file to serve it, sealed or plain (written before encryption was on).
   * Rejects (ENOENT and the like) when the file is gone; SealedFileError when it is malformed
   * or names a data key the store does not have.
   */
  async open(sessionId: string, outputId: string): Promise<OpenOutput> {
    const handle = await fs.open(this.filePath(sessionId, outputId), C.O_RDONLY | C.O_NOFOLLOW);
    try {
      if (!(await isSealedFile(handle))) {
        const size = (await handle.stat()).size;
        return { size, stream: (start = 0, end = size - 1) => handle.createReadStream({ start, end }), close: () => handle.close() };
      }
      const header = await readSealedHeader(handle);
      const key = this.keys?.keyById(header.keyId);
      if (!key) throw new Error(`spill file ${outputId} is sealed with data key ${header.keyId}, which this server does not have (encryption at rest is off, or the store lost it)`);
      const place = OutputFiles.place(sessionId, outputId);
      return {
        size: header.plainSize,
        stream: (start = 0, end = header.plainSize - 1) => sealedRangeStream(handle, header, key, place, start, end),
        close: () => handle.close(),
      };
    } catch (err) {
      await handle.close().catch(() => undefined);
      throw err;
    }
  }

  /** SHA-256 (hex) of an output's content as stored now (verify); rejects when it cannot be read whole. */
  async digest(sessionId: string, outputId: string): Promise<string> {
    const handle = await fs.open(this.filePath(sessionId, outputId), C.O_RDONLY | C.O_NOFOLLOW);
    try {
      const hash = createHash('sha256');
      if (await isSealedFile(handle)) {
        const header = await readSealedHeader(handle);
        const key = this.keys?.keyById(header.keyId);
        if (!key) throw new Error(`sealed with data key ${header.keyId}, which this server does not have`);
        await readSealed(handle, header, key, OutputFiles.place(sessionId, outputId), (plain) => hash.update(plain));
      } else {
        for await (const chunk of handle.createReadStream({ autoClose: false })) hash.update(chunk as Buffer);
      }
      return hash.digest('hex');
    } finally {
      await handle.close().catch(() => undefined);
    }
  }

  private sessionDir(sessionId: string): string {
    if (!SAFE_ID.test(sessionId)) throw new Error(`unsafe session id ${JSON.stringify(sessionId)}`);
    return path.join(this.dir, sessionId);
  }

  filePath(sessionId: string, outputId: string): string {
    if (!SAFE_ID.test(outputId)) throw new Error(`unsafe output id ${JSON.stringify(outputId)}`);
    return path.join(this.sessionDir(sessionId), `${outputId}.txt`);
  }

  /** Removes every spill file of a session (session retention). */
  async removeSession(sessionId: string): Promise<void> {
    await fs.rm(this.sessionDir(sessionId), { recursive: true, force: true });
  }

  /** Starts a spill file for one block. */
  async begin(p: SpillProvenance): Promise<SpillSink> {
    const dir = this.sessionDir(p.sessionId);
    await fs.mkdir(dir, { recursive: true, mode: 0o700 });
    const id = this.newId('out');
    const finalPath = this.filePath(p.sessionId, id);
    const tmpPath = path.join(dir, `.${id}.partial`);
    const handle: FileHandle = await fs.open(tmpPath, C.O_WRONLY | C.O_CREAT | C.O_EXCL | C.O_NOFOLLOW, 0o600);
    let sealed: SealedWriter | undefined;
    if (this.keys) {
      try {
        const { id: keyId, key } = this.keys.dataKey(this.store.getSession(p.sessionId)?.session.tenant ?? 'default');
        sealed = new SealedWriter(handle, key, keyId, OutputFiles.place(p.sessionId, id));
      } catch (err) {
        await handle.close().catch(() => undefined);
        await fs.unlink(tmpPath).catch(() => undefined);
        throw err;
      }
    }
    let closed = false;
    const close = async () => {
      if (!closed) {
        closed = true;
        await handle.close();
      }
    };
    return {
      write: async (chunk) => {
        if (sealed) return sealed.write(chunk);
        let offset = 0;
        while (offset < chunk.length) {
          const { bytesWritten } = await handle.write(chunk, offset, chunk.length - offset);
          offset += bytesWritten;
        }
      },
      commit: async ({ chars, bytes, sha256 }) => {
        await sealed?.finish();
        await handle.sync();
        await close();
        await fs.rename(tmpPath, finalPath);
        const record: Output = {
          id,
          session_id: p.sessionId,
          turn_id: p.turnId,
          tool_use_id: p.toolUseId,
          tool: p.tool,
          block_index: p.blockIndex,
          ...(p.preview ? { of: 'preview' as const } : {}),
          bytes,
          chars,
          sha256,
          status: 'available',
          created_at: this.clock().toISOString(),
        };
        this.store.putOutput(record);
        await this.enforceBudget(p.sessionId);
        return id;
      },
      abort: async () => {
        await close().catch(() => undefined);
        await fs.unlink(tmpPath).catch(() => undefined);
      },
    };
  }

  /** Expires a session's oldest available outputs until it is within its byte budget. */
  private async enforceBudget(sessionId: string): Promise<void> {
    const available = this.store.listOutputs(sessionId).filter((o) => o.status === 'available');
    let total = available.reduce((sum, o) => sum + o.bytes, 0);
    for (const o of available) {
      // The newest output always stays: the result that points at it was just made.
      if (total <= this.retention.maxBytesPerSession || o === available[available.length - 1]) break;
      await this.expire(o, 'the session exceeded its spill byte budget');
      total -= o.bytes;
    }
  }

  private async expire(o: Output, why: string): Promise<void> {
    await fs.rm(this.filePath(o.session_id, o.id), { force: true });
    this.store.putOutput({ ...o, status: 'expired', expired_at: this.clock().toISOString() });
    this.logger.debug({ session_id: o.session_id, output_id: o.id, why }, 'spill file expired');
  }

  /**
   * Retention sweep: expires outputs older than the age limit, and removes spill directories
   * of sessions the store does not know (left by a previous process with a volatile store)
   * and unfinished partial files (all of them at start-up).
   */
  async sweep(startup = false): Promise<{ expired: number; orphanDirs: number }> {
    const now = this.clock().getTime();
    let expired = 0;
    const known = new Set(this.store.sessionsWithOutputs());
    for (const sessionId of known) {
      for (const o of this.store.listOutputs(sessionId)) {
        if (o.status === 'available' && now - Date.parse(o.created_at) > this.retention.maxAgeMs) {
          await this.expire(o, 'older than the retention age');
          expired++;
        }
      }
    }
    let orphanDirs = 0;
    let entries: string[] = [];
    try {
      entries = await fs.readdir(this.dir);
    } catch {
      return { expired, orphanDirs };
    }
    let partials = 0;
    for (const name of entries) {
      if (!SAFE_ID.test(name)) continue;
      if (known.has(name) || this.store.getSession(name)) {
        partials += await this.removePartials(path.join(this.dir, name), startup ? 0 : PARTIAL_MAX_AGE_MS, now);
        continue;
      }
      await fs.rm(path.join(this.dir, name), { recursive: true, force: true });
      orphanDirs++;
    }
    if (partials > 0) this.logger.info({ partials }, 'unfinished spill files removed');
    return { expired, orphanDirs };
  }

  /**
   * Spill files never finished (`.<id>.partial`): every one at start-up (no spill is being
   * written then; a crash left them), later those older than any call can stream.
   */
  private async removePartials(dir: string, olderThanMs: number, now: number): Promise<number> {
    let names: string[] = [];
    try {
      names = await fs.readdir(dir);
    } catch {
      return 0;
    }
    let n = 0;
    for (const name of names) {
      if (!/^\.[A-Za-z0-9_-]+\.partial$/.test(name)) continue;
      const file = path.join(dir, name);
      try {
        if (olderThanMs > 0 && now - (await fs.stat(file)).mtimeMs < olderThanMs) continue;
        await fs.unlink(file);
        n++;
      } catch {
        // gone meanwhile
      }
    }
    return n;
  }
}
