// Replicas: real server processes on loopback sharing one PostgreSQL database (a database of the
// run's throwaway cluster) and one data directory. Any replica serves any request; the session's
// owner runs it; a dead owner's sessions are taken over, paused turns resumed.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { launchServer, type ServerProcess } from '../helpers/server-process.js';
import { openSse, type SseMessage, type SseStream } from '../helpers/sse.js';
import { createTestDatabase, type TestDatabase } from '../helpers/postgres.js';
import { request } from 'undici';
import { startServer, type TestServer } from '../helpers/server.js';
import { clientFor, keysFile, newKey } from '../helpers/tenants.js';

let db: TestDatabase;
let dataDir: string;
const running: ServerProcess[] = [];
const inProcess: TestServer[] = [];
const cleanups: (() => Promise<void>)[] = [];
const streams: SseStream[] = [];

beforeEach(async () => {
  db = await createTestDatabase();
  dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'norma-replicas-'));
});
afterEach(async () => {
  for (const s of streams.splice(0)) s.close();
  await Promise.all(running.splice(0).map((r) => r.kill()));
  await Promise.all(inProcess.splice(0).map((t) => t.close()));
  for (const c of cleanups.splice(0)) await c();
  await db.drop();
  await fs.rm(dataDir, { recursive: true, force: true });
});

async function replica(nodeId: string): Promise<ServerProcess> {
  const r = await launchServer({ NORMA_STORE: 'postgres', NORMA_DATABASE_URL: db.url, NORMA_NODE_ID: nodeId, NORMA_DATA_DIR: dataDir, NORMA_LOG_LEVEL: 'info' }, undefined, {
    startTimeoutMs: 40_000,
  });
  running.push(r);
  return r;
}

/** Two in-process replicas A and B on the test's database and data directory, with this keys file. */
async function keyedReplicas(keys: string): Promise<TestServer[]> {
  return Promise.all(
    ['a', 'b'].map(async (id) => {
      const t = await startServer({ NORMA_STORE: 'postgres', NORMA_DATABASE_URL: db.url, NORMA_NODE_ID: id, NORMA_SANDBOX: 'off', NORMA_API_KEYS_FILE: keys }, { dataDir });
      inProcess.push(t);
      return t;
    }),
  );
}

async function sse(r: ServerProcess, sessionId: string, lastEventId?: string): Promise<SseStream> {
  const s = await openSse(`${r.url}/v1/sessions/${sessionId}/events`, lastEventId !== undefined ? { lastEventId } : {});
  streams.push(s);
  return s;
}

/** Every durable event the database holds for the session, in order (the truth streams are compared with). */
async function stored(sessionId: string): Promise<{ seq: number; type: string }[]> {
  const rows = await db.query('SELECT seq, type FROM events WHERE session_id = $1 ORDER BY seq', [sessionId]);
  return rows.map((r) => ({ seq: Number(r.seq), type: String(r.type) }));
}

const durable = (events: SseMessage[]) => events.filter((e) => e.event !== 'stream.end' && e.id !== undefined).map((e) => ({ seq: Number(e.id), type: e.event }));

