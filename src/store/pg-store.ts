// The Store on PostgreSQL (NORMA_STORE=postgres): the same documents-beside-columns layout as
// SQLite (pg-schema.ts), reached through pg-sync.ts. A transaction is a unit of work (pg-units.ts):
// its writes (pg-statements.ts) are held until it ends and then committed without the server
// waiting, in one round trip; its afterCommit callbacks run when the database answers. A
// transaction that reads its own writes begins in the database at that read and commits while
// the server waits. A read outside a transaction reads what has committed, after
// every unit this process sent before it.
//
// Events: a session's events are appended by the node holding its lease only; the insert checks
// that (and that seq - 1 is there) in the database, under a share lock on the lease row, so two
// writers never leave a gap or a duplicate, and a takeover waits for a commit in flight.
import type { NormaEvent } from '../contract/events.js';
import type { ClientToolRequest, ClientToolStatus, Decision, Output, PermissionRequest, PermissionStatus, Question, QuestionStatus, Turn } from '../contract/schemas.js';
import { migratePg } from './pg-schema.js';
import { SyncPg, type PgStatement } from './pg-sync.js';
import { PgUnits } from './pg-units.js';
import { PgTurns } from './pg-turns.js';
import { documentsOf } from './sqlite-rows.js';
import { StoreOpenError } from './sqlite-schema.js';
import type { TokenShelf } from './tokens.js';
import { SESSION_COLUMNS, claimCommandStatement, completeCommandStatement, countRequest, describeUrl, pgTokens, recordOf, tenantCountSql, tenantLockStatement } from './pg-shared.js';
import { PgIdempotency } from './pg-idempotency.js';
import { PgSpend } from './spend.js';
import { appendDecisionStatement, appendEventStatement, clientToolAnswerStatement, deleteSessionStatements, putOrderedStatement, putSessionStatement } from './pg-statements.js';

export { describeUrl } from './pg-shared.js';
import { decisionsSelect, storeInt as big, type DecisionQuery, type LaterReads, type PendingEntry, type PendingQuery, type SessionPageQuery, type SessionRecord, type Store, type StoredClientToolAnswer, type TenantEvent } from './store.js';
import { pendingCountsOf, pendingEntriesOf, pendingSelect, pendingCountsSelect, sessionPageSelect, TENANT_CURSOR, tenantCursorOf, tenantEventsArgs, tenantEventsOf, tenantEventsSelect, tenantHeadSelect } from './pg-inbox.js';
import { laterReads } from './pg-later.js';
import { SessionHeads, headOf } from './heads.js';
import type { ColumnSealer } from './sqlite-rows.js';
import { PgKeys } from './keys.js';

export interface PostgresStoreOptions {
  url: string;
  /** This replica's name: the lease holder that may append a session's events. */
  nodeId: string;
  poolSize?: number;
  statementTimeoutMs?: number;
  connectTimeoutMs?: number;
}

export class PostgresStore implements Store {
  readonly durable = true;
  readonly nodeId: string;
  /** Where the database is, without its password. */
  readonly where: string;
  private readonly db: SyncPg;
  private readonly turns: PgTurns;
  private readonly units: PgUnits;
  /** Each session's last event and decision: from this node's appends; a read kept only for a session it runs (no other writer). */
  private readonly heads = new SessionHeads(
    (chain, id) => headOf(this.read(`SELECT seq, data::jsonb->>'hash' AS hash FROM ${chain} WHERE session_id = $1 ORDER BY seq DESC LIMIT 1`, [id])[0] as { seq: unknown; hash: unknown } | undefined),
    (id) => this.owned.has(id) && !this.units.begun,
  );
  /** Sessions this process runs (runsHere): their counters, once read, are kept. */
  private readonly owned = new Set<string>();
  /** Each session's active turn as this node last wrote or read it (absent: not known). */
  private readonly activeTurns = new Map<string, string | null>();

  /** Signing keys, signed heads and data keys (keys.ts). */
  readonly keys: PgKeys;
  /** Seals the session columns that hold secrets (encryption at rest on). */
  sealer: ColumnSealer | undefined;

