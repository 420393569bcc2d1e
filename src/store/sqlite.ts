// The durable Store: one SQLite file (better-sqlite3, WAL) under NORMA_DATA_DIR. Resources are
// kept as JSON documents with the columns queries need beside them (sqlite-rows.ts); the schema
// and how the file is opened are in sqlite-schema.ts, how turns are kept in sqlite-turns.ts.
// Everything is synchronous: a write has committed when the call returns.
import type Database from 'better-sqlite3';
import type { NormaEvent } from '../contract/events.js';
import type { ClientToolRequest, ClientToolStatus, Decision, Output, PermissionRequest, PermissionStatus, Question, QuestionStatus, Turn } from '../contract/schemas.js';
import { SESSION_COLUMNS, documentsOf, sessionRecordOf, sessionRowOf, type ColumnSealer, type Row } from './sqlite-rows.js';
import { recordJson } from '../evidence/chain.js';
import { openDatabase } from './sqlite-schema.js';
import { SqliteTurns } from './sqlite-turns.js';
import { SqliteIdempotency } from './sqlite-idempotency.js';
import { SqliteSpend } from './spend.js';
import { SqliteKeys } from './keys.js';
import { SessionHeads, headOf } from './heads.js';
import { decisionsSelect, labelPath, storeInt, type DecisionQuery, type PendingEntry, type PendingQuery, type SessionPageQuery, type SessionRecord, type Store, type StoredClientToolAnswer, type TenantEvent } from './store.js';

export { SCHEMA_VERSION, StoreOpenError } from './sqlite-schema.js';

export class SqliteStore implements Store {
  readonly durable = true;
  private readonly db: Database.Database;
  private readonly statements = new Map<string, Database.Statement>();
  /** Each session's last event and decision (seq, hash), read once from the database; cleared when a transaction rolls back. */
  private readonly heads = new SessionHeads((chain, id) =>
    headOf(this.stmt(`SELECT seq, json_extract(data, '$.hash') AS hash FROM ${chain} WHERE session_id = ? ORDER BY seq DESC LIMIT 1`).get(id) as { seq: number; hash: unknown } | undefined),
  );
  private readonly turns = new SqliteTurns((sql) => this.stmt(sql));
  /** Idempotency-Key answers, written in the store's transactions (sqlite-idempotency.ts). */
  readonly idempotency = new SqliteIdempotency(
    (sql) => this.stmt(sql),
    (fn) => this.write(fn),
  );
  /** What tenants' model calls cost per day, written in the store's transactions (spend.ts). */
  readonly spend = new SqliteSpend(
    (sql) => this.stmt(sql),
    (fn) => this.write(fn),
  );
  /** Signing keys, signed heads and data keys (keys.ts). */
  readonly keys = new SqliteKeys(() => this.db);
  /** Seals the session columns that hold secrets (encryption at rest on). */
  sealer: ColumnSealer | undefined;
  private committed: (() => void)[] = [];
  private depth = 0;

  /** Opens (creating if needed) and migrates the database; StoreOpenError when it cannot be used. */
  constructor(readonly file: string) {
    this.db = openDatabase(file);
  }

  private stmt(sql: string): Database.Statement {
    let s = this.statements.get(sql);
    if (!s) {
      s = this.db.prepare(sql);
      this.statements.set(sql, s);
    }
    return s;
  }

  // ── transactions ────────────────────────────────────────────────────────────────────────

  transaction<T>(fn: () => T): T {
    if (this.depth > 0) {
      this.depth++;
      try {
        return fn();
      } finally {
        this.depth--;
      }
    }
    this.depth = 1;
    let value: T;
    try {
      value = this.db.transaction(fn)();
    } catch (err) {
      this.committed = [];
      this.heads.clear();
      // A tenant's data key made inside the transaction is gone with it: read them again.
      this.sealer?.rolledBack?.();
      this.turns.rolledBack();
      throw err;
    } finally {
      this.depth = 0;
    }
    for (const f of this.committed.splice(0)) f();
    return value;
  }

