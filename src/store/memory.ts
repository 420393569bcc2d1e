// In-memory Store. Values are cloned in and out so callers can never mutate stored state
// by accident (the same isolation a database gives).
import type { NormaEvent } from '../contract/events.js';
import type { ClientToolRequest, ClientToolStatus, Decision, Output, PermissionRequest, PermissionStatus, Question, QuestionStatus, Turn } from '../contract/schemas.js';
import { pendingKey, type DecisionQuery, type PendingEntry, type PendingQuery, type SessionPageQuery, type SessionRecord, type Store, type StoredClientToolAnswer, type TenantEvent } from './store.js';
import { MemoryIdempotency } from './idempotency.js';
import { MemorySpend } from './spend.js';
import { MemoryKeys } from './keys.js';

const clone = <T>(value: T): T => structuredClone(value);

function newerFirst(a: SessionRecord, b: SessionRecord): number {
  if (a.session.created_at !== b.session.created_at) return a.session.created_at < b.session.created_at ? 1 : -1;
  return a.session.id < b.session.id ? 1 : a.session.id > b.session.id ? -1 : 0;
}

export class MemoryStore implements Store {
  readonly durable = false;
  /** Idempotency-Key answers, in this process like everything else here. */
  readonly idempotency = new MemoryIdempotency();
  /** What tenants' model calls cost per day. */
  readonly spend = new MemorySpend();
  private depth = 0;
  private committed: (() => void)[] = [];

  transaction<T>(fn: () => T): T {
    // Nothing to roll back to in memory: a failed unit keeps what it wrote. Deferred work
    // still waits for the outermost unit, and is dropped when it fails.
    this.depth++;
    let ok = false;
    try {
      const value = fn();
      ok = true;
      return value;
    } finally {
      if (--this.depth === 0) {
        const run = this.committed.splice(0);
        if (ok) for (const f of run) f();
      }
    }
  }

  afterCommit(fn: () => void): void {
    if (this.depth === 0) fn();
    else this.committed.push(fn);
  }

  deleteSession(id: string): void {
    this.sessions.delete(id);
    this.turns.delete(id);
    this.permissions.delete(id);
    this.questions.delete(id);
    this.clientToolRequests.delete(id);
    for (const key of this.clientToolAnswers.keys()) if (key.startsWith(`${id}\n`)) this.clientToolAnswers.delete(key);
    this.events.delete(id);
    this.outputs.delete(id);
    this.decisions.delete(id);
  }

  closedSessionsBefore(before: string, limit: number): SessionRecord[] {
    return [...this.sessions.values()]
      .filter((r) => r.session.status === 'closed' && r.session.closed_at !== null && r.session.closed_at < before)
      .sort((a, b) => (a.session.closed_at! < b.session.closed_at! ? -1 : 1))
      .slice(0, limit)
      .map(clone);
  }

  activeSessions(): SessionRecord[] {
    return [...this.sessions.values()].filter((r) => r.session.status === 'active').map(clone);
  }

  eventsOfTypes(sessionId: string, types: readonly string[], afterSeq: number, limit: number): NormaEvent[] {
    return (this.events.get(sessionId) ?? [])
      .filter((e) => e.seq > afterSeq && types.includes(e.type))
      .slice(0, limit)
      .map(clone);
  }

  turnEvents(sessionId: string, turnId: string, type: string): NormaEvent[] {
    return (this.events.get(sessionId) ?? []).filter((e) => e.type === type && (e as { turn_id?: string }).turn_id === turnId).map(clone);
  }

  close(): void {}

  private readonly sessions = new Map<string, SessionRecord>();
  private readonly turns = new Map<string, Map<string, Turn>>();
  private readonly permissions = new Map<string, Map<string, PermissionRequest>>();
  private readonly questions = new Map<string, Map<string, Question>>();
  private readonly clientToolRequests = new Map<string, Map<string, ClientToolRequest>>();
  private readonly events = new Map<string, NormaEvent[]>();
  private readonly decisions = new Map<string, Decision[]>();
  private readonly outputs = new Map<string, Map<string, Output>>();
  /** Signing keys, signed heads and data keys (keys.ts). */
  readonly keys = new MemoryKeys((id) => {
    const head = (log: readonly { seq: number; hash?: string }[] | undefined) => {
      const last = log?.at(-1);
      return last ? { seq: last.seq, hash: last.hash ?? null } : { seq: 0, hash: null };
    };
    return { events: head(this.events.get(id)), decisions: head(this.decisions.get(id)) };
  }, (chain, id) => (chain === 'events' ? this.events.get(id) : this.decisions.get(id)) ?? []);

  putSession(record: SessionRecord): void {
    const stored = clone(record);
    delete (stored.session as Partial<typeof stored.session>).policy; // the tenant's as it is when read
    this.sessions.set(record.session.id, stored);
  }

