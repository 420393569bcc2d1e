// What replicas share in PostgreSQL besides the Store: short-lived tokens (event tickets, console
// logins) by their SHA-256, and the fixed windows of requests_per_minute. Each call is one request
// to the database thread; a token's insert and the trim of its group go together.
import { storeInt } from './store.js';
import type { SyncPg } from './pg-sync.js';
import type { TokenRecord, TokenShelf } from './tokens.js';

function tokenOf(row: Record<string, unknown> | undefined): TokenRecord | null {
  return row ? { data: row.data as string, expiresAt: Number(row.expires_ms) } : null;
}

export function pgTokens(db: SyncPg): TokenShelf {
  return {
    put: (kind, digest, group, data, now, expiresAt, keep) => {
      db.request({
        begin: true,
        statements: [
          { sql: 'INSERT INTO tokens (kind, digest, grp, data, created_ms, expires_ms) VALUES ($1, $2, $3, $4, $5, $6)', params: [kind, digest, group, data, now, expiresAt] },
          // Of the group, the newest `keep` stay.
          {
            sql: `DELETE FROM tokens WHERE kind = $1 AND grp = $2 AND digest IN (
                    SELECT digest FROM tokens WHERE kind = $1 AND grp = $2 ORDER BY created_ms DESC, digest OFFSET $3)`,
            params: [kind, group, storeInt(keep)],
          },
        ],
        end: 'commit',
      });
    },
    count: (kind, group, now) => Number(db.query('SELECT count(*) AS n FROM tokens WHERE kind = $1 AND grp = $2 AND expires_ms > $3', [kind, group, now])[0]!.n),
    take: (kind, digest) => tokenOf(db.query('DELETE FROM tokens WHERE kind = $1 AND digest = $2 RETURNING data, expires_ms', [kind, digest])[0]),
    find: (kind, digest, now) => tokenOf(db.query('SELECT data, expires_ms FROM tokens WHERE kind = $1 AND digest = $2 AND expires_ms > $3', [kind, digest, now])[0]),
    drop: (kind, digest) => db.request({ statements: [{ sql: 'DELETE FROM tokens WHERE kind = $1 AND digest = $2', params: [kind, digest] }] }).rowCount > 0,
    sweep: (kind, now) => void db.query('DELETE FROM tokens WHERE kind = $1 AND expires_ms <= $2', [kind, now]),
  };
}

/** Counts a request against `key`'s fixed window of `windowMs`: the count in the current window and the milliseconds left in it. */
export function countRequest(db: SyncPg, key: string, now: number, windowMs: number): { count: number; ttl: number } {
  const row = db.query(
    `INSERT INTO rate_windows (key, started_ms, count) VALUES ($1, $2, 1)
     ON CONFLICT (key) DO UPDATE SET
       count = CASE WHEN rate_windows.started_ms + $3 > $2 THEN rate_windows.count + 1 ELSE 1 END,
       started_ms = CASE WHEN rate_windows.started_ms + $3 > $2 THEN rate_windows.started_ms ELSE $2 END
     RETURNING count, started_ms`,
    [key, now, windowMs],
  )[0]!;
  return { count: Number(row.count), ttl: Math.max(0, Number(row.started_ms) + windowMs - now) };
}
