// Errors raised before any route runs are problems too: a path parameter longer than the router
// takes (414), a header block over Node's limit (431), a request Node's parser refuses (400), a
// path that is not valid percent-encoding (400), an HTTP version other than 1.x (505), a missing
// Host (400), an Expect the server cannot meet (417), a request that did not arrive in time (408).
// Each is `application/problem+json` of the API's shape (type, title, status, detail), small, and
// never echoes the oversized input: at most a short prefix of the path.
import http from 'node:http';
import net from 'node:net';
import { guardRequests } from '../../src/http/edge-problems.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertComponent } from '../helpers/contract.js';
import { startServer, type TestServer } from '../helpers/server.js';

interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** The whole answer as bytes on the wire. */
  raw: string;
}

/** Writes `request` as is on a new connection and reads the first response (until the server closes or the body is complete). */
function rawRequest(port: number, request: string | Buffer): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    let settled = false;
    const finish = () => {
      if (settled) return;
      const raw = Buffer.concat(chunks).toString('latin1');
      const end = raw.indexOf('\r\n\r\n');
      if (end < 0) return;
      const [statusLine, ...lines] = raw.slice(0, end).split('\r\n');
      const headers: Record<string, string> = {};
      for (const l of lines) {
        const at = l.indexOf(':');
        headers[l.slice(0, at).trim().toLowerCase()] = l.slice(at + 1).trim();
      }
      const body = raw.slice(end + 4);
      const length = headers['content-length'];
      if (length !== undefined && Buffer.byteLength(body, 'latin1') < Number(length)) return;
      settled = true;
      socket.destroy();
      resolve({ status: Number(statusLine!.split(' ')[1]), headers, body: length !== undefined ? body.slice(0, Number(length)) : body, raw });
    };
    socket.on('data', (d: Buffer) => {
      chunks.push(d);
      finish();
    });
    socket.on('error', () => finish());
    socket.on('close', () => {
      finish();
      if (!settled) reject(new Error(`the connection closed without a response: ${JSON.stringify(Buffer.concat(chunks).toString('latin1'))}`));
    });
    socket.write(request);
  });
}

const MAX_PROBLEM_BYTES = 1024;

/** A problem of the API's shape, small, that does not carry `mustNotContain`. */
function expectProblem(r: RawResponse, status: number, type: string, mustNotContain?: string) {
  expect(r.status, r.raw.slice(0, 300)).toBe(status);
  expect(r.headers['content-type']).toMatch(/^application\/problem\+json/);
  expect(Buffer.byteLength(r.body)).toBeLessThan(MAX_PROBLEM_BYTES);
  expect(r.raw.length).toBeLessThan(MAX_PROBLEM_BYTES * 2);
  const body = JSON.parse(r.body) as Record<string, unknown>;
  assertComponent('Problem', body);
  expect(body).toMatchObject({ type, status, title: expect.any(String), detail: expect.any(String) });
  expect(Object.keys(body).sort()).toEqual(expect.arrayContaining(['detail', 'status', 'title', 'type']));
  if (mustNotContain !== undefined) expect(r.raw).not.toContain(mustNotContain);
  return body;
}

