// The two SSE libraries people use with a header, against a real server with a key: `eventsource`
// (Node's standard EventSource, with its own fetch) and @microsoft/fetch-event-source. Each must see
// every stored event once, in order — across a dropped connection, with heartbeats every 40 ms — and
// never an empty message; stop after session.closed; stop on the 204 of a session with nothing left;
// and stop on a 401 instead of retrying for ever. Configured as docs/EVENTS.md shows.
import { fetchEventSource } from '@microsoft/fetch-event-source';
import { EventSource } from 'eventsource';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../helpers/server.js';

const TOKEN = 'sse-clients-test-token-0123456789';
let t: TestServer;

// fetch-event-source was written for pages: window's timers and document's visibility events.
const g = globalThis as Record<string, unknown>;
g.window ??= globalThis;
g.document ??= { hidden: false, addEventListener() {}, removeEventListener() {} };

beforeAll(async () => {
  t = await startServer({ NORMA_TOKEN: TOKEN }, { configure: (c) => (c.sseHeartbeatMs = 40) });
});
afterAll(async () => t?.close());

const TYPES = ['session.created', 'session.updated', 'session.closed', 'turn.started', 'turn.completed', 'turn.failed', 'tool.started', 'tool.completed', 'permission.requested', 'permission.resolved', 'stream.end'];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Follow {
  /** Every message handed over: its data (empty for a block without data) and its id. */
  messages: { data: string; id: string }[];
  /** Requests the library made. */
  connections: number;
  statuses: number[];
  done: Promise<string>;
}

function countingFetch(f: Follow, token: string): typeof fetch {
  return async (url, init) => {
    f.connections++;
    const res = await fetch(url, { ...init, headers: { ...(init?.headers as Record<string, string>), authorization: `Bearer ${token}` } });
    f.statuses.push(res.status);
    return res;
  };
}

function withEventSource(sessionId: string, token = TOKEN, after?: number): Follow {
  const f: Follow = { messages: [], connections: 0, statuses: [], done: Promise.resolve('') };
  f.done = new Promise((resolve) => {
    const query = after === undefined ? '' : `?after=${after}`;
    const es = new EventSource(`${t.url}/v1/sessions/${sessionId}/events${query}`, { fetch: countingFetch(f, token) });
    const handle = (m: MessageEvent) => {
      f.messages.push({ data: m.data, id: m.lastEventId });
      if (m.data && JSON.parse(m.data).type === 'session.closed') {
        es.close();
        resolve('closed');
      }
    };
    for (const type of [...TYPES, 'message']) es.addEventListener(type, handle);
    es.addEventListener('error', (err) => {
      if (es.readyState === EventSource.CLOSED) resolve(`refused ${err.code}`);
    });
  });
  return f;
}

function withFetchEventSource(sessionId: string, token = TOKEN, after?: number): Follow {
  const f: Follow = { messages: [], connections: 0, statuses: [], done: Promise.resolve('') };
  class Stop extends Error {}
  const controller = new AbortController();
  let outcome = 'ended';
  const query = after === undefined ? '' : `?after=${after}`;
  f.done = fetchEventSource(`${t.url}/v1/sessions/${sessionId}/events${query}`, {
    fetch: countingFetch(f, token),
    signal: controller.signal,
    openWhenHidden: true,
    async onopen(res) {
      if (res.status === 204) {
        outcome = 'refused 204';
        return controller.abort();
      }
      if (!res.ok) throw new Stop(`refused ${res.status}`);
    },
    onmessage(m) {
      f.messages.push({ data: m.data, id: m.id });
      if (m.data && JSON.parse(m.data).type === 'session.closed') {
        outcome = 'closed';
        controller.abort();
      }
    },
    onclose() {
      throw new Error('stream ended');
    },
    onerror(err) {
      if (err instanceof Stop) throw err;
      return 50;
    },
  }).then(
    () => outcome,
    (err: Error) => err.message,
  );
  return f;
}

async function api(method: string, path: string, body?: unknown, token = TOKEN): Promise<any> {
  const res = await fetch(t.url + path, { method, headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) }, ...(body ? { body: JSON.stringify(body) } : {}) });
  return res.status === 204 ? null : res.json();
}

async function storedEvents(sessionId: string): Promise<number> {
  const exported = await api('GET', `/v1/sessions/${sessionId}/export`);
  return (exported.events as { seq: number }[]).length;
}

for (const [name, follow] of [
  ['eventsource', withEventSource],
  ['fetch-event-source', withFetchEventSource],
] as const) {
  describe(name, () => {
    it('sees every stored event once, in order, across a dropped connection and heartbeats; no empty message; stops after session.closed', async () => {
      const session = await api('POST', '/v1/sessions', {});
      const f = follow(session.id);
      await api('POST', `/v1/sessions/${session.id}/turns?wait=10`, { tool_uses: [{ name: 'LS', input: { path: '.' } }] });
      await sleep(200); // heartbeats (every 40 ms) while nothing happens
      // The connection drops (a proxy, a network): the library reconnects with Last-Event-ID.
      t.server.app.server.closeAllConnections();
      await sleep(100);
      await api('POST', `/v1/sessions/${session.id}/turns?wait=10`, { tool_uses: [{ name: 'Glob', input: { pattern: '*' } }] });
      await sleep(200);
      await api('DELETE', `/v1/sessions/${session.id}`);
      expect(await f.done).toBe('closed');

      expect(f.messages.filter((m) => m.data === '')).toEqual([]);
      const seqs = f.messages.map((m) => JSON.parse(m.data).seq as number);
      const total = await storedEvents(session.id);
      expect(total).toBeGreaterThanOrEqual(10);
      expect(seqs).toEqual(Array.from({ length: total }, (_, i) => i + 1));
      expect(f.connections).toBeGreaterThanOrEqual(2); // it did reconnect
      const after = f.connections;
      await sleep(300);
      expect(f.connections).toBe(after); // and stopped for good
    });

    it('stops on the 204 of a closed session with nothing left, and on a 401, without retrying', async () => {
      const session = await api('POST', '/v1/sessions', {});
      await api('DELETE', `/v1/sessions/${session.id}`);
      const total = await storedEvents(session.id);
      const drained = follow(session.id, TOKEN, total);
      expect(await drained.done).toBe('refused 204');
      const wrong = follow(session.id, 'not-the-key-0123456789abcdef');
      expect(await wrong.done).toBe('refused 401');
      await sleep(300);
      expect([drained.connections, wrong.connections]).toEqual([1, 1]);
      expect([drained.statuses, wrong.statuses]).toEqual([[204], [401]]);
      expect([...drained.messages, ...wrong.messages]).toEqual([]);
    });
  });
}
