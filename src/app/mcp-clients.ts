// MCP clients of a session (API.md "Norma as an MCP server"): the record that an MCP session at
// /mcp was opened on a session, and that it ended. The record is an event of the session, so it
// is in the audit trail and its chain, and any replica (or this server after a restart) can take
// the MCP session up again from it: the MCP session id is not stored, only its SHA-256.
import type { EventInput } from '../contract/events.js';
import { DomainError } from '../errors.js';
import type { Parts } from './parts.js';
import type { Scope } from './scope.js';

export type McpClientRecord = Omit<Extract<EventInput, { type: 'mcp.client.connected' }>, 'type'>;

/** The records of a session's MCP sessions are read this many at a time. */
const LOOKUP_PAGE = 1_000;

export class McpClientUseCases {
  constructor(private readonly parts: Parts) {}

  /** Records a connection (run where the session runs: its events are appended there). */
  connected(scope: Scope, sessionId: string, record: McpClientRecord): void {
    this.live(scope, sessionId);
    this.parts.deps.store.transaction(() => this.parts.deps.events.emit(sessionId, { type: 'mcp.client.connected', ...record }));
  }

  /** Records the end of an MCP session. */
  closed(scope: Scope, sessionId: string, mcpSession: string, sessionClosed: boolean): void {
    this.live(scope, sessionId);
    this.parts.deps.store.transaction(() => this.parts.deps.events.emit(sessionId, { type: 'mcp.client.closed', mcp_session: mcpSession, session_closed: sessionClosed }));
  }

  /**
   * The connection record of an MCP session of this session that has not ended, or null (never
   * opened here, ended, or the session is another tenant's: 404 then).
   */
  find(scope: Scope, sessionId: string, mcpSession: string): McpClientRecord | null {
    this.parts.records.get(sessionId, scope.tenant);
    let found: McpClientRecord | null = null;
    // Every record of the session, a page at a time: a closing record may come after any number of others.
    for (let after = 0; ; ) {
      const events = this.parts.deps.store.eventsOfTypes(sessionId, ['mcp.client.connected', 'mcp.client.closed'], after, LOOKUP_PAGE);
      for (const e of events) {
        after = e.seq;
        if (!('mcp_session' in e) || e.mcp_session !== mcpSession) continue;
        if (e.type === 'mcp.client.closed') return null;
        if (e.type === 'mcp.client.connected') {
          const { type: _t, session_id: _s, seq: _q, time: _w, hash: _h, ...record } = e;
          found = record;
        }
      }
      if (events.length < LOOKUP_PAGE) return found;
    }
  }

  /** 404 for another tenant's session, 409 for a closed one; the runtime must be here. */
  private live(scope: Scope, sessionId: string): void {
    const { session } = this.parts.records.get(sessionId, scope.tenant);
    if (session.status !== 'active') throw new DomainError('conflict', `session ${sessionId} is closed`);
    this.parts.runtimes.require(sessionId);
  }
}