  /** Connects and migrates; StoreOpenError when the database cannot be used. */
  constructor(options: PostgresStoreOptions) {
    this.nodeId = options.nodeId;
    this.turns = new PgTurns(options.nodeId);
    this.where = describeUrl(options.url);
    this.db = new SyncPg({
      url: options.url,
      poolSize: options.poolSize ?? 8,
      statementTimeoutMs: options.statementTimeoutMs ?? 10_000,
      ...(options.connectTimeoutMs !== undefined ? { connectTimeoutMs: options.connectTimeoutMs } : {}),
      applicationName: `norma ${options.nodeId}`.slice(0, 63),
    });
    this.units = new PgUnits(this.db, {
      rolledBack: () => this.rolledBack(),
      failed: (keys, err) => {
        for (const k of keys) this.forget(k);
        this.onCommitFailed(keys, err);
      },
      callbackError: (err) => this.onCallbackError(err),
    });
    this.keys = new PgKeys(this.db, (sql, params) => this.read(sql, params));
    try {
      migratePg(this.db, this.where);
    } catch (err) {
      this.db.close();
      throw err instanceof StoreOpenError ? err : new StoreOpenError(this.where, String(err));
    }
  }

  // ── units of work (pg-units.ts) ─────────────────────────────────────────────────────────

  transaction<T>(fn: () => T): T {
    return this.units.transaction(fn);
  }

  afterCommit(fn: () => void): void {
    this.units.afterCommit(fn);
  }

  /**
   * Told of a unit of work that did not commit (nothing of it is stored, and its callbacks did not
   * run), with the sessions it touched: their later units fail too, until `recovered(keys)`.
   */
  onCommitFailed: (keys: string[], err: unknown) => void = () => undefined;

  /** The sessions `onCommitFailed` named were taken again from the database: their units may commit again. */
  recovered(keys: readonly string[]): void {
    for (const k of keys) this.forget(k);
    this.units.reset(keys);
  }

  /** Told of an afterCommit callback that threw (the others ran). */
  onCallbackError: (err: unknown) => void = () => undefined;

  /** Units sent and not answered yet (metrics, shutdown). */
  get inFlight(): number {
    return this.units.inFlight;
  }

  whenCommitted(sessionId: string): Promise<void> {
    return this.units.whenCommitted(sessionId);
  }

  private write(key: string | null, ...statements: PgStatement[]): void {
    this.units.write(key, ...statements);
  }

  private read(sql: string, params: unknown[] = []): Record<string, unknown>[] {
    return this.units.read(sql, params);
  }

  /** What this node remembers beyond the database is forgotten (a transaction rolled back). */
  private rolledBack(): void {
    this.heads.clear();
    this.activeTurns.clear();
    this.turns.rolledBack();
  }

  // ── sessions ────────────────────────────────────────────────────────────────────────────

  putSession(record: SessionRecord): void {
    const s = record.session;
    // The node that stores a session first holds its lease: one statement for both.
    this.activeTurns.set(s.id, s.active_turn_id ?? null);
    this.write(s.id, putSessionStatement(record, this.nodeId, this.sealer));
  }

  getSession(id: string, tenant?: string): SessionRecord | undefined {
    const rows =
      tenant === undefined
        ? this.read(`SELECT ${SESSION_COLUMNS} FROM sessions WHERE id = $1`, [id])
        : this.read(`SELECT ${SESSION_COLUMNS} FROM sessions WHERE id = $1 AND tenant = $2`, [id, tenant]);
    const record = recordOf(rows[0], this.sealer);
    if (record && !this.units.begun) this.activeTurns.set(id, record.session.active_turn_id ?? null);
    return record;
  }

  setActiveTurn(id: string, turnId: string | null, onlyIf?: string): boolean {
    const statement: PgStatement =
      onlyIf === undefined
        ? { sql: 'UPDATE sessions SET active_turn_id = $2 WHERE id = $1', params: [id, turnId] }
        : { sql: 'UPDATE sessions SET active_turn_id = $2 WHERE id = $1 AND active_turn_id IS NOT DISTINCT FROM $3', params: [id, turnId, onlyIf] };
    // Known here (this node, the session's lease holder, wrote or read it last): decided without
    // asking the database, and written with the unit (its condition stays, as a guard).
    if (this.activeTurns.has(id)) {
      if (onlyIf !== undefined && this.activeTurns.get(id) !== onlyIf) return false;
      this.activeTurns.set(id, turnId);
      this.write(id, statement);
      return true;
    }
    let changed: boolean;
    if (!this.units.open) changed = this.db.request({ statements: [statement] }).rowCount > 0;
    else changed = this.read(`${statement.sql} RETURNING id`, statement.params).length > 0;
    if (changed) this.activeTurns.set(id, turnId);
    return changed;
  }

