// A server killed (SIGKILL) after a unit of work committed and before anyone was told: nothing is
// lost and nothing is seen twice. On PostgreSQL the moment is made exactly: a relay carries the
// unit to the database, which commits it, and holds the answer back — the server never hears, so
// it delivers nothing; killed then, and started again, the committed events reach a subscriber
// resuming from where it was, once, and the turn is recovered. On both stores: killed as soon as
// a subscriber is told of the commit (SQLite commits and delivers in one synchronous step, so no
// kill can land between them there): the same holds.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../helpers/postgres.js';
import { launchServer, type ServerProcess } from '../helpers/server-process.js';
import { startServer } from '../helpers/server.js';
import { openSse, type SseStream } from '../helpers/sse.js';

const relayScript = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'pg', 'relay.mjs');

const cleanups: (() => Promise<unknown> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function tempDir(): Promise<string> {
  const d = await fs.mkdtemp(path.join(os.tmpdir(), 'norma-commit-crash-'));
  cleanups.push(() => fs.rm(d, { recursive: true, force: true }));
  return d;
}

async function launch(env: Record<string, string>): Promise<ServerProcess> {
  const s = await launchServer({ NORMA_NODE_ID: 'node-crash', ...env }, undefined, { startTimeoutMs: 40_000 });
  cleanups.push(() => s.kill());
  return s;
}

async function stream(s: ServerProcess, sessionId: string, lastEventId?: string): Promise<SseStream> {
  const sse = await openSse(`${s.url}/v1/sessions/${sessionId}/events`, lastEventId !== undefined ? { lastEventId } : {});
  cleanups.push(() => sse.close());
  return sse;
}

async function until<T>(what: string, f: () => Promise<T | undefined> | T | undefined, ms = 20_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await f();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** A test database and the relay to it (test/fixtures/pg/relay.mjs), both gone after the test. */
async function databaseBehindRelay(): Promise<{ db: TestDatabase; relay: ChildProcess; relayExited: Promise<unknown>; viaRelay: URL }> {
  const db: TestDatabase = await createTestDatabase();
  cleanups.push(() => db.drop());
  const target = new URL(db.url);
  const relay: ChildProcess = spawn(process.execPath, [relayScript, `${target.hostname}:${target.port}`], { stdio: ['ignore', 'pipe', 'inherit'] });
  const relayExited = new Promise((r) => relay.once('exit', r));
  cleanups.push(async () => {
    relay.kill('SIGKILL');
    await relayExited;
  });
  const port = await new Promise<string>((resolve) => relay.stdout!.once('data', (d) => resolve(String(d).trim())));
  const viaRelay = new URL(db.url);
  viaRelay.port = port;
  return { db, relay, relayExited, viaRelay };
}

/** After the restart: the subscriber resuming from its last seq gets the rest once; the turn has one result per call. */
async function checkNothingLost(s: ServerProcess, sessionId: string, before: SseStream, turnId: string, storedSeqs: () => Promise<number[]>): Promise<void> {
  const last = before.events.at(-1)!.id!;
  const after = await stream(s, sessionId, last);
  const ended = await after.waitFor((e) => (e.event === 'turn.interrupted' || e.event === 'turn.completed') && e.data.turn.id === turnId, 30_000);
  expect(ended.data.turn.status).toBe('interrupted');
  const seen = [...before.events, ...after.events].map((e) => Number(e.id));
  // Once each, in order, with no gap: exactly the stored log.
  expect(seen).toEqual(seen.map((_, i) => i + 1));
  const stored = await storedSeqs();
  expect(seen).toEqual(stored.slice(0, seen.length));
  const starts = [...before.events, ...after.events].filter((e) => e.event === 'turn.started').map((e) => e.data.turn_id as string);
  expect(starts).toContain(turnId);
  expect(new Set(starts).size).toBe(starts.length);
  const turn = (await s.api.get(`/v1/sessions/${sessionId}/turns/${turnId}`)).body;
  expect(turn.results.map((r: { tool_use_id: string }) => r.tool_use_id)).toEqual(turn.tool_uses.map((t: { id: string }) => t.id));
}

describe('a crash between a commit and its delivery', { timeout: 120_000 }, () => {
  it('PostgreSQL: a unit the database committed but the server never heard of is delivered after the restart, once', async () => {
    const { db, relay, relayExited, viaRelay } = await databaseBehindRelay();
    const dataDir = await tempDir();
    const env = { NORMA_DATA_DIR: dataDir, NORMA_STORE: 'postgres' };
    const a = await launch({ ...env, NORMA_DATABASE_URL: viaRelay.toString() });
    const s = (await a.api.post('/v1/sessions', { permission_mode: 'bypassPermissions' })).body;
    const watch = await stream(a, s.id);
    await watch.waitFor((e) => e.event === 'session.created');
    // A first turn, answered: the store's connections are open (a new one could not be made
    // through a relay that holds the database's answers).
    expect((await a.api.post(`/v1/sessions/${s.id}/turns?wait=20`, { tool_uses: [{ name: 'LS', input: { path: '.' } }] })).body.status).toBe('completed');
    await watch.waitFor((e) => e.event === 'turn.completed');
    const before = watch.events.length;
    // From now on the database carries out what the server sends and its answers never come back.
    relay.kill('SIGHUP');
    void fetch(`${a.url}/v1/sessions/${s.id}/turns`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ tool_uses: [{ id: 'toolu_ls', name: 'LS', input: { path: '.' } }] }),
    }).catch(() => undefined);
    // The turn's first unit commits in the database…
    const started = await until('turn.started in the database', async () => {
      const rows = await db.query(`SELECT data FROM events WHERE session_id = $1 AND type = 'turn.started' ORDER BY seq`, [s.id]);
      return rows[1] ? (JSON.parse(rows[1].data as string) as { turn_id: string }) : undefined;
    });
    // …and, its answer held back, nobody was told of it.
    await new Promise((r) => setTimeout(r, 300));
    expect(watch.events).toHaveLength(before);
    await a.kill();
    relay.kill('SIGKILL');
    await relayExited;
    const b = await launch({ ...env, NORMA_DATABASE_URL: db.url });
    await checkNothingLost(b, s.id, watch, started.turn_id, async () =>
      (await db.query('SELECT seq FROM events WHERE session_id = $1 ORDER BY seq', [s.id])).map((r) => Number(r.seq)),
    );
  });

  it('PostgreSQL: a call that may change something waits for its record; while the database does not answer it does not run', async () => {
    const { db, relay, viaRelay } = await databaseBehindRelay();
    const dataDir = await tempDir();
    const a = await launch({ NORMA_DATA_DIR: dataDir, NORMA_STORE: 'postgres', NORMA_DATABASE_URL: viaRelay.toString() });
    const s = (await a.api.post('/v1/sessions', { permission_mode: 'bypassPermissions' })).body;
    // A first turn runs Bash: the sandbox, its connections and the database's are all warm.
    const warm = await a.api.post(`/v1/sessions/${s.id}/turns?wait=20`, { tool_uses: [{ name: 'Bash', input: { command: 'echo warm > warm.txt' } }] });
    expect(warm.body.status).toBe('completed');
    expect(await fs.readFile(path.join(s.workspace, 'warm.txt'), 'utf8')).toBe('warm\n');
    relay.kill('SIGHUP');
    void fetch(`${a.url}/v1/sessions/${s.id}/turns`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ tool_uses: [{ id: 'toolu_write', name: 'Bash', input: { command: 'echo ran > ran.txt' } }] }),
    }).catch(() => undefined);
    // The turn's start reaches the database, which stores it; its answer never comes back, so the
    // call's record (which follows it) is never stored…
    await until('the second turn.started in the database', async () => {
      const rows = await db.query(`SELECT 1 FROM events WHERE session_id = $1 AND type = 'turn.started'`, [s.id]);
      return rows[1];
    });
    // …and the command, which may change something, is not run.
    await new Promise((r) => setTimeout(r, 2_000));
    await expect(fs.access(path.join(s.workspace, 'ran.txt'))).rejects.toThrow();
  });

  for (const store of ['sqlite', 'postgres'] as const) {
    it(`${store}: killed the moment a commit is seen, nothing committed is lost and nothing is seen twice`, async () => {
      const dataDir = await tempDir();
      let env: Record<string, string> = { NORMA_DATA_DIR: dataDir };
      if (store === 'postgres') {
        const db = await createTestDatabase();
        cleanups.push(() => db.drop());
        env = { ...env, NORMA_STORE: 'postgres', NORMA_DATABASE_URL: db.url };
      }
      const a = await launch(env);
      const s = (await a.api.post('/v1/sessions', { permission_mode: 'bypassPermissions' })).body;
      const watch = await stream(a, s.id);
      await watch.waitFor((e) => e.event === 'session.created');
      const posted = await a.api.post(`/v1/sessions/${s.id}/turns`, {
        tool_uses: [
          { id: 'toolu_sleep', name: 'Bash', input: { command: 'sleep 20' } },
          { id: 'toolu_after', name: 'LS', input: { path: '.' } },
        ],
      });
      expect(posted.status).toBe(202);
      // The call's start is committed (a subscriber is told only after its commit): kill at once.
      await watch.waitFor((e) => e.event === 'tool.started');
      await a.kill();
      const b = await launch(env);
      // What is stored, as a new subscriber from the start reads it.
      const storedSeqs = async (): Promise<number[]> => {
        const all = await stream(b, s.id, '0');
        await all.waitFor((e) => e.event === 'turn.interrupted', 30_000);
        return all.events.map((e) => Number(e.id));
      };
      await checkNothingLost(b, s.id, watch, posted.body.id, storedSeqs);
      const turn = (await b.api.get(`/v1/sessions/${s.id}/turns/${posted.body.id}`)).body;
      expect(turn.status).toBe('interrupted');
      expect(turn.results.map((r: { is_error: boolean; content: { text: string }[] }) => [r.is_error, r.content[0]!.text.split(':')[0]])).toEqual([
        [true, 'Interrupted'],
        [true, 'Not run'],
      ]);
    });
  }
});