  getSession(id: string, tenant?: string): SessionRecord | undefined {
    const r = this.sessions.get(id);
    if (!r || (tenant !== undefined && tenantOf(r) !== tenant)) return undefined;
    return clone(r);
  }

  setActiveTurn(id: string, turnId: string | null, onlyIf?: string): boolean {
    const r = this.sessions.get(id);
    if (!r || (onlyIf !== undefined && r.session.active_turn_id !== onlyIf)) return false;
    r.session.active_turn_id = turnId;
    return true;
  }

  listSessions(query: SessionPageQuery): SessionRecord[] {
    const all = [...this.sessions.values()]
      .filter(
        (r) =>
          (query.tenant === undefined || tenantOf(r) === query.tenant) &&
          (query.status === undefined || r.session.status === query.status) &&
          (query.labels ?? []).every(([k, v]) => Object.hasOwn(r.session.labels ?? {}, k) && r.session.labels[k] === v),
      )
      .sort(newerFirst);
    const after = query.after;
    const start = after
      ? all.findIndex(
          (r) => r.session.created_at < after.created_at || (r.session.created_at === after.created_at && r.session.id < after.id),
        )
      : 0;
    if (start < 0) return [];
    return all.slice(start, start + query.limit).map(clone);
  }

  putTurn(turn: Turn): void {
    let m = this.turns.get(turn.session_id);
    if (!m) this.turns.set(turn.session_id, (m = new Map()));
    m.set(turn.id, clone(turn));
  }

  getTurn(sessionId: string, turnId: string): Turn | undefined {
    const t = this.turns.get(sessionId)?.get(turnId);
    return t && clone(t);
  }

  listTurns(sessionId: string): Turn[] {
    return [...(this.turns.get(sessionId)?.values() ?? [])].map(clone);
  }

  appendDecision(decision: Decision): void {
    let log = this.decisions.get(decision.session_id);
    if (!log) this.decisions.set(decision.session_id, (log = []));
    if (decision.seq !== log.length + 1) throw new Error(`decision seq ${decision.seq} does not follow ${log.length}`);
    log.push(structuredClone(decision));
  }

  lastDecisionSeq(sessionId: string): number {
    return this.decisions.get(sessionId)?.length ?? 0;
  }

  lastDecisionHash(sessionId: string): string | null {
    return this.decisions.get(sessionId)?.at(-1)?.hash ?? null;
  }

  listDecisions(sessionId: string, query: DecisionQuery): Decision[] {
    const out: Decision[] = [];
    for (const d of (this.decisions.get(sessionId) ?? []).slice(Math.max(0, query.afterSeq))) {
      if (query.turnId !== undefined && d.turn_id !== query.turnId) continue;
      if (query.toolUseId !== undefined && d.tool_use_id !== query.toolUseId) continue;
      out.push(structuredClone(d));
      if (out.length >= query.limit) break;
    }
    return out;
  }

  putPermission(request: PermissionRequest): void {
    let m = this.permissions.get(request.session_id);
    if (!m) this.permissions.set(request.session_id, (m = new Map()));
    m.set(request.id, clone(request));
  }

  getPermission(sessionId: string, permissionId: string): PermissionRequest | undefined {
    const p = this.permissions.get(sessionId)?.get(permissionId);
    return p && clone(p);
  }

  listPermissions(sessionId: string, status?: PermissionStatus): PermissionRequest[] {
    return [...(this.permissions.get(sessionId)?.values() ?? [])]
      .filter((p) => status === undefined || p.status === status)
      .map(clone);
  }

  putQuestion(question: Question): void {
    let m = this.questions.get(question.session_id);
    if (!m) this.questions.set(question.session_id, (m = new Map()));
    m.set(question.id, clone(question));
  }

  getQuestion(sessionId: string, questionId: string): Question | undefined {
    const q = this.questions.get(sessionId)?.get(questionId);
    return q && clone(q);
  }

  listQuestions(sessionId: string, status?: QuestionStatus): Question[] {
    return [...(this.questions.get(sessionId)?.values() ?? [])].filter((q) => status === undefined || q.status === status).map(clone);
  }

  putClientToolRequest(request: ClientToolRequest): void {
    let m = this.clientToolRequests.get(request.session_id);
    if (!m) this.clientToolRequests.set(request.session_id, (m = new Map()));
    m.set(request.id, clone(request));
  }

  getClientToolRequest(sessionId: string, requestId: string): ClientToolRequest | undefined {
    const r = this.clientToolRequests.get(sessionId)?.get(requestId);
    return r ? clone(r) : undefined;
  }

  private readonly clientToolAnswers = new Map<string, StoredClientToolAnswer>();

  putClientToolAnswer(sessionId: string, requestId: string, answer: StoredClientToolAnswer): void {
    if (!this.clientToolRequests.get(sessionId)?.has(requestId)) throw new Error(`client-tool request ${requestId} of session ${sessionId} is not stored`);
    this.clientToolAnswers.set(`${sessionId}\n${requestId}`, clone(answer));
  }

