// Encryption at rest (NORMA_ENCRYPTION_KEY_FILE): a master key that only wraps keys, and a data
// key per tenant that seals values (AES-256-GCM). A data key is made on its tenant's first use,
// stored wrapped by the master key (store/keys.ts) and kept unwrapped in memory only. A rotation
// re-wraps the data keys under a new master key, so nothing sealed is rewritten.
//
// A sealed value is `nenc1.<data key id>.<base64url(nonce ‖ ciphertext ‖ tag)>`, its additional
// data the place it belongs to (column and session), so a value copied to another row or
// another tenant does not open. A stored value without the prefix was stored before encryption
// was on and is read as it is; it is sealed when next written.
import { constants as C, closeSync, fstatSync, openSync, readFileSync } from 'node:fs';
import { createCipheriv, createDecipheriv, createHash, randomBytes, scryptSync } from 'node:crypto';
import type { DataKeyRow, KeyStore } from './key-store.js';

export class EncryptionKeyError extends Error {}

const SEALED_PREFIX = 'nenc1.';
const DATA_KEY_ID = /^dk_[A-Za-z0-9_-]{16}$/;
/** The fixed salt of a passphrase's key derivation: the passphrase must be strong, and the key the same on every replica. */
const PASSPHRASE_SALT = 'norma-encryption-passphrase-v1';

export class MasterKey {
  private constructor(
    readonly id: string,
    readonly key: Buffer,
  ) {}

  static of(key: Buffer): MasterKey {
    if (key.length !== 32) throw new EncryptionKeyError(`a master key is 32 bytes, not ${key.length}`);
    return new MasterKey(`mk_${createHash('sha256').update('norma-master-key-id\n').update(key).digest('hex').slice(0, 16)}`, Buffer.from(key));
  }