describe('a unit of work the database refuses', { timeout: 120_000 }, () => {
  it('PostgreSQL: the request is 503, nothing of the unit is stored or delivered, and the session is taken again from the database', async () => {
    const db = await createTestDatabase();
    cleanups.push(() => db.drop());
    const t = await startServer({ NORMA_STORE: 'postgres', NORMA_DATABASE_URL: db.url });
    cleanups.push(() => t.close());
    const s = (await t.api.post('/v1/sessions', { permission_mode: 'bypassPermissions' })).body;
    const watch = await stream({ url: t.url } as ServerProcess, s.id);
    const first = await t.api.post(`/v1/sessions/${s.id}/turns?wait=20`, { tool_uses: [{ name: 'LS', input: { path: '.' } }] });
    expect(first.body.status).toBe('completed');
    await watch.waitFor((e) => e.event === 'turn.completed');
    // Another writer takes the session's next seq behind the server's back (a copy of its last event).
    const [last] = await db.query('SELECT seq, type, turn_id, data FROM events WHERE session_id = $1 ORDER BY seq DESC LIMIT 1', [s.id]);
    const next = Number(last!.seq) + 1;
    await db.query('INSERT INTO events (session_id, seq, type, turn_id, data) VALUES ($1, $2, $3, $4, $5)', [
      s.id,
      next,
      last!.type,
      last!.turn_id,
      JSON.stringify({ ...JSON.parse(last!.data as string), seq: next }),
    ]);
    const seenBefore = watch.events.filter((e) => e.event === 'turn.started').length;
    const refused = await t.api.post(`/v1/sessions/${s.id}/turns?wait=20`, { tool_uses: [{ id: 'toolu_lost', name: 'LS', input: { path: '.' } }] });
    expect(refused.status).toBe(503);
    expect(refused.body.detail).toMatch(/could not be stored, so none of it was kept/);
    expect(refused.headers.get('retry-after')).toBe('1');
    // Nothing of it is stored, and no subscriber was told of it.
    const stored = await db.query(`SELECT count(*)::int AS n FROM turns WHERE session_id = $1`, [s.id]);
    expect(stored[0]!.n).toBe(1);
    await new Promise((r) => setTimeout(r, 300));
    expect(watch.events.filter((e) => e.event === 'turn.started')).toHaveLength(seenBefore);
    expect(watch.events.some((e) => e.data?.tool_use_id === 'toolu_lost')).toBe(false);
    // The session was taken again from what the database has: the next turn runs, its seqs follow the other writer's.
    const again = await until('a turn accepted again', async () => {
      const r = await t.api.post(`/v1/sessions/${s.id}/turns?wait=20`, { tool_uses: [{ name: 'LS', input: { path: '.' } }] });
      return r.status === 200 ? r : undefined;
    });
    expect(again.body.status).toBe('completed');
    const seqs = (await db.query('SELECT seq FROM events WHERE session_id = $1 ORDER BY seq', [s.id])).map((r) => Number(r.seq));
    expect(seqs).toEqual(seqs.map((_, i) => i + 1));
    expect(seqs.length).toBeGreaterThan(next);
  });
});

