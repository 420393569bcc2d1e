// Replicas keep the guarantees of one server: an answer that says "not done" stays true (the
// forwarded command can never run afterwards), a retry with the same Idempotency-Key does the
// work at most once whichever replica it reaches, and a tenant's limits hold however its requests
// are spread over replicas. Real server processes on loopback sharing one PostgreSQL database (a
// database of the run's throwaway cluster) and one data directory.
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { request } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../helpers/postgres.js';
import { launchServer, type ServerProcess } from '../helpers/server-process.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { keysFile, newKey } from '../helpers/tenants.js';

let db: TestDatabase;
let dataDir: string;
let keys: Awaited<ReturnType<typeof keysFile>>;
const running: ServerProcess[] = [];
const inProcess: TestServer[] = [];
/** Processes this file stopped with SIGSTOP: every one is continued before anything else is cleaned up. */
const paused = new Set<ChildProcess>();

const acme = newKey('acme');
const other = newKey('other');
const few = newKey('few');
const busy = newKey('busy');

beforeEach(async () => {
  db = await createTestDatabase();
  dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'norma-guarantees-'));
  keys = await keysFile([
    { key: acme, tenant: 'acme', scopes: ['admin'], name: 'acme' },
    { key: other, tenant: 'other', scopes: ['admin'], name: 'other' },
    { key: few, tenant: 'few', scopes: ['admin'], name: 'few', policy: { max_sessions: 3 } },
    { key: busy, tenant: 'busy', scopes: ['admin'], name: 'busy', policy: { max_running_turns: 1 } },
  ]);
});
afterEach(async () => {
  for (const child of paused) child.kill('SIGCONT');
  paused.clear();
  await Promise.all(running.splice(0).map((r) => r.kill()));
  await Promise.all(inProcess.splice(0).map((t) => t.close()));
  await db.drop();
  await keys.remove();
  await fs.rm(dataDir, { recursive: true, force: true });
});

const replicaEnv = (nodeId: string): Record<string, string> => ({
  NORMA_STORE: 'postgres',
  NORMA_DATABASE_URL: db.url,
  NORMA_NODE_ID: nodeId,
  NORMA_DATA_DIR: dataDir,
  NORMA_SANDBOX: 'off',
  NORMA_API_KEYS_FILE: keys.file,
  NORMA_LOG_LEVEL: 'info',
});

async function replica(nodeId: string): Promise<ServerProcess> {
  const r = await launchServer(replicaEnv(nodeId), undefined, { startTimeoutMs: 40_000 });
  running.push(r);
  return r;
}

function pause(r: ServerProcess): void {
  paused.add(r.child);
  r.child.kill('SIGSTOP');
}

function resume(r: ServerProcess): void {
  r.child.kill('SIGCONT');
  paused.delete(r.child);
}

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

