// A Store that times its main reads and writes into norma_store_operation_duration_seconds and
// hands everything to the store it wraps. One clock read before and after a call, one
// observation per call; nothing per row. A transaction is timed once, at the outermost level
// (how long the database is held), besides the operations inside it.
import type { Histogram } from 'prom-client';
import type { NormaEvent } from '../contract/events.js';
import type { ClientToolRequest, ClientToolStatus, Decision, Output, PermissionRequest, PermissionStatus, Question, QuestionStatus, Turn } from '../contract/schemas.js';
import type { DecisionQuery, LaterReads, PendingEntry, PendingQuery, SessionPageQuery, SessionRecord, Store, StoredClientToolAnswer, TenantEvent } from '../store/store.js';
import type { KeyStore } from '../store/keys.js';

type Observe = (seconds: number) => void;

export class TimedStore implements Store {
  private depth = 0;
  private readonly t: Record<string, Observe> = {};
  /** What the wrapped store has of its optional parts, as it has them. */
  readonly later?: LaterReads;
  readonly whenCommitted?: (sessionId: string) => Promise<void>;
  readonly forget?: (sessionId: string) => void;
  readonly keys: KeyStore;

  constructor(
    private readonly inner: Store,
    histogram: Histogram<'operation'>,
  ) {
    this.keys = inner.keys;
    if (inner.later) this.later = inner.later;
    if (inner.whenCommitted) this.whenCommitted = (sessionId) => inner.whenCommitted!(sessionId);
    if (inner.forget) this.forget = (sessionId) => inner.forget!(sessionId);
    for (const op of TIMED) {
      const child = histogram.labels({ operation: op });
      this.t[op] = (s) => child.observe(s);
    }
  }

  get durable(): boolean {
    return this.inner.durable;
  }

  private time<T>(op: (typeof TIMED)[number], fn: () => T): T {
    const start = performance.now();
    try {
      return fn();
    } finally {
      this.t[op]!((performance.now() - start) / 1000);
    }
  }

  transaction<T>(fn: () => T): T {
    if (this.depth > 0) return this.inner.transaction(fn);
    this.depth = 1;
    try {
      return this.time('transaction', () => this.inner.transaction(fn));
    } finally {
      this.depth = 0;
    }
  }

