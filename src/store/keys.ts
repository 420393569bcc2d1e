// What the evidence and encryption keep in the store beside the sessions: the public half of
// every signing key the servers have used (GET /v1/signing-key lists past keys after a
// rotation), each session's last signed chain head, and each tenant's data key, wrapped by the
// master key (never stored unwrapped). Written outside the sessions' units of work: a key or a
// head is committed when the call returns, and a head is only ever signed over what had committed.
import type Database from 'better-sqlite3';
import type { PublicJwk, SignedHead } from '../evidence/signing.js';
import type { CommittedHead, DataKeyRow, KeyStore, SigningKeyRow } from '../evidence/key-store.js';
import type { SyncPg } from './pg-sync.js';

export type { DataKeyRow, KeyStore, SigningKeyRow } from '../evidence/key-store.js';

type HeadRow = { seq: number | string; data: string } | undefined;

function headOf(row: HeadRow): { seq: number; hash: string | null } {
  if (!row) return { seq: 0, hash: null };
  const h = (JSON.parse(row.data) as { hash?: unknown }).hash;
  return { seq: Number(row.seq), hash: typeof h === 'string' ? h : null };
}

function hashOrNull(h: unknown): string | null {
  return typeof h === 'string' ? h : null;
}

function dataKeyOf(r: Record<string, unknown>): DataKeyRow {
  return { tenant: String(r.tenant), id: String(r.id), wrapped: String(r.wrapped), master_key_id: String(r.master_key_id), created_at: String(r.created_at) };
}

/** The tables, for SQLite's and PostgreSQL's migrations alike. */
export const KEY_TABLES = `
  CREATE TABLE signing_keys (key_id TEXT PRIMARY KEY, jwk TEXT NOT NULL, created_at TEXT NOT NULL);
  CREATE TABLE signed_heads (session_id TEXT PRIMARY KEY, data TEXT NOT NULL);
  CREATE TABLE data_keys (tenant TEXT PRIMARY KEY, id TEXT NOT NULL UNIQUE, wrapped TEXT NOT NULL, master_key_id TEXT NOT NULL, created_at TEXT NOT NULL);
`;

export class SqliteKeys implements KeyStore {
  constructor(private readonly db: () => Database.Database) {}

  addSigningKey(row: SigningKeyRow): void {
    this.db().prepare('INSERT OR IGNORE INTO signing_keys (key_id, jwk, created_at) VALUES (?, ?, ?)').run(row.key_id, JSON.stringify(row.jwk), row.created_at);
  }

  signingKeys(): SigningKeyRow[] {
    return (this.db().prepare('SELECT key_id, jwk, created_at FROM signing_keys ORDER BY created_at, key_id').all() as { key_id: string; jwk: string; created_at: string }[]).map((r) => ({
      key_id: r.key_id,
      jwk: JSON.parse(r.jwk) as PublicJwk,
      created_at: r.created_at,
    }));
  }

  putSignedHeads(heads: readonly SignedHead[]): void {
    const db = this.db();
    const put = db.prepare(
      'INSERT INTO signed_heads (session_id, data) SELECT ?, ? WHERE EXISTS (SELECT 1 FROM sessions WHERE id = ?) ON CONFLICT (session_id) DO UPDATE SET data = excluded.data',
    );
    db.transaction(() => {
      for (const h of heads) put.run(h.session_id, JSON.stringify(h), h.session_id);
    })();
  }

  signedHead(sessionId: string): SignedHead | undefined {
    return this.signedHeads([sessionId]).get(sessionId);
  }

  signedHeads(sessionIds: readonly string[]): Map<string, SignedHead> {
    const get = this.db().prepare('SELECT data FROM signed_heads WHERE session_id = ?');
    const out = new Map<string, SignedHead>();
    for (const id of sessionIds) {
      const row = get.get(id) as { data: string } | undefined;
      if (row) out.set(id, JSON.parse(row.data) as SignedHead);
    }
    return out;
  }

  hashesAt(chain: 'events' | 'decisions', points: readonly (readonly [string, number])[]): Map<string, string | null> {
    const get = this.db().prepare(`SELECT json_extract(data, '$.hash') AS hash FROM ${chain} WHERE session_id = ? AND seq = ?`);
    return new Map(points.map(([id, seq]) => [id, hashOrNull((get.get(id, seq) as { hash: unknown } | undefined)?.hash)]));
  }

