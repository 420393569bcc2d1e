// Idempotency keys in the SQLite store (idempotency.ts says what they are). One server has the
// file, so a key's holder is alive exactly while it is this process (`boot`): a key a previous
// process held and did not settle is taken by the next retry, one it settled is answered with.
// Every statement runs through the store's statements, inside its transaction when there is one.
import type Database from 'better-sqlite3';
import { judgeKey, KeyTakenError, newKeyToken, type IdempotencyKeys, type KeptWork, type KeyClaim, type KeyState, type StoredResponse } from './idempotency.js';

type Row = { fingerprint: string; token: string; value: string | null; response: string | null; finished: number; expires_ms: number; boot: string };

export class SqliteIdempotency implements IdempotencyKeys {
  private readonly boot = newKeyToken();

  constructor(
    private readonly stmt: (sql: string) => Database.Statement,
    /** Runs `fn` in the store's transaction (joining the open one). */
    private readonly write: (fn: () => void) => void,
  ) {}

  claim(c: KeyClaim): KeyState {
    let state: KeyState = { kind: 'in_flight' };
    // Read and written in one transaction: nothing else runs in this process meanwhile, and no other process has the file.
    this.write(() => {
      const row = this.stmt('SELECT fingerprint, token, value, response, finished, expires_ms, boot FROM idempotency_keys WHERE tenant = ? AND key = ?').get(c.tenant, c.key) as Row | undefined;
      const judged = row
        ? judgeKey({ ...row, finished: row.finished === 1, expiresAt: row.expires_ms, alive: row.boot === this.boot }, c)
        : 'expired';
      if (judged !== 'expired' && judged !== 'retake') {
        state = judged;
        return;
      }
      const token = newKeyToken();
      this.stmt(
        `INSERT INTO idempotency_keys (tenant, key, fingerprint, token, boot, expires_ms, value, response, finished) VALUES (?, ?, ?, ?, ?, ?, NULL, NULL, 0)
         ON CONFLICT (tenant, key) DO UPDATE SET fingerprint = excluded.fingerprint, token = excluded.token, boot = excluded.boot,
           expires_ms = excluded.expires_ms, value = NULL, response = NULL, finished = 0`,
      ).run(c.tenant, c.key, c.fingerprint, token, this.boot, c.expiresAt);
      state = { kind: 'new', work: { tenant: c.tenant, key: c.key, token } };
    });
    return state;
  }

  settle(work: KeptWork, value: unknown): void {
    this.write(() => {
      const changed = this.stmt('UPDATE idempotency_keys SET value = ? WHERE tenant = ? AND key = ? AND token = ? AND value IS NULL AND finished = 0').run(
        JSON.stringify(value),
        work.tenant,
        work.key,
        work.token,
      ).changes;
      if (changed !== 1) throw new KeyTakenError(work);
    });
  }

  finish(work: KeptWork, response: StoredResponse): void {
    this.write(() => {
      this.stmt('UPDATE idempotency_keys SET response = ?, finished = 1 WHERE tenant = ? AND key = ? AND token = ?').run(JSON.stringify(response), work.tenant, work.key, work.token);
    });
  }

  release(work: KeptWork): void {
    this.write(() => {
      this.stmt('DELETE FROM idempotency_keys WHERE tenant = ? AND key = ? AND token = ? AND value IS NULL').run(work.tenant, work.key, work.token);
      this.stmt('UPDATE idempotency_keys SET finished = 1 WHERE tenant = ? AND key = ? AND token = ?').run(work.tenant, work.key, work.token);
    });
  }

  sweep(now: number): number {
    let n = 0;
    this.write(() => {
      n = this.stmt('DELETE FROM idempotency_keys WHERE expires_ms <= ?').run(now).changes;
    });
    return n;
  }
}