  /**
   * The key in `file`: exactly 32 bytes, 64 hex digits, or `passphrase:` and a passphrase of at
   * least 16 characters (scrypt). Refused when others may read it or it is anything else.
   */
  static fromFile(file: string): MasterKey {
    let fd: number;
    try {
      fd = openSync(file, C.O_RDONLY | C.O_NOFOLLOW);
    } catch (err) {
      throw new EncryptionKeyError(`NORMA_ENCRYPTION_KEY_FILE ${file} cannot be opened: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
    }
    let raw: Buffer;
    try {
      const st = fstatSync(fd);
      if (!st.isFile()) throw new EncryptionKeyError(`NORMA_ENCRYPTION_KEY_FILE ${file} is not a regular file`);
      if ((st.mode & 0o077) !== 0) {
        throw new EncryptionKeyError(`NORMA_ENCRYPTION_KEY_FILE ${file} may be read by others (mode ${(st.mode & 0o777).toString(8).padStart(4, '0')}): make it 0600`);
      }
      if (st.size > 4096) throw new EncryptionKeyError(`NORMA_ENCRYPTION_KEY_FILE ${file} is ${st.size} bytes: not a key`);
      raw = readFileSync(fd);
    } finally {
      closeSync(fd);
    }
    if (raw.length === 32) return MasterKey.of(raw);
    const text = raw.toString('utf8').replace(/\r?\n$/, '');
    if (/^[0-9a-fA-F]{64}$/.test(text)) return MasterKey.of(Buffer.from(text, 'hex'));
    if (text.startsWith('passphrase:')) {
      const phrase = text.slice('passphrase:'.length);
      if ([...phrase].length < 16) throw new EncryptionKeyError(`NORMA_ENCRYPTION_KEY_FILE ${file}: the passphrase is shorter than 16 characters`);
      return MasterKey.of(scryptSync(phrase, PASSPHRASE_SALT, 32, { N: 1 << 15, r: 8, p: 1, maxmem: 64 * 1024 * 1024 }));
    }
    throw new EncryptionKeyError(
      `NORMA_ENCRYPTION_KEY_FILE ${file} holds ${raw.length} bytes: it must hold exactly 32 random bytes, 64 hex digits, or "passphrase:" followed by a passphrase of at least 16 characters`,
    );
  }
}

function gcmSeal(key: Buffer, plain: Buffer, aad: string): Buffer {
  const nonce = randomBytes(12);
  const c = createCipheriv('aes-256-gcm', key, nonce);
  c.setAAD(Buffer.from(aad));
  const body = Buffer.concat([c.update(plain), c.final()]);
  return Buffer.concat([nonce, body, c.getAuthTag()]);
}

function gcmOpen(key: Buffer, sealed: Buffer, aad: string): Buffer {
  if (sealed.length < 28) throw new Error('too short');
  const d = createDecipheriv('aes-256-gcm', key, sealed.subarray(0, 12));
  d.setAAD(Buffer.from(aad));
  d.setAuthTag(sealed.subarray(sealed.length - 16));
  return Buffer.concat([d.update(sealed.subarray(12, sealed.length - 16)), d.final()]);
}

const wrapAad = (tenant: string, id: string) => `norma-data-key\n${tenant}\n${id}`;

/** The data keys of a store under a master key: seals and opens values, and finds keys for sealed files. */
export class Sealer {
  private readonly byTenant = new Map<string, { id: string; key: Buffer }>();
  private readonly byId = new Map<string, Buffer>();
  /** Master keys this process held before a rotation: data keys another replica wrapped meanwhile still open. */
  private readonly previous: MasterKey[] = [];

  constructor(
    private master: MasterKey,
    private readonly keys: KeyStore,
    private readonly now: () => string,
    /** Reads the master key file again (a replica that meets a data key wrapped by a newer master key). */
    private readonly reread?: () => MasterKey,
  ) {}

  get masterKeyId(): string {
    return this.master.id;
  }

  /**
   * What was read of the store is forgotten (a SQLite transaction that made a data key rolled
   * back: the key is not stored, so it must not seal anything more).
   */
  rolledBack(): void {
    this.byTenant.clear();
    this.byId.clear();
  }

  /** Opens every stored data key; EncryptionKeyError naming the first this master key cannot open. */
  checkAll(): number {
    const rows = this.keys.dataKeys();
    for (const row of rows) this.adopt(row);
    return rows.length;
  }

  /** The tenant's data key, made (and stored wrapped) on first use. */
  dataKey(tenant: string): { id: string; key: Buffer } {
    const have = this.byTenant.get(tenant);
    if (have) return have;
    const found = this.keys.dataKeys().find((r) => r.tenant === tenant);
    if (found) return this.adopt(found);
    const key = randomBytes(32);
    const id = `dk_${randomBytes(12).toString('base64url')}`;
    const stored = this.keys.addDataKey({ tenant, id, wrapped: gcmSeal(this.master.key, key, wrapAad(tenant, id)).toString('base64'), master_key_id: this.master.id, created_at: this.now() });
    // Another replica may have made the tenant's key first: theirs is the one.
    return this.adopt(stored);
  }

  /** The data key of that id (a sealed file's header names it); undefined when the store has none. */
  keyById(id: string): Buffer | undefined {
    const have = this.byId.get(id);
    if (have) return have;
    const row = this.keys.dataKeys().find((r) => r.id === id);
    return row ? this.adopt(row).key : undefined;
  }

  /** `plain` sealed for `place` (e.g. `hooks:<session id>`) under the tenant's data key. */
  seal(tenant: string, place: string, plain: string): string {
    const { id, key } = this.dataKey(tenant);
    return `${SEALED_PREFIX}${id}.${gcmSeal(key, Buffer.from(plain), `${tenant}\n${place}`).toString('base64url')}`;
  }

  /** A stored value as it was sealed; a value stored before encryption was on is returned as it is. */
  open(tenant: string, place: string, stored: string): string {
    if (!stored.startsWith(SEALED_PREFIX)) return stored;
    const dot = stored.indexOf('.', SEALED_PREFIX.length);
    const id = stored.slice(SEALED_PREFIX.length, dot);
    const key = dot > 0 && DATA_KEY_ID.test(id) ? this.keyById(id) : undefined;
    if (!key) throw new EncryptionKeyError(`a sealed value of ${place} names data key ${JSON.stringify(id.slice(0, 40))}, which the store does not have`);
    try {
      return gcmOpen(key, Buffer.from(stored.slice(dot + 1), 'base64url'), `${tenant}\n${place}`).toString();
    } catch {
      throw new EncryptionKeyError(`the sealed value of ${place} does not open: it was changed, or sealed for another place or tenant`);
    }
  }

  /**
   * Re-wraps every data key under `next` (data stays as it is); `next` is the master key from
   * now on. Returns how many keys were re-wrapped.
   */
  rotate(next: MasterKey): number {
    const rows = this.keys.dataKeys();
    const byMaster = new Map<string, DataKeyRow[]>();
    for (const row of rows) {
      if (row.master_key_id === next.id) continue;
      const key = this.adopt(row).key;
      const rewrapped = { ...row, wrapped: gcmSeal(next.key, key, wrapAad(row.tenant, row.id)).toString('base64'), master_key_id: next.id };
      byMaster.set(row.master_key_id, [...(byMaster.get(row.master_key_id) ?? []), rewrapped]);
    }
    let n = 0;
    for (const [from, list] of byMaster) n += this.keys.rewrapDataKeys(list, from);
    if (next.id !== this.master.id) {
      this.previous.push(this.master);
      this.master = next;
    }
    return n;
  }

  private masterFor(id: string): MasterKey | undefined {
    if (id === this.master.id) return this.master;
    const old = this.previous.find((m) => m.id === id);
    if (old) return old;
    if (!this.reread) return undefined;
    // Another replica rotated: the key file holds the master key it wraps with now.
    let fresh: MasterKey;
    try {
      fresh = this.reread();
    } catch {
      return undefined;
    }
    if (fresh.id !== id) return undefined;
    this.previous.push(this.master);
    this.master = fresh;
    return fresh;
  }

  private adopt(row: DataKeyRow): { id: string; key: Buffer } {
    const cached = this.byId.get(row.id);
    if (cached) return { id: row.id, key: cached };
    const master = this.masterFor(row.master_key_id);
    if (!master) {
      throw new EncryptionKeyError(
        `the data key of tenant ${row.tenant} was wrapped by master key ${row.master_key_id}, and NORMA_ENCRYPTION_KEY_FILE holds ${this.master.id}: start with the key the data was sealed with`,
      );
    }
    let key: Buffer;
    try {
      key = gcmOpen(master.key, Buffer.from(row.wrapped, 'base64'), wrapAad(row.tenant, row.id));
    } catch {
      throw new EncryptionKeyError(`the data key of tenant ${row.tenant} (${row.id}) does not open under master key ${master.id}: it was changed in the store`);
    }
    if (key.length !== 32) throw new EncryptionKeyError(`the data key of tenant ${row.tenant} (${row.id}) is not 32 bytes`);
    this.byId.set(row.id, key);
    this.byTenant.set(row.tenant, { id: row.id, key });
    return { id: row.id, key };
  }
}
