// Everything derived from a key ends with the key, over real HTTP. A console login, an event
// ticket and an open event stream are bound to the exact key that made them (an id derived from
// its SHA-256), not to its name: when a reload of NORMA_API_KEYS_FILE (what SIGHUP runs) replaces
// the key under the same name, the old key's logins and unspent tickets are refused and its
// streams end with `stream.end` "revoked", while the new key works and an untouched key's logins,
// tickets and streams go on. The same holds for the tokens replicas share in PostgreSQL. A login
// acts with the key's scopes as they are now: shrunk scopes apply at once. A stream opened with no
// key (a server without keys) ends once a reload makes keys required.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { request } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../helpers/postgres.js';
import { closeAll, startServer, type TestServer } from '../helpers/server.js';
import { openSse, type SseStream } from '../helpers/sse.js';
import { clientFor, keysFile, newKey, startWithKeys, type KeySpec } from '../helpers/tenants.js';

let servers: TestServer[] = [];
let streams: SseStream[] = [];
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const s of streams) s.close();
  streams = [];
  await closeAll(servers);
  for (const c of cleanups.splice(0)) await c();
});

const CONSOLE = { 'x-norma-console': '1' };

async function status(url: string, headers: Record<string, string> = {}, method = 'GET', body?: unknown): Promise<{ status: number; body: any }> {
  const res = await request(url, {
    method: method as 'GET',
    headers: { ...headers, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.body.text();
  return { status: res.statusCode, body: text && String(res.headers['content-type']).includes('json') ? JSON.parse(text) : text };
}

async function login(url: string, key: string): Promise<string> {
  const res = await request(`${url}/console/session`, { method: 'POST', headers: { ...CONSOLE, 'content-type': 'application/json' }, body: JSON.stringify({ key }) });
  await res.body.text();
  expect(res.statusCode).toBe(201);
  return String(res.headers['set-cookie']).split(';')[0]!;
}

async function ticket(url: string, key: string, sid: string): Promise<string> {
  const r = await clientFor(url, key).post(`/v1/sessions/${sid}/events/tickets`);
  expect(r.status).toBe(201);
  return r.body.ticket;
}

async function stream(url: string, opts: Parameters<typeof openSse>[1] = {}): Promise<SseStream> {
  const s = await openSse(url, opts);
  streams.push(s);
  expect(s.status).toBe(200);
  await s.waitFor((m) => m.event === 'session.created');
  return s;
}

/** Resolves when the stream ended; fails when it did not within `ms`. */
async function endsWithin(s: SseStream, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([s.ended, new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(`the stream did not end within ${ms} ms`)), ms)))]);
  clearTimeout(timer);
  expect(s.events.at(-1)).toMatchObject({ event: 'stream.end', data: { reason: 'revoked' } });
}

/**
 * The old key of `dash` gets a successor under the same name (same tenant and scopes); `ops`
 * and `other` stay. Returns what the scenario needs to check on either side of the reload.
 */
function keysOf() {
  const ops = newKey('ops');
  const oldDash = newKey('dash_old');
  const newDash = newKey('dash_new');
  const other = newKey('other');
  const before: KeySpec[] = [
    { key: ops, tenant: 'acme', scopes: ['write'], name: 'ops' },
    { key: oldDash, tenant: 'acme', scopes: ['approve'], name: 'dash' },
    { key: other, tenant: 'acme', scopes: ['approve'], name: 'other' },
  ];
  const after: KeySpec[] = [before[0]!, { key: newDash, tenant: 'acme', scopes: ['approve'], name: 'dash' }, before[2]!];
  return { ops, oldDash, newDash, other, before, after };
}

