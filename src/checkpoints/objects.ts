// The content-addressed store of a checkpoint directory. A file's content is kept as its chunks
// (chunker.ts), each compressed and named by the SHA-256 of its bytes; groups of up to 64 chunk
// names; and a recipe named by the SHA-256 of the whole file that lists its groups. Content stored
// before costs nothing again, and an edit of a large file stores the chunk it changed, one group
// and one small recipe.
//
// Objects are appended to pack files (packs/NNNNNN.pack), so a small object does not cost a file
// system block of its own. A record is a header (magic, kind, name, length, a digest of the
// stored bytes) and the bytes. Opening scans the packs and indexes every whole record; a record
// a crash cut short, or whose bytes do not match their digest, ends the pack there (it is
// truncated to the last whole record), so what was flushed before is intact and nothing
// half-written is ever read. Objects are checked against their names when read.
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { chunks } from './chunker.js';

const MAGIC = 0x4e43; // "NC"
const HEADER = 2 + 1 + 32 + 4 + 8;
const GROUP = 64;
const PACK_LIMIT = 64 * 1024 * 1024;
/** Appended records are written together once they reach this many bytes (or at a flush). */
const PENDING_MAX = 4 * 1024 * 1024;
const HEX64 = /^[0-9a-f]{64}$/;

type Kind = 'c' | 'g' | 'f';
const KIND_BYTE: Record<Kind, number> = { c: 0x63, g: 0x67, f: 0x66 };
const KIND_OF = new Map<number, Kind>(Object.entries(KIND_BYTE).map(([k, v]) => [v, k as Kind]));

interface Place {
  pack: number;
  offset: number;
  length: number;
}

export interface PutResult {
  /** SHA-256 of the whole content, hex: its name. */
  sha256: string;
  size: number;
  /** Bytes this put added to the packs (0 when everything was stored before). */
  added: number;
}

/**
 * Contents read or stored lately, by name, shared by every store of the process: what a call's
 * changes compare is what the checkpoints just before and after it stored, so it is read from
 * here rather than from the packs. A content is its name's (SHA-256) by construction, so sharing
 * reveals nothing: a store answers only for names its own index holds. Bounded in bytes; a
 * content over ENTRY_MAX is not kept. Buffers handed out are never to be changed.
 */
class RecentContents {
  private readonly map = new Map<string, Buffer>();
  private bytes = 0;
  constructor(
    private readonly max: number,
    private readonly entryMax: number,
  ) {}

  get(name: string): Buffer | undefined {
    const b = this.map.get(name);
    if (b) {
      this.map.delete(name);
      this.map.set(name, b);
    }
    return b;
  }

  set(name: string, content: Buffer): void {
    if (content.length > this.entryMax || this.map.has(name)) return;
    this.map.set(name, content);
    this.bytes += content.length;
    for (const [k, v] of this.map) {
      if (this.bytes <= this.max) break;
      this.map.delete(k);
      this.bytes -= v.length;
    }
  }
}
const recent = new RecentContents(8 * 1024 * 1024, 256 * 1024);

const digest8 = (b: Uint8Array): Buffer => createHash('sha256').update(b).digest().subarray(0, 8);
const sha = (b: Uint8Array): Buffer => createHash('sha256').update(b).digest();

export class ObjectStore {
  private readonly index = new Map<string, Place>();
  private current = 0;
  private size = 0;
  private handle: fs.FileHandle | null = null;
  private readonly readers = new Map<number, Promise<fs.FileHandle>>();
  private dirty = false;
  /**
   * Records appended but not yet written: one write at the next flush (or past PENDING_MAX)
   * instead of one per record. `written`: the size of the current pack on disk.
   */
  private pending: { key: string; bytes: Buffer }[] = [];
  private readonly pendingByKey = new Map<string, Buffer>();
  private pendingBytes = 0;
  private written = 0;
  /** A record was left out as damaged: content known by name may lack a part, so puts store what is missing. */
  private damaged = false;

  /**
   * `readOnly`: for a reader beside the writer (another replica, a closed session): it never
   * truncates what it cannot read whole (the writer may be appending it) and never writes.
   */
  private constructor(
    readonly dir: string,
    readonly readOnly: boolean,
  ) {}