  listSessions(query: SessionPageQuery): SessionRecord[] {
    const { sql, args } = sessionPageSelect(query, SESSION_COLUMNS);
    return this.read(sql, args).map((r) => recordOf(r, this.sealer)!);
  }

  deleteSession(id: string): void {
    this.write(id, ...deleteSessionStatements(id));
    this.forget(id);
  }

  closedSessionsBefore(before: string, limit: number): SessionRecord[] {
    const rows = this.read(`SELECT ${SESSION_COLUMNS} FROM sessions WHERE status = 'closed' AND closed_at < $1 ORDER BY closed_at LIMIT $2`, [before, big(limit)]);
    return rows.map((r) => recordOf(r, this.sealer)!);
  }

  activeSessions(): SessionRecord[] {
    return this.read(`SELECT ${SESSION_COLUMNS} FROM sessions WHERE status = 'active' ORDER BY created_at, id`).map((r) => recordOf(r, this.sealer)!);
  }

  /**
   * What this node remembers of a session (its last seqs, which of its turns' rows are stored)
   * is forgotten: another node may have written it since (a lease moved).
   */
  forget(sessionId: string): void {
    this.heads.forget(sessionId);
    this.activeTurns.delete(sessionId);
    this.owned.delete(sessionId);
    this.turns.forget(sessionId);
  }

  runsHere(sessionId: string, created = false): void {
    this.owned.add(sessionId);
    if (!created) return;
    // Nothing of it is stored yet: its first event and decision are number 1, without asking.
    this.heads.fresh(sessionId);
  }

  // ── turns, permissions, questions, outputs ─────────────────────────────────────────────

  private putOrdered(table: 'permissions' | 'questions' | 'client_tool_requests' | 'outputs', sessionId: string, id: string, value: unknown, status?: string): void {
    this.write(sessionId, putOrderedStatement(table, sessionId, id, value, status));
  }

  private getOne<T>(table: string, sessionId: string, id: string): T | undefined {
    const row = this.read(`SELECT data FROM ${table} WHERE session_id = $1 AND id = $2`, [sessionId, id])[0];
    return row ? (JSON.parse(row.data as string) as T) : undefined;
  }

  private listOrdered<T>(table: string, sessionId: string, status?: string): T[] {
    return status === undefined
      ? documentsOf<T>(this.read(`SELECT data FROM ${table} WHERE session_id = $1 ORDER BY ord`, [sessionId]))
      : documentsOf<T>(this.read(`SELECT data FROM ${table} WHERE session_id = $1 AND status = $2 ORDER BY ord`, [sessionId, status]));
  }

  putTurn(turn: Turn): void {
    this.write(turn.session_id, ...this.turns.write(turn));
  }

  getTurn(sessionId: string, turnId: string): Turn | undefined {
    return PgTurns.get((sql, params) => this.read(sql, params), sessionId, turnId);
  }

  listTurns(sessionId: string): Turn[] {
    return PgTurns.list((sql, params) => this.read(sql, params), sessionId);
  }

  putPermission(request: PermissionRequest): void {
    this.putOrdered('permissions', request.session_id, request.id, request, request.status);
  }

  getPermission(sessionId: string, permissionId: string): PermissionRequest | undefined {
    return this.getOne('permissions', sessionId, permissionId);
  }

  listPermissions(sessionId: string, status?: PermissionStatus): PermissionRequest[] {
    return this.listOrdered('permissions', sessionId, status);
  }

  putQuestion(question: Question): void {
    this.putOrdered('questions', question.session_id, question.id, question, question.status);
  }

  getQuestion(sessionId: string, questionId: string): Question | undefined {
    return this.getOne('questions', sessionId, questionId);
  }

