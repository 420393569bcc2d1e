// The one place that persists (ARCHITECTURE.md). Synchronous by design: the durable
// implementation planned for it (SQLite via better-sqlite3) is synchronous too, and a
// synchronous append keeps "event seq order == commit order" trivially true.
import type { NormaEvent } from '../contract/events.js';
import type { Decision, Output, PermissionRequest, PermissionStatus, Session, Turn } from '../contract/schemas.js';
import type { SessionHooks } from '../hooks/registry.js';

/** What the store keeps for a session: the public resource plus what is never echoed. */
export interface SessionRecord {
  session: Session;
  hooks: SessionHooks | null;
  modelApiKey: string | null;
}

export interface SessionPageQuery {
  limit: number;
  /** Return sessions strictly older than this one (newest-first order). */
  after?: { created_at: string; id: string };
}

export interface DecisionQuery {
  afterSeq: number;
  limit: number;
  turnId?: string;
  toolUseId?: string;
}

export interface Store {
  putSession(record: SessionRecord): void;
  getSession(id: string): SessionRecord | undefined;
  /** Newest first; ties broken by id, descending. */
  listSessions(query: SessionPageQuery): SessionRecord[];

  putTurn(turn: Turn): void;
  getTurn(sessionId: string, turnId: string): Turn | undefined;
  /** Oldest first. */
  listTurns(sessionId: string): Turn[];

  putPermission(request: PermissionRequest): void;
  getPermission(sessionId: string, permissionId: string): PermissionRequest | undefined;
  /** Oldest first. */
  listPermissions(sessionId: string, status?: PermissionStatus): PermissionRequest[];

  /** Appends a permission decision; its seq must be the session's last decision seq + 1. */
  appendDecision(decision: Decision): void;
  lastDecisionSeq(sessionId: string): number;
  /** Decisions with seq > afterSeq in order, at most `limit`, optionally of one turn / one call. */
  listDecisions(sessionId: string, query: DecisionQuery): Decision[];

  putOutput(output: Output): void;
  getOutput(sessionId: string, outputId: string): Output | undefined;
  /** Oldest first. */
  listOutputs(sessionId: string): Output[];
  /** Session ids that have output records (for sweeping orphaned spill directories). */
  sessionsWithOutputs(): string[];

  /** Appends a durable event; its seq must be the session's last seq + 1. */
  appendEvent(event: NormaEvent): void;
  lastSeq(sessionId: string): number;
  /** Durable events with seq > afterSeq, in order, at most `limit`. */
  eventsAfter(sessionId: string, afterSeq: number, limit: number): NormaEvent[];
}
