// The web console's server side over real HTTP: its files (security headers, caching, the
// redirect, a clear answer when it is not built), and its login — a key exchanged once for an
// HttpOnly SameSite=Strict cookie that counts only on the console's own requests, acts for the
// key as it is now, and ends at logout.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { request } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { closeAll, startServer, type TestServer } from '../helpers/server.js';
import { keysJson, newKey, startWithKeys, type KeySpec } from '../helpers/tenants.js';

let servers: TestServer[] = [];
let dir: string;
afterEach(async () => {
  await closeAll(servers);
});
beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'norma-console-files-'));
  await fs.mkdir(path.join(dir, 'assets'));
  await fs.writeFile(path.join(dir, 'index.html'), '<!doctype html><title>Norma console</title><script type="module" src="/console/assets/console-abc.js"></script>');
  await fs.writeFile(path.join(dir, 'assets', 'console-abc.js'), 'console.log("console");');
  await fs.writeFile(path.join(dir, 'assets', 'console-abc.js.br'), zlib.brotliCompressSync('console.log("console");'));
  await fs.writeFile(path.join(dir, '.secret'), 'not served');
});
afterAll(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

const CONSOLE = { 'x-norma-console': '1' };
const JSON_BODY = { 'content-type': 'application/json' };

async function http(url: string, init: { method?: string; headers?: Record<string, string>; body?: unknown } = {}) {
  const res = await request(url, {
    method: (init.method ?? 'GET') as 'GET',
    headers: { ...(init.body !== undefined ? JSON_BODY : {}), ...(init.headers ?? {}) },
    ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
  });
  const text = await res.body.text();
  let body: any = text;
  if (String(res.headers['content-type'] ?? '').includes('json') && text !== '') body = JSON.parse(text);
  return { status: res.statusCode, headers: res.headers, body };
}

async function keyed(specs: KeySpec[], env: Record<string, string> = {}) {
  const t = await startWithKeys(specs, { NORMA_CONSOLE_DIR: dir, ...env });
  servers.push(t);
  return t;
}

/** Logs in and returns the cookie pair to send back (`norma_console=…`). */
async function login(url: string, key: string): Promise<string> {
  const r = await http(`${url}/console/session`, { method: 'POST', headers: CONSOLE, body: { key } });
  expect(r.status).toBe(201);
  const set = String(r.headers['set-cookie']);
  return set.split(';')[0]!;
}

describe('the console\'s files', () => {
  it('serves index.html and hashed assets with a strict policy, caching each as it should', async () => {
    const t = await startServer({ NORMA_SANDBOX: 'off', NORMA_CONSOLE_DIR: dir });
    servers.push(t);
    const index = await http(`${t.url}/console/`);
    expect(index.status).toBe(200);
    expect(index.headers['content-type']).toMatch(/^text\/html/);
    expect(index.body).toContain('<title>Norma console</title>');
    expect(index.headers['content-security-policy']).toContain("script-src 'self'");
    expect(index.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(index.headers['content-security-policy']).not.toContain('unsafe-inline');
    expect(index.headers['x-frame-options']).toBe('DENY');
    expect(index.headers['referrer-policy']).toBe('no-referrer');
    expect(index.headers['x-content-type-options']).toBe('nosniff');
    expect(index.headers['cache-control']).toBe('no-cache');

    const asset = await http(`${t.url}/console/assets/console-abc.js`);
    expect(asset.status).toBe(200);
    expect(asset.headers['content-type']).toMatch(/javascript/);
    expect(asset.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(asset.headers['etag']).toBeTruthy();
    expect(asset.body).toBe('console.log("console");');
    const again = await http(`${t.url}/console/assets/console-abc.js`, { headers: { 'if-none-match': String(asset.headers['etag']) } });
    expect(again.status).toBe(304);
    // A browser that takes Brotli gets the file the build compressed.
    const res = await request(`${t.url}/console/assets/console-abc.js`, { headers: { 'accept-encoding': 'gzip, deflate, br' } });
    const br = Buffer.from(await res.body.arrayBuffer());
    expect(res.headers['content-encoding']).toBe('br');
    expect(String(res.headers['vary'])).toMatch(/accept-encoding/i);
    expect(zlib.brotliDecompressSync(br).toString()).toBe('console.log("console");');

    // /console → /console/ (relative links of the page resolve under it).
    const bare = await http(`${t.url}/console`);
    expect(bare.status).toBe(308);
    expect(bare.headers.location).toBe('/console/');
    // Nothing outside what was built: no dotfile, no way up.
    const dotfile = await http(`${t.url}/console/.secret`);
    expect(dotfile.status).toBe(404);
    expect(dotfile.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect((await http(`${t.url}/console/..%2F..%2Fetc%2Fpasswd`)).status).toBe(404);
    expect((await http(`${t.url}/console/assets/nope.js`)).status).toBe(404);
  });

  it('says how to build it when it is not built, and is gone with NORMA_CONSOLE=off', async () => {
    const empty = await fs.mkdtemp(path.join(os.tmpdir(), 'norma-console-empty-'));
    try {
      const t = await startServer({ NORMA_SANDBOX: 'off', NORMA_CONSOLE_DIR: empty });
      servers.push(t);
      const r = await http(`${t.url}/console/`);
      expect(r.status).toBe(503);
      expect(r.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(r.body.detail).toContain('npm run build');
      const off = await startServer({ NORMA_SANDBOX: 'off', NORMA_CONSOLE_DIR: dir, NORMA_CONSOLE: 'off' });
      servers.push(off);
      expect((await http(`${off.url}/console/`)).status).toBe(404);
      expect((await http(`${off.url}/console/session`)).status).toBe(404);
    } finally {
      await fs.rm(empty, { recursive: true, force: true });
    }
  });

  it('answers without a key on a server that has keys (the page itself holds no data)', async () => {
    const t = await keyed([{ key: newKey('a'), tenant: 'acme', scopes: ['write'] }]);
    expect((await http(`${t.url}/console/`)).status).toBe(200);
    expect((await http(`${t.url}/v1/sessions`)).status).toBe(401);
  });
});

describe('the console\'s login', () => {
  it('on a server without keys there is nothing to log in to', async () => {
    const t = await startServer({ NORMA_SANDBOX: 'off', NORMA_CONSOLE_DIR: dir });
    servers.push(t);
    const who = await http(`${t.url}/console/session`, { headers: CONSOLE });
    expect(who.status).toBe(200);
    expect(who.body).toEqual({ keys_required: false, tenant: 'default', scopes: ['admin', 'write', 'approve', 'read'] });
    const r = await http(`${t.url}/console/session`, { method: 'POST', headers: CONSOLE, body: { key: 'whatever-key' } });
    expect(r.status).toBe(409);
    expect(r.headers['set-cookie']).toBeUndefined();
  });

  it('exchanges a key for an HttpOnly SameSite=Strict cookie that is not the key, and acts for that key', async () => {
    const key = newKey('w');
    const t = await keyed([{ key, tenant: 'acme', scopes: ['write'], name: 'alice' }]);
    const r = await http(`${t.url}/console/session`, { method: 'POST', headers: CONSOLE, body: { key } });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ keys_required: true, tenant: 'acme', key: 'alice', scopes: ['write', 'approve', 'read'] });
    const expires = Date.parse(r.body.expires_at);
    expect(expires - Date.now()).toBeGreaterThan(11 * 3600_000);
    expect(expires - Date.now()).toBeLessThanOrEqual(12 * 3600_000);
    expect(r.headers['cache-control']).toBe('no-store');
    const set = String(r.headers['set-cookie']);
    expect(set).toMatch(/^norma_console=[A-Za-z0-9_-]{43};/);
    expect(set).toContain('HttpOnly');
    expect(set).toContain('SameSite=Strict');
    expect(set).toContain('Path=/');
    expect(set).toContain('Max-Age=43200');
    expect(set).not.toContain(key);
    expect(JSON.stringify(r.body)).not.toContain(key);
    const cookie = set.split(';')[0]!;

    // The console's requests: cookie + header. The session belongs to the key's tenant, and the
    // key's name is who answered.
    const who = await http(`${t.url}/console/session`, { headers: { ...CONSOLE, cookie } });
    expect(who.body).toMatchObject({ tenant: 'acme', key: 'alice', expires_at: r.body.expires_at });
    const created = await http(`${t.url}/v1/sessions`, { method: 'POST', headers: { ...CONSOLE, cookie }, body: { tools: ['Write'] } });
    expect(created.status).toBe(201);
    expect(created.body.tenant).toBe('acme');
    const turn = await http(`${t.url}/v1/sessions/${created.body.id}/turns`, {
      method: 'POST',
      headers: { ...CONSOLE, cookie },
      body: { tool_uses: [{ name: 'Write', input: { file_path: 'a.txt', content: 'x' } }] },
    });
    expect(turn.status).toBe(202);
    let pending: any[] = [];
    for (let i = 0; i < 100 && pending.length === 0; i++) {
      pending = (await http(`${t.url}/v1/sessions/${created.body.id}/permissions?status=pending`, { headers: { ...CONSOLE, cookie } })).body.items;
      if (pending.length === 0) await new Promise((res) => setTimeout(res, 20));
    }
    const answered = await http(`${t.url}/v1/sessions/${created.body.id}/permissions/${pending[0].id}`, { method: 'POST', headers: { ...CONSOLE, cookie }, body: { behavior: 'allow' } });
    expect(answered.status).toBe(200);
    expect(answered.body.answered_by).toBe('alice');
    // An event ticket taken with the login opens the stream.
    const ticket = await http(`${t.url}/v1/sessions/${created.body.id}/events/tickets`, { method: 'POST', headers: { ...CONSOLE, cookie } });
    expect(ticket.status).toBe(201);
  });

  it('counts the cookie only on the console\'s own requests (no CSRF from any other page)', async () => {
    const key = newKey('w');
    const t = await keyed([{ key, tenant: 'acme', scopes: ['write'] }], { NORMA_ALLOWED_HOSTS: 'norma.test' });
    const cookie = await login(t.url, key);
    const url = `${t.url}/v1/sessions`;
    const host = new URL(t.url).host;
    // Without the console's header (what a form, link or image would send): no credential.
    expect((await http(url, { headers: { cookie } })).status).toBe(401);
    expect((await http(url, { method: 'POST', headers: { cookie }, body: {} })).status).toBe(401);
    expect((await http(url, { headers: { cookie, 'x-norma-console': 'yes' } })).status).toBe(401);
    // From another site or origin, even with the header.
    expect((await http(url, { headers: { cookie, ...CONSOLE, 'sec-fetch-site': 'same-site' } })).status).toBe(401);
    expect((await http(url, { headers: { cookie, ...CONSOLE, 'sec-fetch-site': 'cross-site' } })).status).toBe(401);
    expect((await http(url, { headers: { cookie, ...CONSOLE, origin: 'http://127.0.0.1:1' } })).status).toBe(403);
    // Another name of this server is another origin: refused, cookie or not.
    expect((await http(url, { headers: { cookie, ...CONSOLE, origin: `http://norma.test:${new URL(t.url).port}` } })).status).toBe(403);
    // The console itself: same origin.
    expect((await http(url, { headers: { cookie, ...CONSOLE, origin: `http://${host}`, 'sec-fetch-site': 'same-origin' } })).status).toBe(200);
    // The login itself takes console requests only (no login CSRF).
    expect((await http(`${t.url}/console/session`, { method: 'POST', body: { key } })).status).toBe(403);
    expect((await http(`${t.url}/console/session`, { method: 'POST', headers: { ...CONSOLE, 'sec-fetch-site': 'same-site' }, body: { key } })).status).toBe(403);
    // A Bearer key still wins over any cookie.
    expect((await http(url, { headers: { cookie, ...CONSOLE, authorization: 'Bearer nope-nope-nope' } })).status).toBe(401);
  });

  it('keeps the key\'s scope: a read login watches, an approve login answers but cannot post', async () => {
    const w = newKey('w');
    const r = newKey('r');
    const a = newKey('a');
    const t = await keyed([
      { key: w, tenant: 'acme', scopes: ['write'] },
      { key: r, tenant: 'acme', scopes: ['read'], name: 'watcher' },
      { key: a, tenant: 'acme', scopes: ['approve'], name: 'approver' },
    ]);
    const session = await http(`${t.url}/v1/sessions`, { method: 'POST', headers: { authorization: `Bearer ${w}` }, body: {} });
    const reader = await login(t.url, r);
    const approver = await login(t.url, a);
    expect((await http(`${t.url}/console/session`, { headers: { ...CONSOLE, cookie: reader } })).body.scopes).toEqual(['read']);
    expect((await http(`${t.url}/v1/sessions/${session.body.id}`, { headers: { ...CONSOLE, cookie: reader } })).status).toBe(200);
    expect((await http(`${t.url}/v1/sessions`, { method: 'POST', headers: { ...CONSOLE, cookie: reader }, body: {} })).status).toBe(403);
    expect((await http(`${t.url}/v1/sessions/${session.body.id}/events/tickets`, { method: 'POST', headers: { ...CONSOLE, cookie: reader } })).status).toBe(201);
    expect((await http(`${t.url}/v1/sessions/${session.body.id}/turns`, { method: 'POST', headers: { ...CONSOLE, cookie: approver }, body: { tool_uses: [] } })).status).toBe(403);
    const perm = await http(`${t.url}/v1/sessions/${session.body.id}/permissions/perm_nope`, { method: 'POST', headers: { ...CONSOLE, cookie: reader }, body: { behavior: 'allow' } });
    expect(perm.status).toBe(403);
    expect((await http(`${t.url}/v1/sessions/${session.body.id}/permissions/perm_nope`, { method: 'POST', headers: { ...CONSOLE, cookie: approver }, body: { behavior: 'allow' } })).status).toBe(404);
  });

  it('ends at logout, and when the key is removed', async () => {
    const key = newKey('w');
    const other = newKey('o');
    const t = await keyed([
      { key, tenant: 'acme', scopes: ['write'] },
      { key: other, tenant: 'acme', scopes: ['read'], name: 'other' },
    ]);
    const first = await login(t.url, key);
    const second = await login(t.url, key);
    expect(first).not.toBe(second);
    const out = await http(`${t.url}/console/session`, { method: 'DELETE', headers: { ...CONSOLE, cookie: first } });
    expect(out.status).toBe(204);
    expect(String(out.headers['set-cookie'])).toMatch(/^norma_console=; .*Max-Age=0/);
    const after = await http(`${t.url}/v1/sessions`, { headers: { ...CONSOLE, cookie: first } });
    expect(after.status).toBe(401);
    expect(after.body.detail).toContain('log in again');
    expect((await http(`${t.url}/console/session`, { headers: { ...CONSOLE, cookie: first } })).status).toBe(401);
    // The other login of the same key goes on.
    expect((await http(`${t.url}/v1/sessions`, { headers: { ...CONSOLE, cookie: second } })).status).toBe(200);
    // The key leaves the file: its logins end with it.
    await t.keys.write(keysJson([{ key: other, tenant: 'acme', scopes: ['read'], name: 'other' }]));
    expect((await t.server.reloadKeys()).ok).toBe(true);
    expect((await http(`${t.url}/v1/sessions`, { headers: { ...CONSOLE, cookie: second } })).status).toBe(401);
    // A forged or unknown token is nobody.
    expect((await http(`${t.url}/v1/sessions`, { headers: { ...CONSOLE, cookie: 'norma_console=AAAA' } })).status).toBe(401);
  });

  it('refuses wrong and expired keys with a problem, and slows down guessing', async () => {
    const t = await keyed([
      { key: newKey('w'), tenant: 'acme', scopes: ['write'] },
      { key: 'nk_expired_key_0123456789', tenant: 'acme', scopes: ['read'], name: 'old', expires_at: '2020-01-01T00:00:00Z' },
    ]);
    const wrong = await http(`${t.url}/console/session`, { method: 'POST', headers: CONSOLE, body: { key: 'not-a-key' } });
    expect(wrong.status).toBe(401);
    expect(wrong.body.detail).toBe('unknown API key');
    expect(wrong.headers['set-cookie']).toBeUndefined();
    const expired = await http(`${t.url}/console/session`, { method: 'POST', headers: CONSOLE, body: { key: 'nk_expired_key_0123456789' } });
    expect(expired.body.detail).toContain('expired');
    const bad = await http(`${t.url}/console/session`, { method: 'POST', headers: CONSOLE, body: { key: 5 } });
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].path).toBe('/key');
    let limited: Awaited<ReturnType<typeof http>> | undefined;
    for (let i = 0; i < 25 && !limited; i++) {
      const r = await http(`${t.url}/console/session`, { method: 'POST', headers: CONSOLE, body: { key: `guess-${i}` } });
      if (r.status === 429) limited = r;
      else expect(r.status).toBe(401);
    }
    expect(limited?.headers['retry-after']).toBeDefined();
    expect(limited?.body.detail).toContain('console logins');
  });

  it('behind a trusted proxy: Secure over TLS, and the login limit per client address', async () => {
    const key = newKey('w');
    const behind = await keyed([{ key, tenant: 'acme', scopes: ['write'] }], { NORMA_TRUST_PROXY: '127.0.0.1' });
    const tls = await http(`${behind.url}/console/session`, { method: 'POST', headers: { ...CONSOLE, 'x-forwarded-proto': 'https', 'x-forwarded-for': '203.0.113.7' }, body: { key } });
    expect(String(tls.headers['set-cookie'])).toMatch(/; Secure/);
    const plain = await http(`${behind.url}/console/session`, { method: 'POST', headers: { ...CONSOLE, 'x-forwarded-for': '203.0.113.7' }, body: { key } });
    expect(String(plain.headers['set-cookie'])).not.toMatch(/Secure/);
    // One client guessing is slowed down; another behind the same proxy is not.
    let limited = false;
    for (let i = 0; i < 25 && !limited; i++) {
      const r = await http(`${behind.url}/console/session`, { method: 'POST', headers: { ...CONSOLE, 'x-forwarded-for': '203.0.113.8' }, body: { key: `guess-${i}` } });
      limited = r.status === 429;
    }
    expect(limited).toBe(true);
    expect((await http(`${behind.url}/console/session`, { method: 'POST', headers: { ...CONSOLE, 'x-forwarded-for': '203.0.113.9' }, body: { key } })).status).toBe(201);

    // Without NORMA_TRUST_PROXY the forwarded headers are anybody's words: no Secure from them,
    // and every guess counts against the address the request came from.
    const direct = await keyed([{ key, tenant: 'acme', scopes: ['write'] }]);
    const claimed = await http(`${direct.url}/console/session`, { method: 'POST', headers: { ...CONSOLE, 'x-forwarded-proto': 'https' }, body: { key } });
    expect(String(claimed.headers['set-cookie'])).not.toMatch(/Secure/);
    let statuses: number[] = [];
    for (let i = 0; i < 25; i++) {
      const r = await http(`${direct.url}/console/session`, { method: 'POST', headers: { ...CONSOLE, 'x-forwarded-for': `198.51.100.${i}` }, body: { key: `guess-${i}` } });
      statuses.push(r.status);
    }
    statuses = [...new Set(statuses)];
    expect(statuses).toEqual([401, 429]);
  });
});
