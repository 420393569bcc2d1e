// GET /v1/events: one stream of every session of the caller's tenant, over real HTTP. Three
// tenants each see only their own sessions' events; a reconnection with Last-Event-ID resumes with
// no gap and no duplicate; `?type=` keeps only some types; tickets open the tenant stream and
// nothing else; a cursor the server did not make is a 400. (Replicas: replicas.test.ts.)
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSse, type SseMessage, type SseStream } from '../helpers/sse.js';
import { clientFor, newKey, startWithKeys, type KeyedServer } from '../helpers/tenants.js';
import type { ContractClient } from '../helpers/contract.js';

const TENANTS = ['acme', 'beta', 'gamma'] as const;
const keys = Object.fromEntries(TENANTS.map((t) => [t, newKey(`${t}_w`)])) as Record<(typeof TENANTS)[number], string>;
const readKey = newKey('acme_r');
let t: KeyedServer;
const api = {} as Record<(typeof TENANTS)[number], ContractClient>;
const open: SseStream[] = [];

beforeAll(async () => {
  t = await startWithKeys([
    ...TENANTS.map((tenant) => ({ key: keys[tenant], tenant, scopes: ['write', 'approve'] })),
    { key: readKey, tenant: 'acme', scopes: ['read'] },
  ]);
  for (const tenant of TENANTS) api[tenant] = clientFor(t.url, keys[tenant]);
});
afterAll(async () => {
  for (const s of open.splice(0)) s.close();
  await t?.close();
});

async function stream(key: string, opts: { lastEventId?: string; query?: string } = {}): Promise<SseStream> {
  const s = await openSse(`${t.url}/v1/events${opts.query ?? ''}`, { token: key, ...(opts.lastEventId !== undefined ? { lastEventId: opts.lastEventId } : {}) });
  open.push(s);
  return s;
}

const ls = { tool_uses: [{ name: 'LS', input: { path: '.' } }] };
const durable = (events: SseMessage[]) => events.filter((e) => e.id !== undefined);

/** Every session's seqs, in the order they came, must run 1, 2, 3, … (nothing missing, nothing twice). */
function expectContiguous(events: SseMessage[], sessions: readonly string[]): void {
  const seen = new Map<string, number[]>();
  for (const e of events) seen.set(e.data.session_id, [...(seen.get(e.data.session_id) ?? []), e.data.seq]);
  for (const id of sessions) {
    const seqs = seen.get(id) ?? [];
    expect(seqs.length, id).toBeGreaterThan(0);
    expect(seqs, id).toEqual(Array.from({ length: seqs.length }, (_, i) => i + 1));
  }
}

