// DNS rebinding and cross-site requests: a Host the server does not answer to is refused before
// any route runs, and a browser request from a foreign origin cannot change state.
import http from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../helpers/server.js';

let t: TestServer | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

interface Raw {
  status: number;
  type: string | undefined;
  body: string;
}

/** A request with exactly these headers (fetch cannot set Host). */
function raw(url: string, method: string, headers: Record<string, string>, body?: string): Promise<Raw> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: u.hostname, port: u.port, path: u.pathname + u.search, method, headers, setHost: false },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, type: res.headers['content-type'], body: text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const json = { 'content-type': 'application/json' };

describe('Host names the server answers to', () => {
  it('refuses a rebound name with 421 before routing: no session is made, nothing runs', async () => {
    t = await startServer();
    const port = new URL(t.url).port;
    const attack = await raw(`${t.url}/v1/sessions`, 'POST', { ...json, host: `evil.example:${port}`, origin: `http://evil.example:${port}` }, JSON.stringify({ permission_mode: 'bypassPermissions' }));
    expect(attack.status).toBe(421);
    expect(attack.type).toContain('application/problem+json');
    expect(JSON.parse(attack.body)).toMatchObject({ status: 421, type: 'urn:norma:problem:misdirected-request' });
    expect(JSON.parse(attack.body).detail).toContain('evil.example');
    expect((await t.api.get('/v1/sessions')).body.items).toEqual([]);
    // Health and the contract are refused to foreign names too; the rest of the paths as well.
    for (const p of ['/healthz', '/openapi.json', '/v1/sessions', '/no/such/route']) {
      expect((await raw(`${t.url}${p}`, 'GET', { host: `evil.example:${port}` })).status, p).toBe(421);
    }
  });

  it.each([
    ['a foreign name without a port', () => 'evil.example'],
    ['a name that merely starts like localhost', (p: number) => `localhost.evil.example:${p}`],
    ['a wildcard-DNS name of a loopback address', (p: number) => `127.0.0.1.nip.io:${p}`],
    ['userinfo-looking text', (p: number) => `127.0.0.1@evil.example:${p}`],
    ['an empty Host', () => ''],
    ['two hosts', (p: number) => `127.0.0.1:${p}, evil.example`],
    ['a loopback name with a port that is not a number', () => 'localhost:abc'],
    ['a loopback name with a port out of range', () => 'localhost:99999'],
    ['a loopback name with two ports', (p: number) => `localhost:${p}:${p}`],
    ['a percent-encoded loopback name', (p: number) => `%6cocalhost:${p}`],
    ['a loopback name with a path', (p: number) => `localhost:${p}/x`],
    ['a loopback name with a space inside', (p: number) => `local host:${p}`],
    ['a subdomain of localhost', (p: number) => `evil.localhost.example:${p}`],
  ])('refuses %s', async (_label, host) => {
    t ??= await startServer();
    const port = Number(new URL(t.url).port);
    const res = await raw(`${t.url}/v1/sessions`, 'GET', { host: host(port) });
    expect(res.status).toBe(421);
  });

  it('serves the loopback names and the bind address with the listening port, case-insensitively', async () => {
    t = await startServer();
    const port = new URL(t.url).port;
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `LOCALHOST:${port}`, `[::1]:${port}`, `localhost.:${port}`]) {
      expect((await raw(`${t.url}/v1/sessions`, 'GET', { host })).status, host).toBe(200);
    }
  });

  it('serves the loopback names on any port: an SSH tunnel, a dev server\'s proxy, a Host without a port', async () => {
    t = await startServer();
    const port = Number(new URL(t.url).port);
    for (const host of [`localhost:${port + 1}`, '127.0.0.1:8080', 'localhost', '[::1]:5173', '127.0.0.1', 'localhost:1', 'LocalHost:65535']) {
      expect((await raw(`${t.url}/v1/sessions`, 'GET', { host })).status, host).toBe(200);
    }
  });

  it('a refused name is told how to serve it', async () => {
    t ??= await startServer();
    const port = Number(new URL(t.url).port);
    const res = await raw(`${t.url}/v1/sessions`, 'GET', { host: `dev.example.test:${port}` });
    expect(res.status).toBe(421);
    expect(JSON.parse(res.body).detail).toContain('NORMA_ALLOWED_HOSTS=dev.example.test');
    expect(JSON.parse(res.body).detail).toContain('loopback names on any port');
    // A long name is not echoed whole: the problem stays small.
    const long = await raw(`${t.url}/v1/sessions`, 'GET', { host: `${'a'.repeat(4000)}.example:${port}` });
    expect(long.status).toBe(421);
    expect(long.body.length).toBeLessThan(2000);
  });

  it('NORMA_ALLOWED_HOSTS adds names (any port without one, only that port with one); * turns the check off', async () => {
    t = await startServer({ NORMA_ALLOWED_HOSTS: 'norma.example,api.example:9000' });
    const port = new URL(t.url).port;
    const status = async (host: string) => (await raw(`${t!.url}/healthz`, 'GET', { host })).status;
    expect(await status('norma.example')).toBe(200);
    expect(await status('norma.example:8443')).toBe(200);
    expect(await status('api.example:9000')).toBe(200);
    expect(await status('api.example:9001')).toBe(421);
    expect(await status(`localhost:${port}`)).toBe(200);
    expect(await status('evil.example')).toBe(421);
    await t.close();
    t = await startServer({ NORMA_ALLOWED_HOSTS: '*' });
    expect(await raw(`${t.url}/healthz`, 'GET', { host: 'anything.example' }).then((r) => r.status)).toBe(200);
  });
});