  afterCommit(fn: () => void): void {
    if (this.depth === 0) fn();
    else this.committed.push(fn);
  }

  /** A single write outside any transaction is its own unit; inside one it joins it. */
  private write(fn: () => void): void {
    if (this.depth > 0) fn();
    else this.transaction(fn);
  }

  // ── sessions ────────────────────────────────────────────────────────────────────────────

  putSession(record: SessionRecord): void {
    this.write(() =>
      this.stmt(
        `INSERT INTO sessions (id, created_at, status, closed_at, data, hooks, model_api_key, model, todos, mcp_servers, tenant, secrets, client_tools) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (id) DO UPDATE SET status = excluded.status, closed_at = excluded.closed_at, data = excluded.data,
           hooks = excluded.hooks, model_api_key = excluded.model_api_key, model = excluded.model, todos = excluded.todos,
           mcp_servers = excluded.mcp_servers, secrets = excluded.secrets, client_tools = excluded.client_tools`,
      ).run(...sessionRowOf(record, this.sealer)),
    );
  }

  getSession(id: string, tenant?: string): SessionRecord | undefined {
    // With a tenant, another tenant's session is not found by the same query a missing one is not.
    const row =
      tenant === undefined
        ? this.stmt(`SELECT ${SESSION_COLUMNS} FROM sessions WHERE id = ?`).get(id)
        : this.stmt(`SELECT ${SESSION_COLUMNS} FROM sessions INDEXED BY sessions_by_id_tenant WHERE id = ? AND tenant = ?`).get(id, tenant);
    return sessionRecordOf(row as never, this.sealer);
  }

  setActiveTurn(id: string, turnId: string | null, onlyIf?: string): boolean {
    // json_set rewrites the document in SQLite itself: no index column changes, nothing is parsed here.
    let changed = false;
    this.write(() => {
      changed =
        (onlyIf === undefined
          ? this.stmt(`UPDATE sessions SET data = json_set(data, '$.active_turn_id', ?) WHERE id = ?`).run(turnId, id)
          : this.stmt(`UPDATE sessions SET data = json_set(data, '$.active_turn_id', ?) WHERE id = ? AND json_extract(data, '$.active_turn_id') IS ?`).run(turnId, id, onlyIf)
        ).changes > 0;
    });
    return changed;
  }

  listSessions(query: SessionPageQuery): SessionRecord[] {
    const where: string[] = [];
    const args: unknown[] = [];
    if (query.tenant !== undefined) {
      where.push('tenant = ?');
      args.push(query.tenant);
    }
    if (query.after) {
      where.push('(created_at, id) < (?, ?)');
      args.push(query.after.created_at, query.after.id);
    }
    if (query.status !== undefined) {
      where.push('status = ?');
      args.push(query.status);
    }
    for (const [key, value] of query.labels ?? []) {
      where.push('json_extract(data, ?) = ?');
      args.push(labelPath(key), value);
    }
    const rows = this.stmt(
      `SELECT ${SESSION_COLUMNS} FROM sessions ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY created_at DESC, id DESC LIMIT ?`,
    ).all(...args, storeInt(query.limit));
    return (rows as never[]).map((r) => sessionRecordOf(r, this.sealer)!);
  }

  deleteSession(id: string): void {
    this.write(() => {
      for (const table of ['sessions', 'turns', 'turn_results', 'permissions', 'questions', 'client_tool_requests', 'outputs', 'events', 'tenant_events', 'decisions', 'signed_heads']) {
        this.stmt(`DELETE FROM ${table} WHERE ${table === 'sessions' ? 'id' : 'session_id'} = ?`).run(id);
      }
    });
    this.afterCommit(() => {
      this.heads.forget(id);
    });
  }

