// The one place that persists (ARCHITECTURE.md). A synchronous interface: a transaction runs
// without an await, and afterCommit says what runs once it committed. SQLite commits at the end of
// the call (a synchronous append keeps "event seq order == commit order" trivially true);
// PostgreSQL sends the transaction as a unit of work and runs the callbacks when the database
// answers (pg-store.ts), so nothing is delivered or adopted before its commit either way.
import type { Secrets } from '../contract/secrets.js';
import type { McpServers } from '../contract/mcp.js';
import type { NormaEvent } from '../contract/events.js';
import type { ClientToolDefinition, ClientToolRequest, ClientToolStatus, Decision, ModelConfigInput, Output, PermissionRequest, PermissionStatus, Question, QuestionStatus, Session, TodoList, Turn } from '../contract/schemas.js';
import type { SessionHooks } from '../contract/hooks.js';
import type { KeyStore } from './keys.js';
import type { ResultBlock } from '../contract/common.js';

/** A client's answer to a client-tool request, as the waiting call takes it. */
export interface StoredClientToolAnswer {
  content: ResultBlock[];
  is_error: boolean;
}

/** What the store keeps for a session: the public resource plus what is never echoed. */
export interface SessionRecord {
  session: Session;
  hooks: SessionHooks | null;
  modelApiKey: string | null;
  /** The session's own model configuration without its key (absent: the server default, if any). */
  model?: Omit<ModelConfigInput, 'api_key'> | null;
  /** The session's todo list (TodoWrite); absent: never written. */
  todos?: TodoList | null;
  /** The session's own MCP servers with their env and header values (never in the session document). */
  mcpServers?: McpServers | null;
  /** The session's own secrets with their values (never in the session document). */
  secrets?: Secrets | null;
  /** The tools the session's client runs, whole (the session document names them only). */
  clientTools?: ClientToolDefinition[] | null;
}

export interface SessionPageQuery {
  limit: number;
  /** Only this tenant's sessions. */
  tenant?: string;
  /** Return sessions strictly older than this one (newest-first order). */
  after?: { created_at: string; id: string };
  /** Only sessions with every one of these labels (key, value). Keys match LABEL_KEY_PATTERN. */
  labels?: readonly (readonly [string, string])[];
  status?: 'active' | 'closed';
}

/** What waits for a person across sessions (GET /v1/pending), oldest first. */
export interface PendingQuery {
  limit: number;
  /** Only this tenant's sessions. */
  tenant?: string;
  /** Return entries strictly newer than this one (oldest-first order by created_at, then id). */
  after?: { created_at: string; id: string };
}

export type PendingEntry = { kind: 'permission'; request: PermissionRequest } | { kind: 'question'; question: Question };

/** The created_at and id of a pending entry's record. */
export function pendingKey(e: PendingEntry): { created_at: string; id: string } {
  const r = e.kind === 'permission' ? e.request : e.question;
  return { created_at: r.created_at, id: r.id };
}

/** A label as `json_extract`'s path names it (keys are LABEL_KEY_PATTERN, so nothing needs quoting). */
export function labelPath(key: string): string {
  if (!/^[A-Za-z0-9][A-Za-z0-9._/-]{0,62}$/.test(key)) throw new Error(`not a label key: ${JSON.stringify(key)}`);
  return `$.labels."${key}"`;
}

export interface DecisionQuery {
  afterSeq: number;
  limit: number;
  turnId?: string;
  toolUseId?: string;
}

/**
 * Reads that do not hold the server's thread while the database answers (a store a network away:
 * PostgreSQL), for what a node reads of sessions another node runs: what has committed.
 */
export interface LaterReads {
  lastSeq(sessionId: string): Promise<number>;
  /** The session's tenant, when it exists. */
  tenantOf(sessionId: string): Promise<string | undefined>;
  getTurn(sessionId: string, turnId: string): Promise<Turn | undefined>;
  eventsAfter(sessionId: string, afterSeq: number, limit: number): Promise<NormaEvent[]>;
  tenantEventsAfter?(tenant: string, after: string, limit: number): Promise<TenantEvent[]>;
  tenantHead?(tenant: string): Promise<string>;
}

/** An event of a tenant's log (GET /v1/events), with the cursor that resumes after it. */
export interface TenantEvent {
  cursor: string;
  event: NormaEvent;
}