  /** Opens (or makes) the store in `dir`, indexing what its packs hold. */
  static async open(dir: string, opts: { readOnly?: boolean } = {}): Promise<ObjectStore> {
    const store = new ObjectStore(dir, opts.readOnly === true);
    if (!store.readOnly) await fs.mkdir(path.join(dir, 'packs'), { recursive: true, mode: 0o700 });
    const packs = (await fs.readdir(path.join(dir, 'packs')).catch(() => [] as string[])).filter((n) => /^\d{6}\.pack$/.test(n)).sort();
    store.current = 1;
    for (const name of packs) await store.scan(Number(name.slice(0, 6)));
    return store;
  }

  private packPath(n: number): string {
    return path.join(this.dir, 'packs', `${String(n).padStart(6, '0')}.pack`);
  }

  /**
   * Indexes pack `n`'s whole records. A record whose bytes do not match their digest is left out
   * (its name reads as missing). A pack that ends in a record cut short — a crash while it was
   * written — is truncated to the last whole record; a header that makes no sense before the end
   * stops the scan there without removing anything, and new records go to a new pack.
   */
  private async scan(n: number): Promise<void> {
    const file = this.packPath(n);
    const bytes = await fs.readFile(file);
    let at = 0;
    let sound = true;
    while (at < bytes.length) {
      if (at + HEADER > bytes.length) break;
      const kind = KIND_OF.get(bytes[at + 2]!);
      const length = bytes.readUInt32BE(at + 35);
      const end = at + HEADER + length;
      if (bytes.readUInt16BE(at) !== MAGIC || !kind) {
        sound = false;
        break;
      }
      if (end > bytes.length) break;
      const body = bytes.subarray(at + HEADER, end);
      if (digest8(body).equals(bytes.subarray(at + 39, at + 47))) {
        this.index.set(`${kind}${bytes.subarray(at + 3, at + 35).toString('hex')}`, { pack: n, offset: at + HEADER, length });
      } else this.damaged = true;
      at = end;
    }
    if (sound && at < bytes.length && !this.readOnly) await fs.truncate(file, at);
    if (n >= this.current) {
      this.current = sound ? n : n + 1;
      this.size = sound ? at : 0;
      this.written = this.size;
    }
  }

  /** True when the content named `sha256` is stored. */
  has(sha256: string): boolean {
    return this.index.has(`f${sha256}`);
  }

  /** Bytes the packs hold. */
  async bytesOnDisk(): Promise<number> {
    let n = 0;
    for (const name of await fs.readdir(path.join(this.dir, 'packs'))) n += (await fs.stat(path.join(this.dir, 'packs', name))).size;
    return n;
  }

  /** Stores `content` (once per distinct content; once per distinct chunk and group within it). */
  async put(content: Uint8Array): Promise<PutResult> {
    if (this.readOnly) throw new Error('this object store was opened to read');
    const name = sha(content);
    const sha256 = name.toString('hex');
    const known = this.index.has(`f${sha256}`);
    if (known && !this.damaged) {
      if (content.length <= 1024 * 1024) recent.set(sha256, Buffer.from(content));
      return { sha256, size: content.length, added: 0 };
    }
    let added = 0;
    const names: Buffer[] = [];
    for (const c of chunks(content)) {
      const chunkName = Buffer.from(c.sha256, 'hex');
      names.push(chunkName);
      if (!this.index.has(`c${c.sha256}`)) added += await this.append('c', chunkName, deflateRawSync(content.subarray(c.offset, c.offset + c.length)));
    }
    const groups: string[] = [];
    for (let i = 0; i < names.length; i += GROUP) {
      const group = Buffer.concat(names.slice(i, i + GROUP));
      const groupName = sha(group);
      groups.push(groupName.toString('hex'));
      if (!this.index.has(`g${groupName.toString('hex')}`)) added += await this.append('g', groupName, group);
    }
    if (!known) added += await this.append('f', name, Buffer.from(JSON.stringify({ size: content.length, groups })));
    if (content.length <= 1024 * 1024) recent.set(sha256, Buffer.from(content));
    return { sha256, size: content.length, added };
  }

  /** Makes what was put so far durable (one flush of the pack being written). */
  async flush(): Promise<void> {
    await this.writePending();
    if (this.handle && this.dirty) await this.handle.sync();
    this.dirty = false;
  }