  closedSessionsBefore(before: string, limit: number): SessionRecord[] {
    const rows = this.stmt(
      `SELECT ${SESSION_COLUMNS} FROM sessions WHERE status = 'closed' AND closed_at < ? ORDER BY closed_at LIMIT ?`,
    ).all(before, storeInt(limit));
    return (rows as never[]).map((r) => sessionRecordOf(r, this.sealer)!);
  }

  activeSessions(): SessionRecord[] {
    const rows = this.stmt(`SELECT ${SESSION_COLUMNS} FROM sessions WHERE status = 'active' ORDER BY created_at, id`).all();
    return (rows as never[]).map((r) => sessionRecordOf(r, this.sealer)!);
  }

  // ── turns, permissions, outputs: documents in insertion order ──────────────────────────

  private putOrdered(table: 'permissions' | 'questions' | 'client_tool_requests' | 'outputs', sessionId: string, id: string, value: unknown, status?: string): void {
    this.write(() => {
      const json = JSON.stringify(value);
      const withStatus = table !== 'outputs';
      const updated = withStatus
        ? this.stmt(`UPDATE ${table} SET data = ?, status = ? WHERE session_id = ? AND id = ?`).run(json, status, sessionId, id)
        : this.stmt(`UPDATE ${table} SET data = ? WHERE session_id = ? AND id = ?`).run(json, sessionId, id);
      if (updated.changes > 0) return;
      const ord = (this.stmt(`SELECT COALESCE(MAX(ord), 0) + 1 AS n FROM ${table} WHERE session_id = ?`).get(sessionId) as { n: number }).n;
      if (withStatus) {
        this.stmt(`INSERT INTO ${table} (session_id, id, ord, status, data) VALUES (?, ?, ?, ?, ?)`).run(sessionId, id, ord, status, json);
      } else {
        this.stmt(`INSERT INTO ${table} (session_id, id, ord, data) VALUES (?, ?, ?, ?)`).run(sessionId, id, ord, json);
      }
    });
  }

  private getOne<T>(table: string, sessionId: string, id: string): T | undefined {
    const row = this.stmt(`SELECT data FROM ${table} WHERE session_id = ? AND id = ?`).get(sessionId, id) as Row | undefined;
    return row ? (JSON.parse(row.data) as T) : undefined;
  }

  private listOrdered<T>(table: string, sessionId: string): T[] {
    return documentsOf<T>(this.stmt(`SELECT data FROM ${table} WHERE session_id = ? ORDER BY ord`).all(sessionId));
  }

  putTurn(turn: Turn): void {
    this.write(() => this.turns.write(turn));
    this.turns.written(turn);
  }

  getTurn(sessionId: string, turnId: string): Turn | undefined {
    return this.turns.get(sessionId, turnId);
  }

  listTurns(sessionId: string): Turn[] {
    return this.turns.list(sessionId);
  }

  putPermission(request: PermissionRequest): void {
    this.putOrdered('permissions', request.session_id, request.id, request, request.status);
  }

  getPermission(sessionId: string, permissionId: string): PermissionRequest | undefined {
    return this.getOne('permissions', sessionId, permissionId);
  }

  listPermissions(sessionId: string, status?: PermissionStatus): PermissionRequest[] {
    if (status === undefined) return this.listOrdered('permissions', sessionId);
    return documentsOf<PermissionRequest>(this.stmt('SELECT data FROM permissions WHERE session_id = ? AND status = ? ORDER BY ord').all(sessionId, status));
  }

  putQuestion(question: Question): void {
    this.putOrdered('questions', question.session_id, question.id, question, question.status);
  }

  getQuestion(sessionId: string, questionId: string): Question | undefined {
    return this.getOne('questions', sessionId, questionId);
  }

  listQuestions(sessionId: string, status?: QuestionStatus): Question[] {
    if (status === undefined) return this.listOrdered('questions', sessionId);
    return documentsOf<Question>(this.stmt('SELECT data FROM questions WHERE session_id = ? AND status = ? ORDER BY ord').all(sessionId, status));
  }

