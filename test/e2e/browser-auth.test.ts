// What a browser needs, over real HTTP: event tickets (EventSource sends no headers), CORS for
// the listed origins only (with the Host and Origin checks still in force), the headers a page
// must read exposed on every answer (the event stream's included), 204 for a closed session's
// stream with nothing left, `retry:`, tickets kept out of logs, and /docs under any allowed name.
import { Writable } from 'node:stream';
import pino from 'pino';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { openSse, type SseStream } from '../helpers/sse.js';
import { startServer, type TestServer, closeAll } from '../helpers/server.js';
import { clientFor, newKey, startWithKeys, type KeyedServer, type KeySpec } from '../helpers/tenants.js';

let servers: TestServer[] = [];
let streams: SseStream[] = [];
afterEach(async () => {
  for (const s of streams) s.close();
  streams = [];
  await closeAll(servers);
});

async function boot(specs: KeySpec[], env: Record<string, string> = {}, options: Parameters<typeof startServer>[1] = {}): Promise<KeyedServer> {
  const t = await startWithKeys(specs, env, options);
  servers.push(t);
  return t;
}

async function sse(url: string, opts: Parameters<typeof openSse>[1] = {}): Promise<SseStream> {
  const s = await openSse(url, opts);
  streams.push(s);
  return s;
}

async function rawStatus(url: string, headers: Record<string, string> = {}, method = 'GET'): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  const res = await request(url, { method: method as 'GET', headers });
  const body = await res.body.text();
  return { status: res.statusCode, headers: res.headers, body };
}