/** A request with a key (and an Idempotency-Key when given), its JSON answer read whole. */
async function call(base: string, method: 'GET' | 'POST', urlPath: string, key: string, body?: unknown, idempotencyKey?: string): Promise<Answer> {
  const headers: Record<string, string> = { authorization: `Bearer ${key}` };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (idempotencyKey !== undefined) headers['idempotency-key'] = idempotencyKey;
  const res = await request(`${base}${urlPath}`, { method, headers, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
  const text = await res.body.text();
  return { status: res.statusCode, headers: res.headers, body: text === '' ? undefined : JSON.parse(text) };
}

function expectProblem(a: Answer, status: number, detail?: RegExp): void {
  expect(a.status, JSON.stringify(a.body)).toBe(status);
  expect(String(a.headers['content-type'])).toMatch(/^application\/problem\+json/);
  expect(a.body.status).toBe(status);
  if (detail) expect(a.body.detail).toMatch(detail);
}

const exists = (file: string) =>
  fs.access(file).then(
    () => true,
    () => false,
  );

async function turnsOf(sessionId: string): Promise<number> {
  return Number((await db.query('SELECT count(*) AS n FROM turns WHERE session_id = $1', [sessionId]))[0]!.n);
}

describe('replicas keep the guarantees of one server', { timeout: 90_000 }, () => {
  it('a turn forwarded to a paused owner answers 503 and never runs; the retry with the same Idempotency-Key runs it once', async () => {
    const a = await replica('a');
    // B gives up on a command after 1.5 s (the default is 30 s).
    const b = await startServer(replicaEnv('b'), { dataDir, replicaOptions: { commandTimeoutMs: 1_500 } });
    inProcess.push(b);
    const created = await call(a.url, 'POST', '/v1/sessions', acme, { permission_mode: 'bypassPermissions' });
    expect(created.status).toBe(201);
    const s = created.body as { id: string; workspace: string };
    const marker = path.join(s.workspace, 'runs.txt');
    const turn = { tool_uses: [{ id: 'toolu_mark', name: 'Bash', input: { command: 'echo ran >> runs.txt' } }] };

    pause(a);
    const refused = await call(b.url, 'POST', `/v1/sessions/${s.id}/turns`, acme, turn, 'turn-once');
    expectProblem(refused, 503, /try again/);
    resume(a);
    // A runs again: it reads the notification it slept through, and its own check (every second)
    // looks at the session's commands too; two checks later nothing may have run.
    expect((await call(a.url, 'GET', `/v1/sessions/${s.id}`, acme)).status).toBe(200);
    await new Promise((r) => setTimeout(r, 2_500));
    expect(await exists(marker)).toBe(false);
    expect(await turnsOf(s.id)).toBe(0);
    const commands = await db.query('SELECT state FROM commands WHERE session_id = $1', [s.id]);
    expect(commands).toEqual([{ state: 'abandoned' }]);

    // The client retries with the same key: the turn runs now, once.
    const retried = await call(b.url, 'POST', `/v1/sessions/${s.id}/turns`, acme, turn, 'turn-once');
    expect(retried.status, JSON.stringify(retried.body)).toBe(202);
    expect(retried.headers['idempotent-replayed']).toBeUndefined();
    const done = await call(a.url, 'GET', `/v1/sessions/${s.id}/turns/${retried.body.id}?wait=20`, acme);
    expect(done.body.status).toBe('completed');
    expect(await fs.readFile(marker, 'utf8')).toBe('ran\n');
    // Again, on the other replica: the first answer replayed, nothing run.
    const replayed = await call(a.url, 'POST', `/v1/sessions/${s.id}/turns`, acme, turn, 'turn-once');
    expect(replayed.status).toBe(202);
    expect(replayed.headers['idempotent-replayed']).toBe('true');
    expect(replayed.body.id).toBe(retried.body.id);
    expect(replayed.headers.location).toBe(`/v1/sessions/${s.id}/turns/${retried.body.id}`);
    expect(await turnsOf(s.id)).toBe(1);
    expect(await fs.readFile(marker, 'utf8')).toBe('ran\n');
  });

  it('max_sessions is exact across replicas: 12 concurrent creations split over two replicas make 3 sessions', async () => {
    const [a, b] = await Promise.all([replica('a'), replica('b')]);
    const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => call((i % 2 === 0 ? a : b).url, 'POST', '/v1/sessions', few, {})));
    const created = answers.filter((x) => x.status === 201);
    expect(created).toHaveLength(3);
    for (const x of answers.filter((y) => y.status !== 201)) expectProblem(x, 429, /max_sessions \(3\)/);
    expect(await db.query(`SELECT count(*)::int AS n FROM sessions WHERE tenant = 'few' AND status = 'active'`)).toEqual([{ n: 3 }]);
    // What a refused creation made (its workspace) is gone with it.
    expect((await fs.readdir(path.join(dataDir, 'workspaces', 'tenants', 'few'))).sort()).toEqual(created.map((x) => x.body.id as string).sort());
    // Room again once one is closed.
    expect((await request(`${b.url}/v1/sessions/${created[0]!.body.id}`, { method: 'DELETE', headers: { authorization: `Bearer ${few}` } })).statusCode).toBe(204);
    expect((await call(b.url, 'POST', '/v1/sessions', few, {})).status).toBe(201);
  });

  it('max_running_turns is exact across replicas: turns posted at once to 8 sessions on two replicas start 1', async () => {
    const [a, b] = await Promise.all([replica('a'), replica('b')]);
    const owners = Array.from({ length: 8 }, (_, i) => (i % 2 === 0 ? a : b));
    const sessions: string[] = [];
    for (const r of owners) sessions.push((await call(r.url, 'POST', '/v1/sessions', busy, {})).body.id as string);
    // A Write in the default mode waits for a person: the turn stays unfinished.
    const answers = await Promise.all(
      sessions.map((id, i) => call(owners[i]!.url, 'POST', `/v1/sessions/${id}/turns`, busy, { tool_uses: [{ name: 'Write', input: { file_path: 'w.txt', content: 'w' } }] })),
    );
    expect(answers.filter((x) => x.status === 202)).toHaveLength(1);
    for (const x of answers.filter((y) => y.status !== 202)) expectProblem(x, 429, /max_running_turns \(1\)/);
    expect(await db.query(`SELECT count(*)::int AS n FROM sessions WHERE tenant = 'busy' AND active_turn_id IS NOT NULL`)).toEqual([{ n: 1 }]);
    expect(await db.query(`SELECT count(*)::int AS n FROM turns t JOIN sessions s ON s.id = t.session_id WHERE s.tenant = 'busy'`)).toEqual([{ n: 1 }]);
    // Posted to the replica that does not run the session (forwarded to its owner): the same limit.
    const idle = answers.findIndex((x) => x.status !== 202);
    const forwarded = await call(owners[(idle + 1) % owners.length]!.url, 'POST', `/v1/sessions/${sessions[idle]}/turns`, busy, { tool_uses: [{ name: 'LS', input: {} }] });
    expectProblem(forwarded, 429, /max_running_turns \(1\)/);
  });

  it('an Idempotency-Key holds across replicas: the same request replays, another body is 422, another tenant is apart, one in flight is 409', async () => {
    const [a, b] = await Promise.all([replica('a'), replica('b')]);
    const body = { permission_mode: 'default' };
    const first = await call(a.url, 'POST', '/v1/sessions', acme, body, 'create-1');
    expect(first.status).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const again = await call(b.url, 'POST', '/v1/sessions', acme, body, 'create-1');
    expect(again.status, JSON.stringify(again.body)).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(again.headers.location).toBe(`/v1/sessions/${first.body.id}`);
    expect(await db.query(`SELECT count(*)::int AS n FROM sessions WHERE tenant = 'acme'`)).toEqual([{ n: 1 }]);
    // The same key for another request: refused, nothing made.
    expectProblem(await call(b.url, 'POST', '/v1/sessions', acme, { permission_mode: 'plan' }, 'create-1'), 422, /Idempotency-Key/);
    expectProblem(await call(a.url, 'POST', `/v1/sessions/${first.body.id}/turns`, acme, { tool_uses: [{ name: 'LS', input: {} }] }, 'create-1'), 422);
    // Another tenant's key of the same text is another key: its own session, not acme's answer.
    const theirs = await call(b.url, 'POST', '/v1/sessions', other, body, 'create-1');
    expect(theirs.status).toBe(201);
    expect(theirs.headers['idempotent-replayed']).toBeUndefined();
    expect(theirs.body.id).not.toBe(first.body.id);
    expect(theirs.body.tenant).toBe('other');
    // Keys are bounded: length and characters.
    expectProblem(await call(a.url, 'POST', '/v1/sessions', acme, body, 'k'.repeat(256)), 400, /idempotency-key/i);
    expectProblem(await call(a.url, 'POST', '/v1/sessions', acme, body, 'with space'), 400, /idempotency-key/i);
    expect(await db.query(`SELECT count(*)::int AS n FROM sessions`)).toEqual([{ n: 2 }]);

    // An answer to a permission request, posted on B and retried on A: the first answer replayed (not a 409).
    const s = first.body.id as string;
    const paused = await call(a.url, 'POST', `/v1/sessions/${s}/turns?wait=10`, acme, { tool_uses: [{ name: 'Write', input: { file_path: 'x.txt', content: 'x' } }] });
    expect(paused.body.status).toBe('awaiting_permission');
    const permission = paused.body.pending[0] as string;
    const answered = await call(b.url, 'POST', `/v1/sessions/${s}/permissions/${permission}`, acme, { behavior: 'allow' }, 'answer-1');
    expect(answered.status).toBe(200);
    const answeredAgain = await call(a.url, 'POST', `/v1/sessions/${s}/permissions/${permission}`, acme, { behavior: 'allow' }, 'answer-1');
    expect(answeredAgain.status).toBe(200);
    expect(answeredAgain.headers['idempotent-replayed']).toBe('true');
    expect(answeredAgain.body).toEqual(answered.body);
    expect((await call(a.url, 'GET', `/v1/sessions/${s}/turns/${paused.body.id}?wait=20`, acme)).body.status).toBe('completed');

    // A retry while the first request still waits for its turn: 409; once it has answered, its answer.
    const bypass = (await call(a.url, 'POST', '/v1/sessions', acme, { permission_mode: 'bypassPermissions' })).body.id as string;
    const slow = { tool_uses: [{ name: 'Bash', input: { command: 'sleep 2; echo slept >> slept.txt' } }] };
    const waiting = call(b.url, 'POST', `/v1/sessions/${bypass}/turns?wait=20`, acme, slow, 'slow-1');
    for (let i = 0; i < 200 && (await turnsOf(bypass)) === 0; i++) await new Promise((r) => setTimeout(r, 25));
    expectProblem(await call(a.url, 'POST', `/v1/sessions/${bypass}/turns?wait=20`, acme, slow, 'slow-1'), 409, /in progress|still/);
    const finished = await waiting;
    expect(finished.status).toBe(200);
    expect(finished.body.status).toBe('completed');
    const replay = await call(a.url, 'POST', `/v1/sessions/${bypass}/turns?wait=20`, acme, slow, 'slow-1');
    expect(replay.status).toBe(200);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toEqual(finished.body);
    expect(await turnsOf(bypass)).toBe(1);
  });
});