  putClientToolRequest(request: ClientToolRequest): void {
    this.putOrdered('client_tool_requests', request.session_id, request.id, request, request.status);
  }

  getClientToolRequest(sessionId: string, requestId: string): ClientToolRequest | undefined {
    return this.getOne('client_tool_requests', sessionId, requestId);
  }

  listClientToolRequests(sessionId: string, status?: ClientToolStatus): ClientToolRequest[] {
    if (status === undefined) return this.listOrdered('client_tool_requests', sessionId);
    return documentsOf<ClientToolRequest>(this.stmt('SELECT data FROM client_tool_requests WHERE session_id = ? AND status = ? ORDER BY ord').all(sessionId, status));
  }

  putClientToolAnswer(sessionId: string, requestId: string, answer: StoredClientToolAnswer): void {
    this.write(() => {
      const r = this.stmt('UPDATE client_tool_requests SET answer = ? WHERE session_id = ? AND id = ?').run(JSON.stringify(answer), sessionId, requestId);
      if (r.changes !== 1) throw new Error(`client-tool request ${requestId} of session ${sessionId} is not stored`);
    });
  }

  getClientToolAnswer(sessionId: string, requestId: string): StoredClientToolAnswer | undefined {
    const row = this.stmt('SELECT answer FROM client_tool_requests WHERE session_id = ? AND id = ?').get(sessionId, requestId) as { answer: string | null } | undefined;
    return row?.answer ? (JSON.parse(row.answer) as StoredClientToolAnswer) : undefined;
  }

  tenantEventsAfter(tenant: string, after: string, limit: number): TenantEvent[] {
    const rows = this.stmt(
      'SELECT t.gid AS gid, e.data AS data FROM tenant_events t JOIN events e ON e.session_id = t.session_id AND e.seq = t.seq WHERE t.tenant = ? AND t.gid > ? ORDER BY t.gid LIMIT ?',
    ).all(tenant, storeInt(Number(after)), storeInt(limit)) as { gid: number; data: string }[];
    return rows.map((r) => ({ cursor: String(r.gid), event: JSON.parse(r.data) }));
  }

  tenantHead(tenant: string): string {
    const row = this.stmt('SELECT max(gid) AS gid FROM tenant_events WHERE tenant = ?').get(tenant) as { gid: number | null };
    return String(row.gid ?? 0);
  }

  validTenantCursor(cursor: string): boolean {
    return /^[0-9]{1,15}$/.test(cursor);
  }

  listPending(query: PendingQuery): PendingEntry[] {
    const args: unknown[] = [];
    const tenant = query.tenant !== undefined ? 'AND s.tenant = ?' : '';
    const after = query.after ? 'WHERE (created, id) > (?, ?)' : '';
    for (let i = 0; i < 2 && query.tenant !== undefined; i++) args.push(query.tenant);
    if (query.after) args.push(query.after.created_at, query.after.id);
    const rows = this.stmt(
      `SELECT kind, data FROM (` +
        `SELECT 'permission' AS kind, p.id AS id, json_extract(p.data, '$.created_at') AS created, p.data AS data FROM permissions p JOIN sessions s ON s.id = p.session_id WHERE p.status = 'pending' ${tenant} ` +
        `UNION ALL SELECT 'question', q.id, json_extract(q.data, '$.created_at'), q.data FROM questions q JOIN sessions s ON s.id = q.session_id WHERE q.status = 'pending' ${tenant}` +
        `) ${after} ORDER BY created, id LIMIT ?`,
    ).all(...args, storeInt(query.limit)) as { kind: string; data: string }[];
    return rows.map((r) => (r.kind === 'permission' ? { kind: 'permission', request: JSON.parse(r.data) } : { kind: 'question', question: JSON.parse(r.data) }));
  }

