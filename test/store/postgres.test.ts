// What only the PostgreSQL store does (the Store contract it shares is in store.test.ts):
// versioned migrations that replicas can race through, writers in several processes that never
// leave a gap or a duplicate in a session's seqs, events appended by the lease holder only, a
// notification per committed event, and refusing a database it cannot use with a clear reason.
import { execFile, spawn } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { NormaEvent } from '../../src/contract/events.js';
import type { Session, Turn } from '../../src/contract/schemas.js';
import { PG_SCHEMA_VERSION } from '../../src/store/pg-schema.js';
import { inline } from '../../src/store/pg-worker.js';
import { PostgresStore, describeUrl } from '../../src/store/pg-store.js';
import { StoreOpenError } from '../../src/store/sqlite.js';
import type { SessionRecord } from '../../src/store/store.js';
import { createTestDatabase, type TestDatabase } from '../helpers/postgres.js';
import { committed } from '../helpers/commit.js';

const run = promisify(execFile);
const fixtures = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'pg');

let db: TestDatabase;
const stores: PostgresStore[] = [];
const open = (nodeId = 'node-a', extra: { statementTimeoutMs?: number; connectTimeoutMs?: number; url?: string } = {}): PostgresStore => {
  const s = new PostgresStore({ url: db.url, nodeId, ...extra });
  stores.push(s);
  return s;
};
beforeEach(async () => {
  db = await createTestDatabase();
});
afterEach(async () => {
  for (const s of stores.splice(0)) s.close();
  await db.drop();
});

function record(id: string, extra: Partial<Session> = {}): SessionRecord {
  return {
    session: { id, created_at: '2026-01-01T00:00:00.000Z', status: 'active', closed_at: null, rules: [], active_turn_id: null, tenant: 'acme', ...extra } as unknown as Session,
    hooks: { PreToolUse: [] } as never,
    modelApiKey: 'sk-secret',
    model: { provider: 'anthropic', model: 'm' } as never,
    todos: { items: [], updated_at: null } as never,
    mcpServers: { x: { command: 'y', env: { TOKEN: 't' } } } as never,
  };
}
const event = (session_id: string, seq: number, type = 'turn.started'): NormaEvent =>
  ({ type, session_id, seq, time: '2026-01-01T00:00:00.000Z', turn_id: 'turn_1' }) as unknown as NormaEvent;

