// PostgreSQL statements of what waits for a person across sessions (GET /v1/pending), of a page
// of the session list with its filters (tenant, labels, status), and of the tenants' logs.
import { storeInt, type PendingEntry, type PendingQuery, type SessionPageQuery, type TenantEvent } from './store.js';

/** A read of rows (synchronous, or not waited for). */
type Rows = Record<string, unknown>[];

/** A page of sessions, newest first (`columns`: what a SessionRecord is read from). */
export function sessionPageSelect(query: SessionPageQuery, columns: string): { sql: string; args: unknown[] } {
  const where: string[] = [];
  const args: unknown[] = [];
  if (query.tenant !== undefined) {
    args.push(query.tenant);
    where.push(`tenant = $${args.length}`);
  }
  if (query.after) {
    args.push(query.after.created_at, query.after.id);
    where.push(`(created_at, id) < ($${args.length - 1}, $${args.length})`);
  }
  where.push(...sessionFilters(query, args));
  args.push(storeInt(query.limit));
  return { sql: `SELECT ${columns} FROM sessions ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY created_at DESC, id DESC LIMIT $${args.length}`, args };
}

/** The WHERE parts of a session list's label and status filters, their values pushed onto `args`. */
function sessionFilters(query: SessionPageQuery, args: unknown[]): string[] {
  const where: string[] = [];
  if (query.status !== undefined) {
    args.push(query.status);
    where.push(`status = $${args.length}`);
  }
  for (const [key, value] of query.labels ?? []) {
    args.push(key, value);
    where.push(`(data::jsonb -> 'labels' ->> $${args.length - 1}) = $${args.length}`);
  }
  return where;
}

/** Pending permission requests and questions, oldest first, with their kind. */
export function pendingSelect(query: PendingQuery): { sql: string; args: unknown[] } {
  const args: unknown[] = [];
  let tenant = '';
  if (query.tenant !== undefined) {
    args.push(query.tenant);
    tenant = `AND s.tenant = $${args.length}`;
  }
  let after = '';
  if (query.after) {
    args.push(query.after.created_at, query.after.id);
    after = `WHERE (created COLLATE "C", id COLLATE "C") > ($${args.length - 1}, $${args.length})`;
  }
  args.push(storeInt(query.limit));
  return {
    sql:
      `SELECT kind, data FROM (` +
      `SELECT 'permission' AS kind, p.id AS id, (p.data::jsonb ->> 'created_at') AS created, p.data AS data FROM permissions p JOIN sessions s ON s.id = p.session_id WHERE p.status = 'pending' ${tenant} ` +
      `UNION ALL SELECT 'question', q.id, (q.data::jsonb ->> 'created_at'), q.data FROM questions q JOIN sessions s ON s.id = q.session_id WHERE q.status = 'pending' ${tenant}` +
      `) pending ${after} ORDER BY created COLLATE "C", id COLLATE "C" LIMIT $${args.length}`,
    args,
  };
}

/** How many requests and questions of each of `$1` (an array of session ids) are pending. */
export const pendingCountsSelect =
  `SELECT session_id, count(*) AS n FROM (SELECT session_id FROM permissions WHERE status = 'pending' AND session_id = ANY($1) ` +
  `UNION ALL SELECT session_id FROM questions WHERE status = 'pending' AND session_id = ANY($1)) c GROUP BY session_id`;

/** The tenant's log after a cursor (`<xid>-<gid>`), only what no running transaction can still precede. */
export const tenantEventsSelect =
  'SELECT t.xid::text AS xid, t.gid::text AS gid, e.data AS data FROM tenant_events t JOIN events e ON e.session_id = t.session_id AND e.seq = t.seq ' +
  'WHERE t.tenant = $1 AND (t.xid, t.gid) > ($2::text::xid8, $3::bigint) AND t.xid < pg_snapshot_xmin(pg_current_snapshot()) ORDER BY t.xid, t.gid LIMIT $4';

/** The newest readable entry of the tenant's log. */
export const tenantHeadSelect =
  'SELECT xid::text AS xid, gid::text AS gid FROM tenant_events WHERE tenant = $1 AND xid < pg_snapshot_xmin(pg_current_snapshot()) ORDER BY xid DESC, gid DESC LIMIT 1';

export const TENANT_CURSOR = /^([0-9]{1,20})-([0-9]{1,19})$/;

/** The parameters of tenantEventsSelect. */
export function tenantEventsArgs(tenant: string, after: string, limit: number): unknown[] {
  const m = TENANT_CURSOR.exec(after) ?? ['', '0', '0'];
  return [tenant, m[1], m[2], storeInt(limit)];
}

export function tenantCursorOf(row: Record<string, unknown> | undefined): string {
  return row ? `${String(row.xid)}-${String(row.gid)}` : '0-0';
}

/** The tenant's log after `after`, read with `read`. */
export function tenantEventsOf(rows: Rows): TenantEvent[] {
  return rows.map((r) => ({ cursor: tenantCursorOf(r), event: JSON.parse(String(r.data)) }));
}

/** Pending entries from pendingSelect's rows. */
export function pendingEntriesOf(rows: Rows): PendingEntry[] {
  return rows.map((r) =>
    r.kind === 'permission' ? { kind: 'permission', request: JSON.parse(String(r.data)) } : { kind: 'question', question: JSON.parse(String(r.data)) },
  );
}

/** Pending counts by session from pendingCountsSelect's rows. */
export function pendingCountsOf(rows: Rows): Map<string, number> {
  return new Map(rows.map((r) => [String(r.session_id), Number(r.n)]));
}