  pendingCounts(sessionIds: readonly string[]): Map<string, number> {
    const counts = new Map<string, number>();
    if (sessionIds.length === 0) return counts;
    const marks = sessionIds.map(() => '?').join(', ');
    const rows = this.stmt(
      `SELECT session_id, count(*) AS n FROM (SELECT session_id FROM permissions WHERE status = 'pending' AND session_id IN (${marks}) ` +
        `UNION ALL SELECT session_id FROM questions WHERE status = 'pending' AND session_id IN (${marks})) GROUP BY session_id`,
    ).all(...sessionIds, ...sessionIds) as { session_id: string; n: number }[];
    for (const r of rows) counts.set(r.session_id, r.n);
    return counts;
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
    return (this.stmt('SELECT DISTINCT session_id FROM outputs').all() as { session_id: string }[]).map((r) => r.session_id);
  }

  // ── events and decisions: per-session sequences ─────────────────────────────────────────

  appendEvent(event: NormaEvent): void {
    const expected = this.lastSeq(event.session_id) + 1;
    if (event.seq !== expected) throw new Error(`event seq ${event.seq} for ${event.session_id} is not the next one (${expected})`);
    const turnId = (event as { turn_id?: string }).turn_id ?? null;
    this.write(() =>
      this.stmt('INSERT INTO events (session_id, seq, type, turn_id, data) VALUES (?, ?, ?, ?, ?)').run(
        event.session_id,
        event.seq,
        event.type,
        turnId,
        recordJson(event),
      ),
    );
    // A session's final event: its counters need not stay cached for the life of the process.
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
    return documentsOf<NormaEvent>(this.stmt('SELECT data FROM events WHERE session_id = ? AND seq > ? ORDER BY seq LIMIT ?').all(sessionId, storeInt(afterSeq), storeInt(limit)));
  }

  eventsOfTypes(sessionId: string, types: readonly string[], afterSeq: number, limit: number): NormaEvent[] {
    if (types.length === 0) return [];
    const marks = types.map(() => '?').join(', ');
    const rows = this.stmt(`SELECT data FROM events WHERE session_id = ? AND seq > ? AND type IN (${marks}) ORDER BY seq LIMIT ?`).all(
      sessionId,
      storeInt(afterSeq),
      ...types,
      storeInt(limit),
    );
    return documentsOf<NormaEvent>(rows);
  }

  turnEvents(sessionId: string, turnId: string, type: string): NormaEvent[] {
    // tool.started is spelled out so that the partial index on it can be used.
    const rows =
      type === 'tool.started'
        ? this.stmt(`SELECT data FROM events INDEXED BY events_started_by_turn WHERE session_id = ? AND turn_id = ? AND type = 'tool.started' ORDER BY seq`).all(sessionId, turnId)
        : this.stmt('SELECT data FROM events WHERE session_id = ? AND turn_id = ? AND type = ? ORDER BY seq').all(sessionId, turnId, type);
    return documentsOf<NormaEvent>(rows);
  }

  appendDecision(decision: Decision): void {
    const expected = this.lastDecisionSeq(decision.session_id) + 1;
    if (decision.seq !== expected) throw new Error(`decision seq ${decision.seq} does not follow ${expected - 1}`);
    this.write(() =>
      this.stmt('INSERT INTO decisions (session_id, seq, turn_id, tool_use_id, data) VALUES (?, ?, ?, ?, ?)').run(
        decision.session_id,
        decision.seq,
        decision.turn_id,
        decision.tool_use_id,
        recordJson(decision),
      ),
    );
    this.heads.appended('decisions', decision.session_id, decision.seq, decision.hash);
  }

  lastDecisionSeq(sessionId: string): number {
    return this.heads.head('decisions', sessionId).seq;
  }

  lastDecisionHash(sessionId: string): string | null {
    return this.heads.head('decisions', sessionId).hash;
  }

  listDecisions(sessionId: string, query: DecisionQuery): Decision[] {
    const { sql, args } = decisionsSelect(sessionId, query, () => '?');
    return documentsOf<Decision>(this.stmt(sql).all(...args));
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}