describe('event tickets', () => {
  it('open the stream once within 60 s, for their session only; a read key may take them', async () => {
    let offset = 0;
    const [w, r, other] = [newKey('w'), newKey('r'), newKey('o')];
    const t = await boot(
      [
        { key: w, tenant: 'acme', scopes: ['write'] },
        { key: r, tenant: 'acme', scopes: ['read'] },
        { key: other, tenant: 'beta', scopes: ['admin'] },
      ],
      {},
      { clock: () => new Date(Date.now() + offset) },
    );
    const s = (await clientFor(t.url, w).post('/v1/sessions', {})).body;
    const s2 = (await clientFor(t.url, w).post('/v1/sessions', {})).body;
    const reader = clientFor(t.url, r);
    const taken = await reader.post(`/v1/sessions/${s.id}/events/tickets`);
    expect(taken.status).toBe(201);
    expect(taken.headers.get('cache-control')).toBe('no-store');
    expect(taken.body.ticket).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Date.parse(taken.body.expires_at) - Date.now()).toBeGreaterThan(55_000);

    const url = (sid: string, ticket: string) => `${t.url}/v1/sessions/${sid}/events?ticket=${ticket}`;
    const stream = await sse(url(s.id, taken.body.ticket));
    expect(stream.status).toBe(200);
    await stream.waitFor((m) => m.event === 'session.created');
    // Spent: a second use is refused, as is an EventSource's automatic reconnect with it.
    const again = await rawStatus(url(s.id, taken.body.ticket));
    expect(again.status).toBe(401);
    expect(JSON.parse(again.body).detail).toContain('unknown or already used');
    expect(again.headers['www-authenticate']).toBe('Bearer realm="norma"');

    // A ticket for one session does not open another's, and is spent by trying.
    const t2 = (await reader.post(`/v1/sessions/${s.id}/events/tickets`)).body.ticket;
    const wrong = await rawStatus(url(s2.id, t2));
    expect(wrong.status).toBe(401);
    expect(JSON.parse(wrong.body).detail).toContain('another session');
    expect((await rawStatus(url(s.id, t2))).status).toBe(401);

    // Expired after 60 s.
    const t3 = (await reader.post(`/v1/sessions/${s.id}/events/tickets`)).body.ticket;
    offset = 61_000;
    const late = await rawStatus(url(s.id, t3));
    expect(late.status).toBe(401);
    expect(JSON.parse(late.body).detail).toContain('expired');
    offset = 0;

    // Another tenant cannot take one for this session (404, as for a missing session), nor use one.
    expect((await clientFor(t.url, other).post(`/v1/sessions/${s.id}/events/tickets`)).status).toBe(404);
    // A made-up ticket, and a malformed one: who is calling is decided before the query is checked.
    expect((await rawStatus(url(s.id, 'A'.repeat(43)))).status).toBe(401);
    expect((await rawStatus(url(s.id, 'short'))).status).toBe(401);
    // A ticket beside a key: the key decides, the ticket stays unspent.
    const beside = (await reader.post(`/v1/sessions/${s.id}/events/tickets`)).body.ticket;
    const withKey = await sse(url(s.id, beside), { token: r });
    expect(withKey.status).toBe(200);
    expect((await sse(url(s.id, beside))).status).toBe(200);
    // Tickets work on the event stream only.
    const t4 = (await reader.post(`/v1/sessions/${s.id}/events/tickets`)).body.ticket;
    expect((await rawStatus(`${t.url}/v1/sessions/${s.id}?ticket=${t4}`)).status).toBe(401);
  });

  it('a ticket of a key removed since is refused', async () => {
    const [w, r] = [newKey('w'), newKey('r')];
    const t = await boot([
      { key: w, tenant: 'acme', scopes: ['write'] },
      { key: r, tenant: 'acme', scopes: ['read'], name: 'dashboard' },
    ]);
    const s = (await clientFor(t.url, w).post('/v1/sessions', {})).body;
    const ticket = (await clientFor(t.url, r).post(`/v1/sessions/${s.id}/events/tickets`)).body.ticket;
    await t.keys.write([{ key: w, tenant: 'acme', scopes: ['write'] }]);
    expect((await t.server.reloadKeys()).ok).toBe(true);
    const res = await rawStatus(`${t.url}/v1/sessions/${s.id}/events?ticket=${ticket}`);
    expect(res.status).toBe(401);
    expect(JSON.parse(res.body).detail).toContain('no longer valid');
    expect((await clientFor(t.url, r).get('/v1/sessions')).status).toBe(401);
  });

  it('an open stream ends with stream.end "revoked" when its key is removed, or expires while it runs', async () => {
    const [w, r, soon] = [newKey('w'), newKey('r'), newKey('soon')];
    let offset = 0;
    const t = await boot(
      [
        { key: w, tenant: 'acme', scopes: ['write'] },
        { key: r, tenant: 'acme', scopes: ['read'] },
        { key: soon, tenant: 'acme', scopes: ['read'], expires_at: new Date(Date.now() + 3_600_000).toISOString() },
      ],
      {},
      { clock: () => new Date(Date.now() + offset), configure: (c) => (c.sseHeartbeatMs = 100) },
    );
    const s = (await clientFor(t.url, w).post('/v1/sessions', {})).body;
    const byTicket = await sse(`${t.url}/v1/sessions/${s.id}/events?ticket=${(await clientFor(t.url, r).post(`/v1/sessions/${s.id}/events/tickets`)).body.ticket}`);
    const byHeader = await sse(`${t.url}/v1/sessions/${s.id}/events`, { token: r });
    const expiring = await sse(`${t.url}/v1/sessions/${s.id}/events`, { token: soon });
    const writer = await sse(`${t.url}/v1/sessions/${s.id}/events`, { token: w });
    for (const x of [byTicket, byHeader, expiring, writer]) await x.waitFor((m) => m.event === 'session.created');
    // The read key is removed: both of its streams end at once; the others go on.
    await t.keys.write([
      { key: w, tenant: 'acme', scopes: ['write'] },
      { key: soon, tenant: 'acme', scopes: ['read'], expires_at: new Date(Date.now() + 3_600_000).toISOString() },
    ]);
    expect((await t.server.reloadKeys()).ok).toBe(true);
    for (const x of [byTicket, byHeader]) {
      await x.ended;
      expect(x.events.at(-1)).toMatchObject({ event: 'stream.end', data: { reason: 'revoked', resume_after: 1 } });
    }
    // The other key expires (the server's clock passes it): its stream ends at the next heartbeat.
    offset = 2 * 3_600_000;
    await expiring.ended;
    expect(expiring.events.at(-1)).toMatchObject({ event: 'stream.end', data: { reason: 'revoked' } });
    offset = 0;
    await new Promise((res) => setTimeout(res, 300));
    expect(writer.events.some((e) => e.event === 'stream.end')).toBe(false);
  });

  it('never reach a log line', async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _enc, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const w = newKey('w');
    const t = await boot([{ key: w, tenant: 'acme', scopes: ['write'] }], {}, { logger: pino({ level: 'info' }, sink) });
    const s = (await clientFor(t.url, w).post('/v1/sessions', {})).body;
    const ticket = (await clientFor(t.url, w).post(`/v1/sessions/${s.id}/events/tickets`)).body.ticket;
    const stream = await sse(`${t.url}/v1/sessions/${s.id}/events?ticket=${ticket}`);
    await stream.waitFor((m) => m.event === 'session.created');
    await rawStatus(`${t.url}/v1/sessions/${s.id}/events?ticket=${ticket}`);
    const log = lines.join('');
    expect(log).toContain('ticket=[redacted]');
    expect(log).not.toContain(ticket);
    expect(log).not.toContain(w);
  });

  it('work on a server without keys too (the loopback caller), so a page behaves the same in development', async () => {
    const t = await startServer({ NORMA_SANDBOX: 'off' });
    servers.push(t);
    const s = (await t.api.post('/v1/sessions', {})).body;
    const ticket = (await t.api.post(`/v1/sessions/${s.id}/events/tickets`)).body.ticket;
    const stream = await sse(`${t.url}/v1/sessions/${s.id}/events?ticket=${ticket}`);
    expect(stream.status).toBe(200);
    expect((await rawStatus(`${t.url}/v1/sessions/${s.id}/events?ticket=${ticket}`)).status).toBe(401);
  });

  it('one taken while the server had no key is refused once a reload added keys', async () => {
    const t = await boot([]);
    const s = (await t.api.post('/v1/sessions', {})).body;
    const ticket = (await t.api.post(`/v1/sessions/${s.id}/events/tickets`)).body.ticket;
    await t.keys.write([{ key: newKey('k'), tenant: 'acme', scopes: ['admin'] }]);
    expect((await t.server.reloadKeys()).ok).toBe(true);
    const res = await rawStatus(`${t.url}/v1/sessions/${s.id}/events?ticket=${ticket}`);
    expect(res.status).toBe(401);
    expect((await fetch(`${t.url}/v1/sessions`)).status).toBe(401);
  });
});

