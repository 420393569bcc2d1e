// The Store contract, run against both implementations, and what only the SQLite store does:
// survive reopening, migrate, roll back, refuse a corrupt or too-new file with its path.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { NormaEvent } from '../../src/contract/events.js';
import type { ClientToolRequest, Decision, PermissionRequest, Session, Turn } from '../../src/contract/schemas.js';
import { MemoryStore } from '../../src/store/memory.js';
import { SCHEMA_VERSION, SqliteStore, StoreOpenError } from '../../src/store/sqlite.js';
import type { SessionRecord, Store } from '../../src/store/store.js';
import { PostgresStore } from '../../src/store/pg-store.js';
import { createTestDatabase, type TestDatabase } from '../helpers/postgres.js';

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'norma-store-'));
});
afterEach(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

function session(id: string, created_at: string, extra: Partial<Session> = {}): SessionRecord {
  return {
    session: { id, created_at, status: 'active', closed_at: null, rules: [], permission_mode: 'default', ...extra } as unknown as Session,
    hooks: null,
    modelApiKey: null,
  };
}
const turn = (session_id: string, id: string, status = 'running'): Turn =>
  ({ id, session_id, kind: 'direct', status, tool_uses: [], results: [], pending: [], created_at: '2026-01-01T00:00:00.000Z' }) as unknown as Turn;
const event = (session_id: string, seq: number, type = 'turn.started', turn_id = 'turn_1'): NormaEvent =>
  ({ type, session_id, seq, time: '2026-01-01T00:00:00.000Z', turn_id }) as unknown as NormaEvent;
const perm = (session_id: string, id: string, status: PermissionRequest['status'] = 'pending'): PermissionRequest =>
  ({ id, session_id, turn_id: 't', tool_use_id: 'u', tool: 'Write', input: {}, reason: 'r', suggestions: [], status, created_at: 'x' }) as PermissionRequest;
const clientCall = (session_id: string, id: string, status: ClientToolRequest['status'] = 'pending'): ClientToolRequest =>
  ({ id, session_id, turn_id: 't', tool_use_id: 'u', name: 'lookup_order', input: { id: 'A-1' }, status, created_at: '2026-01-01T00:00:00.000Z' }) as ClientToolRequest;
const decision = (session_id: string, seq: number, turn_id = 'turn_1', tool_use_id = 'toolu_1'): Decision =>
  ({ seq, session_id, turn_id, tool_use_id, tool: 'Write', behavior: 'allow', decided_by: 'mode', rules: [], mode: 'default', reason: 'r', input_digest: '0'.repeat(64), input_source: 'call', created_at: 'x' }) as Decision;

// PostgreSQL: one database for the file, emptied before each test.
let pgDb: TestDatabase;
beforeAll(async () => {
  pgDb = await createTestDatabase();
});
afterAll(async () => {
  await pgDb?.drop();
});

const implementations: [string, () => Store][] = [
  ['MemoryStore', () => new MemoryStore()],
  ['SqliteStore', () => new SqliteStore(path.join(dir, 'norma.db'))],
  ['PostgresStore', () => new PostgresStore({ url: pgDb.url, nodeId: 'node-a' })],
];

describe.each(implementations)('%s: the Store contract', (name, make) => {
  let store: Store;
  beforeEach(async () => {
    if (name === 'PostgresStore') {
      const tables = await pgDb.query(`SELECT tablename FROM pg_tables WHERE schemaname = 'public' AND tablename <> 'norma_schema'`);
      if (tables.length > 0) await pgDb.query(`TRUNCATE ${tables.map((t) => t.tablename).join(', ')}`);
    }
    store = make();
  });
  afterEach(() => store.close());

  it('points a session at its turn with one narrow write, and only while it points at the expected one', () => {
    store.putSession(session('ses_a', '2026-01-01T00:00:00.000Z', { active_turn_id: null, rules: [{ rule: 'Read', behavior: 'allow', source: 'session', added_at: 'x' }] } as never));
    expect(store.setActiveTurn('ses_a', 'turn_1')).toBe(true);
    expect(store.getSession('ses_a')!.session.active_turn_id).toBe('turn_1');
    // Not pointing at turn_2: nothing changes.
    expect(store.setActiveTurn('ses_a', null, 'turn_2')).toBe(false);
    expect(store.getSession('ses_a')!.session.active_turn_id).toBe('turn_1');
    expect(store.setActiveTurn('ses_a', null, 'turn_1')).toBe(true);
    const after = store.getSession('ses_a')!.session;
    expect(after.active_turn_id).toBeNull();
    // Every other field is as it was.
    expect(after.rules).toEqual([{ rule: 'Read', behavior: 'allow', source: 'session', added_at: 'x' }]);
    expect(after.created_at).toBe('2026-01-01T00:00:00.000Z');
    expect(store.setActiveTurn('ses_missing', 'turn_1')).toBe(false);
  });

  it('finds the tool.started events of one turn, not another turn\'s or another type', () => {
    store.appendEvent(event('s', 1, 'turn.started', 'turn_1'));
    store.appendEvent({ ...event('s', 2, 'tool.started', 'turn_1'), tool_use_id: 'toolu_a' } as NormaEvent);
    store.appendEvent({ ...event('s', 3, 'tool.completed', 'turn_1'), tool_use_id: 'toolu_a' } as NormaEvent);
    store.appendEvent({ ...event('s', 4, 'tool.started', 'turn_2'), tool_use_id: 'toolu_b' } as NormaEvent);
    store.appendEvent({ ...event('s', 5, 'tool.started', 'turn_1'), tool_use_id: 'toolu_c' } as NormaEvent);
    expect(store.turnEvents('s', 'turn_1', 'tool.started').map((e) => e.seq)).toEqual([2, 5]);
    expect(store.turnEvents('s', 'turn_1', 'tool.completed').map((e) => e.seq)).toEqual([3]);
    expect(store.turnEvents('s', 'turn_2', 'tool.started').map((e) => e.seq)).toEqual([4]);
  });

  it('keeps sessions newest first with keyset paging, and copies values in and out', () => {
    store.putSession(session('ses_a', '2026-01-01T00:00:00.000Z'));
    store.putSession(session('ses_b', '2026-01-02T00:00:00.000Z'));
    store.putSession(session('ses_c', '2026-01-02T00:00:00.000Z'));
    expect(store.listSessions({ limit: 10 }).map((r) => r.session.id)).toEqual(['ses_c', 'ses_b', 'ses_a']);
    expect(store.listSessions({ limit: 10, after: { created_at: '2026-01-02T00:00:00.000Z', id: 'ses_c' } }).map((r) => r.session.id)).toEqual(['ses_b', 'ses_a']);
    const got = store.getSession('ses_a')!;
    got.session.status = 'closed';
    expect(store.getSession('ses_a')!.session.status).toBe('active');
    expect(store.getSession('ses_nope')).toBeUndefined();
  });

  it('finds and lists a tenant\'s sessions only when asked for one; another tenant\'s is not found; the policy is never stored', () => {
    store.putSession(session('ses_a1', '2026-01-01T00:00:00.000Z', { tenant: 'acme', policy: { max_sessions: 1 } as never }));
    store.putSession(session('ses_b1', '2026-01-02T00:00:00.000Z', { tenant: 'beta' }));
    store.putSession(session('ses_a2', '2026-01-03T00:00:00.000Z', { tenant: 'acme' }));
    store.putSession(session('ses_d1', '2026-01-04T00:00:00.000Z')); // no tenant: an earlier version's, the default tenant's
    expect(store.listSessions({ limit: 10, tenant: 'acme' }).map((r) => r.session.id)).toEqual(['ses_a2', 'ses_a1']);
    expect(store.listSessions({ limit: 1, tenant: 'acme', after: { created_at: '2026-01-03T00:00:00.000Z', id: 'ses_a2' } }).map((r) => r.session.id)).toEqual(['ses_a1']);
    expect(store.listSessions({ limit: 10, tenant: 'default' }).map((r) => r.session.id)).toEqual(['ses_d1']);
    expect(store.listSessions({ limit: 10 }).map((r) => r.session.id)).toEqual(['ses_d1', 'ses_a2', 'ses_b1', 'ses_a1']);
    expect(store.getSession('ses_a1', 'acme')?.session.id).toBe('ses_a1');
    expect(store.getSession('ses_a1', 'beta')).toBeUndefined();
    expect(store.getSession('ses_a1')?.session.id).toBe('ses_a1');
    expect(store.getSession('ses_a1')!.session.policy).toBeUndefined();
  });

  it('keeps turns, permissions and outputs in insertion order; an update keeps the place', () => {
    store.putTurn(turn('s', 'turn_b'));
    store.putTurn(turn('s', 'turn_a'));
    store.putTurn(turn('s', 'turn_b', 'completed'));
    expect(store.listTurns('s').map((t) => `${t.id}:${t.status}`)).toEqual(['turn_b:completed', 'turn_a:running']);
    store.putPermission(perm('s', 'perm_2'));
    store.putPermission(perm('s', 'perm_1'));
    store.putPermission(perm('s', 'perm_2', 'allowed'));
    expect(store.listPermissions('s').map((p) => `${p.id}:${p.status}`)).toEqual(['perm_2:allowed', 'perm_1:pending']);
    expect(store.listPermissions('s', 'pending').map((p) => p.id)).toEqual(['perm_1']);
  });

  it('keeps client-tool requests in insertion order, by status, out of the inbox and the pending counts; and a session\'s client tools whole', () => {
    store.putSession({ ...session('s', '2026-01-01T00:00:00.000Z'), clientTools: [{ name: 'lookup_order', description: 'Finds an order', input_schema: { type: 'object' } }] });
    expect(store.getSession('s')!.clientTools).toEqual([{ name: 'lookup_order', description: 'Finds an order', input_schema: { type: 'object' } }]);
    store.putClientToolRequest(clientCall('s', 'ct_2'));
    store.putClientToolRequest(clientCall('s', 'ct_1'));
    store.putClientToolRequest({ ...clientCall('s', 'ct_2', 'answered'), is_error: false });
    expect(store.listClientToolRequests('s').map((r) => `${r.id}:${r.status}`)).toEqual(['ct_2:answered', 'ct_1:pending']);
    expect(store.listClientToolRequests('s', 'pending').map((r) => r.id)).toEqual(['ct_1']);
    expect(store.getClientToolRequest('s', 'ct_1')).toEqual(clientCall('s', 'ct_1'));
    expect(store.getClientToolRequest('other', 'ct_1')).toBeUndefined();
    // They wait for the client, not for a person.
    expect(store.listPending({ limit: 10 })).toEqual([]);
    expect(store.pendingCounts(['s']).get('s')).toBeUndefined();
    // An answer is kept apart from the record, and outlives later writes of it.
    expect(store.getClientToolAnswer('s', 'ct_2')).toBeUndefined();
    const answer = { content: [{ type: 'text' as const, text: 'shipped' }], is_error: false };
    store.putClientToolAnswer('s', 'ct_2', answer);
    store.putClientToolRequest({ ...clientCall('s', 'ct_2', 'answered'), is_error: false, answered_by: 'k' } as ClientToolRequest);
    expect(store.getClientToolAnswer('s', 'ct_2')).toEqual(answer);
    expect(store.getClientToolRequest('s', 'ct_2')).not.toHaveProperty('content');
    expect(store.getClientToolAnswer('s', 'ct_1')).toBeUndefined();
    expect(store.getClientToolAnswer('other', 'ct_2')).toBeUndefined();
    // Only for a stored request (PostgreSQL says so when the unit commits: its writes are checked there).
    if (name !== 'PostgresStore') expect(() => store.putClientToolAnswer('s', 'ct_none', answer)).toThrow(/not stored/);
    store.deleteSession('s');
    expect(store.listClientToolRequests('s')).toEqual([]);
    expect(store.getClientToolAnswer('s', 'ct_2')).toBeUndefined();
    expect(store.getSession('s')).toBeUndefined();
  });

  it('appends events with consecutive seqs only, pages them, and finds a turn\'s events by type', () => {
    store.appendEvent(event('s', 1));
    store.appendEvent(event('s', 2, 'tool.started'));
    store.appendEvent(event('s', 3, 'tool.started', 'turn_2'));
    expect(() => store.appendEvent(event('s', 5))).toThrow();
    expect(store.lastSeq('s')).toBe(3);
    expect(store.lastSeq('other')).toBe(0);
    expect(store.eventsAfter('s', 1, 1).map((e) => e.seq)).toEqual([2]);
    expect(store.turnEvents('s', 'turn_1', 'tool.started').map((e) => e.seq)).toEqual([2]);
    expect(store.eventsOfTypes('s', ['tool.started'], 0, 10).map((e) => e.seq)).toEqual([2, 3]);
    expect(store.eventsOfTypes('s', ['tool.started', 'turn.started'], 1, 1).map((e) => e.seq)).toEqual([2]);
    expect(store.eventsOfTypes('s', [], 0, 10)).toEqual([]);
  });

  it('takes any number a query string held as a seq or a limit (huge, negative, fractional)', () => {
    for (let i = 1; i <= 4; i++) store.appendEvent(event('s', i));
    for (let i = 1; i <= 4; i++) store.appendDecision(decision('s', i));
    expect(store.eventsAfter('s', 1e99, 10)).toEqual([]);
    expect(store.eventsAfter('s', -1e99, 1e99).map((e) => e.seq)).toEqual([1, 2, 3, 4]);
    expect(store.eventsAfter('s', 2.5, 10).map((e) => e.seq)).toEqual([3, 4]);
    expect(store.eventsOfTypes('s', ['turn.started'], 1e99, 1e99)).toEqual([]);
    expect(store.listDecisions('s', { afterSeq: 1e99, limit: 10 })).toEqual([]);
    expect(store.listDecisions('s', { afterSeq: -1e99, limit: 1e99 }).map((d) => d.seq)).toEqual([1, 2, 3, 4]);
    expect(store.closedSessionsBefore('9999', 1e99)).toEqual([]);
  });

  it('lists decisions by seq with filters', () => {
    store.appendDecision(decision('s', 1));
    store.appendDecision(decision('s', 2, 'turn_2', 'toolu_2'));
    store.appendDecision(decision('s', 3, 'turn_2', 'toolu_3'));
    expect(() => store.appendDecision(decision('s', 3))).toThrow();
    expect(store.listDecisions('s', { afterSeq: 0, limit: 10, turnId: 'turn_2' }).map((d) => d.seq)).toEqual([2, 3]);
    expect(store.listDecisions('s', { afterSeq: 2, limit: 10 }).map((d) => d.seq)).toEqual([3]);
    expect(store.listDecisions('s', { afterSeq: 0, limit: 10, toolUseId: 'toolu_2' }).map((d) => d.seq)).toEqual([2]);
  });

  it('defers afterCommit work to the end of the outermost transaction, and drops it when the unit fails', () => {
    const ran: string[] = [];
    store.transaction(() => {
      store.afterCommit(() => ran.push('a'));
      store.transaction(() => store.afterCommit(() => ran.push('b')));
      expect(ran).toEqual([]);
    });
    expect(ran).toEqual(['a', 'b']);
    expect(() =>
      store.transaction(() => {
        store.afterCommit(() => ran.push('never'));
        throw new Error('boom');
      }),
    ).toThrow('boom');
    store.afterCommit(() => ran.push('now'));
    expect(ran).toEqual(['a', 'b', 'now']);
  });

  it('lists active sessions and closed ones by closing time, and deletes everything of a session', () => {
    store.putSession(session('ses_a', '2026-01-01T00:00:00.000Z', { status: 'closed', closed_at: '2026-01-03T00:00:00.000Z' }));
    store.putSession(session('ses_b', '2026-01-01T00:00:00.000Z', { status: 'closed', closed_at: '2026-01-02T00:00:00.000Z' }));
    store.putSession(session('ses_c', '2026-01-01T00:00:00.000Z'));
    expect(store.activeSessions().map((r) => r.session.id)).toEqual(['ses_c']);
    expect(store.closedSessionsBefore('2026-01-04T00:00:00.000Z', 10).map((r) => r.session.id)).toEqual(['ses_b', 'ses_a']);
    expect(store.closedSessionsBefore('2026-01-02T12:00:00.000Z', 10).map((r) => r.session.id)).toEqual(['ses_b']);
    store.putTurn(turn('ses_b', 'turn_1'));
    store.appendEvent(event('ses_b', 1));
    store.appendDecision(decision('ses_b', 1));
    store.deleteSession('ses_b');
    expect(store.getSession('ses_b')).toBeUndefined();
    expect(store.listTurns('ses_b')).toEqual([]);
    expect(store.lastSeq('ses_b')).toBe(0);
    expect(store.lastDecisionSeq('ses_b')).toBe(0);
  });
});

describe('SqliteStore', () => {
  const file = () => path.join(dir, 'norma.db');

  it('keeps everything across reopening (and the session\'s never-echoed parts)', () => {
    const a = new SqliteStore(file());
    a.putSession({ ...session('ses_a', '2026-01-01T00:00:00.000Z'), hooks: { PreToolUse: [] } as never, modelApiKey: 'sk-secret' });
    a.putTurn(turn('ses_a', 'turn_1', 'awaiting_permission'));
    a.putPermission(perm('ses_a', 'perm_1'));
    for (let i = 1; i <= 3; i++) a.appendEvent(event('ses_a', i));
    a.close();
    const b = new SqliteStore(file());
    expect(b.getSession('ses_a')).toMatchObject({ hooks: { PreToolUse: [] }, modelApiKey: 'sk-secret' });
    expect(b.getTurn('ses_a', 'turn_1')!.status).toBe('awaiting_permission');
    expect(b.listPermissions('ses_a', 'pending')).toHaveLength(1);
    expect(b.lastSeq('ses_a')).toBe(3);
    b.appendEvent(event('ses_a', 4));
    expect(b.eventsAfter('ses_a', 0, 10).map((e) => e.seq)).toEqual([1, 2, 3, 4]);
    b.close();
  });

  it('a turn\'s tool uses written in a rolled-back transaction are written again by the next write', () => {
    const s = new SqliteStore(file());
    const t = { ...turn('s', 'turn_p'), kind: 'prompt', tool_uses: [{ type: 'tool_use', id: 'a', name: 'LS', input: {} }] } as unknown as Turn;
    s.putTurn(t);
    expect(() =>
      s.transaction(() => {
        s.putTurn({ ...t, tool_uses: [...t.tool_uses, { type: 'tool_use', id: 'lost', name: 'LS', input: {} }] });
        throw new Error('disk full');
      }),
    ).toThrow('disk full');
    // As many tool uses as the rolled-back write had, but other ones: they must be stored.
    s.putTurn({ ...t, tool_uses: [...t.tool_uses, { type: 'tool_use', id: 'b', name: 'LS', input: {} }] });
    expect(s.getTurn('s', 'turn_p')!.tool_uses.map((u) => u.id)).toEqual(['a', 'b']);
    s.close();
  });

  it('rolls back every write of a failed transaction, and its seq counters with it', () => {
    const s = new SqliteStore(file());
    s.appendEvent(event('s', 1));
    expect(() =>
      s.transaction(() => {
        s.appendEvent(event('s', 2));
        s.putTurn(turn('s', 'turn_x'));
        throw new Error('disk said no');
      }),
    ).toThrow('disk said no');
    expect(s.lastSeq('s')).toBe(1);
    expect(s.getTurn('s', 'turn_x')).toBeUndefined();
    s.appendEvent(event('s', 2));
    expect(s.lastSeq('s')).toBe(2);
    s.close();
  });

  it('is held by one process: a second open of the same file is refused, naming why, until the first closes', () => {
    const first = new SqliteStore(file());
    const started = Date.now();
    try {
      new SqliteStore(file());
      expect.unreachable('a second store on the same file must not open');
    } catch (err) {
      expect(err).toBeInstanceOf(StoreOpenError);
      expect((err as Error).message).toContain(file());
      expect((err as Error).message).toMatch(/another process has it open/);
    }
    // It waited for the lock (a restarting server gives its predecessor time to exit) before refusing.
    expect(Date.now() - started).toBeGreaterThanOrEqual(4000);
    first.close();
    const again = new SqliteStore(file());
    again.appendEvent(event('s', 1));
    expect(again.lastSeq('s')).toBe(1);
    again.close();
  }, 20_000);

  it('uses the partial index for the events restart recovery looks up', () => {
    new SqliteStore(file()).close();
    const db = new Database(file());
    const indexes = (db.prepare(`SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'events'`).all() as { name: string; sql: string | null }[]).filter((i) => i.sql);
    expect(indexes.map((i) => i.name)).toEqual(['events_started_by_turn']);
    expect(indexes[0]!.sql).toMatch(/WHERE type = 'tool.started'/);
    db.close();
  });

  it('records its schema version and uses WAL', () => {
    new SqliteStore(file()).close();
    const db = new Database(file());
    expect(db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    db.close();
  });

  it('refuses a file that is not a database, naming the path and the cause', () => {
    fs.writeFileSync(file(), 'this is not SQLite, just some text that is long enough to have a header'.repeat(100));
    try {
      new SqliteStore(file());
      expect.unreachable('a corrupt file must not open');
    } catch (err) {
      expect(err).toBeInstanceOf(StoreOpenError);
      expect((err as Error).message).toContain(file());
      expect((err as Error).message).toMatch(/not a database/);
    }
  });

  it('refuses a database written by a newer schema', () => {
    new SqliteStore(file()).close();
    const db = new Database(file());
    db.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
    db.close();
    expect(() => new SqliteStore(file())).toThrow(/newer than this server understands/);
  });

  it('refuses a location it cannot create, naming the path', () => {
    const blocker = path.join(dir, 'file');
    fs.writeFileSync(blocker, 'x');
    const bad = path.join(blocker, 'sub', 'norma.db');
    expect(() => new SqliteStore(bad)).toThrow(StoreOpenError);
    expect(() => new SqliteStore(bad)).toThrow(bad);
  });
});
