// Idempotency keys in PostgreSQL (idempotency.ts says what they are), shared by every replica. A
// key's holder is the replica that took it for a request: the request is still being answered
// while that replica's process is the one that took it (`boot`, this process) or is alive (its
// node lock held) and started before the claim; otherwise the process that held it is gone.
// Taking a key over is conditional on what was read (its token, and no value settled), so of a
// retry and a settle racing for a key, one wins, in the database.
import { judgeKey, KeyTakenError, newKeyToken, type IdempotencyKeys, type KeptWork, type KeyClaim, type KeyState, type StoredResponse } from './idempotency.js';
import { liveNode } from './pg-schema.js';
import type { PgStatement } from './pg-sync.js';

const KEY = 'tenant = $1 AND key = $2';

export class PgIdempotency implements IdempotencyKeys {
  private readonly boot = newKeyToken();

  constructor(
    /** Reads through the store (inside its open transaction when there is one). */
    private readonly read: (sql: string, params: unknown[]) => Record<string, unknown>[],
    /** Writes through the store (joining its open transaction, else one of their own). */
    private readonly write: (...s: PgStatement[]) => void,
    private readonly nodeId: string,
  ) {}

  claim(c: KeyClaim): KeyState {
    // A few rounds at most: each one that does not decide saw the key change under it.
    for (let round = 0; round < 4; round++) {
      const token = newKeyToken();
      const mine: KeyState = { kind: 'new', work: { tenant: c.tenant, key: c.key, token } };
      const inserted = this.read(
        `INSERT INTO idempotency_keys (tenant, key, fingerprint, token, holder, boot, expires_ms) VALUES ($1, $2, $3, $4, $5, $6, $7)
         ON CONFLICT (tenant, key) DO NOTHING RETURNING token`,
        [c.tenant, c.key, c.fingerprint, token, this.nodeId, this.boot, c.expiresAt],
      );
      if (inserted.length > 0) return mine;
      const row = this.read(
        `SELECT fingerprint, token, value, response, finished, expires_ms,
           (ik.boot = $3 OR (${liveNode('ik.holder')} AND (SELECT nd.started_at FROM nodes nd WHERE nd.node_id = ik.holder) <= ik.created_at)) AS alive
         FROM idempotency_keys ik WHERE ${KEY}`,
        [c.tenant, c.key, this.boot],
      )[0];
      if (!row) continue;
      const judged = judgeKey(
        {
          fingerprint: row.fingerprint as string,
          token: row.token as string,
          value: row.value as string | null,
          response: row.response as string | null,
          finished: row.finished === true,
          expiresAt: Number(row.expires_ms),
          alive: row.alive === true,
        },
        c,
      );
      if (judged !== 'expired' && judged !== 'retake') return judged;
      // A stale key is replaced whatever it holds; one whose holder died is taken only while
      // nothing was settled under it (a settle that commits first wins).
      const taken = this.read(
        `UPDATE idempotency_keys SET fingerprint = $3, token = $4, holder = $5, boot = $6, created_at = now(), expires_ms = $7, value = NULL, response = NULL, finished = false
         WHERE ${KEY} AND token = $8 ${judged === 'retake' ? 'AND value IS NULL AND response IS NULL' : ''} RETURNING token`,
        [c.tenant, c.key, c.fingerprint, token, this.nodeId, this.boot, c.expiresAt, row.token],
      );
      if (taken.length > 0) return mine;
    }
    return { kind: 'in_flight' };
  }

  settle(work: KeptWork, value: unknown): void {
    this.write({
      sql: `UPDATE idempotency_keys SET value = $4 WHERE ${KEY} AND token = $3 AND value IS NULL AND NOT finished`,
      params: [work.tenant, work.key, work.token, JSON.stringify(value)],
      expect: { rows: 1, message: new KeyTakenError(work).message },
    });
  }

  finish(work: KeptWork, response: StoredResponse): void {
    this.write({ sql: `UPDATE idempotency_keys SET response = $4, finished = true WHERE ${KEY} AND token = $3`, params: [work.tenant, work.key, work.token, JSON.stringify(response)] });
  }

  release(work: KeptWork): void {
    // Nothing settled: the key goes (a retry does the work). Something settled: it stays, finished.
    this.write(
      { sql: `DELETE FROM idempotency_keys WHERE ${KEY} AND token = $3 AND value IS NULL`, params: [work.tenant, work.key, work.token] },
      { sql: `UPDATE idempotency_keys SET finished = true WHERE ${KEY} AND token = $3`, params: [work.tenant, work.key, work.token] },
    );
  }

  sweep(now: number): number {
    return this.read('DELETE FROM idempotency_keys WHERE expires_ms <= $1 RETURNING 1 AS gone', [now]).length;
  }
}