describe('the event stream for browsers', () => {
  it('sends retry:, and answers 204 to a reconnect to a closed session with nothing left to replay', async () => {
    const w = newKey('w');
    const t = await boot([{ key: w, tenant: 'acme', scopes: ['write'] }]);
    const c = clientFor(t.url, w);
    const s = (await c.post('/v1/sessions', {})).body;
    const live = await sse(`${t.url}/v1/sessions/${s.id}/events`, { token: w });
    await live.waitFor((m) => m.event === 'session.created');
    expect(live.retry).toBe(2000);
    await c.delete(`/v1/sessions/${s.id}`);
    const closed = await live.waitFor((m) => m.event === 'session.closed');
    await live.ended;
    const auth = { authorization: `Bearer ${w}` };
    // With the last id, by header or query: 204, no body, so an EventSource stops.
    const byHeader = await rawStatus(`${t.url}/v1/sessions/${s.id}/events`, { ...auth, 'last-event-id': closed.id! });
    expect(byHeader.status).toBe(204);
    expect(byHeader.body).toBe('');
    expect((await rawStatus(`${t.url}/v1/sessions/${s.id}/events?after=${closed.id}`, auth)).status).toBe(204);
    // The whole stream as written: `retry:` rides in the first event's block, and no block lacks
    // `data` (fetch-event-source hands such a block to onmessage as an empty message).
    const whole = await rawStatus(`${t.url}/v1/sessions/${s.id}/events?after=0`, auth);
    expect(whole.body.startsWith('retry: 2000\nid: 1\nevent: session.created\ndata: {')).toBe(true);
    const blocks = whole.body.split('\n\n').filter((b) => b !== '');
    expect(blocks.length).toBeGreaterThanOrEqual(2);
    for (const b of blocks) expect(b, b).toMatch(/^data: /m);
    expect(whole.body.match(/^retry:/gm)).toHaveLength(1);
    // With something left, the rest is replayed and the stream ends after session.closed.
    const rest = await sse(`${t.url}/v1/sessions/${s.id}/events`, { token: w, lastEventId: String(Number(closed.id) - 1) });
    expect(rest.status).toBe(200);
    await rest.ended;
    expect(rest.events.map((e) => e.event)).toEqual(['session.closed']);
  });
});

