// A known path asked with a method it does not serve is 405 Method Not Allowed (problem+json, with
// `Allow` naming the path's methods); a path no route has stays 404. Parametric paths are matched
// by the router itself, and the CORS plugin's catch-all preflight route does not make every path
// "known".
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../helpers/server.js';

async function call(url: string, method: string, headers: Record<string, string> = {}) {
  const res = await request(url, { method: method as 'GET', headers });
  const text = await res.body.text();
  return { status: res.statusCode, headers: res.headers, text, body: text ? (JSON.parse(text) as Record<string, unknown>) : undefined };
}

function expect405(r: Awaited<ReturnType<typeof call>>, allow: string) {
  expect(r.status).toBe(405);
  expect(r.headers.allow).toBe(allow);
  expect(r.headers['content-type']).toContain('application/problem+json');
}

describe('a wrong method on a known path', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startServer({ NORMA_SANDBOX: 'off' });
  });
  afterAll(async () => {
    await t.close();
  });

  it('is 405 with Allow on a static path, as a problem that names the method and the allowed ones', async () => {
    const r = await call(`${t.url}/v1/sessions`, 'PUT');
    expect405(r, 'GET, HEAD, POST');
    expect(r.body).toEqual({
      type: 'urn:norma:problem:method-not-allowed',
      title: 'Method Not Allowed',
      status: 405,
      detail: 'PUT is not allowed on /v1/sessions; it allows GET, HEAD, POST',
      instance: '/v1/sessions',
    });
    expect405(await call(`${t.url}/v1/sessions?limit=5`, 'DELETE'), 'GET, HEAD, POST');
    expect405(await call(`${t.url}/healthz`, 'POST'), 'GET, HEAD');
    expect405(await call(`${t.url}/openapi.json`, 'DELETE'), 'GET, HEAD');
  });

  it('is 405 on parametric paths, whatever the parameter, with the methods of that route', async () => {
    // The session need not exist: the method is wrong for the path's shape.
    expect405(await call(`${t.url}/v1/sessions/ses_nothing`, 'PUT'), 'GET, HEAD, PATCH, DELETE');
    expect405(await call(`${t.url}/v1/sessions/ses_nothing`, 'POST'), 'GET, HEAD, PATCH, DELETE');
    expect405(await call(`${t.url}/v1/sessions/ses_a/turns`, 'DELETE'), 'GET, HEAD, POST');
    expect405(await call(`${t.url}/v1/sessions/ses_a/turns/turn_b/cancel`, 'GET'), 'POST');
    expect405(await call(`${t.url}/v1/sessions/ses_a/permissions/perm_c`, 'PUT'), 'GET, HEAD, POST');
    expect405(await call(`${t.url}/v1/sessions/ses_a/outputs/out_d`, 'PATCH'), 'GET, HEAD');
  });

  it('is 405 for OPTIONS without CORS, and for HEAD where there is no GET (no body)', async () => {
    expect405(await call(`${t.url}/v1/sessions`, 'OPTIONS'), 'GET, HEAD, POST');
    expect405(await call(`${t.url}/v1/sessions/ses_a`, 'OPTIONS'), 'GET, HEAD, PATCH, DELETE');
    const head = await call(`${t.url}/v1/sessions/ses_a/turns/turn_b/cancel`, 'HEAD');
    expect(head.status).toBe(405);
    expect(head.headers.allow).toBe('POST');
    expect(head.text).toBe('');
  });

  it('leaves HEAD on GET routes to Fastify, and the right method to its route', async () => {
    const head = await call(`${t.url}/healthz`, 'HEAD');
    expect(head.status).toBe(200);
    expect(head.headers.allow).toBeUndefined();
    expect((await call(`${t.url}/v1/sessions/ses_nothing`, 'HEAD')).status).toBe(404);
    const missing = await call(`${t.url}/v1/sessions/ses_nothing`, 'GET');
    expect(missing.status).toBe(404);
    expect(missing.body?.detail).toMatch(/session ses_nothing does not exist/);
  });

  it('keeps unknown paths 404, whatever the method', async () => {
    for (const [method, path] of [
      ['GET', '/v1/nothing-here'],
      ['PUT', '/v1/nothing-here'],
      ['OPTIONS', '/nowhere'],
      ['POST', '/v1/sessions/ses_a/turns/turn_b/cancel/more'],
      ['DELETE', '/v1/sessions/ses_a/nothing'],
    ] as const) {
      const r = await call(`${t.url}${path}`, method);
      expect(r.status, `${method} ${path}`).toBe(404);
      expect(r.headers.allow, `${method} ${path}`).toBeUndefined();
      expect(r.body?.type).toBe('urn:norma:problem:not-found');
    }
  });
});

describe('with CORS on', () => {
  const PAGE = 'http://127.0.0.2:5173';
  let t: TestServer;
  beforeAll(async () => {
    t = await startServer({ NORMA_SANDBOX: 'off', NORMA_CORS_ORIGINS: PAGE });
  });
  afterAll(async () => {
    await t.close();
  });

  it('answers preflights as before; its catch-all route makes no unknown path a 405', async () => {
    const pre = await call(`${t.url}/v1/sessions/ses_a`, 'OPTIONS', { origin: PAGE, 'access-control-request-method': 'PATCH' });
    expect(pre.status).toBe(204);
    expect(pre.headers['access-control-allow-origin']).toBe(PAGE);
    const unknown = await call(`${t.url}/nowhere`, 'PUT');
    expect(unknown.status).toBe(404);
    expect(unknown.headers.allow).toBeUndefined();
    // Allow lists the path's routes; the preflight answer is the CORS plugin's, not a route's.
    expect405(await call(`${t.url}/v1/sessions`, 'PUT', { origin: PAGE }), 'GET, HEAD, POST');
  });
});