describe('PostgresStore', () => {
  it('keeps everything across reopening: the never-echoed parts, the active turn, turns with their results', () => {
    const a = open();
    a.putSession(record('ses_1'));
    expect(a.setActiveTurn('ses_1', 'turn_1')).toBe(true);
    const turn = {
      id: 'turn_1',
      session_id: 'ses_1',
      kind: 'direct',
      status: 'running',
      tool_uses: [
        { type: 'tool_use', id: 'tu_1', name: 'Read', input: {} },
        { type: 'tool_use', id: 'tu_2', name: 'Read', input: {} },
      ],
      results: [{ type: 'tool_result', tool_use_id: 'tu_1', content: 'one', is_error: false }],
      pending: [],
      created_at: 'x',
    } as unknown as Turn;
    a.transaction(() => {
      a.putTurn(turn);
      a.appendEvent(event('ses_1', 1));
    });
    a.putTurn({ ...turn, status: 'completed', results: [...turn.results, { type: 'tool_result', tool_use_id: 'tu_2', content: 'two', is_error: false }] } as Turn);
    a.close();
    const b = open();
    const got = b.getSession('ses_1')!;
    expect(got.session.active_turn_id).toBe('turn_1');
    expect(got.modelApiKey).toBe('sk-secret');
    expect(got.hooks).toEqual({ PreToolUse: [] });
    expect(got.mcpServers).toEqual({ x: { command: 'y', env: { TOKEN: 't' } } });
    expect(b.getTurn('ses_1', 'turn_1')!.results.map((r) => r.content)).toEqual(['one', 'two']);
    expect(b.getTurn('ses_1', 'turn_1')!.status).toBe('completed');
    expect(b.lastSeq('ses_1')).toBe(1);
    // A putSession of the record as read keeps the pointer (it is a column beside the document).
    b.putSession(got);
    expect(b.getSession('ses_1')!.session.active_turn_id).toBe('turn_1');
  });

  it('records its schema version; replicas opening a fresh database at once all migrate it once', async () => {
    const tsx = ['--import', 'tsx'];
    const opened = await Promise.all([1, 2, 3].map((i) => run(process.execPath, [...tsx, path.join(fixtures, 'open.ts'), db.url, `node-${i}`], { timeout: 60_000 })));
    expect(opened.map((o) => o.stdout.trim())).toEqual(['opened', 'opened', 'opened']);
    expect(await db.query('SELECT version FROM norma_schema')).toEqual([{ version: PG_SCHEMA_VERSION }]);
    const tables = (await db.query(`SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename`)).map((r) => r.tablename);
    expect(tables).toEqual(['client_tool_requests', 'commands', 'data_keys', 'decisions', 'events', 'idempotency_keys', 'leases', 'nodes', 'norma_schema', 'outputs', 'permissions', 'questions', 'rate_windows', 'sessions', 'signed_heads', 'signing_keys', 'tenant_events', 'tenant_spend', 'tokens', 'turn_results', 'turns']);
    // Opening again changes nothing.
    open();
    expect(await db.query('SELECT version FROM norma_schema')).toEqual([{ version: PG_SCHEMA_VERSION }]);
  });

  it('refuses a database a newer server migrated, naming it without its password', async () => {
    open().close();
    await db.query(`UPDATE norma_schema SET version = ${PG_SCHEMA_VERSION + 1}`);
    const u = new URL(db.url);
    u.password = 'hunter2-secret';
    let err: unknown;
    try {
      new PostgresStore({ url: u.toString(), nodeId: 'node-a' });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(StoreOpenError);
    expect((err as Error).message).toContain(`schema version ${PG_SCHEMA_VERSION + 1} is newer than this server understands (${PG_SCHEMA_VERSION})`);
    expect((err as Error).message).toContain(describeUrl(db.url));
    expect((err as Error).message).not.toContain('hunter2');
  });

  it('refuses a database it cannot reach, at once and with the reason', async () => {
    const port = await new Promise<number>((resolve) => {
      const srv = net.createServer().listen(0, '127.0.0.1', () => {
        const p = (srv.address() as net.AddressInfo).port;
        srv.close(() => resolve(p));
      });
    });
    const started = Date.now();
    expect(() => new PostgresStore({ url: `postgres://norma:pw@127.0.0.1:${port}/x`, nodeId: 'n' })).toThrow(
      new RegExp(`cannot use the database postgres://norma@127\\.0\\.0\\.1:${port}/x: .*ECONNREFUSED`),
    );
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('rolls back every write of a failed transaction, and its counters, and goes on', async () => {
    const a = open();
    a.putSession(record('ses_1'));
    a.appendEvent(event('ses_1', 1));
    expect(() =>
      a.transaction(() => {
        a.appendEvent(event('ses_1', 2));
        a.putTurn({ id: 'turn_x', session_id: 'ses_1', kind: 'direct', status: 'running', tool_uses: [], results: [], pending: [], created_at: 'x' } as unknown as Turn);
        // A read inside the transaction sees its own writes…
        expect(a.lastSeq('ses_1')).toBe(2);
        expect(a.getTurn('ses_1', 'turn_x')).toBeDefined();
        throw new Error('boom');
      }),
    ).toThrow('boom');
    // …and nothing of it is there after.
    expect(a.lastSeq('ses_1')).toBe(1);
    expect(a.getTurn('ses_1', 'turn_x')).toBeUndefined();
    // A failure in the database (a seq taken meanwhile by another writer) rolls back the same way.
    // It fails when the database answers the unit of work (the server went on meanwhile).
    await committed(() => a.appendEvent(event('ses_1', 2)));
    const b = open();
    await committed(() => b.appendEvent(event('ses_1', b.lastSeq('ses_1') + 1)));
    let delivered = false;
    await expect(
      committed(() =>
        a.transaction(() => {
          a.putTurn({ id: 'turn_y', session_id: 'ses_1', kind: 'direct', status: 'running', tool_uses: [], results: [], pending: [], created_at: 'x' } as unknown as Turn);
          // a still counts 2 as its last: seq 3 is b's now.
          a.appendEvent(event('ses_1', 3));
          a.afterCommit(() => (delivered = true));
        }),
      ),
    ).rejects.toThrow(/duplicate key/);
    expect(delivered).toBe(false);
    expect(a.getTurn('ses_1', 'turn_y')).toBeUndefined();
    // Until the session is recovered, no later unit of it commits (it was built on the failed one)…
    await expect(committed(() => a.appendEvent(event('ses_1', 4)))).rejects.toThrow(/an earlier unit of work of ses_1 failed/);
    expect(a.lastSeq('ses_1')).toBe(3);
    // …then units of it commit again, counted from what the database has.
    a.recovered(['ses_1']);
    await committed(() => a.appendEvent(event('ses_1', 4)));
    expect(a.eventsAfter('ses_1', 0, 10).map((e) => e.seq)).toEqual([1, 2, 3, 4]);
  });

  it('writers in three processes appending to one session leave no gap and no duplicate', async () => {
    const a = open();
    await committed(() => a.putSession(record('ses_c')));
    const per = 150;
    const outs = await Promise.all(
      ['w1', 'w2', 'w3'].map((tag) => run(process.execPath, ['--import', 'tsx', path.join(fixtures, 'writer.ts'), db.url, 'node-a', 'ses_c', String(per), tag], { timeout: 120_000 })),
    );
    const reports = outs.map((o) => JSON.parse(o.stdout) as { stored: number; lost: number });
    expect(reports.map((r) => r.stored)).toEqual([per, per, per]);
    const rows = await db.query(`SELECT seq, data FROM events WHERE session_id = 'ses_c' ORDER BY seq`);
    expect(rows.map((r) => Number(r.seq))).toEqual(Array.from({ length: 3 * per }, (_, i) => i + 1));
    // Every event each writer stored is there once, with the seq it was stored under.
    const turns = rows.map((r) => (JSON.parse(r.data as string) as { turn_id: string; seq: number }));
    expect(new Set(turns.map((t) => t.turn_id)).size).toBe(3 * per);
    expect(turns.every((t, i) => t.seq === i + 1)).toBe(true);
  });

  it('appends a session\'s events only on the node holding its lease; a takeover moves that', async () => {
    const a = open('node-a');
    const b = open('node-b');
    // Each store commits without waiting: what another store (another process) reads must have committed.
    await committed(() => a.putSession(record('ses_l')));
    await committed(() => a.appendEvent(event('ses_l', 1)));
    await expect(committed(() => b.appendEvent(event('ses_l', 2)))).rejects.toThrow(/another node holds the session's lease/);
    expect(b.lastSeq('ses_l')).toBe(1);
    b.recovered(['ses_l']);
    // Nor its turns or the session itself.
    const t = { id: 'turn_f', session_id: 'ses_l', kind: 'direct', status: 'running', tool_uses: [], results: [], pending: [], created_at: 'x' } as unknown as Turn;
    await committed(() => a.putTurn(t));
    await expect(committed(() => b.putTurn({ ...t, status: 'completed' } as Turn))).rejects.toThrow(/another node holds the session's lease/);
    b.recovered(['ses_l']);
    expect(a.getTurn('ses_l', 'turn_f')!.status).toBe('running');
    await expect(committed(() => b.putSession(record('ses_l', { status: 'closed' })))).rejects.toThrow(/another node holds its lease/);
    b.recovered(['ses_l']);
    expect(a.getSession('ses_l')!.session.status).toBe('active');
    await db.query(`UPDATE leases SET node_id = 'node-b', epoch = epoch + 1 WHERE session_id = 'ses_l'`);
    b.forget('ses_l');
    await committed(() => b.appendEvent(event('ses_l', 2)));
    await expect(committed(() => a.appendEvent(event('ses_l', 2)))).rejects.toThrow();
    expect(b.eventsAfter('ses_l', 0, 10).map((e) => e.seq)).toEqual([1, 2]);
  });

  it('units of one session commit in the order they were made, a unit of two sessions between them included', async () => {
    const a = open();
    await committed(() => {
      a.putSession(record('ses_o1'));
      a.putSession(record('ses_o2'));
    });
    // The first events of each: their counters are known here from now on (nothing is read below).
    await committed(() => {
      a.appendEvent(event('ses_o1', 1));
      a.appendEvent(event('ses_o2', 1));
    });
    // Made back to back while the first is on its way: the second and the fourth would go together
    // (group commit) if the unit of both sessions between them did not close that group.
    await committed(() => {
      a.appendEvent(event('ses_o1', 2));
      a.appendEvent(event('ses_o1', 3));
      a.transaction(() => {
        a.appendEvent(event('ses_o1', 4));
        a.appendEvent(event('ses_o2', 2));
      });
      a.appendEvent(event('ses_o1', 5));
      a.appendEvent(event('ses_o1', 6));
    });
    expect(a.eventsAfter('ses_o1', 0, 10).map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(a.eventsAfter('ses_o2', 0, 10).map((e) => e.seq)).toEqual([1, 2]);
  });

  it('reads that do not wait see what this process sent for the session before them, and what another node committed', async () => {
    const a = open();
    const b = open('node-b');
    await committed(() => a.putSession(record('ses_r', { tenant: 'acme' })));
    // Sent without waiting, then read at once: the read comes after the unit.
    const units = [1, 2, 3].map((seq) => committed(() => a.appendEvent(event('ses_r', seq))));
    const [last, events] = await Promise.all([a.later.lastSeq('ses_r'), a.later.eventsAfter('ses_r', 1, 10)]);
    await Promise.all(units);
    expect(last).toBe(3);
    expect(events.map((e) => e.seq)).toEqual([2, 3]);
    // Another node's reads see what has committed; a session that is not there has no tenant.
    expect(await b.later.tenantOf('ses_r')).toBe('acme');
    expect(await b.later.tenantOf('ses_nothere')).toBeUndefined();
    expect(await b.later.eventsAfter('ses_r', 0, 2)).toHaveLength(2);
    const t = { id: 'turn_r', session_id: 'ses_r', kind: 'direct', status: 'running', tool_uses: [{ id: 'toolu_1', name: 'LS', input: {} }], results: [], pending: [], created_at: new Date(0).toISOString() } as unknown as Turn;
    await committed(() => a.putTurn(t));
    expect(await b.later.getTurn('ses_r', 'turn_r')).toEqual(a.getTurn('ses_r', 'turn_r'));
    expect(await b.later.getTurn('ses_r', 'turn_nothere')).toBeUndefined();
    // A store closed meanwhile rejects the read, saying so.
    b.close();
    await expect(b.later.lastSeq('ses_r')).rejects.toThrow(/closed/);
    expect(await a.later.lastSeq('ses_r')).toBe(3);
  });

  it('an append waits for a takeover in flight (a lock on the lease row) instead of slipping past it', async () => {
    const a = open('node-a', { statementTimeoutMs: 400 });
    await committed(() => a.putSession(record('ses_w')));
    const taker = new pg.Client({ connectionString: db.url });
    await taker.connect();
    try {
      await taker.query('BEGIN');
      await taker.query(`SELECT 1 FROM leases WHERE session_id = 'ses_w' FOR UPDATE`);
      await expect(committed(() => a.appendEvent(event('ses_w', 1)))).rejects.toThrow(/statement timeout/);
      await taker.query('ROLLBACK');
      a.recovered(['ses_w']);
      await committed(() => a.appendEvent(event('ses_w', 1)));
      expect(a.lastSeq('ses_w')).toBe(1);
    } finally {
      await taker.end();
    }
  });

  it('notifies every committed event once it commits, and never a rolled-back one', async () => {
    const a = open();
    a.putSession(record('ses_n'));
    const listener = new pg.Client({ connectionString: db.url });
    await listener.connect();
    const heard: string[] = [];
    listener.on('notification', (n) => heard.push(`${n.channel}:${n.payload}`));
    await listener.query('LISTEN norma_events');
    try {
      a.transaction(() => {
        a.appendEvent(event('ses_n', 1));
        a.appendEvent(event('ses_n', 2));
      });
      expect(() =>
        a.transaction(() => {
          a.appendEvent(event('ses_n', 3));
          throw new Error('no');
        }),
      ).toThrow('no');
      a.appendEvent(event('ses_n', 3));
      for (let i = 0; i < 100 && heard.length < 3; i++) await new Promise((r) => setTimeout(r, 10));
      await new Promise((r) => setTimeout(r, 50));
      expect(heard).toEqual(['norma_events:ses_n 1', 'norma_events:ses_n 2', 'norma_events:ses_n 3']);
    } finally {
      await listener.end();
    }
  });

  it('a connection the server ends while idle is replaced before the next request: nothing fails', async () => {
    const a = open('node-idle');
    await committed(() => a.putSession(record('ses_i')));
    const ended = await db.query(`SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity WHERE application_name = 'norma node-idle' AND pid <> pg_backend_pid()`);
    expect(ended.length).toBeGreaterThan(0);
    await new Promise((r) => setTimeout(r, 200));
    expect(a.getSession('ses_i')?.session.id).toBe('ses_i');
    await committed(() => a.appendEvent(event('ses_i', 1)));
    expect(a.lastSeq('ses_i')).toBe(1);
  });

  it('a database that stops answering fails the request after its time, and is used again once it answers', async () => {
    // A loopback relay to the database that can be frozen (a process of its own: the store blocks this thread).
    const target = new URL(db.url);
    const relay = spawn(process.execPath, [path.join(fixtures, 'relay.mjs'), `${target.hostname}:${target.port}`], { stdio: ['ignore', 'pipe', 'inherit'] });
    const exited = new Promise((r) => relay.once('exit', r));
    try {
      const port = await new Promise<string>((resolve) => relay.stdout!.once('data', (d) => resolve(String(d).trim())));
      const u = new URL(db.url);
      u.port = port;
      const a = new PostgresStore({ url: u.toString(), nodeId: 'node-frozen', statementTimeoutMs: 300, connectTimeoutMs: 1_000 });
      stores.push(a);
      await committed(() => a.putSession(record('ses_f')));
      relay.kill('SIGUSR1');
      await new Promise((r) => setTimeout(r, 100));
      const started = Date.now();
      expect(() => a.getSession('ses_f')).toThrow(/the database did not answer within 3300 ms/);
      expect(Date.now() - started).toBeLessThan(6_000);
      relay.kill('SIGUSR2');
      await new Promise((r) => setTimeout(r, 100));
      // A new database thread with new connections: the relay passes them.
      expect(a.getSession('ses_f')?.session.id).toBe('ses_f');
    } finally {
      relay.kill('SIGKILL');
      await exited;
    }
  });

  it('writes a transaction\'s parameters in as literals that keep every value exactly', async () => {
    const esc = { escapeLiteral: (x: string) => new pg.Client().escapeLiteral(x) };
    expect(inline(esc, 'SELECT $1, $2, $10, $3::bigint, $4, $5', ["it's", null, -2, true, ['a', "b'c"], 6, 7, 8, 9, 'ten'])).toBe(
      "SELECT 'it''s', NULL, 'ten', (-2)::bigint, TRUE, ARRAY['a', 'b''c']",
    );
    expect(inline(esc, 'SELECT $1', ['back\\slash'])).toBe("SELECT  E'back\\\\slash'");
    expect(() => inline(esc, 'SELECT $2', ['x'])).toThrow('statement parameter $2 is not given');
    expect(() => inline(esc, 'SELECT $1', [Number.NaN])).toThrow(/not a finite number/);
    // Through the store: a transaction of several writes goes in one round trip, as literals.
    const a = open();
    const nasty = `quote ' double " back \\ dollar $1 $$ newline\n tab\t emoji 🙂 ); DROP TABLE sessions; --`;
    a.transaction(() => {
      a.putSession(record('ses_x', { warnings: [nasty] } as Partial<Session>));
      a.appendEvent({ ...event('ses_x', 1), note: nasty } as unknown as NormaEvent);
      a.appendEvent({ ...event('ses_x', 2), note: nasty } as unknown as NormaEvent);
    });
    expect(a.getSession('ses_x')!.session.warnings).toEqual([nasty]);
    expect(a.eventsAfter('ses_x', 0, 10).map((e) => (e as unknown as { note: string }).note)).toEqual([nasty, nasty]);
    expect((await db.query('SELECT count(*)::int AS n FROM sessions'))[0]!.n).toBe(1);
  });

  it('a transaction whose connection is ended halfway commits nothing of it, and the store goes on', () => {
    const a = open('node-half');
    const killer = open('node-killer');
    a.putSession(record('ses_h'));
    expect(() =>
      a.transaction(() => {
        a.appendEvent(event('ses_h', 1));
        // A read inside the transaction sends what it wrote so far: the transaction is open in the database now.
        expect(a.eventsAfter('ses_h', 0, 10).map((e) => e.seq)).toEqual([1]);
        const ended = (killer as unknown as { db: { query(sql: string): { ok: boolean }[] } }).db.query(
          `SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity WHERE application_name = 'norma node-half' AND state LIKE 'idle in transaction%'`,
        );
        expect(ended).toEqual([{ ok: true }]);
        a.appendEvent(event('ses_h', 2));
      }),
    ).toThrow();
    expect(a.eventsAfter('ses_h', 0, 10)).toEqual([]);
    a.appendEvent(event('ses_h', 1));
    expect(a.eventsAfter('ses_h', 0, 10).map((e) => e.seq)).toEqual([1]);
  });
});