describe('the same guarantees on one server with SQLite', { timeout: 60_000 }, () => {
  async function single(): Promise<ServerProcess> {
    const env = replicaEnv('solo');
    delete env.NORMA_STORE;
    delete env.NORMA_DATABASE_URL;
    delete env.NORMA_NODE_ID;
    const r = await launchServer(env);
    running.push(r);
    return r;
  }

  it('limits hold under concurrent requests: 12 creations make 3 sessions, turns posted at once to 6 sessions start 1', async () => {
    const t = await single();
    const answers = await Promise.all(Array.from({ length: 12 }, () => call(t.url, 'POST', '/v1/sessions', few, {})));
    expect(answers.filter((x) => x.status === 201)).toHaveLength(3);
    for (const x of answers.filter((y) => y.status !== 201)) expectProblem(x, 429, /max_sessions \(3\)/);
    const sessions: string[] = [];
    for (let i = 0; i < 6; i++) sessions.push((await call(t.url, 'POST', '/v1/sessions', busy, {})).body.id as string);
    const turns = await Promise.all(sessions.map((id) => call(t.url, 'POST', `/v1/sessions/${id}/turns`, busy, { tool_uses: [{ name: 'Write', input: { file_path: 'w.txt', content: 'w' } }] })));
    expect(turns.filter((x) => x.status === 202)).toHaveLength(1);
    for (const x of turns.filter((y) => y.status !== 202)) expectProblem(x, 429, /max_running_turns \(1\)/);
  });

  it('an Idempotency-Key answer is kept in the database: replayed after a restart (SIGKILL), another body is 422', async () => {
    let t = await single();
    const first = await call(t.url, 'POST', '/v1/sessions', acme, {}, 'solo-1');
    expect(first.status).toBe(201);
    await t.kill();
    t = await single();
    const again = await call(t.url, 'POST', '/v1/sessions', acme, {}, 'solo-1');
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body.id).toBe(first.body.id);
    expectProblem(await call(t.url, 'POST', '/v1/sessions', acme, { permission_mode: 'plan' }, 'solo-1'), 422);
    const list = await call(t.url, 'GET', '/v1/sessions', acme);
    expect(list.body.items.map((s: { id: string }) => s.id)).toEqual([first.body.id]);
  });
});