  listQuestions(sessionId: string, status?: QuestionStatus): Question[] {
    return this.listOrdered('questions', sessionId, status);
  }

  putClientToolRequest(request: ClientToolRequest): void {
    this.putOrdered('client_tool_requests', request.session_id, request.id, request, request.status);
  }

  getClientToolRequest(sessionId: string, requestId: string): ClientToolRequest | undefined {
    return this.getOne('client_tool_requests', sessionId, requestId);
  }

  listClientToolRequests(sessionId: string, status?: ClientToolStatus): ClientToolRequest[] {
    return this.listOrdered('client_tool_requests', sessionId, status);
  }

  putClientToolAnswer(sessionId: string, requestId: string, answer: StoredClientToolAnswer): void {
    this.write(sessionId, clientToolAnswerStatement(sessionId, requestId, answer));
  }

  getClientToolAnswer(sessionId: string, requestId: string): StoredClientToolAnswer | undefined {
    const row = this.read('SELECT answer FROM client_tool_requests WHERE session_id = $1 AND id = $2', [sessionId, requestId])[0];
    return row?.answer ? (JSON.parse(row.answer as string) as StoredClientToolAnswer) : undefined;
  }

  tenantEventsAfter(tenant: string, after: string, limit: number): TenantEvent[] {
    return tenantEventsOf(this.read(tenantEventsSelect, tenantEventsArgs(tenant, after, limit)));
  }

  tenantHead(tenant: string): string {
    return tenantCursorOf(this.read(tenantHeadSelect, [tenant])[0]);
  }

  validTenantCursor(cursor: string): boolean {
    return TENANT_CURSOR.test(cursor);
  }

  listPending(query: PendingQuery): PendingEntry[] {
    const { sql, args } = pendingSelect(query);
    return pendingEntriesOf(this.read(sql, args));
  }

  pendingCounts(sessionIds: readonly string[]): Map<string, number> {
    return sessionIds.length === 0 ? new Map() : pendingCountsOf(this.read(pendingCountsSelect, [[...sessionIds]]));
  }

  putOutput(output: Output): void {
    this.putOrdered('outputs', output.session_id, output.id, output);
  }

  getOutput(sessionId: string, outputId: string): Output | undefined {
    return this.getOne('outputs', sessionId, outputId);
  }

  listOutputs(sessionId: string): Output[] {
    return this.listOrdered('outputs', sessionId);
  }

  sessionsWithOutputs(): string[] {
    return this.read('SELECT DISTINCT session_id FROM outputs').map((r) => r.session_id as string);
  }

  // ── events and decisions ────────────────────────────────────────────────────────────────

  appendEvent(event: NormaEvent): void {
    const expected = this.lastSeq(event.session_id) + 1;
    if (event.seq !== expected) throw new Error(`event seq ${event.seq} for ${event.session_id} is not the next one (${expected})`);
    this.write(event.session_id, appendEventStatement(event, this.nodeId));
    if (event.type === 'session.closed') this.heads.forget(event.session_id);
    else this.heads.appended('events', event.session_id, event.seq, event.hash);
  }

  lastSeq(sessionId: string): number {
    return this.heads.head('events', sessionId).seq;
  }

  lastEventHash(sessionId: string): string | null {
    return this.heads.head('events', sessionId).hash;
  }

  eventsAfter(sessionId: string, afterSeq: number, limit: number): NormaEvent[] {
    return documentsOf<NormaEvent>(this.read('SELECT data FROM events WHERE session_id = $1 AND seq > $2 ORDER BY seq LIMIT $3', [sessionId, big(afterSeq), big(limit)]));
  }

  eventsOfTypes(sessionId: string, types: readonly string[], afterSeq: number, limit: number): NormaEvent[] {
    if (types.length === 0) return [];
    return documentsOf<NormaEvent>(
      this.read('SELECT data FROM events WHERE session_id = $1 AND seq > $2 AND type = ANY($3::text[]) ORDER BY seq LIMIT $4', [sessionId, big(afterSeq), types, big(limit)]),
    );
  }

