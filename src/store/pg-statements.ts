// The PostgreSQL store's writes as statements (pg-store.ts sends them in its units of work). The
// fenced ones (a session's record and its events) are stored only by the node holding the
// session's lease, and say so when they were not (`expect`: the database checks it in the unit).
import type { NormaEvent } from '../contract/events.js';
import type { Decision } from '../contract/schemas.js';
import { recordJson } from '../evidence/chain.js';
import { fence } from './pg-schema.js';
import type { PgStatement } from './pg-sync.js';
import { sessionRowOf, type ColumnSealer } from './sqlite-rows.js';
import type { SessionRecord, StoredClientToolAnswer } from './store.js';

/** The session's record; the node that stores a session first holds its lease: one statement for both. */
export function putSessionStatement(record: SessionRecord, nodeId: string, sealer?: ColumnSealer): PgStatement {
  const s = record.session;
  return {
    sql: `WITH s AS (
            INSERT INTO sessions (id, created_at, status, closed_at, data, hooks, model_api_key, model, todos, mcp_servers, tenant, secrets, client_tools, active_turn_id)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)
            ON CONFLICT (id) DO UPDATE SET status = EXCLUDED.status, closed_at = EXCLUDED.closed_at, active_turn_id = EXCLUDED.active_turn_id,
              data = EXCLUDED.data, hooks = EXCLUDED.hooks, model_api_key = EXCLUDED.model_api_key, model = EXCLUDED.model,
              todos = EXCLUDED.todos, mcp_servers = EXCLUDED.mcp_servers, secrets = EXCLUDED.secrets, client_tools = EXCLUDED.client_tools
            WHERE ${fence('$1', '$15')}
            RETURNING id, (xmax = 0) AS inserted),
          l AS (INSERT INTO leases (session_id, node_id, epoch, acquired_at) SELECT id, $15, 1, now() FROM s WHERE inserted ON CONFLICT (session_id) DO NOTHING)
          SELECT id FROM s`,
    // The columns SQLite has, in its order (sqlite-rows.ts), then the active turn and this node.
    params: [...sessionRowOf(record, sealer), s.active_turn_id ?? null, nodeId],
    expect: { rows: 1, message: `session ${s.id} was not stored: another node holds its lease` },
  };
}

/** Everything stored of a session (retention). */
export function deleteSessionStatements(id: string): PgStatement[] {
  return ['sessions', 'turns', 'turn_results', 'permissions', 'questions', 'client_tool_requests', 'outputs', 'events', 'tenant_events', 'decisions', 'leases', 'commands', 'signed_heads'].map((table) => ({
    sql: `DELETE FROM ${table} WHERE ${table === 'sessions' ? 'id' : 'session_id'} = $1`,
    params: [id],
  }));
}

/** A permission request, question, client-tool request or output record, kept in the order first stored. */
export function putOrderedStatement(table: 'permissions' | 'questions' | 'client_tool_requests' | 'outputs', sessionId: string, id: string, value: unknown, status?: string): PgStatement {
  const json = JSON.stringify(value);
  const next = `(SELECT COALESCE(MAX(ord), 0) + 1 FROM ${table} WHERE session_id = $1)`;
  return status === undefined
    ? {
        sql: `INSERT INTO ${table} (session_id, id, ord, data) VALUES ($1, $2, ${next}, $3) ON CONFLICT (session_id, id) DO UPDATE SET data = EXCLUDED.data`,
        params: [sessionId, id, json],
      }
    : {
        sql: `INSERT INTO ${table} (session_id, id, ord, status, data) VALUES ($1, $2, ${next}, $3, $4)
              ON CONFLICT (session_id, id) DO UPDATE SET status = EXCLUDED.status, data = EXCLUDED.data`,
        params: [sessionId, id, status, json],
      };
}

/** An event: stored only by the lease holder, and only right after seq - 1 (no gap, no duplicate). */
export function appendEventStatement(event: NormaEvent, nodeId: string): PgStatement {
  return {
    sql: `INSERT INTO events (session_id, seq, type, turn_id, data)
          SELECT $1::text, $2::bigint, $3::text, $4::text, $5::text
          WHERE ($2::bigint = 1 OR EXISTS (SELECT 1 FROM events WHERE session_id = $1::text AND seq = $2::bigint - 1)) AND ${fence('$1', '$6')}`,
    params: [event.session_id, event.seq, event.type, (event as { turn_id?: string }).turn_id ?? null, recordJson(event), nodeId],
    expect: {
      rows: 1,
      message: `event ${event.seq} of session ${event.session_id} was not stored: another node holds the session's lease, or its events moved on (seq ${event.seq - 1} is not the last)`,
    },
  };
}

export function appendDecisionStatement(decision: Decision): PgStatement {
  return {
    sql: 'INSERT INTO decisions (session_id, seq, turn_id, tool_use_id, data) VALUES ($1, $2, $3, $4, $5)',
    params: [decision.session_id, decision.seq, decision.turn_id, decision.tool_use_id, recordJson(decision)],
  };
}

/** A client's answer kept beside its request (the request must be stored). */
export function clientToolAnswerStatement(sessionId: string, requestId: string, answer: StoredClientToolAnswer): PgStatement {
  return {
    sql: 'UPDATE client_tool_requests SET answer = $3 WHERE session_id = $1 AND id = $2',
    params: [sessionId, requestId, JSON.stringify(answer)],
    expect: { rows: 1, message: `client-tool request ${requestId} of session ${sessionId} is not stored` },
  };
}