  afterCommit(fn: () => void): void {
    this.inner.afterCommit(fn);
  }
  runsHere(sessionId: string, created?: boolean): void {
    this.inner.runsHere?.(sessionId, created);
  }
  deleteSession(id: string): void {
    this.time('deleteSession', () => this.inner.deleteSession(id));
  }
  closedSessionsBefore(before: string, limit: number): SessionRecord[] {
    return this.inner.closedSessionsBefore(before, limit);
  }
  activeSessions(): SessionRecord[] {
    return this.inner.activeSessions();
  }
  eventsOfTypes(sessionId: string, types: readonly string[], afterSeq: number, limit: number): NormaEvent[] {
    return this.time('eventsOfTypes', () => this.inner.eventsOfTypes(sessionId, types, afterSeq, limit));
  }
  turnEvents(sessionId: string, turnId: string, type: string): NormaEvent[] {
    return this.inner.turnEvents(sessionId, turnId, type);
  }
  close(): void {
    this.inner.close();
  }
  putSession(record: SessionRecord): void {
    this.time('putSession', () => this.inner.putSession(record));
  }
  getSession(id: string, tenant?: string): SessionRecord | undefined {
    return this.time('getSession', () => this.inner.getSession(id, tenant));
  }
  setActiveTurn(id: string, turnId: string | null, onlyIf?: string): boolean {
    return this.time('setActiveTurn', () => this.inner.setActiveTurn(id, turnId, onlyIf));
  }
  listSessions(query: SessionPageQuery): SessionRecord[] {
    return this.time('listSessions', () => this.inner.listSessions(query));
  }
  putTurn(turn: Turn): void {
    this.time('putTurn', () => this.inner.putTurn(turn));
  }
  getTurn(sessionId: string, turnId: string): Turn | undefined {
    return this.time('getTurn', () => this.inner.getTurn(sessionId, turnId));
  }
  listTurns(sessionId: string): Turn[] {
    return this.time('listTurns', () => this.inner.listTurns(sessionId));
  }
  putPermission(request: PermissionRequest): void {
    this.time('putPermission', () => this.inner.putPermission(request));
  }
  getPermission(sessionId: string, permissionId: string): PermissionRequest | undefined {
    return this.time('getPermission', () => this.inner.getPermission(sessionId, permissionId));
  }
  listPermissions(sessionId: string, status?: PermissionStatus): PermissionRequest[] {
    return this.time('listPermissions', () => this.inner.listPermissions(sessionId, status));
  }
  putQuestion(question: Question): void {
    this.time('putQuestion', () => this.inner.putQuestion(question));
  }
  getQuestion(sessionId: string, questionId: string): Question | undefined {
    return this.time('getQuestion', () => this.inner.getQuestion(sessionId, questionId));
  }
  listQuestions(sessionId: string, status?: QuestionStatus): Question[] {
    return this.time('listQuestions', () => this.inner.listQuestions(sessionId, status));
  }
  putClientToolRequest(request: ClientToolRequest): void {
    this.time('putClientToolRequest', () => this.inner.putClientToolRequest(request));
  }
  getClientToolRequest(sessionId: string, requestId: string): ClientToolRequest | undefined {
    return this.time('getClientToolRequest', () => this.inner.getClientToolRequest(sessionId, requestId));
  }
  listClientToolRequests(sessionId: string, status?: ClientToolStatus): ClientToolRequest[] {
    return this.time('listClientToolRequests', () => this.inner.listClientToolRequests(sessionId, status));
  }
  putClientToolAnswer(sessionId: string, requestId: string, answer: StoredClientToolAnswer): void {
    this.time('putClientToolAnswer', () => this.inner.putClientToolAnswer(sessionId, requestId, answer));
  }
  getClientToolAnswer(sessionId: string, requestId: string): StoredClientToolAnswer | undefined {
    return this.time('getClientToolAnswer', () => this.inner.getClientToolAnswer(sessionId, requestId));
  }
  tenantEventsAfter(tenant: string, after: string, limit: number): TenantEvent[] {
    return this.time('tenantEventsAfter', () => this.inner.tenantEventsAfter(tenant, after, limit));
  }
  tenantHead(tenant: string): string {
    return this.time('tenantHead', () => this.inner.tenantHead(tenant));
  }
  validTenantCursor(cursor: string): boolean {
    return this.inner.validTenantCursor(cursor);
  }
  listPending(query: PendingQuery): PendingEntry[] {
    return this.time('listPending', () => this.inner.listPending(query));
  }
  pendingCounts(sessionIds: readonly string[]): Map<string, number> {
    return this.time('pendingCounts', () => this.inner.pendingCounts(sessionIds));
  }
  appendDecision(decision: Decision): void {
    this.time('appendDecision', () => this.inner.appendDecision(decision));
  }
  lastDecisionSeq(sessionId: string): number {
    return this.inner.lastDecisionSeq(sessionId);
  }
  lastDecisionHash(sessionId: string): string | null {
    return this.inner.lastDecisionHash(sessionId);
  }
  lastEventHash(sessionId: string): string | null {
    return this.inner.lastEventHash(sessionId);
  }
  listDecisions(sessionId: string, query: DecisionQuery): Decision[] {
    return this.time('listDecisions', () => this.inner.listDecisions(sessionId, query));
  }
  putOutput(output: Output): void {
    this.time('putOutput', () => this.inner.putOutput(output));
  }
  getOutput(sessionId: string, outputId: string): Output | undefined {
    return this.inner.getOutput(sessionId, outputId);
  }
  listOutputs(sessionId: string): Output[] {
    return this.inner.listOutputs(sessionId);
  }
  sessionsWithOutputs(): string[] {
    return this.inner.sessionsWithOutputs();
  }
  appendEvent(event: NormaEvent): void {
    this.time('appendEvent', () => this.inner.appendEvent(event));
  }
  lastSeq(sessionId: string): number {
    return this.inner.lastSeq(sessionId);
  }
  eventsAfter(sessionId: string, afterSeq: number, limit: number): NormaEvent[] {
    return this.time('eventsAfter', () => this.inner.eventsAfter(sessionId, afterSeq, limit));
  }
}

/** The operations timed: the writes every turn makes, the reads every request and replay makes. */
const TIMED = [
  'transaction',
  'deleteSession',
  'putSession',
  'getSession',
  'setActiveTurn',
  'listSessions',
  'putTurn',
  'getTurn',
  'listTurns',
  'putPermission',
  'getPermission',
  'listPermissions',
  'putQuestion',
  'getQuestion',
  'listQuestions',
  'putClientToolRequest',
  'getClientToolRequest',
  'listClientToolRequests',
  'putClientToolAnswer',
  'getClientToolAnswer',
  'listPending',
  'tenantEventsAfter',
  'tenantHead',
  'pendingCounts',
  'appendDecision',
  'listDecisions',
  'putOutput',
  'appendEvent',
  'eventsAfter',
  'eventsOfTypes',
] as const;