  getClientToolAnswer(sessionId: string, requestId: string): StoredClientToolAnswer | undefined {
    const a = this.clientToolAnswers.get(`${sessionId}\n${requestId}`);
    return a ? clone(a) : undefined;
  }

  listClientToolRequests(sessionId: string, status?: ClientToolStatus): ClientToolRequest[] {
    return [...(this.clientToolRequests.get(sessionId)?.values() ?? [])].filter((r) => status === undefined || r.status === status).map(clone);
  }

  /** Each tenant's log: events in the order appended (one process, no rollback of what is shown). */
  private readonly tenantLog: { tenant: string; event: NormaEvent }[] = [];

  tenantEventsAfter(tenant: string, after: string, limit: number): TenantEvent[] {
    const out: TenantEvent[] = [];
    for (let i = Math.max(0, Number(after)); i < this.tenantLog.length && out.length < limit; i++) {
      const e = this.tenantLog[i]!;
      if (e.tenant === tenant && this.sessions.has(e.event.session_id)) out.push({ cursor: String(i + 1), event: clone(e.event) });
    }
    return out;
  }

  tenantHead(_tenant: string): string {
    return String(this.tenantLog.length);
  }

  validTenantCursor(cursor: string): boolean {
    return /^[0-9]{1,15}$/.test(cursor);
  }

  listPending(query: PendingQuery): PendingEntry[] {
    const mine = (sessionId: string) => {
      const r = this.sessions.get(sessionId);
      return r !== undefined && (query.tenant === undefined || tenantOf(r) === query.tenant);
    };
    const all: PendingEntry[] = [];
    for (const [sessionId, m] of this.permissions) {
      if (mine(sessionId)) for (const p of m.values()) if (p.status === 'pending') all.push({ kind: 'permission', request: clone(p) });
    }
    for (const [sessionId, m] of this.questions) {
      if (mine(sessionId)) for (const q of m.values()) if (q.status === 'pending') all.push({ kind: 'question', question: clone(q) });
    }
    const after = query.after;
    return all
      .map((e) => ({ e, k: pendingKey(e) }))
      .filter(({ k }) => !after || k.created_at > after.created_at || (k.created_at === after.created_at && k.id > after.id))
      .sort((a, b) => (a.k.created_at < b.k.created_at ? -1 : a.k.created_at > b.k.created_at ? 1 : a.k.id < b.k.id ? -1 : a.k.id > b.k.id ? 1 : 0))
      .slice(0, query.limit)
      .map(({ e }) => e);
  }

  pendingCounts(sessionIds: readonly string[]): Map<string, number> {
    const counts = new Map<string, number>();
    for (const id of sessionIds) {
      const n =
        [...(this.permissions.get(id)?.values() ?? [])].filter((p) => p.status === 'pending').length +
        [...(this.questions.get(id)?.values() ?? [])].filter((q) => q.status === 'pending').length;
      if (n > 0) counts.set(id, n);
    }
    return counts;
  }

  putOutput(output: Output): void {
    let m = this.outputs.get(output.session_id);
    if (!m) this.outputs.set(output.session_id, (m = new Map()));
    m.set(output.id, clone(output));
  }

  getOutput(sessionId: string, outputId: string): Output | undefined {
    const o = this.outputs.get(sessionId)?.get(outputId);
    return o && clone(o);
  }

  listOutputs(sessionId: string): Output[] {
    return [...(this.outputs.get(sessionId)?.values() ?? [])].map(clone);
  }

  sessionsWithOutputs(): string[] {
    return [...this.outputs.keys()];
  }

  appendEvent(event: NormaEvent): void {
    let log = this.events.get(event.session_id);
    if (!log) this.events.set(event.session_id, (log = []));
    const expected = log.length + 1;
    if (event.seq !== expected) {
      throw new Error(`event seq ${event.seq} out of order for session ${event.session_id} (expected ${expected})`);
    }
    log.push(clone(event));
    const r = this.sessions.get(event.session_id);
    if (r) this.tenantLog.push({ tenant: tenantOf(r), event: clone(event) });
  }

  lastSeq(sessionId: string): number {
    return this.events.get(sessionId)?.length ?? 0;
  }

  lastEventHash(sessionId: string): string | null {
    return this.events.get(sessionId)?.at(-1)?.hash ?? null;
  }

  eventsAfter(sessionId: string, afterSeq: number, limit: number): NormaEvent[] {
    const log = this.events.get(sessionId) ?? [];
    // seq n lives at index n-1, so the slice is direct.
    return log.slice(Math.max(0, afterSeq), Math.max(0, afterSeq) + limit).map(clone);
  }
}

/** Sessions of earlier versions belong to the default tenant. */
function tenantOf(r: SessionRecord): string {
  return r.session.tenant ?? 'default';
}