  turnEvents(sessionId: string, turnId: string, type: string): NormaEvent[] {
    return documentsOf<NormaEvent>(this.read('SELECT data FROM events WHERE session_id = $1 AND turn_id = $2 AND type = $3 ORDER BY seq', [sessionId, turnId, type]));
  }

  appendDecision(decision: Decision): void {
    const expected = this.lastDecisionSeq(decision.session_id) + 1;
    if (decision.seq !== expected) throw new Error(`decision seq ${decision.seq} does not follow ${expected - 1}`);
    this.write(decision.session_id, appendDecisionStatement(decision));
    this.heads.appended('decisions', decision.session_id, decision.seq, decision.hash);
  }

  lastDecisionSeq(sessionId: string): number {
    return this.heads.head('decisions', sessionId).seq;
  }

  lastDecisionHash(sessionId: string): string | null {
    return this.heads.head('decisions', sessionId).hash;
  }

  /**
   * Takes a pending command for this node inside the open transaction (its row stays locked until
   * the transaction ends, so the sender's abandon waits for it): false when the sender abandoned
   * it, it expired, or another node took it. Rolled back, it is pending again.
   */
  claimCommand(commandId: number): boolean {
    return this.units.inTransaction([claimCommandStatement(commandId, this.nodeId)]).length > 0;
  }

  /**
   * Answers a command this node took with the work it did, in the open transaction: the work and
   * its answer commit together or not at all (a command answered already fails the transaction).
   */
  completeCommand(commandId: number, outcome: string): void {
    this.write(null, completeCommandStatement(commandId, outcome, this.nodeId));
  }

  listDecisions(sessionId: string, query: DecisionQuery): Decision[] {
    const { sql, args } = decisionsSelect(sessionId, query, (n) => `$${n}`);
    return documentsOf<Decision>(this.read(sql, args));
  }

  /** The tenant's active sessions (with `withTurn`: those running or pausing a turn), every replica's. */
  countSessions(tenant: string, withTurn = false): number {
    return Number(this.read(tenantCountSql(withTurn), [tenant])[0]!.n);
  }

  /**
   * Inside the transaction that adds a session or a turn: takes the tenant's transaction lock,
   * which every replica's such transaction takes first, so what is counted after it stays true
   * until this one commits; then counts as countSessions does (a statement of its own after the
   * lock: a statement sees what committed before it started).
   */
  countSessionsHeld(tenant: string, withTurn = false): number {
    return Number(this.units.inTransaction([tenantLockStatement(tenant), { sql: tenantCountSql(withTurn), params: [tenant] }])[0]!.n);
  }

  /** Reads of what has committed that the server does not wait for (after this process's units of the session). */
  get later(): LaterReads {
    return (this.laterCache ??= laterReads(this.db));
  }

  private laterCache: LaterReads | undefined;

  /** Idempotency-Key answers, written in this store's transactions (pg-idempotency.ts). */
  get idempotency(): PgIdempotency {
    return (this.idempotencyCache ??= new PgIdempotency(
      (sql, params) => this.read(sql, params),
      (...statements) => this.write(null, ...statements),
      this.nodeId,
    ));
  }

  private idempotencyCache: PgIdempotency | undefined;

  /** What tenants' model calls cost per day, every replica's (spend.ts). */
  get spend(): PgSpend {
    return (this.ledger ??= new PgSpend(
      (sql, params) => this.read(sql, params),
      (...statements) => this.write(null, ...statements),
    ));
  }

  private ledger: PgSpend | undefined;

  /** Event tickets and console logins, shared by every replica on the database (pg-shared.ts). */
  get tokens(): TokenShelf {
    return (this.shelf ??= pgTokens(this.db));
  }

  private shelf: TokenShelf | undefined;

  /** A request counted against `key`'s window of requests_per_minute, every replica's (pg-shared.ts). */
  countRequest(key: string, now: number, windowMs: number): { count: number; ttl: number } {
    return countRequest(this.db, key, now, windowMs);
  }

  /** Null when the database answers; else why not (readiness). */
  ping(): string | null {
    try {
      this.db.query('SELECT 1');
      return null;
    } catch (err) {
      return (err as Error).message;
    }
  }

  close(): void {
    this.db.close();
  }
}