  committedHeads(sessionIds: readonly string[]): Map<string, CommittedHead> {
    const db = this.db();
    const last = (table: string) => db.prepare(`SELECT seq, data FROM ${table} WHERE session_id = ? ORDER BY seq DESC LIMIT 1`);
    const [events, decisions] = [last('events'), last('decisions')];
    return new Map(sessionIds.map((id) => [id, { events: headOf(events.get(id) as HeadRow), decisions: headOf(decisions.get(id) as HeadRow) }]));
  }

  dataKeys(): DataKeyRow[] {
    return (this.db().prepare('SELECT tenant, id, wrapped, master_key_id, created_at FROM data_keys ORDER BY tenant').all() as Record<string, unknown>[]).map(dataKeyOf);
  }

  addDataKey(row: DataKeyRow): DataKeyRow {
    const db = this.db();
    db.prepare('INSERT OR IGNORE INTO data_keys (tenant, id, wrapped, master_key_id, created_at) VALUES (?, ?, ?, ?, ?)').run(row.tenant, row.id, row.wrapped, row.master_key_id, row.created_at);
    return dataKeyOf(db.prepare('SELECT tenant, id, wrapped, master_key_id, created_at FROM data_keys WHERE tenant = ?').get(row.tenant) as Record<string, unknown>);
  }

  rewrapDataKeys(rows: readonly DataKeyRow[], from: string): number {
    const db = this.db();
    const update = db.prepare('UPDATE data_keys SET wrapped = ?, master_key_id = ? WHERE id = ? AND master_key_id = ?');
    return db.transaction(() => rows.reduce((n, r) => n + update.run(r.wrapped, r.master_key_id, r.id, from).changes, 0))();
  }
}

export class PgKeys implements KeyStore {
  /** `read`: a read after every unit of work this process sent (what it wrote has committed). */
  constructor(
    private readonly db: SyncPg,
    private readonly read: (sql: string, params: unknown[]) => Record<string, unknown>[],
  ) {}

  addSigningKey(row: SigningKeyRow): void {
    this.db.run([{ sql: 'INSERT INTO signing_keys (key_id, jwk, created_at) VALUES ($1, $2, $3) ON CONFLICT (key_id) DO NOTHING', params: [row.key_id, JSON.stringify(row.jwk), row.created_at] }]);
  }

  signingKeys(): SigningKeyRow[] {
    return this.db.query('SELECT key_id, jwk, created_at FROM signing_keys ORDER BY created_at, key_id').map((r) => ({
      key_id: String(r.key_id),
      jwk: JSON.parse(String(r.jwk)) as PublicJwk,
      created_at: String(r.created_at),
    }));
  }

  putSignedHeads(heads: readonly SignedHead[]): void {
    if (heads.length === 0) return;
    this.db.run([
      {
        sql: `INSERT INTO signed_heads (session_id, data)
              SELECT v.id, v.data FROM unnest($1::text[], $2::text[]) AS v(id, data) WHERE EXISTS (SELECT 1 FROM sessions s WHERE s.id = v.id)
              ON CONFLICT (session_id) DO UPDATE SET data = EXCLUDED.data`,
        params: [heads.map((h) => h.session_id), heads.map((h) => JSON.stringify(h))],
      },
    ]);
  }

  signedHead(sessionId: string): SignedHead | undefined {
    return this.signedHeads([sessionId]).get(sessionId);
  }

  signedHeads(sessionIds: readonly string[]): Map<string, SignedHead> {
    const rows = this.db.query('SELECT session_id, data FROM signed_heads WHERE session_id = ANY($1::text[])', [[...sessionIds]]);
    return new Map(rows.map((r) => [String(r.session_id), JSON.parse(String(r.data)) as SignedHead]));
  }

  hashesAt(chain: 'events' | 'decisions', points: readonly (readonly [string, number])[]): Map<string, string | null> {
    if (points.length === 0) return new Map();
    const rows = this.read(
      `SELECT v.id, t.data::jsonb->>'hash' AS hash FROM unnest($1::text[], $2::bigint[]) AS v(id, seq) LEFT JOIN ${chain} t ON t.session_id = v.id AND t.seq = v.seq`,
      [points.map((p) => p[0]), points.map((p) => p[1])],
    );
    return new Map(rows.map((r) => [String(r.id), hashOrNull(r.hash)]));
  }