describe('the tenant event stream', () => {
  it('three tenants: each stream has its own tenant\'s sessions\' events only, in commit order, sessions created later included', async () => {
    const streams = Object.fromEntries(await Promise.all(TENANTS.map(async (tn) => [tn, await stream(keys[tn])] as const))) as Record<(typeof TENANTS)[number], SseStream>;
    const made: Record<string, string[]> = { acme: [], beta: [], gamma: [] };
    for (let round = 0; round < 2; round++) {
      for (const tn of TENANTS) {
        const s = (await api[tn].post('/v1/sessions', { tools: ['LS'] })).body.id as string;
        made[tn]!.push(s);
        expect((await api[tn].post(`/v1/sessions/${s}/turns?wait=10`, ls)).body.status).toBe('completed');
      }
    }
    for (const tn of TENANTS) {
      const last = made[tn]!.at(-1)!;
      await streams[tn].waitFor((e) => e.event === 'turn.completed' && e.data.session_id === last);
      const events = durable(streams[tn].events);
      expect(new Set(events.map((e) => e.data.session_id))).toEqual(new Set(made[tn]));
      expectContiguous(events, made[tn]!);
      // Cursors only grow.
      const ids = events.map((e) => e.id!);
      expect(ids).toEqual([...ids].sort((a, b) => Number(a) - Number(b)));
      expect(events[0]!.event).toBe('session.created');
    }
  });

  it('a reconnection with Last-Event-ID (or ?after=) resumes with no gap and no duplicate, while events keep coming', async () => {
    const first = await stream(keys.beta);
    const sessions = await Promise.all([0, 1, 2].map(async () => (await api.beta.post('/v1/sessions', { tools: ['LS'] })).body.id as string));
    const run = async () => {
      for (let i = 0; i < 4; i++) for (const s of sessions) await api.beta.post(`/v1/sessions/${s}/turns?wait=10`, ls);
    };
    const running = run();
    // Leave after some events, while turns go on.
    await first.waitFor((e) => e.event === 'tool.completed');
    first.close();
    const had = durable(first.events);
    const second = await stream(keys.beta, { lastEventId: had.at(-1)!.id! });
    await running;
    // Every one of the 12 turns has completed: on one stream or the other.
    const completed = () => [...had, ...durable(second.events)].filter((e) => e.event === 'turn.completed' && sessions.includes(e.data.session_id)).length;
    await second.waitFor(() => completed() === 12);
    const all = [...had, ...durable(second.events)];
    const keysSeen = all.map((e) => `${e.data.session_id}/${e.data.seq}`);
    expect(new Set(keysSeen).size).toBe(keysSeen.length);
    // Only this test's sessions had events since the first stream opened.
    expectContiguous(all.filter((e) => sessions.includes(e.data.session_id)), sessions);
    // ?after= does the same as the header.
    const third = await stream(keys.beta, { query: `?after=${had.at(-1)!.id}` });
    await third.waitFor(() => durable(third.events).length >= durable(second.events).length);
    expect(durable(third.events).slice(0, durable(second.events).length).map((e) => e.id)).toEqual(durable(second.events).map((e) => e.id));
  });

  it('?type= keeps only those events; a read key may follow the stream', async () => {
    const s = await stream(readKey, { query: '?type=permission.requested&type=permission.resolved' });
    const sid = (await api.acme.post('/v1/sessions', { tools: ['Write'] })).body.id as string;
    const turn = (await api.acme.post(`/v1/sessions/${sid}/turns?wait=10`, { tool_uses: [{ name: 'Write', input: { file_path: 'x.txt', content: 'x' } }] })).body;
    const asked = await s.waitFor((e) => e.event === 'permission.requested' && e.data.session_id === sid);
    expect(asked.data.permission.preview).toMatchObject({ kind: 'diff', operation: 'create' });
    await api.acme.post(`/v1/sessions/${sid}/permissions/${turn.pending[0]}`, { behavior: 'deny' });
    await s.waitFor((e) => e.event === 'permission.resolved' && e.data.session_id === sid);
    expect(new Set(durable(s.events).map((e) => e.event))).toEqual(new Set(['permission.requested', 'permission.resolved']));
  });

  it('tickets open the tenant stream once, and only it; a session ticket does not open it', async () => {
    const ticket = (await api.gamma.post('/v1/events/tickets')).body.ticket as string;
    const ok = await openSse(`${t.url}/v1/events?ticket=${ticket}`);
    open.push(ok);
    expect(ok.status).toBe(200);
    const again = await openSse(`${t.url}/v1/events?ticket=${ticket}`);
    expect(again.status).toBe(401);
    const sid = (await api.gamma.post('/v1/sessions', {})).body.id as string;
    const sessionTicket = (await api.gamma.post(`/v1/sessions/${sid}/events/tickets`)).body.ticket as string;
    const wrong = await openSse(`${t.url}/v1/events?ticket=${sessionTicket}`);
    expect(wrong.status).toBe(401);
    const tenantTicket = (await api.gamma.post('/v1/events/tickets')).body.ticket as string;
    const wrong2 = await openSse(`${t.url}/v1/sessions/${sid}/events?ticket=${tenantTicket}`);
    expect(wrong2.status).toBe(401);
    // What gamma's ticket opens is gamma's stream: an acme session's events never show.
    const acme = (await api.acme.post('/v1/sessions', {})).body.id as string;
    const mine = (await api.gamma.post('/v1/sessions', {})).body.id as string;
    await ok.waitFor((e) => e.data.session_id === mine);
    expect(ok.events.some((e) => e.data.session_id === acme)).toBe(false);
  });

  it('a cursor the server did not make is a 400 naming where it was; no key is a 401', async () => {
    for (const bad of ['abc', '1-2-3', '-1', '9'.repeat(30)]) {
      const q = await fetch(`${t.url}/v1/events?after=${encodeURIComponent(bad)}`, { headers: { authorization: `Bearer ${keys.acme}` } });
      expect(q.status, bad).toBe(400);
      const h = await fetch(`${t.url}/v1/events`, { headers: { authorization: `Bearer ${keys.acme}`, 'last-event-id': bad } });
      expect(h.status, bad).toBe(400);
      await h.text();
      await q.text();
    }
    // A PostgreSQL cursor on SQLite (or the other way round) is refused too.
    const other = process.env.NORMA_TEST_STORE === 'postgres' ? '17' : '17-3';
    expect((await fetch(`${t.url}/v1/events?after=${other}`, { headers: { authorization: `Bearer ${keys.acme}` } })).status).toBe(400);
    expect((await fetch(`${t.url}/v1/events`)).status).toBe(401);
  });
});
