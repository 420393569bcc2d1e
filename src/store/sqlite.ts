// The durable Store: one SQLite file (better-sqlite3, WAL) under NORMA_DATA_DIR. Resources are
// kept as JSON documents with the columns queries need beside them. Schema changes are numbered
// migrations applied at start-up inside a transaction each (PRAGMA user_version records the
// last one applied). Everything is synchronous: a write has committed when the call returns.
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import type { NormaEvent } from '../contract/events.js';
import type { Decision, Output, PermissionRequest, PermissionStatus, ToolResult, Turn } from '../contract/schemas.js';
import { transcriptResult } from '../contract/transcript.js';
import type { DecisionQuery, SessionPageQuery, SessionRecord, Store } from './store.js';

/** The database cannot be used: start-up stops with this message (path and cause). */
export class StoreOpenError extends Error {
  constructor(
    readonly file: string,
    cause: string,
  ) {
    super(`cannot use the database ${file}: ${cause}`);
    this.name = 'StoreOpenError';
  }
}

const MIGRATIONS: readonly string[] = [
  // 1: the initial schema.
  `
  CREATE TABLE sessions (
    id TEXT PRIMARY KEY,
    created_at TEXT NOT NULL,
    status TEXT NOT NULL,
    closed_at TEXT,
    data TEXT NOT NULL,
    hooks TEXT,
    model_api_key TEXT
  );
  CREATE INDEX sessions_by_created ON sessions (created_at DESC, id DESC);
  CREATE INDEX sessions_by_status ON sessions (status, closed_at);
  CREATE TABLE turns (
    session_id TEXT NOT NULL,
    id TEXT NOT NULL,
    ord INTEGER NOT NULL,
    head TEXT NOT NULL,
    tool_uses TEXT NOT NULL,
    PRIMARY KEY (session_id, id)
  );
  CREATE INDEX turns_by_order ON turns (session_id, ord);
  CREATE TABLE turn_results (
    session_id TEXT NOT NULL,
    turn_id TEXT NOT NULL,
    idx INTEGER NOT NULL,
    data TEXT NOT NULL,
    PRIMARY KEY (session_id, turn_id, idx)
  ) WITHOUT ROWID;
  CREATE TABLE permissions (
    session_id TEXT NOT NULL,
    id TEXT NOT NULL,
    ord INTEGER NOT NULL,
    status TEXT NOT NULL,
    data TEXT NOT NULL,
    PRIMARY KEY (session_id, id)
  );
  CREATE INDEX permissions_by_order ON permissions (session_id, ord);
  CREATE TABLE outputs (
    session_id TEXT NOT NULL,
    id TEXT NOT NULL,
    ord INTEGER NOT NULL,
    data TEXT NOT NULL,
    PRIMARY KEY (session_id, id)
  );
  CREATE INDEX outputs_by_order ON outputs (session_id, ord);
  CREATE TABLE events (
    session_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    type TEXT NOT NULL,
    turn_id TEXT,
    data TEXT NOT NULL,
    PRIMARY KEY (session_id, seq)
  ) WITHOUT ROWID;
  CREATE INDEX events_by_turn ON events (session_id, turn_id, type);
  CREATE TABLE decisions (
    session_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    turn_id TEXT NOT NULL,
    tool_use_id TEXT NOT NULL,
    data TEXT NOT NULL,
    PRIMARY KEY (session_id, seq)
  ) WITHOUT ROWID;
  `,
  // 2: a session's model configuration (without its key, which has its own column).
  `ALTER TABLE sessions ADD COLUMN model TEXT;`,
];

export const SCHEMA_VERSION = MIGRATIONS.length;

type Row = { data: string };

export class SqliteStore implements Store {
  readonly durable = true;
  private readonly db: Database.Database;
  private readonly statements = new Map<string, Database.Statement>();
  /** Per-session counters, read once from the database; cleared when a transaction rolls back. */
  private readonly lastSeqs = new Map<string, number>();
  private readonly lastDecisions = new Map<string, number>();
  /** For turns being written: which results (by tool_use index) are stored already. */
  private readonly storedResults = new Map<string, Set<number>>();
  /** For prompt turns being written: how many tool_uses are stored (they grow with each model call). */
  private readonly storedToolUses = new Map<string, number>();
  private committed: (() => void)[] = [];
  private depth = 0;