  committedHeads(sessionIds: readonly string[]): Map<string, CommittedHead> {
    // One round trip for them all: each session's last row of each table, by the primary key.
    const last = (table: string) => `LEFT JOIN LATERAL (SELECT seq, data FROM ${table} WHERE session_id = s.id ORDER BY seq DESC LIMIT 1) ${table[0]} ON true`;
    const rows = this.read(`SELECT s.id, e.seq AS e_seq, e.data AS e_data, d.seq AS d_seq, d.data AS d_data FROM unnest($1::text[]) AS s(id) ${last('events')} ${last('decisions')}`, [
      [...sessionIds],
    ]);
    const out = new Map<string, CommittedHead>();
    for (const r of rows) {
      const point = (seq: unknown, data: unknown): HeadRow => (data === null || data === undefined ? undefined : { seq: Number(seq), data: String(data) });
      out.set(String(r.id), { events: headOf(point(r.e_seq, r.e_data)), decisions: headOf(point(r.d_seq, r.d_data)) });
    }
    return out;
  }

  dataKeys(): DataKeyRow[] {
    return this.db.query('SELECT tenant, id, wrapped, master_key_id, created_at FROM data_keys ORDER BY tenant').map(dataKeyOf);
  }

  addDataKey(row: DataKeyRow): DataKeyRow {
    const rows = this.db.run([
      {
        sql: 'INSERT INTO data_keys (tenant, id, wrapped, master_key_id, created_at) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (tenant) DO NOTHING',
        params: [row.tenant, row.id, row.wrapped, row.master_key_id, row.created_at],
      },
      { sql: 'SELECT tenant, id, wrapped, master_key_id, created_at FROM data_keys WHERE tenant = $1', params: [row.tenant] },
    ]);
    return dataKeyOf(rows[0]!);
  }

  rewrapDataKeys(rows: readonly DataKeyRow[], from: string): number {
    if (rows.length === 0) return 0;
    // One statement: every row changes, or none does.
    const out = this.db.run([
      {
        sql: `UPDATE data_keys d SET wrapped = v.wrapped, master_key_id = v.master FROM unnest($1::text[], $2::text[], $3::text[]) AS v(id, wrapped, master)
              WHERE d.id = v.id AND d.master_key_id = $4 RETURNING d.id`,
        params: [rows.map((r) => r.id), rows.map((r) => r.wrapped), rows.map((r) => r.master_key_id), from],
      },
    ]);
    return out.length;
  }
}

export class MemoryKeys implements KeyStore {
  private readonly signing = new Map<string, SigningKeyRow>();
  private readonly heads = new Map<string, SignedHead>();
  private readonly data = new Map<string, DataKeyRow>();

  constructor(
    private readonly head: (sessionId: string) => CommittedHead,
    /** A session's stored events or decisions, seq n at index n - 1. */
    private readonly records: (chain: 'events' | 'decisions', sessionId: string) => readonly { hash?: string }[] = () => [],
  ) {}

  addSigningKey(row: SigningKeyRow): void {
    if (!this.signing.has(row.key_id)) this.signing.set(row.key_id, structuredClone(row));
  }
  signingKeys(): SigningKeyRow[] {
    return [...this.signing.values()].map((r) => structuredClone(r));
  }
  putSignedHeads(heads: readonly SignedHead[]): void {
    for (const h of heads) this.heads.set(h.session_id, structuredClone(h));
  }
  signedHead(sessionId: string): SignedHead | undefined {
    const h = this.heads.get(sessionId);
    return h && structuredClone(h);
  }
  signedHeads(sessionIds: readonly string[]): Map<string, SignedHead> {
    return new Map(sessionIds.flatMap((id) => (this.heads.has(id) ? [[id, structuredClone(this.heads.get(id)!)] as const] : [])));
  }
  hashesAt(chain: 'events' | 'decisions', points: readonly (readonly [string, number])[]): Map<string, string | null> {
    return new Map(points.map(([id, seq]) => [id, this.records(chain, id)[seq - 1]?.hash ?? null]));
  }
  committedHeads(sessionIds: readonly string[]): Map<string, CommittedHead> {
    return new Map(sessionIds.map((id) => [id, this.head(id)]));
  }
  dataKeys(): DataKeyRow[] {
    return [...this.data.values()].map((r) => ({ ...r }));
  }
  addDataKey(row: DataKeyRow): DataKeyRow {
    if (!this.data.has(row.tenant)) this.data.set(row.tenant, { ...row });
    return { ...this.data.get(row.tenant)! };
  }
  rewrapDataKeys(rows: readonly DataKeyRow[], from: string): number {
    let n = 0;
    for (const r of rows) {
      const have = this.data.get(r.tenant);
      if (have && have.id === r.id && have.master_key_id === from) {
        this.data.set(r.tenant, { ...r });
        n++;
      }
    }
    return n;
  }
}