  /**
   * Writes what was appended since the last write, in one call. A write that fails (a full disk)
   * is taken back whole — the pack is cut to what it held and the records leave the index — so
   * what follows lands where the index says it does, and nothing half-written is ever read.
   */
  private async writePending(): Promise<void> {
    if (this.pending.length === 0) return;
    const batch = this.pending;
    this.pending = [];
    this.pendingBytes = 0;
    this.pendingByKey.clear();
    try {
      this.handle ??= await fs.open(this.packPath(this.current), 'a', 0o600);
      await this.handle.writev(batch.map((r) => r.bytes));
    } catch (err) {
      await this.handle?.truncate(this.written).catch(() => undefined);
      for (const r of batch) this.index.delete(r.key);
      this.size = this.written;
      throw err;
    }
    this.written = this.size;
    this.dirty = true;
  }

  /** The content named `sha256`, checked against its name; an error when it is missing or damaged. */
  async get(sha256: string): Promise<Buffer> {
    if (!HEX64.test(sha256)) throw new Error(`not an object name: ${sha256.slice(0, 80)}`);
    // A store that left a record out reads its packs: what the damage took must show.
    const kept = this.index.has(`f${sha256}`) && !this.damaged ? recent.get(sha256) : undefined;
    if (kept) return kept;
    const recipe = JSON.parse((await this.read('f', sha256)).toString('utf8')) as { size: number; groups: string[] };
    const parts: Buffer[] = [];
    for (const g of recipe.groups) {
      const group = await this.read('g', g);
      if (sha(group).toString('hex') !== g) throw new Error(`checkpoint object ${g} is damaged`);
      for (let i = 0; i < group.length; i += 32) {
        const name = group.subarray(i, i + 32).toString('hex');
        const bytes = inflateRawSync(await this.read('c', name));
        if (sha(bytes).toString('hex') !== name) throw new Error(`checkpoint object ${name} is damaged`);
        parts.push(bytes);
      }
    }
    const content = Buffer.concat(parts);
    if (content.length !== recipe.size || sha(content).toString('hex') !== sha256) throw new Error(`checkpoint content ${sha256} is damaged`);
    recent.set(sha256, content);
    return content;
  }

  async close(): Promise<void> {
    await this.flush();
    await this.handle?.close();
    this.handle = null;
    const readers = [...this.readers.values()];
    this.readers.clear();
    for (const r of readers) await (await r.catch(() => null))?.close().catch(() => undefined);
  }

  private async read(kind: Kind, name: string): Promise<Buffer> {
    const place = this.index.get(`${kind}${name}`);
    if (!place) throw new Error(`checkpoint object ${name} is missing`);
    // Appended but not written yet: from memory.
    if (place.pack === this.current && place.offset >= this.written) {
      const r = this.pendingByKey.get(`${kind}${name}`);
      if (r) return Buffer.from(r.subarray(HEADER));
    }
    // One read descriptor per pack, kept until close (a diff reads hundreds of objects).
    let opening = this.readers.get(place.pack);
    if (!opening) {
      opening = fs.open(this.packPath(place.pack), 'r');
      this.readers.set(place.pack, opening);
      opening.catch(() => this.readers.delete(place.pack));
    }
    const h = await opening;
    const out = Buffer.alloc(place.length);
    const { bytesRead } = await h.read(out, 0, place.length, place.offset);
    if (bytesRead !== place.length) throw new Error(`checkpoint object ${name} is cut short`);
    return out;
  }

  /** Appends one record to the pack being written (a new pack past the size limit). The bytes added. */
  private async append(kind: Kind, name: Buffer, body: Uint8Array): Promise<number> {
    if (this.size + HEADER + body.length > PACK_LIMIT && this.size > 0) {
      await this.flush();
      await this.handle?.close();
      this.handle = null;
      this.current++;
      this.size = 0;
      this.written = 0;
    }
    const header = Buffer.alloc(HEADER);
    header.writeUInt16BE(MAGIC, 0);
    header[2] = KIND_BYTE[kind];
    name.copy(header, 3);
    header.writeUInt32BE(body.length, 35);
    digest8(body).copy(header, 39);
    const key = `${kind}${name.toString('hex')}`;
    const bytes = Buffer.concat([header, body]);
    this.pending.push({ key, bytes });
    this.pendingByKey.set(key, bytes);
    this.pendingBytes += HEADER + body.length;
    this.index.set(key, { pack: this.current, offset: this.size + HEADER, length: body.length });
    this.size += HEADER + body.length;
    if (this.pendingBytes >= PENDING_MAX) await this.writePending();
    return HEADER + body.length;
  }

}
