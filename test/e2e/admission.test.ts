// Turn admission end to end: with one place to run and two to wait, a turn posted while another
// runs waits and starts when the place frees; one past the queue is refused at once, one that
// waits past the bound is refused at it — each 503 with Retry-After and nothing of it stored —
// and a client that goes away while it waits gives its place in the queue up.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../helpers/server.js';

let t: TestServer;
beforeAll(async () => {
  t = await startServer({ NORMA_MAX_RUNNING_TURNS: '1', NORMA_TURN_QUEUE: '2', NORMA_TURN_QUEUE_PER_TENANT: '2', NORMA_TURN_QUEUE_WAIT_MS: '1500' });
});
afterAll(async () => {
  await t?.close();
});

async function session(): Promise<string> {
  const res = await t.api.post('/v1/sessions', { permission_mode: 'bypassPermissions' });
  expect(res.status).toBe(201);
  return res.body.id as string;
}

const sleep = (s: number) => ({ tool_uses: [{ name: 'Bash', input: { command: `sleep ${s}` } }] });
const echo = { tool_uses: [{ name: 'Bash', input: { command: 'echo ran' } }] };

describe('turn admission', () => {
  it('queues past its places, refuses past the queue and past the wait with Retry-After, and stores nothing refused', async () => {
    const [busy, waiter, late, refused] = [await session(), await session(), await session(), await session()];
    // The one place: a turn that runs for 4 s.
    const first = await t.api.post(`/v1/sessions/${busy}/turns`, sleep(4));
    expect(first.status).toBe(202);
    const posted = Date.now();
    // Two wait (the queue's size), the fourth is refused at once.
    const waiting = [t.api.post(`/v1/sessions/${waiter}/turns?wait=30`, echo), t.api.post(`/v1/sessions/${late}/turns?wait=30`, echo)];
    await new Promise((r) => setTimeout(r, 200));
    const full = await t.api.post(`/v1/sessions/${refused}/turns`, echo);
    expect(full.status).toBe(503);
    expect(full.body.detail).toMatch(/as many as it queues/);
    expect(Number(full.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    // Both waited the bound (1.5 s), not the running turn's 4 s, and were refused then.
    const outcomes = await Promise.all(waiting);
    const waited = Date.now() - posted;
    for (const o of outcomes) {
      expect(o.status).toBe(503);
      expect(o.body.detail).toMatch(/waited 1500 ms/);
      expect(Number(o.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    }
    expect(waited).toBeGreaterThanOrEqual(1400);
    expect(waited).toBeLessThan(3800);
    // Nothing of a refused turn was stored.
    for (const id of [waiter, late, refused]) expect((await t.api.get(`/v1/sessions/${id}/turns`)).body.items).toEqual([]);
    // The running turn ends; its place goes to the next turn, which runs at once.
    expect((await t.api.get(`/v1/sessions/${busy}/turns/${first.body.id}?wait=30`)).body.status).toBe('completed');
    const next = await t.api.post(`/v1/sessions/${waiter}/turns?wait=30`, echo);
    expect(next.status).toBe(200);
    expect(next.body.results[0].content[0].text).toContain('ran');
  });

  it('a waiting turn starts as soon as the place frees, and a client gone while waiting leaves the queue', async () => {
    const [busy, gone, patient] = [await session(), await session(), await session()];
    const first = await t.api.post(`/v1/sessions/${busy}/turns`, sleep(1));
    expect(first.status).toBe(202);
    // A client that gives up after 200 ms: its request leaves the queue (the next is not behind it).
    const ac = new AbortController();
    const abandoned = fetch(`${t.url}/v1/sessions/${gone}/turns`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(echo),
      signal: ac.signal,
    }).catch((e: unknown) => e);
    await new Promise((r) => setTimeout(r, 100));
    const queued = t.api.post(`/v1/sessions/${patient}/turns?wait=30`, echo);
    await new Promise((r) => setTimeout(r, 100));
    ac.abort();
    expect(await abandoned).toBeInstanceOf(Error);
    const res = await queued;
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('completed');
    // The abandoned request never ran.
    await new Promise((r) => setTimeout(r, 300));
    expect((await t.api.get(`/v1/sessions/${gone}/turns`)).body.items).toEqual([]);
  });
});