describe('errors at the edge are problems', () => {
  let t: TestServer;
  let port: number;
  let host: string;
  beforeAll(async () => {
    t = await startServer({ NORMA_SANDBOX: 'off' });
    port = Number(new URL(t.url).port);
    host = `127.0.0.1:${port}`;
  });
  afterAll(async () => {
    await t.close();
  });

  const get = (path: string, more = '') => `GET ${path} HTTP/1.1\r\nHost: ${host}\r\n${more}Connection: close\r\n\r\n`;

  it('answers a path parameter longer than the router takes with a small 414 problem that does not echo it', async () => {
    const long = 'a'.repeat(5000);
    const r = await rawRequest(port, get(`/v1/sessions/${long}`));
    const body = expectProblem(r, 414, 'urn:norma:problem:uri-too-long', 'a'.repeat(101));
    expect(body.title).toBe('URI Too Long');
    expect(body.detail).toMatch(/100 characters/);
    expect(r.headers['x-request-id']).toMatch(/^req_/);
  });

  it('answers 414 on a route with two parameters, whichever is too long, and also through fetch', async () => {
    const long = 't'.repeat(3000);
    expectProblem(await rawRequest(port, get(`/v1/sessions/ses_a/turns/${long}`)), 414, 'urn:norma:problem:uri-too-long', 't'.repeat(101));
    expectProblem(await rawRequest(port, get(`/v1/sessions/${long}/turns/turn_b`)), 414, 'urn:norma:problem:uri-too-long', 't'.repeat(101));
    const res = await fetch(`${t.url}/v1/sessions/ses_a/permissions/${'p'.repeat(400)}?x=1`, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(414);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(await res.text()).not.toContain('p'.repeat(101));
  });

  it('answers a header block over Node\'s limit with a small 431 problem that does not echo it', async () => {
    const big = 'b'.repeat(20_000);
    const r = await rawRequest(port, `GET /healthz HTTP/1.1\r\nHost: ${host}\r\nX-Big: ${big}\r\n\r\n`);
    const body = expectProblem(r, 431, 'urn:norma:problem:header-fields-too-large', 'b'.repeat(64));
    expect(body.title).toBe('Request Header Fields Too Large');
    expect(body.detail).toMatch(/16384 bytes/);
  });

  it('answers a request line over the limit (a very long URL) with the same 431, without the URL', async () => {
    const r = await rawRequest(port, `GET /v1/${'c'.repeat(20_000)} HTTP/1.1\r\nHost: ${host}\r\n\r\n`);
    expectProblem(r, 431, 'urn:norma:problem:header-fields-too-large', 'c'.repeat(64));
  });

  it('answers a malformed request (bad request line, bad method, bad header, TLS to a plain port) with a 400 problem', async () => {
    for (const request of [
      'GARBAGE\r\n\r\n',
      `FOO / HTTP/1.1\r\nHost: ${host}\r\n\r\n`,
      `GET /healthz HTTP/1.1\r\nHost: ${host}\r\nBad Header: x\r\n\r\n`,
      `POST /v1/sessions HTTP/1.1\r\nHost: ${host}\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`,
      Buffer.from([0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xfc, 0x03, 0x03]),
    ]) {
      const body = expectProblem(await rawRequest(port, request), 400, 'urn:norma:problem:invalid-request');
      expect(body.detail).toMatch(/not a well-formed HTTP\/1\.1 request/);
    }
  });

  it('answers a path that is not valid percent-encoding with a 400 problem naming at most a prefix of it', async () => {
    const r = await rawRequest(port, get(`/v1/sessions/%zz${'d'.repeat(90)}`));
    const body = expectProblem(r, 400, 'urn:norma:problem:invalid-request', 'd'.repeat(80));
    expect(body.detail).toMatch(/percent-encoding/);
    expectProblem(await rawRequest(port, get('/v1/sessions/ses_%C0%AF/turns/%E0%A4%A')), 400, 'urn:norma:problem:invalid-request');
  });

  it('answers an HTTP version other than 1.0 or 1.1 with a 505 problem', async () => {
    for (const version of ['HTTP/1.2', 'HTTP/3.0', 'HTTP/2.0', 'HTTP/0.9']) {
      const r = await rawRequest(port, `GET /healthz ${version}\r\nHost: ${host}\r\nConnection: close\r\n\r\n`);
      const body = expectProblem(r, 505, 'urn:norma:problem:http-version-not-supported');
      expect(body.title).toBe('HTTP Version Not Supported');
    }
    // HTTP/1.0 is still served.
    const ok = await rawRequest(port, `GET /healthz HTTP/1.0\r\nHost: ${host}\r\n\r\n`);
    expect(ok.status).toBe(200);
  });

  it('answers an HTTP/1.1 request without Host with a 400 problem, and an Expect it cannot meet with a 417 problem', async () => {
    const noHost = expectProblem(await rawRequest(port, 'GET /healthz HTTP/1.1\r\nConnection: close\r\n\r\n'), 400, 'urn:norma:problem:invalid-request');
    expect(noHost.detail).toMatch(/Host/);
    const expectation = expectProblem(await rawRequest(port, get('/healthz', 'Expect: teapot\r\n')), 417, 'urn:norma:problem:expectation-failed');
    expect(expectation.title).toBe('Expectation Failed');
    // 100-continue is still met.
    const cont = await rawRequest(port, get('/healthz', 'Expect: 100-continue\r\n'));
    expect(cont.status).toBe(100);
  });

  it('answers what Node reports on a connection (a request timeout, chunk extensions too large) with problems', async () => {
    const server = t.server.app.server;
    const answer = async (code: string) => {
      const accepted = new Promise<net.Socket>((resolve) => server.once('connection', resolve));
      const client = net.connect(port, '127.0.0.1');
      const chunks: Buffer[] = [];
      client.on('data', (d: Buffer) => chunks.push(d));
      const closed = new Promise<void>((resolve) => client.on('close', () => resolve()));
      client.on('error', () => {});
      const socket = await accepted;
      server.emit('clientError', Object.assign(new Error(`fake ${code}`), { code }), socket);
      await closed;
      const raw = Buffer.concat(chunks).toString('latin1');
      const end = raw.indexOf('\r\n\r\n');
      const headers = Object.fromEntries(raw.slice(0, end).split('\r\n').slice(1).map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
      return { status: Number(raw.split(' ')[1]), headers, body: raw.slice(end + 4), raw };
    };
    expectProblem(await answer('ERR_HTTP_REQUEST_TIMEOUT'), 408, 'urn:norma:problem:request-timeout');
    expectProblem(await answer('HPE_CHUNK_EXTENSIONS_OVERFLOW'), 413, 'urn:norma:problem:body-too-large');
    expectProblem(await answer('HPE_SOMETHING_NEW'), 400, 'urn:norma:problem:invalid-request');
  });

  it('keeps the 404 for a very long unknown path small: the path is not echoed whole', async () => {
    const res = await fetch(`${t.url}/v1/${'e'.repeat(8000)}`);
    expect(res.status).toBe(404);
    const text = await res.text();
    expect(text.length).toBeLessThan(MAX_PROBLEM_BYTES);
    expect(text).not.toContain('e'.repeat(300));
    // A short path is still the instance, and named in the detail.
    const short = (await (await fetch(`${t.url}/v1/nothing-here`)).json()) as Record<string, unknown>;
    expect(short).toMatchObject({ instance: '/v1/nothing-here', detail: 'no route GET /v1/nothing-here' });
  });
});

describe('guardRequests', () => {
  it('answers every request with a 503 problem once the server is closing, before its handler sees it', async () => {
    let closing = false;
    let handled = 0;
    const server = http.createServer((_req, res) => {
      handled++;
      res.end('ok');
    });
    guardRequests(server, { maxParamLength: 100, newRequestId: () => 'req_test', closing: () => closing });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const port = (server.address() as net.AddressInfo).port;
      const request = `GET /v1/sessions HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n\r\n`;
      expect((await rawRequest(port, request)).status).toBe(200);
      closing = true;
      const r = await rawRequest(port, request);
      const body = expectProblem(r, 503, 'urn:norma:problem:unavailable');
      expect(body.detail).toMatch(/shutting down/);
      expect(r.headers.connection).toBe('close');
      expect(r.headers['x-request-id']).toBe('req_test');
      expect(handled).toBe(1);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