describe('a key replaced under the same name', () => {
  it('ends the old key\'s console logins, unspent tickets and open streams at the reload; the new key and an untouched one go on', async () => {
    const k = keysOf();
    const t = await startWithKeys(k.before, {}, { configure: (c) => (c.sseHeartbeatMs = 60_000) });
    servers.push(t);
    const s = (await clientFor(t.url, k.ops).post('/v1/sessions', {})).body;
    const events = `${t.url}/v1/sessions/${s.id}/events`;

    const oldCookie = await login(t.url, k.oldDash);
    const otherCookie = await login(t.url, k.other);
    const oldTicket = await ticket(t.url, k.oldDash, s.id);
    const otherTicket = await ticket(t.url, k.other, s.id);
    const oldByHeader = await stream(events, { token: k.oldDash });
    const oldByTicket = await stream(`${events}?ticket=${await ticket(t.url, k.oldDash, s.id)}`);
    const oldByConsoleTicket = await stream(`${events}?ticket=${(await status(`${events}/tickets`, { ...CONSOLE, cookie: oldCookie }, 'POST')).body.ticket}`);
    const otherStream = await stream(events, { token: k.other });
    expect((await status(`${t.url}/v1/sessions`, { ...CONSOLE, cookie: oldCookie })).status).toBe(200);

    await t.keys.write(k.after);
    expect((await t.server.reloadKeys()).ok).toBe(true);

    const gone = await status(`${t.url}/v1/sessions`, { ...CONSOLE, cookie: oldCookie });
    expect(gone.status).toBe(401);
    expect(gone.body.detail).toContain('log in again');
    expect((await status(`${t.url}/console/session`, { ...CONSOLE, cookie: oldCookie })).status).toBe(401);
    const spent = await status(`${events}?ticket=${oldTicket}`);
    expect(spent.status).toBe(401);
    expect(spent.body.detail).toContain('no longer valid');
    expect((await status(`${t.url}/v1/sessions`, { authorization: `Bearer ${k.oldDash}` })).status).toBe(401);
    // The old key's streams end at once (the heartbeat is a minute away).
    for (const x of [oldByHeader, oldByTicket, oldByConsoleTicket]) await endsWithin(x, 3000);

    // The new key of the same name works, by header, login and ticket.
    expect((await status(`${t.url}/v1/sessions`, { authorization: `Bearer ${k.newDash}` })).status).toBe(200);
    const newCookie = await login(t.url, k.newDash);
    expect((await status(`${t.url}/v1/sessions/${s.id}`, { ...CONSOLE, cookie: newCookie })).status).toBe(200);
    await stream(`${events}?ticket=${await ticket(t.url, k.newDash, s.id)}`);

    // The untouched key's login, unspent ticket and stream go on.
    expect((await status(`${t.url}/v1/sessions/${s.id}`, { ...CONSOLE, cookie: otherCookie })).status).toBe(200);
    await stream(`${events}?ticket=${otherTicket}`);
    await new Promise((r) => setTimeout(r, 200));
    expect(otherStream.events.some((e) => e.event === 'stream.end')).toBe(false);
  });

  it('a login acts with the key\'s scopes as they are now: shrunk by a reload, they apply to its next request', async () => {
    const ops = newKey('ops');
    const t = await startWithKeys([{ key: ops, tenant: 'acme', scopes: ['write'], name: 'ops' }]);
    servers.push(t);
    const cookie = await login(t.url, ops);
    expect((await status(`${t.url}/v1/sessions`, { ...CONSOLE, cookie }, 'POST', {})).status).toBe(201);
    await t.keys.write([{ key: ops, tenant: 'acme', scopes: ['read'], name: 'ops' }]);
    expect((await t.server.reloadKeys()).ok).toBe(true);
    expect((await status(`${t.url}/v1/sessions`, { ...CONSOLE, cookie }, 'POST', {})).status).toBe(403);
    expect((await status(`${t.url}/v1/sessions`, { ...CONSOLE, cookie })).status).toBe(200);
  });
});

describe('a stream opened without a key', () => {
  it('ends when a reload adds keys: from then on nobody is let in without one', async () => {
    const t = await startWithKeys([]);
    servers.push(t);
    const s = (await t.api.post('/v1/sessions', {})).body;
    const open = await stream(`${t.url}/v1/sessions/${s.id}/events`);
    await t.keys.write([{ key: newKey('k'), tenant: 'acme', scopes: ['admin'] }]);
    expect((await t.server.reloadKeys()).ok).toBe(true);
    await endsWithin(open, 3000);
  });
});

describe('a key replaced under the same name, with replicas on PostgreSQL', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase();
  }, 60_000);
  afterAll(async () => {
    await db?.drop();
  });

  it('ends the shared logins and tickets of the old key on every replica; the new key\'s and an untouched key\'s work on each', async () => {
    const k = keysOf();
    const f = await keysFile(k.before);
    cleanups.push(f.remove);
    const env = { NORMA_STORE: 'postgres', NORMA_DATABASE_URL: db.url, NORMA_SANDBOX: 'off', NORMA_API_KEYS_FILE: f.file };
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'norma-rotation-'));
    cleanups.push(() => fs.rm(dataDir, { recursive: true, force: true }));
    const a = await startServer({ ...env, NORMA_NODE_ID: 'rot-a' }, { dataDir });
    servers.push(a);
    const b = await startServer({ ...env, NORMA_NODE_ID: 'rot-b' }, { dataDir });
    servers.push(b);
    const s = (await clientFor(a.url, k.ops).post('/v1/sessions', {})).body;

    // Made on A, in the shared table.
    const oldCookie = await login(a.url, k.oldDash);
    const otherCookie = await login(a.url, k.other);
    const oldTicket = await ticket(a.url, k.oldDash, s.id);
    const otherTicket = await ticket(a.url, k.other, s.id);
    const onB = await stream(`${b.url}/v1/sessions/${s.id}/events?ticket=${await ticket(a.url, k.oldDash, s.id)}`);
    expect((await status(`${b.url}/v1/sessions`, { ...CONSOLE, cookie: oldCookie })).status).toBe(200);

    await f.write(k.after);
    for (const node of [a, b]) expect((await node.server.reloadKeys()).ok).toBe(true);

    await endsWithin(onB, 3000);
    for (const node of [a, b]) expect((await status(`${node.url}/v1/sessions`, { ...CONSOLE, cookie: oldCookie })).status).toBe(401);
    expect((await status(`${b.url}/v1/sessions/${s.id}/events?ticket=${oldTicket}`)).status).toBe(401);

    const newCookie = await login(b.url, k.newDash);
    for (const node of [a, b]) {
      expect((await status(`${node.url}/v1/sessions`, { ...CONSOLE, cookie: newCookie })).status).toBe(200);
      expect((await status(`${node.url}/v1/sessions`, { ...CONSOLE, cookie: otherCookie })).status).toBe(200);
    }
    await stream(`${b.url}/v1/sessions/${s.id}/events?ticket=${otherTicket}`);
  });
});
