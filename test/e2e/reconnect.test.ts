// A client that keeps dropping its SSE connection at random points during a long turn and
// reconnects with Last-Event-ID: what it received, put together, is exactly the event log —
// in order, with no gap and no duplicate.
import { afterEach, describe, expect, it } from 'vitest';
import { openSse, type SseMessage } from '../helpers/sse.js';
import { startServer, type TestServer } from '../helpers/server.js';

let t: TestServer | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

/** Deterministic pseudo-random numbers (a failing run can be replayed). */
function rng(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 2 ** 32;
  };
}

describe('SSE resume under constant reconnects', () => {
  it('the union of 200+ interrupted streams equals the log, in order, without duplicates', async () => {
    // Each call waits a little in a PreToolUse hook, so the turn emits for a few seconds.
    t = await startServer({}, { hooks: [{ event: 'PreToolUse', callback: () => new Promise<void>((r) => setTimeout(r, 12)) }] });
    const s = (await t.api.post('/v1/sessions', { permission_mode: 'bypassPermissions' })).body;
    const calls = Array.from({ length: 256 }, (_, i) => ({ id: `toolu_${i}`, name: 'Write', input: { file_path: `f${i}.txt`, content: `${i}` } }));
    const posted = await t.api.post(`/v1/sessions/${s.id}/turns`, { tool_uses: calls });
    expect(posted.status).toBe(202);

    const random = rng(20261202);
    const received: SseMessage[] = [];
    let lastId = 0;
    let reconnects = 0;
    let completed = false;
    let duringTurn = 0;
    while (!completed) {
      const stream = await openSse(`${t.url}/v1/sessions/${s.id}/events`, { lastEventId: String(lastId) });
      // Drop the connection after a random number of events or a random moment, whichever comes first.
      const wantEvents = 1 + Math.floor(random() * 3);
      const wantMs = Math.floor(random() * 15);
      const countDurable = () => stream.events.filter((e) => e.id !== undefined).length;
      await Promise.race([
        stream.waitFor(() => countDurable() >= wantEvents || stream.events.some((e) => e.event === 'turn.completed'), 10_000).catch(() => undefined),
        new Promise((r) => setTimeout(r, wantMs)),
      ]);
      stream.close();
      await stream.ended;
      const got = stream.events.filter((e) => e.id !== undefined);
      // Each connection continues exactly where the previous one stopped.
      got.forEach((e, i) => expect(Number(e.id)).toBe(lastId + i + 1));
      received.push(...got);
      if (got.length > 0) lastId = Number(got.at(-1)!.id);
      reconnects++;
      if (got.some((e) => e.event === 'turn.completed')) {
        completed = true;
        duringTurn = reconnects;
      }
      expect(reconnects).toBeLessThan(5000);
    }

    const full = await openSse(`${t.url}/v1/sessions/${s.id}/events`, { lastEventId: '0' });
    await full.waitFor((e) => e.event === 'turn.completed');
    full.close();
    const log = full.events.filter((e) => e.id !== undefined);
    // The connections up to the one that saw turn.completed were all cut while the turn ran.
    expect(duringTurn).toBeGreaterThanOrEqual(200);
    expect(received.map((e) => e.id)).toEqual(log.map((e) => e.id));
    expect(received.map((e) => e.data)).toEqual(log.map((e) => e.data));
    expect(log.filter((e) => e.event === 'tool.completed')).toHaveLength(256);
  }, 60_000);
});