export interface Store {
  /** True when what is stored survives a restart (SQLite); false for the in-memory store. */
  readonly durable: boolean;
  /** Signing keys, signed chain heads and tenants' wrapped data keys. */
  readonly keys: KeyStore;
  /** Present on a store whose reads are worth not waiting for (PostgreSQL). */
  readonly later?: LaterReads;
  /**
   * Runs `fn` as one atomic unit: every write in it commits together or not at all (nested
   * calls join the outer one). Event writes and the state change they describe go in one.
   */
  transaction<T>(fn: () => T): T;
  /**
   * Runs `fn` once the current transaction has committed (outside one: once what was written just
   * before has; never after a rollback or a failed commit). Synchronous stores run it at the commit.
   */
  afterCommit(fn: () => void): void;
  /**
   * This process runs the session now (created or recovered here): what it reads of the session's
   * counters (last seqs) may be kept, as only the session's runner writes them. Optional: a store
   * that keeps nothing beside its data ignores it. `created`: the session was made here just now
   * (it has no decisions yet).
   */
  runsHere?(sessionId: string, created?: boolean): void;
  /**
   * Resolves once every unit of work made so far for the session has committed; rejects when one
   * did not. Absent: a store whose transactions have committed when they return (SQLite).
   */
  whenCommitted?(sessionId: string): Promise<void>;
  /** What runsHere let the store keep of a session is dropped (it does not run here after all). */
  forget?(sessionId: string): void;
  /** Removes everything stored for a session (retention). */
  deleteSession(id: string): void;
  /** Closed sessions that closed before `before` (ISO time), oldest first, at most `limit`. */
  closedSessionsBefore(before: string, limit: number): SessionRecord[];
  /** Sessions still active (what a restart resumes). */
  activeSessions(): SessionRecord[];
  /** Durable events of the given types with seq > afterSeq, in order, at most `limit` (audit listings). */
  eventsOfTypes(sessionId: string, types: readonly string[], afterSeq: number, limit: number): NormaEvent[];
  /** Durable events of one turn of a type, in order (restart recovery). */
  turnEvents(sessionId: string, turnId: string, type: string): NormaEvent[];
  close(): void;

  putSession(record: SessionRecord): void;
  /** With `tenant`: only when the session is that tenant's (another tenant's costs what a missing one does). */
  getSession(id: string, tenant?: string): SessionRecord | undefined;
  /**
   * Points the session at the turn it runs (`null`: none), changing nothing else of it: the one
   * field every turn writes twice, without reading and rewriting the whole record. With `onlyIf`,
   * only while it points at that turn. Says whether it changed (false for an unknown session).
   */
  setActiveTurn(id: string, turnId: string | null, onlyIf?: string): boolean;
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

  putQuestion(question: Question): void;
  getQuestion(sessionId: string, questionId: string): Question | undefined;
  /** Oldest first. */
  listQuestions(sessionId: string, status?: QuestionStatus): Question[];
  putClientToolRequest(request: ClientToolRequest): void;
  getClientToolRequest(sessionId: string, requestId: string): ClientToolRequest | undefined;
  /** Oldest first. */
  listClientToolRequests(sessionId: string, status?: ClientToolStatus): ClientToolRequest[];
  /**
   * The client's answer to a request, stored with it (in the transaction that marks it answered)
   * and apart from its record: the waiting call is completed from it after a restart that came
   * before the call's result was stored. Undefined: none stored.
   */
  putClientToolAnswer(sessionId: string, requestId: string, answer: StoredClientToolAnswer): void;
  getClientToolAnswer(sessionId: string, requestId: string): StoredClientToolAnswer | undefined;

  /**
   * Pending permission requests and questions across sessions, oldest first (created_at, id).
   * Client-tool requests are not among them: they wait for the client, not for a person.
   */
  listPending(query: PendingQuery): PendingEntry[];
  /** How many permission requests and questions of each session are pending (absent: none). */
  pendingCounts(sessionIds: readonly string[]): Map<string, number>;

  /** Appends a permission decision; its seq must be the session's last decision seq + 1. */
  appendDecision(decision: Decision): void;
  lastDecisionSeq(sessionId: string): number;
  /** The `hash` of the session's last decision (null: none, or stored before the chain existed). */
  lastDecisionHash(sessionId: string): string | null;
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
  /** The `hash` of the session's last event (null: it has none, or was stored before the chain existed). */
  lastEventHash(sessionId: string): string | null;
  /** Durable events with seq > afterSeq, in order, at most `limit`. */
  eventsAfter(sessionId: string, afterSeq: number, limit: number): NormaEvent[];

  /**
   * The tenant's log: every durable event of its sessions after `after` (a cursor this store
   * made), in the order they committed, at most `limit`. A cursor resumes exactly after its event.
   */
  tenantEventsAfter(tenant: string, after: string, limit: number): TenantEvent[];
  /** The cursor after everything of the tenant's log committed so far. */
  tenantHead(tenant: string): string;
  /** Whether `cursor` has the shape of this store's cursors. */
  validTenantCursor(cursor: string): boolean;
}

/**
 * A seq or a count as a database column takes it: whatever number a query string held (1e99,
 * -1e99, 2.5) is brought to an integer within range, so it asks what it says instead of failing.
 */
export function storeInt(n: number): number {
  if (Number.isNaN(n)) return 0;
  return Math.max(-Number.MAX_SAFE_INTEGER, Math.min(Number.MAX_SAFE_INTEGER, Math.floor(n)));
}

/** The statement listing decisions by a DecisionQuery, for SQL stores; `param(n)` spells the n-th placeholder (`$n`, `?`). */
export function decisionsSelect(sessionId: string, query: DecisionQuery, param: (n: number) => string): { sql: string; args: unknown[] } {
  const args: unknown[] = [sessionId, storeInt(query.afterSeq)];
  const where = [`session_id = ${param(1)}`, `seq > ${param(2)}`];
  for (const [column, value] of [['turn_id', query.turnId], ['tool_use_id', query.toolUseId]] as const) {
    if (value === undefined) continue;
    args.push(value);
    where.push(`${column} = ${param(args.length)}`);
  }
  args.push(storeInt(query.limit));
  return { sql: `SELECT data FROM decisions WHERE ${where.join(' AND ')} ORDER BY seq LIMIT ${param(args.length)}`, args };
}