  /** Opens (creating if needed) and migrates the database; StoreOpenError when it cannot be used. */
  constructor(readonly file: string) {
    try {
      fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
      this.db = new Database(file);
    } catch (err) {
      throw new StoreOpenError(file, messageOf(err));
    }
    try {
      this.db.pragma('journal_mode = WAL');
      // WAL + NORMAL: a committed transaction survives a process crash (SIGKILL included); only
      // an operating-system crash or power loss can lose the last ones, never corrupt the file.
      this.db.pragma('synchronous = NORMAL');
      this.db.pragma('busy_timeout = 5000');
      this.db.pragma('foreign_keys = OFF');
      const check = this.db.pragma('quick_check', { simple: true });
      if (check !== 'ok') throw new Error(`integrity check failed: ${String(check)}`);
      this.migrate();
    } catch (err) {
      try {
        this.db.close();
      } catch {
        // already unusable
      }
      throw new StoreOpenError(file, messageOf(err));
    }
  }

  private migrate(): void {
    const version = this.db.pragma('user_version', { simple: true }) as number;
    if (version > MIGRATIONS.length) {
      throw new Error(`schema version ${version} is newer than this server understands (${MIGRATIONS.length}); upgrade the server`);
    }
    for (let v = version; v < MIGRATIONS.length; v++) {
      this.db.transaction(() => {
        this.db.exec(MIGRATIONS[v]!);
        this.db.pragma(`user_version = ${v + 1}`);
      })();
    }
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
      this.lastSeqs.clear();
      this.lastDecisions.clear();
      this.storedResults.clear();
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
    const s = record.session;
    this.write(() =>
      this.stmt(
        `INSERT INTO sessions (id, created_at, status, closed_at, data, hooks, model_api_key, model) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (id) DO UPDATE SET status = excluded.status, closed_at = excluded.closed_at, data = excluded.data,
           hooks = excluded.hooks, model_api_key = excluded.model_api_key, model = excluded.model`,
      ).run(
        s.id,
        s.created_at,
        s.status,
        s.closed_at,
        JSON.stringify(s),
        record.hooks ? JSON.stringify(record.hooks) : null,
        record.modelApiKey,
        record.model ? JSON.stringify(record.model) : null,
      ),
    );
  }

  private toRecord(row: { data: string; hooks: string | null; model_api_key: string | null; model: string | null } | undefined): SessionRecord | undefined {
    if (!row) return undefined;
    return {
      session: JSON.parse(row.data),
      hooks: row.hooks ? JSON.parse(row.hooks) : null,
      modelApiKey: row.model_api_key,
      model: row.model ? JSON.parse(row.model) : null,
    };
  }

  getSession(id: string): SessionRecord | undefined {
    return this.toRecord(this.stmt('SELECT data, hooks, model_api_key, model FROM sessions WHERE id = ?').get(id) as never);
  }

  listSessions(query: SessionPageQuery): SessionRecord[] {
    const rows = query.after
      ? this.stmt(
          `SELECT data, hooks, model_api_key, model FROM sessions WHERE (created_at, id) < (?, ?) ORDER BY created_at DESC, id DESC LIMIT ?`,
        ).all(query.after.created_at, query.after.id, query.limit)
      : this.stmt('SELECT data, hooks, model_api_key, model FROM sessions ORDER BY created_at DESC, id DESC LIMIT ?').all(query.limit);
    return (rows as never[]).map((r) => this.toRecord(r)!);
  }

  deleteSession(id: string): void {
    this.write(() => {
      for (const table of ['sessions', 'turns', 'turn_results', 'permissions', 'outputs', 'events', 'decisions']) {
        this.stmt(`DELETE FROM ${table} WHERE ${table === 'sessions' ? 'id' : 'session_id'} = ?`).run(id);
      }
    });
    this.afterCommit(() => {
      this.lastSeqs.delete(id);
      this.lastDecisions.delete(id);
    });
  }

  closedSessionsBefore(before: string, limit: number): SessionRecord[] {
    const rows = this.stmt(
      `SELECT data, hooks, model_api_key, model FROM sessions WHERE status = 'closed' AND closed_at < ? ORDER BY closed_at LIMIT ?`,
    ).all(before, limit);
    return (rows as never[]).map((r) => this.toRecord(r)!);
  }

  activeSessions(): SessionRecord[] {
    const rows = this.stmt(`SELECT data, hooks, model_api_key, model FROM sessions WHERE status = 'active' ORDER BY created_at, id`).all();
    return (rows as never[]).map((r) => this.toRecord(r)!);
  }

  // ── turns, permissions, outputs: documents in insertion order ──────────────────────────