describe('CORS', () => {
  const PAGE = 'http://127.0.0.2:5173';

  it('answers a listed origin\'s preflight and requests with the headers a page needs, the event stream\'s too', async () => {
    const w = newKey('w');
    const t = await boot([{ key: w, tenant: 'acme', scopes: ['write'] }], { NORMA_CORS_ORIGINS: `${PAGE},https://app.example.com` });
    const pre = await rawStatus(`${t.url}/v1/sessions`, { origin: PAGE, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,content-type' }, 'OPTIONS');
    expect(pre.status).toBe(204);
    expect(pre.headers['access-control-allow-origin']).toBe(PAGE);
    expect(String(pre.headers['access-control-allow-headers']).toLowerCase()).toContain('authorization');
    expect(String(pre.headers['access-control-allow-methods'])).toContain('PATCH');
    expect(pre.headers['access-control-max-age']).toBe('600');

    const created = await clientFor(t.url, w).post('/v1/sessions', {}, { headers: { origin: PAGE } });
    expect(created.status).toBe(201);
    expect(created.headers.get('access-control-allow-origin')).toBe(PAGE);
    const exposed = (created.headers.get('access-control-expose-headers') ?? '').toLowerCase();
    for (const h of ['etag', 'repr-digest', 'content-range', 'x-request-id', 'retry-after', 'location']) expect(exposed).toContain(h);
    expect(created.headers.get('vary')?.toLowerCase()).toContain('origin');

    // The stream's head is written by hand: it carries them too.
    const ticket = (await clientFor(t.url, w).post(`/v1/sessions/${created.body.id}/events/tickets`, undefined, { headers: { origin: PAGE } })).body.ticket;
    const stream = await sse(`${t.url}/v1/sessions/${created.body.id}/events?ticket=${ticket}`, { headers: { origin: PAGE } });
    expect(stream.status).toBe(200);
    expect(stream.headers['access-control-allow-origin']).toBe(PAGE);
    // And the export's.
    const exp = await rawStatus(`${t.url}/v1/sessions/${created.body.id}/export`, { origin: PAGE, authorization: `Bearer ${w}` });
    expect(exp.headers['access-control-allow-origin']).toBe(PAGE);
  });

  it('refuses an origin not listed (preflight included) and keeps the Host check', async () => {
    const w = newKey('w');
    const t = await boot([{ key: w, tenant: 'acme', scopes: ['write'] }], { NORMA_CORS_ORIGINS: PAGE });
    // A preflight that is not one: a problem, not the plugin's plain text.
    for (const headers of [{ origin: PAGE }, { 'access-control-request-method': 'POST' }] as Record<string, string>[]) {
      const bad = await rawStatus(`${t.url}/v1/sessions`, headers, 'OPTIONS');
      expect(bad.status).toBe(400);
      expect(bad.headers['content-type']).toContain('application/problem+json');
    }
    const pre = await rawStatus(`${t.url}/v1/sessions`, { origin: 'http://127.0.0.2:5174', 'access-control-request-method': 'POST' }, 'OPTIONS');
    expect(pre.status).toBe(403);
    expect(pre.headers['access-control-allow-origin']).toBeUndefined();
    expect(JSON.parse(pre.body).detail).toContain('NORMA_CORS_ORIGINS');
    for (const origin of ['https://127.0.0.2:5173', 'http://evil.example', 'null']) {
      const r = await clientFor(t.url, w).get('/v1/sessions', { headers: { origin } });
      expect(r.status, origin).toBe(403);
    }
    // A listed origin does not make a foreign Host acceptable (DNS rebinding stays closed).
    const port = new URL(t.url).port;
    const rebound = await rawStatus(`${t.url}/v1/sessions`, { origin: PAGE, host: `evil.example:${port}`, authorization: `Bearer ${w}` });
    expect(rebound.status).toBe(421);
  });

  it('is off without NORMA_CORS_ORIGINS: no preflight answer, no CORS headers', async () => {
    const t = await startServer({ NORMA_SANDBOX: 'off' });
    servers.push(t);
    const pre = await rawStatus(`${t.url}/v1/sessions`, { origin: PAGE, 'access-control-request-method': 'POST' }, 'OPTIONS');
    expect(pre.status).toBe(403);
    const res = await t.api.get('/v1/sessions');
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('/docs', () => {
  it('does not upgrade its assets to https, so it renders under a plain-http host name', async () => {
    const t = await startServer({ NORMA_SANDBOX: 'off', NORMA_ALLOWED_HOSTS: 'norma.internal' });
    servers.push(t);
    const port = new URL(t.url).port;
    const page = await rawStatus(`${t.url}/docs/`, { host: `norma.internal:${port}` });
    expect(page.status).toBe(200);
    const csp = String(page.headers['content-security-policy']);
    expect(csp).toContain("default-src 'self'");
    expect(csp).not.toContain('upgrade-insecure-requests');
    const asset = await rawStatus(`${t.url}/docs/static/swagger-ui-bundle.js`, { host: `norma.internal:${port}` });
    expect(asset.status).toBe(200);
  });
});