describe('replicas on one PostgreSQL database', { timeout: 60_000 }, () => {
  it('the tenant stream: followed on a replica that runs none of the sessions, resumed on a third, nothing missing or twice', async () => {
    const [a, b, c] = await Promise.all([replica('a'), replica('b'), replica('c')]);
    const onB = await openSse(`${b.url}/v1/events`);
    streams.push(onB);
    const post = (r: ServerProcess, p: string, body: unknown) =>
      request(`${r.url}${p}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }).then((x) => x.body.json() as Promise<any>);
    const sessions: string[] = [];
    for (const r of [a, c]) sessions.push((await post(r, '/v1/sessions', { tools: ['LS'] })).id);
    const ls = { tool_uses: [{ name: 'LS', input: { path: '.' } }] };
    // Turns of both sessions at once, each run by its owner.
    await Promise.all(sessions.map(async (id, i) => {
      for (let k = 0; k < 3; k++) expect((await post(i === 0 ? a : c, `/v1/sessions/${id}/turns?wait=20`, ls)).status).toBe('completed');
    }));
    const truth = async () => (await Promise.all(sessions.map(stored))).reduce((n, e) => n + e.length, 0);
    const total = await truth();
    const mine = (s: SseStream) => s.events.filter((e) => e.id !== undefined && sessions.includes(e.data.session_id));
    await onB.waitFor(() => mine(onB).length === total, 20_000);
    // Leave half-way and resume on C: the rest, exactly.
    const half = mine(onB)[Math.floor(total / 2)]!;
    onB.close();
    const onC = await openSse(`${c.url}/v1/events`, { lastEventId: half.id! });
    streams.push(onC);
    await onC.waitFor(() => mine(onC).length === total - Math.floor(total / 2) - 1, 20_000);
    const got = [...mine(onB).slice(0, Math.floor(total / 2) + 1), ...mine(onC)];
    for (const id of sessions) {
      expect(got.filter((e) => e.data.session_id === id).map((e) => ({ seq: e.data.seq, type: e.event }))).toEqual(await stored(id));
    }
  });


  it('three replicas: created on A, posted on B, answered and watched on C, with no gap', async () => {
    const [a, b, c] = await Promise.all([replica('a'), replica('b'), replica('c')]);
    for (const [r, id] of [[a, 'a'], [b, 'b'], [c, 'c']] as const) expect((await r.api.get('/readyz')).body.node_id).toBe(id);
    const s = (await a.api.post('/v1/sessions', {})).body;
    // C's stream is open before anything runs on the session: what follows reaches it live.
    const watch = await sse(c, s.id);
    await watch.waitFor((e) => e.event === 'session.created');

    // Posted on B, which does not run the session: the owner (A) runs it and B answers with its turn.
    const posted = await b.api.post(`/v1/sessions/${s.id}/turns`, {
      tool_uses: [
        { id: 'toolu_read', name: 'LS', input: { path: '.' } },
        { id: 'toolu_write', name: 'Write', input: { file_path: 'from-b.txt', content: 'written once' } },
      ],
    });
    expect(posted.status).toBe(202);
    expect(posted.body).toMatchObject({ session_id: s.id, status: 'running' });
    const asked = await watch.waitFor((e) => e.event === 'permission.requested');
    // Answered on C: through the database to A's waiting call.
    const answered = await c.api.post(`/v1/sessions/${s.id}/permissions/${asked.data.permission.id}`, { behavior: 'allow' });
    expect(answered.status).toBe(200);
    expect(answered.body.status).toBe('allowed');
    // A second answer, anywhere, is a conflict: the first one won.
    expect((await b.api.post(`/v1/sessions/${s.id}/permissions/${asked.data.permission.id}`, { behavior: 'deny' })).status).toBe(409);
    // Waited for on B.
    const done = await b.api.get(`/v1/sessions/${s.id}/turns/${posted.body.id}?wait=20`);
    expect(done.body.status).toBe('completed');
    expect(done.body.results.map((r: { tool_use_id: string }) => r.tool_use_id)).toEqual(['toolu_read', 'toolu_write']);
    expect(await fs.readFile(path.join(dataDir, 'workspaces', s.id, 'from-b.txt'), 'utf8')).toBe('written once');

    // More turns, posted on each replica in turn and waited for there.
    for (let i = 0; i < 9; i++) {
      const r = [a, b, c][i % 3]!;
      const t = await r.api.post(`/v1/sessions/${s.id}/turns?wait=20`, { tool_uses: [{ name: 'LS', input: { path: '.' } }] });
      expect(t.status).toBe(200);
      expect(t.body.status).toBe('completed');
    }
    // What C streamed is exactly what is stored: every seq once, in order, none missing.
    const truth = await stored(s.id);
    await watch.waitFor((e) => Number(e.id) === truth.length);
    expect(durable(watch.events)).toEqual(truth);
    expect(truth.map((e) => e.seq)).toEqual(truth.map((_, i) => i + 1));
    // Reads on any replica agree.
    const lists = await Promise.all([a, b, c].map(async (r) => (await r.api.get(`/v1/sessions/${s.id}/turns`)).body.items.map((t: { id: string; status: string }) => `${t.id}:${t.status}`)));
    expect(lists[1]).toEqual(lists[0]);
    expect(lists[2]).toEqual(lists[0]);
    // A session's runtime-bound reads are answered by its owner wherever they are asked.
    const names = async (r: ServerProcess) => (await r.api.get(`/v1/sessions/${s.id}/tools`)).body.map((t: { name: string }) => t.name);
    expect(await names(c)).toEqual(await names(a));
    expect(await names(c)).toContain('Write');
  });

  it('checkpoints through a replica that does not run the session: listed, diffed, rewound and forked by the owner', async () => {
    const [a, b] = await Promise.all([replica('a'), replica('b')]);
    const s = (await a.api.post('/v1/sessions', { allowed_tools: ['Write'] })).body;
    const turn = (await a.api.post(`/v1/sessions/${s.id}/turns?wait=10`, { tool_uses: [{ name: 'Write', input: { file_path: 'a.txt', content: 'one\n' } }] })).body;
    expect(turn.status).toBe('completed');
    const list = await b.api.get(`/v1/sessions/${s.id}/checkpoints`);
    expect(list.status).toBe(200);
    expect(list.body.items.map((c: { reason: string }) => c.reason)).toEqual(['turn_start', 'before_call', 'after_call']);
    const changes = await b.api.get(`/v1/sessions/${s.id}/turns/${turn.id}/changes`);
    expect(changes.body.files).toMatchObject([{ path: 'a.txt', status: 'added' }]);
    const rewound = await b.api.post(`/v1/sessions/${s.id}/rewind`, { to: turn.id });
    expect(rewound.status).toBe(200);
    expect(rewound.body.deleted).toEqual(['a.txt']);
    await expect(fs.stat(path.join(s.workspace, 'a.txt'))).rejects.toThrow();
    const fork = await b.api.post(`/v1/sessions/${s.id}/fork`, { at: rewound.body.checkpoint_id });
    expect(fork.status).toBe(201);
    expect(await fs.readFile(path.join(fork.body.workspace, 'a.txt'), 'utf8')).toBe('one\n');
    // The rewind is one event of the session, stored once.
    expect((await stored(s.id)).filter((e) => e.type === 'workspace.rewound')).toHaveLength(1);
  });

  it('the owner killed during a paused permission: answered through another replica, the call runs once and every tool_use gets one result', async () => {
    const [a, b] = await Promise.all([replica('a'), replica('b')]);
    const s = (await a.api.post('/v1/sessions', {})).body;
    const t = (
      await a.api.post(`/v1/sessions/${s.id}/turns?wait=10`, {
        tool_uses: [
          { id: 'toolu_w', name: 'Bash', input: { command: 'echo ran >> runs.txt' } },
          { id: 'toolu_l', name: 'LS', input: { path: '.' } },
        ],
      })
    ).body;
    expect(t.status).toBe('awaiting_permission');
    const watch = await sse(b, s.id);
    await watch.waitFor((e) => e.event === 'permission.requested');
    const killedAt = Date.now();
    await a.kill();
    // B finds A gone and takes the session over by itself: the paused turn is resumed, not answered.
    const resumed = await watch.waitFor((e) => e.event === 'turn.resumed', 15_000);
    const takeoverMs = Date.now() - killedAt;
    expect(resumed.data.pending).toHaveLength(1);
    expect(takeoverMs).toBeLessThan(15_000);
    const permission = (await b.api.get(`/v1/sessions/${s.id}/permissions?status=pending`)).body.items[0];
    expect(permission.tool_use_id).toBe('toolu_w');
    const answered = await b.api.post(`/v1/sessions/${s.id}/permissions/${permission.id}`, { behavior: 'allow' });
    expect(answered.status, `${JSON.stringify(answered.body)}\n${b.output().split('\n').filter((l) => /"level":(40|50|60)/.test(l)).join('\n')}`).toBe(200);
    const done = await b.api.get(`/v1/sessions/${s.id}/turns/${t.id}?wait=20`);
    expect(done.body.status).toBe('completed');
    expect(done.body.results.map((r: { tool_use_id: string; is_error: boolean }) => [r.tool_use_id, r.is_error])).toEqual([
      ['toolu_w', false],
      ['toolu_l', false],
    ]);
    expect(await fs.readFile(path.join(dataDir, 'workspaces', s.id, 'runs.txt'), 'utf8')).toBe('ran\n');
    const events = await stored(s.id);
    expect(events.filter((e) => e.type === 'tool.started').length).toBe(2);
    expect(events.filter((e) => e.type === 'tool.completed').length).toBe(2);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    expect((await db.query('SELECT node_id, epoch FROM leases WHERE session_id = $1', [s.id]))[0]).toEqual({ node_id: 'b', epoch: 2 });
    console.log(`takeover after SIGKILL: ${takeoverMs} ms`);
  });

  it('the owner killed while a call runs: another replica takes over, the call gets an "Interrupted" result, the next a "Not run" one', async () => {
    const [a, b] = await Promise.all([replica('a'), replica('b')]);
    const s = (await a.api.post('/v1/sessions', { permission_mode: 'bypassPermissions' })).body;
    const watch = await sse(b, s.id);
    const t = (
      await b.api.post(`/v1/sessions/${s.id}/turns`, {
        tool_uses: [
          { id: 'toolu_sleep', name: 'Bash', input: { command: 'sleep 30' } },
          { id: 'toolu_after', name: 'LS', input: { path: '.' } },
        ],
      })
    ).body;
    await watch.waitFor((e) => e.event === 'tool.started' && e.data.tool_use_id === 'toolu_sleep');
    // A wait on B, for the turn A runs, outlives A: B takes the session over and answers its end.
    const waiting = b.api.get(`/v1/sessions/${s.id}/turns/${t.id}?wait=25`);
    await a.kill();
    const ended = await watch.waitFor((e) => e.event === 'turn.interrupted', 15_000);
    expect(ended.data.turn.id).toBe(t.id);
    const waited = await waiting;
    expect(waited.status).toBe(200);
    expect(waited.body.status).toBe('interrupted');
    const turn = (await b.api.get(`/v1/sessions/${s.id}/turns/${t.id}`)).body;
    expect(turn.status).toBe('interrupted');
    expect(turn.results.map((r: { tool_use_id: string; is_error: boolean; content: { text: string }[] }) => [r.tool_use_id, r.is_error, r.content[0]!.text.split(':')[0]])).toEqual([
      ['toolu_sleep', true, 'Interrupted'],
      ['toolu_after', true, 'Not run'],
    ]);
    // The session goes on on B.
    const next = await b.api.post(`/v1/sessions/${s.id}/turns?wait=20`, { tool_uses: [{ name: 'LS', input: { path: '.' } }] });
    expect(next.body.status).toBe('completed');
    const events = await stored(s.id);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
  });

  it('a wait on a replica that does not run the turn ends on its events: the turn is forwarded in one command, the wait asks the owner nothing', async () => {
    const [a, b] = await Promise.all([replica('a'), replica('b')]);
    const s = (await a.api.post('/v1/sessions', {})).body;
    const kinds = async (id: string) => (await db.query('SELECT kind FROM commands WHERE session_id = $1 ORDER BY id', [id])).map((r) => r.kind);
    // Posted to B with a wait: the start goes to A; the wait ends at the pause, read back on B.
    const paused = await b.api.post(`/v1/sessions/${s.id}/turns?wait=10`, { tool_uses: [{ id: 'toolu_w', name: 'Write', input: { file_path: 'w.txt', content: 'w' } }] });
    expect(paused.status).toBe(200);
    expect(paused.body.status).toBe('awaiting_permission');
    expect(paused.body.pending).toHaveLength(1);
    expect(await kinds(s.id)).toEqual(['turns.start']);
    // Answered on A, waited for on B: the turn the owner ended, as stored.
    expect((await a.api.post(`/v1/sessions/${s.id}/permissions/${paused.body.pending[0]}`, { behavior: 'allow' })).status).toBe(200);
    const done = await b.api.get(`/v1/sessions/${s.id}/turns/${paused.body.id}?wait=15`);
    expect(done.body.status).toBe('completed');
    expect(done.body).toEqual((await a.api.get(`/v1/sessions/${s.id}/turns/${paused.body.id}`)).body);
    // A turn that runs a while, posted to B: B answers its end, heard as an event.
    const busy = (await a.api.post('/v1/sessions', { permission_mode: 'bypassPermissions' })).body;
    const ran = await b.api.post(`/v1/sessions/${busy.id}/turns?wait=15`, { tool_uses: [{ id: 'toolu_s', name: 'Bash', input: { command: 'sleep 1; echo slept' } }] });
    expect(ran.body.status).toBe('completed');
    expect(ran.body.results[0].content[0].text).toContain('slept');
    expect(await kinds(busy.id)).toEqual(['turns.start']);
    // A wait that runs out answers the turn as it is; an unknown turn is 404 as on the owner.
    const slow = await b.api.post(`/v1/sessions/${busy.id}/turns?wait=0.5`, { tool_uses: [{ name: 'Bash', input: { command: 'sleep 3' } }] });
    expect(slow.body.status).toBe('running');
    expect((await b.api.get(`/v1/sessions/${busy.id}/turns/turn_nothere?wait=2`)).status).toBe(404);
    expect(await kinds(busy.id)).toEqual(['turns.start', 'turns.start']);
  });

  it('an answer that reaches another replica before it noticed the owner died takes the session over at once and goes to the waiting call', async () => {
    const [a, b] = await Promise.all([replica('a'), replica('b')]);
    const s = (await a.api.post('/v1/sessions', {})).body;
    const t = (await a.api.post(`/v1/sessions/${s.id}/turns?wait=10`, { tool_uses: [{ id: 'toolu_w', name: 'Write', input: { file_path: 'x.txt', content: 'x' } }] })).body;
    expect(t.status).toBe('awaiting_permission');
    const pending = (await b.api.get(`/v1/sessions/${s.id}/permissions?status=pending`)).body.items[0];
    await a.kill();
    const answered = await b.api.post(`/v1/sessions/${s.id}/permissions/${pending.id}`, { behavior: 'allow' });
    expect(answered.status).toBe(200);
    expect(answered.body.status).toBe('allowed');
    const done = await b.api.get(`/v1/sessions/${s.id}/turns/${t.id}?wait=20`);
    expect(done.body.status).toBe('completed');
    expect(done.body.results).toHaveLength(1);
    expect(await fs.readFile(path.join(dataDir, 'workspaces', s.id, 'x.txt'), 'utf8')).toBe('x');
  });

  it('200 SSE reconnects across three replicas while turns run lose and duplicate nothing', { timeout: 120_000 }, async () => {
    const replicas = await Promise.all([replica('a'), replica('b'), replica('c')]);
    const s = (await replicas[0]!.api.post('/v1/sessions', { permission_mode: 'bypassPermissions' })).body;
    // A producer: 30 turns of 3 calls each, posted on B (run by A).
    const producing = (async () => {
      for (let i = 0; i < 30; i++) {
        const t = await replicas[1]!.api.post(`/v1/sessions/${s.id}/turns?wait=20`, {
          tool_uses: [
            { name: 'LS', input: { path: '.' } },
            { name: 'Write', input: { file_path: `f${i}.txt`, content: String(i) } },
            { name: 'Read', input: { file_path: `f${i}.txt` } },
          ],
        });
        expect(t.body.status).toBe('completed');
      }
    })();
    const got: SseMessage[] = [];
    let last: string | undefined;
    for (let i = 0; i < 200; i++) {
      const r = replicas[i % 3]!;
      const stream = await openSse(`${r.url}/v1/sessions/${s.id}/events`, last !== undefined ? { lastEventId: last } : {});
      // Read a few events (or none, when nothing comes within a moment), then drop the connection.
      const want = 1 + (i % 4);
      const deadline = Date.now() + 150;
      while (durable(stream.events).length < want && Date.now() < deadline) await new Promise((r2) => setTimeout(r2, 5));
      stream.close();
      const taken = stream.events.filter((e) => e.id !== undefined);
      got.push(...taken);
      if (taken.length > 0) last = taken[taken.length - 1]!.id;
    }
    await producing;
    // The rest, from the last one seen, on another replica.
    const truth = await stored(s.id);
    const rest = await sse(replicas[2]!, s.id, last);
    if (Number(last ?? 0) < truth.length) await rest.waitFor((e) => Number(e.id) === truth.length);
    got.push(...rest.events.filter((e) => e.id !== undefined));
    expect(durable(got)).toEqual(truth);
    expect(truth.length).toBeGreaterThan(30 * 7);
  });

  it('three tenants on two replicas: each tenant stream and inbox has its own tenant\'s sessions only, whichever replica runs them', async () => {
    const tenants = ['t1', 't2', 't3'];
    const keys = Object.fromEntries(tenants.map((tn) => [tn, newKey(tn)]));
    const f = await keysFile(tenants.map((tn) => ({ key: keys[tn]!, tenant: tn, scopes: ['write', 'approve'] })));
    cleanups.push(f.remove);
    const [a, b] = await keyedReplicas(f.file);
    // Each tenant follows its stream on B; its sessions are made on A and on B.
    const followed = Object.fromEntries(await Promise.all(tenants.map(async (tn) => [tn, await openSse(`${b!.url}/v1/events`, { token: keys[tn]! })] as const)));
    streams.push(...Object.values(followed));
    const made: Record<string, string[]> = {};
    for (const tn of tenants) {
      made[tn] = [];
      for (const r of [a!, b!]) {
        const c = clientFor(r.url, keys[tn]!);
        const sid = (await c.post('/v1/sessions', { tools: ['Write'], name: `${tn} on ${r === a ? 'a' : 'b'}` })).body.id as string;
        made[tn]!.push(sid);
        expect((await c.post(`/v1/sessions/${sid}/turns?wait=10`, { tool_uses: [{ name: 'Write', input: { file_path: 'x.txt', content: tn } }] })).body.status).toBe('awaiting_permission');
      }
    }
    for (const tn of tenants) {
      const s = followed[tn]!;
      for (const sid of made[tn]!) await s.waitFor((e) => e.event === 'permission.requested' && e.data.session_id === sid, 20_000);
      expect(new Set(s.events.filter((e) => e.id !== undefined).map((e) => e.data.session_id))).toEqual(new Set(made[tn]));
      // The inbox on either replica: this tenant's two requests, each with its preview.
      for (const r of [a!, b!]) {
        const items = (await clientFor(r.url, keys[tn]!).get('/v1/pending')).body.items as { session: { id: string }; permission: { preview: { kind: string } } }[];
        expect(items.map((i) => i.session.id).sort()).toEqual([...made[tn]!].sort());
        expect(items.every((i) => i.permission.preview.kind === 'diff')).toBe(true);
      }
    }
    // An answer on the replica that does not run the session: the request leaves the inbox, the stream says so.
    const [first] = (await clientFor(b!.url, keys.t1!).get('/v1/pending')).body.items as { session: { id: string }; permission: { id: string } }[];
    expect((await clientFor(b!.url, keys.t1!).post(`/v1/sessions/${first!.session.id}/permissions/${first!.permission.id}`, { behavior: 'deny' })).status).toBe(200);
    await followed.t1!.waitFor((e) => e.event === 'permission.resolved' && e.data.permission.id === first!.permission.id, 20_000);
    expect((await clientFor(a!.url, keys.t1!).get('/v1/pending')).body.items.map((i: { permission: { id: string } }) => i.permission.id)).not.toContain(first!.permission.id);
  });

  it('event tickets, console logins and requests_per_minute hold across replicas', async () => {
    const key = newKey('ops');
    const limited = newKey('busy');
    const few = newKey('few');
    const stranger = newKey('stranger');
    const f = await keysFile([
      { key, tenant: 'acme', scopes: ['admin'], name: 'ops' },
      { key: limited, tenant: 'busy', scopes: ['admin'], name: 'busy', policy: { requests_per_minute: 6 } },
      { key: few, tenant: 'few', scopes: ['admin'], name: 'few', policy: { max_sessions: 2, max_running_turns: 1 } },
      { key: stranger, tenant: 'other', scopes: ['admin'], name: 'stranger' },
    ]);
    cleanups.push(f.remove);
    const [a, b] = await keyedReplicas(f.file);
    const s = (await clientFor(a!.url, key).post('/v1/sessions', {})).body;
    // A wait on B for a turn A runs is the owner's tenant's only: another tenant's is 404, before and after it ends.
    const t = (await clientFor(a!.url, key).post(`/v1/sessions/${s.id}/turns`, { tool_uses: [{ name: 'LS', input: { path: '.' } }] })).body;
    expect((await clientFor(b!.url, stranger).get(`/v1/sessions/${s.id}/turns/${t.id}?wait=5`)).status).toBe(404);
    expect((await clientFor(b!.url, key).get(`/v1/sessions/${s.id}/turns/${t.id}?wait=5`)).body.status).toBe('completed');
    expect((await clientFor(b!.url, stranger).get(`/v1/sessions/${s.id}/turns/${t.id}?wait=5`)).status).toBe(404);
    // A ticket taken on A opens the stream on B, once.
    const { ticket } = (await clientFor(a!.url, key).post(`/v1/sessions/${s.id}/events/tickets`, {})).body;
    const stream = await openSse(`${b!.url}/v1/sessions/${s.id}/events?ticket=${encodeURIComponent(ticket)}`);
    streams.push(stream);
    expect(stream.status).toBe(200);
    await stream.waitFor((e) => e.event === 'session.created');
    const again = await request(`${a!.url}/v1/sessions/${s.id}/events?ticket=${encodeURIComponent(ticket)}`);
    await again.body.text();
    expect(again.statusCode).toBe(401);

    // A console login made on A acts on B; logging out on B ends it on A.
    const console = { 'x-norma-console': '1', 'content-type': 'application/json' };
    const made = await request(`${a!.url}/console/session`, { method: 'POST', headers: console, body: JSON.stringify({ key }) });
    await made.body.text();
    expect(made.statusCode).toBe(201);
    const cookie = String(made.headers['set-cookie']).split(';')[0]!;
    const onB = await request(`${b!.url}/v1/sessions/${s.id}`, { headers: { 'x-norma-console': '1', cookie } });
    expect(onB.statusCode).toBe(200);
    expect(((await onB.body.json()) as { id: string }).id).toBe(s.id);
    const out = await request(`${b!.url}/console/session`, { method: 'DELETE', headers: { 'x-norma-console': '1', cookie } });
    await out.body.text();
    expect(out.statusCode).toBe(204);
    const onA = await request(`${a!.url}/v1/sessions/${s.id}`, { headers: { 'x-norma-console': '1', cookie } });
    await onA.body.text();
    expect(onA.statusCode).toBe(401);

    // 6 requests a minute for the tenant "busy": 6 in all, whichever replica they reach.
    const statuses: number[] = [];
    const remaining: string[] = [];
    for (let i = 0; i < 8; i++) {
      const r = await request(`${(i % 2 === 0 ? a : b)!.url}/v1/sessions`, { headers: { authorization: `Bearer ${limited}` } });
      await r.body.text();
      statuses.push(r.statusCode);
      remaining.push(String(r.headers['x-ratelimit-remaining']));
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 200, 429, 429]);
    expect(remaining.slice(0, 6)).toEqual(['5', '4', '3', '2', '1', '0']);

    // max_sessions and max_running_turns count the tenant's sessions and turns on every replica.
    const fa = clientFor(a!.url, few);
    const fb = clientFor(b!.url, few);
    const s1 = (await fa.post('/v1/sessions', {})).body;
    const s2 = (await fb.post('/v1/sessions', {})).body;
    const third = await fa.post('/v1/sessions', {});
    expect(third.status).toBe(429);
    expect(third.body.detail).toContain('max_sessions (2)');
    const paused = await fa.post(`/v1/sessions/${s1.id}/turns?wait=10`, { tool_uses: [{ name: 'Write', input: { file_path: 'p.txt', content: 'p' } }] });
    expect(paused.body.status).toBe('awaiting_permission');
    const second = await fb.post(`/v1/sessions/${s2.id}/turns`, { tool_uses: [{ name: 'LS', input: { path: '.' } }] });
    expect(second.status).toBe(429);
    expect(second.body.detail).toContain('max_running_turns (1)');
  });

  it('a second server with a node id in use stops at start-up, naming it; the first goes on', async () => {
    const env = { NORMA_STORE: 'postgres', NORMA_DATABASE_URL: db.url, NORMA_NODE_ID: 'twin', NORMA_SANDBOX: 'off' };
    const first = await startServer(env, { dataDir });
    inProcess.push(first);
    await expect(startServer(env, { dataDir, replicaOptions: { nodeLockWaitMs: 300 } })).rejects.toThrow(
      /cannot use the database postgres:\/\/.*: another server is running as node "twin" on this database \(it holds the node's lock\); give each replica its own NORMA_NODE_ID/,
    );
    expect((await first.api.post('/v1/sessions', {})).status).toBe(201);
  });
});