  private putOrdered(table: 'permissions' | 'outputs', sessionId: string, id: string, value: unknown, status?: string): void {
    this.write(() => {
      const json = JSON.stringify(value);
      const updated =
        table === 'permissions'
          ? this.stmt('UPDATE permissions SET data = ?, status = ? WHERE session_id = ? AND id = ?').run(json, status, sessionId, id)
          : this.stmt(`UPDATE ${table} SET data = ? WHERE session_id = ? AND id = ?`).run(json, sessionId, id);
      if (updated.changes > 0) return;
      const ord = (this.stmt(`SELECT COALESCE(MAX(ord), 0) + 1 AS n FROM ${table} WHERE session_id = ?`).get(sessionId) as { n: number }).n;
      if (table === 'permissions') {
        this.stmt('INSERT INTO permissions (session_id, id, ord, status, data) VALUES (?, ?, ?, ?, ?)').run(sessionId, id, ord, status, json);
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
    return (this.stmt(`SELECT data FROM ${table} WHERE session_id = ? ORDER BY ord`).all(sessionId) as Row[]).map((r) => JSON.parse(r.data) as T);
  }

  // A turn is written on every result and status change. Its tool_uses never change and its
  // results only grow, so they are stored once each: writing a turn costs what changed, not
  // the size of everything it has produced so far.
  putTurn(turn: Turn): void {
    const { results, tool_uses, ...head } = turn;
    const key = `${turn.session_id}\u0000${turn.id}`;
    this.write(() => {
      const headJson = JSON.stringify(head.messages ? { ...head, messages: head.messages.map(withoutResultContent) } : head);
      const updated =
        turn.kind === 'prompt' && this.storedToolUses.get(key) !== tool_uses.length
          ? this.stmt('UPDATE turns SET head = ?, tool_uses = ? WHERE session_id = ? AND id = ?').run(headJson, JSON.stringify(tool_uses), turn.session_id, turn.id)
          : this.stmt('UPDATE turns SET head = ? WHERE session_id = ? AND id = ?').run(headJson, turn.session_id, turn.id);
      this.storedToolUses.set(key, tool_uses.length);
      if (updated.changes === 0) {
        const ord = (this.stmt('SELECT COALESCE(MAX(ord), 0) + 1 AS n FROM turns WHERE session_id = ?').get(turn.session_id) as { n: number }).n;
        this.stmt('INSERT INTO turns (session_id, id, ord, head, tool_uses) VALUES (?, ?, ?, ?, ?)').run(
          turn.session_id,
          turn.id,
          ord,
          headJson,
          JSON.stringify(tool_uses),
        );
      }
      let stored = this.storedResults.get(key);
      if (!stored) {
        const rows = this.stmt('SELECT idx FROM turn_results WHERE session_id = ? AND turn_id = ?').all(turn.session_id, turn.id) as { idx: number }[];
        stored = new Set(rows.map((r) => r.idx));
        this.storedResults.set(key, stored);
      }
      if (results.length > stored.size) {
        const index = new Map(tool_uses.map((tu, i) => [tu.id, i]));
        for (const r of results) {
          const idx = index.get(r.tool_use_id);
          if (idx === undefined || stored.has(idx)) continue;
          this.stmt('INSERT OR REPLACE INTO turn_results (session_id, turn_id, idx, data) VALUES (?, ?, ?, ?)').run(turn.session_id, turn.id, idx, JSON.stringify(r));
          stored.add(idx);
        }
      }
    });
    if (turn.status !== 'running' && turn.status !== 'awaiting_permission') {
      this.storedResults.delete(key);
      this.storedToolUses.delete(key);
    }
  }

  private toTurn(sessionId: string, row: { id: string; head: string; tool_uses: string }): Turn {
    const results = (this.stmt('SELECT data FROM turn_results WHERE session_id = ? AND turn_id = ? ORDER BY idx').all(sessionId, row.id) as Row[]).map((r) =>
      JSON.parse(r.data),
    );
    const turn = { ...JSON.parse(row.head), tool_uses: JSON.parse(row.tool_uses), results } as Turn;
    if (turn.messages) {
      const byId = new Map<string, ToolResult>(results.map((r: ToolResult) => [r.tool_use_id, r]));
      turn.messages = turn.messages.map((m) => withResultContent(m, byId));
    }
    return turn;
  }

  getTurn(sessionId: string, turnId: string): Turn | undefined {
    const row = this.stmt('SELECT id, head, tool_uses FROM turns WHERE session_id = ? AND id = ?').get(sessionId, turnId) as
      | { id: string; head: string; tool_uses: string }
      | undefined;
    return row ? this.toTurn(sessionId, row) : undefined;
  }

  listTurns(sessionId: string): Turn[] {
    const rows = this.stmt('SELECT id, head, tool_uses FROM turns WHERE session_id = ? ORDER BY ord').all(sessionId) as { id: string; head: string; tool_uses: string }[];
    return rows.map((row) => this.toTurn(sessionId, row));
  }

  putPermission(request: PermissionRequest): void {
    this.putOrdered('permissions', request.session_id, request.id, request, request.status);
  }

  getPermission(sessionId: string, permissionId: string): PermissionRequest | undefined {
    return this.getOne('permissions', sessionId, permissionId);
  }

  listPermissions(sessionId: string, status?: PermissionStatus): PermissionRequest[] {
    if (status === undefined) return this.listOrdered('permissions', sessionId);
    return (this.stmt('SELECT data FROM permissions WHERE session_id = ? AND status = ? ORDER BY ord').all(sessionId, status) as Row[]).map(
      (r) => JSON.parse(r.data) as PermissionRequest,
    );
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
        JSON.stringify(event),
      ),
    );
    if (event.type === 'session.closed') {
      // A session's final event: its counters need not stay cached for the life of the process.
      this.lastSeqs.delete(event.session_id);
      this.lastDecisions.delete(event.session_id);
    } else this.lastSeqs.set(event.session_id, event.seq);
  }

  lastSeq(sessionId: string): number {
    let n = this.lastSeqs.get(sessionId);
    if (n === undefined) {
      n = (this.stmt('SELECT COALESCE(MAX(seq), 0) AS n FROM events WHERE session_id = ?').get(sessionId) as { n: number }).n;
      this.lastSeqs.set(sessionId, n);
    }
    return n;
  }

  eventsAfter(sessionId: string, afterSeq: number, limit: number): NormaEvent[] {
    return (this.stmt('SELECT data FROM events WHERE session_id = ? AND seq > ? ORDER BY seq LIMIT ?').all(sessionId, afterSeq, limit) as Row[]).map(
      (r) => JSON.parse(r.data) as NormaEvent,
    );
  }

  eventsOfTypes(sessionId: string, types: readonly string[], afterSeq: number, limit: number): NormaEvent[] {
    if (types.length === 0) return [];
    const marks = types.map(() => '?').join(', ');
    const rows = this.stmt(`SELECT data FROM events WHERE session_id = ? AND seq > ? AND type IN (${marks}) ORDER BY seq LIMIT ?`).all(
      sessionId,
      afterSeq,
      ...types,
      limit,
    ) as Row[];
    return rows.map((r) => JSON.parse(r.data) as NormaEvent);
  }

  turnEvents(sessionId: string, turnId: string, type: string): NormaEvent[] {
    return (this.stmt('SELECT data FROM events WHERE session_id = ? AND turn_id = ? AND type = ? ORDER BY seq').all(sessionId, turnId, type) as Row[]).map(
      (r) => JSON.parse(r.data) as NormaEvent,
    );
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
        JSON.stringify(decision),
      ),
    );
    this.lastDecisions.set(decision.session_id, decision.seq);
  }

  lastDecisionSeq(sessionId: string): number {
    let n = this.lastDecisions.get(sessionId);
    if (n === undefined) {
      n = (this.stmt('SELECT COALESCE(MAX(seq), 0) AS n FROM decisions WHERE session_id = ?').get(sessionId) as { n: number }).n;
      this.lastDecisions.set(sessionId, n);
    }
    return n;
  }

  listDecisions(sessionId: string, query: DecisionQuery): Decision[] {
    const where = ['session_id = ?', 'seq > ?'];
    const args: unknown[] = [sessionId, query.afterSeq];
    if (query.turnId !== undefined) {
      where.push('turn_id = ?');
      args.push(query.turnId);
    }
    if (query.toolUseId !== undefined) {
      where.push('tool_use_id = ?');
      args.push(query.toolUseId);
    }
    args.push(query.limit);
    return (this.stmt(`SELECT data FROM decisions WHERE ${where.join(' AND ')} ORDER BY seq LIMIT ?`).all(...args) as Row[]).map(
      (r) => JSON.parse(r.data) as Decision,
    );
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}

function messageOf(err: unknown): string {
  if (err instanceof Error) {
    const code = (err as { code?: string }).code;
    return code && !err.message.includes(code) ? `${err.message} (${code})` : err.message;
  }
  return String(err);
}

type StoredMessage = NonNullable<Turn['messages']>[number];

// A prompt turn's messages repeat its results' text in their tool_result blocks: the head stores
// them without it (the turn_results rows have it) and reading puts it back.
function withoutResultContent(m: StoredMessage): StoredMessage {
  if (m.role !== 'user' || !m.content.some((b) => b.type === 'tool_result')) return m;
  return { ...m, content: m.content.map((b) => (b.type === 'tool_result' ? { ...b, content: undefined, content_from_result: true } : b)) };
}

function withResultContent(m: StoredMessage, results: Map<string, ToolResult>): StoredMessage {
  const blocks = m.content as Record<string, unknown>[];
  if (m.role !== 'user' || !blocks.some((b) => b.content_from_result === true)) return m;
  return {
    role: m.role,
    content: blocks.map((b) =>
      b.content_from_result === true ? transcriptResult(String(b.tool_use_id), results.get(String(b.tool_use_id))) : (b as { type: string }),
    ),
  };
}
