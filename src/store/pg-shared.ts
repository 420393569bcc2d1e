// What replicas share in PostgreSQL besides the Store: short-lived tokens (event tickets, console
// logins) by their SHA-256, and the fixed windows of requests_per_minute. Each call is one request
// to the database thread; a token's insert and the trim of its group go together. Also the
// statements of the store's part in commands and tenant limits.
import { storeInt } from './store.js';
import type { PgStatement, SyncPg } from './pg-sync.js';
import { TENANT_LOCK_CLASS } from './pg-schema.js';
import { sessionRecordOf, type ColumnSealer } from './sqlite-rows.js';
import type { SessionRecord } from './store.js';

export const SESSION_COLUMNS = 'data, active_turn_id, hooks, model_api_key, model, todos, mcp_servers, secrets, client_tools';

/** A session row: SQLite's columns (sqlite-rows.ts) and the active turn, which has a column of its own here. */
export function recordOf(row: Record<string, unknown> | undefined, sealer?: ColumnSealer): SessionRecord | undefined {
  const record = sessionRecordOf(row as Parameters<typeof sessionRecordOf>[0], sealer);
  if (record) record.session.active_turn_id = (row!.active_turn_id as string | null) ?? null;
  return record;
}
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

/** The database URL without its password, for messages and /readyz. */
export function describeUrl(url: string): string {
  try {
    const u = new URL(url);
    u.password = '';
    return `${u.protocol}//${u.username ? `${u.username}@` : ''}${u.host}${u.pathname}`;
  } catch {
    return 'an unparseable database URL';
  }
}

/** A pending command taken by `nodeId` (pending → taken), unless its sender abandoned it or it expired. */
export function claimCommandStatement(commandId: number, nodeId: string): PgStatement {
  return {
    sql: `UPDATE commands SET state = 'taken', taken_by = $2 WHERE id = $1 AND state = 'pending' AND (expires_at IS NULL OR expires_at > clock_timestamp()) RETURNING id`,
    params: [commandId, nodeId],
  };
}

/** The answer of a command `nodeId` took (taken → done), waking its sender; fails its transaction otherwise. */
export function completeCommandStatement(commandId: number, outcome: string, nodeId: string): PgStatement {
  return {
    sql: `WITH u AS (UPDATE commands SET outcome = $2, done_at = now(), state = 'done' WHERE id = $1 AND outcome IS NULL AND state = 'taken' AND taken_by = $3 RETURNING id)
          SELECT pg_notify('norma_done', id::text) FROM u`,
    params: [commandId, outcome, nodeId],
    expect: { rows: 1, message: `command ${commandId} was answered already` },
  };
}

/** The tenant's transaction lock: taken first by every transaction that adds a session or a turn of the tenant. */
export function tenantLockStatement(tenant: string): PgStatement {
  return { sql: `SELECT pg_advisory_xact_lock(${TENANT_LOCK_CLASS}, hashtext($1))`, params: [tenant] };
}

/** Counts a tenant's active sessions ($1), or those with a turn. */
export function tenantCountSql(withTurn: boolean): string {
  return `SELECT count(*) AS n FROM sessions WHERE tenant = $1 AND status = 'active'${withTurn ? ' AND active_turn_id IS NOT NULL' : ''}`;
}
