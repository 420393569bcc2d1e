// The PostgreSQL store's reads that do not hold the server's thread while the database answers
// (LaterReads): what a node reads of sessions another node runs, and the tenant streams' log.
import type { NormaEvent } from '../contract/events.js';
import type { SyncPg } from './pg-sync.js';
import { PgTurns } from './pg-turns.js';
import { tenantCursorOf, tenantEventsArgs, tenantEventsOf, tenantEventsSelect, tenantHeadSelect } from './pg-inbox.js';
import { documentsOf } from './sqlite-rows.js';
import { storeInt as big, type LaterReads } from './store.js';

/** Each read waits only for this process's own units of the session it names (none for a tenant's log). */
export function laterReads(db: SyncPg): LaterReads {
  return {
    lastSeq: async (sessionId) => Number((await db.read('SELECT COALESCE(MAX(seq), 0) AS n FROM events WHERE session_id = $1', [sessionId], [sessionId]))[0]!.n),
    tenantOf: async (sessionId) => (await db.read('SELECT tenant FROM sessions WHERE id = $1', [sessionId], [sessionId]))[0]?.tenant as string | undefined,
    getTurn: async (sessionId, turnId) => {
      const read = (sql: string, params: unknown[]) => db.read(sql, params, [sessionId]);
      return PgTurns.getLater(read, sessionId, turnId);
    },
    eventsAfter: async (sessionId, afterSeq, limit) =>
      documentsOf<NormaEvent>(await db.read('SELECT data FROM events WHERE session_id = $1 AND seq > $2 ORDER BY seq LIMIT $3', [sessionId, big(afterSeq), big(limit)], [sessionId])),
    tenantEventsAfter: async (tenant, after, limit) => tenantEventsOf(await db.read(tenantEventsSelect, tenantEventsArgs(tenant, after, limit), [])),
    tenantHead: async (tenant) => tenantCursorOf((await db.read(tenantHeadSelect, [tenant], []))[0]),
  };
}