describe('a session whose creation the database refuses', { timeout: 120_000 }, () => {
  it('PostgreSQL: 503 with Retry-After, and nothing is left: no row, no workspace directory, no runtime; the next creation works', async () => {
    const db = await createTestDatabase();
    cleanups.push(() => db.drop());
    const dataDir = await tempDir();
    const t = await startServer({ NORMA_STORE: 'postgres', NORMA_DATABASE_URL: db.url }, { dataDir });
    cleanups.push(() => t.close());
    const workspaces = path.join(dataDir, 'workspaces');
    const before = await fs.readdir(workspaces).catch(() => []);
    // The database refuses every new session (a trigger), after the server sent the unit.
    await db.query(`CREATE FUNCTION refuse_sessions() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'refused by the test'; END $$`);
    await db.query('CREATE TRIGGER refuse_sessions BEFORE INSERT ON sessions FOR EACH ROW EXECUTE FUNCTION refuse_sessions()');
    for (let i = 0; i < 3; i++) {
      const refused = await t.api.post('/v1/sessions', {});
      expect(refused.status, JSON.stringify(refused.body)).toBe(503);
      expect(refused.headers.get('retry-after'), JSON.stringify(refused.body)).toBe('1');
      expect(refused.body.detail).toMatch(/could not be stored, so none of it was kept/);
    }
    expect((await db.query('SELECT count(*)::int AS n FROM sessions'))[0]!.n).toBe(0);
    expect(await fs.readdir(workspaces).catch(() => [])).toEqual(before);
    expect((await t.api.get('/v1/sessions')).body.items).toEqual([]);
    await db.query('DROP TRIGGER refuse_sessions ON sessions');
    const made = await t.api.post('/v1/sessions', {});
    expect(made.status).toBe(201);
    expect(await fs.readdir(workspaces)).toEqual([...before, made.body.id]);
    expect((await t.api.post(`/v1/sessions/${made.body.id}/turns?wait=20`, { tool_uses: [{ name: 'LS', input: { path: '.' } }] })).body.status).toBe('completed');
  });
});