describe('cross-origin browser requests', () => {
  it('refuses a state-changing request from a foreign origin, with a body or without one', async () => {
    t = await startServer();
    const port = new URL(t.url).port;
    const host = `127.0.0.1:${port}`;
    const withBody = await raw(`${t.url}/v1/sessions`, 'POST', { ...json, host, origin: 'http://evil.example' }, '{}');
    const bodyless = await raw(`${t.url}/v1/sessions`, 'POST', { host, origin: 'https://evil.example' });
    const opaque = await raw(`${t.url}/v1/sessions`, 'POST', { ...json, host, origin: 'null' }, '{}');
    const otherPort = await raw(`${t.url}/v1/sessions`, 'POST', { ...json, host, origin: `http://127.0.0.1:${Number(port) + 1}` }, '{}');
    const crossSite = await raw(`${t.url}/v1/sessions`, 'POST', { ...json, host, 'sec-fetch-site': 'cross-site' }, '{}');
    for (const r of [withBody, bodyless, opaque, otherPort, crossSite]) {
      expect(r.status).toBe(403);
      expect(JSON.parse(r.body)).toMatchObject({ status: 403, type: 'urn:norma:problem:forbidden' });
    }
    expect(JSON.parse(withBody.body).detail).toContain('http://evil.example');
    expect((await t.api.get('/v1/sessions')).body.items).toEqual([]);
  });

  it('allows the server\'s own origin and clients that send none; a foreign origin may not even read', async () => {
    t = await startServer();
    const port = new URL(t.url).port;
    const host = `127.0.0.1:${port}`;
    const same = await raw(`${t.url}/v1/sessions`, 'POST', { ...json, host, origin: `http://${host}`, 'sec-fetch-site': 'same-origin' }, '{}');
    expect(same.status).toBe(201);
    const plain = await raw(`${t.url}/v1/sessions`, 'POST', { ...json, host }, '{}');
    expect(plain.status).toBe(201);
    // Without CORS a browser could not read the answer anyway; the request is refused outright.
    const read = await raw(`${t.url}/v1/sessions`, 'GET', { host, origin: 'http://evil.example' });
    expect(read.status).toBe(403);
    expect(JSON.parse(read.body).detail).toContain('CORS is off');
    expect(read.body).not.toContain('ses_');
    const id = JSON.parse(same.body).id as string;
    const del = await raw(`${t.url}/v1/sessions/${id}`, 'DELETE', { host, origin: 'http://evil.example' });
    expect(del.status).toBe(403);
    expect((await t.api.get(`/v1/sessions/${id}`)).body.status).toBe('active');
  });
});
