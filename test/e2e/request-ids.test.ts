// Request ids: a client's X-Request-Id is kept when it is a plain token (up to 64 of letters,
// digits and `._:-`) — in the response header, the log lines and the 500 problem's detail —
// and anything else is replaced by an id the server makes.
import http from 'node:http';
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { MemoryStore } from '../../src/store/memory.js';
import { startServer, type TestServer, closeAll } from '../helpers/server.js';

let servers: TestServer[] = [];
afterEach(async () => {
  await closeAll(servers);
});

/** A pino destination that keeps every line. */
function capture(): { sink: Writable; lines: () => { msg: string; [k: string]: unknown }[] } {
  const raw: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      raw.push(String(chunk));
      done();
    },
  });
  return { sink, lines: () => raw.join('').split('\n').filter((l) => l !== '').map((l) => JSON.parse(l)) };
}

describe('request ids', () => {
  it('keep a client\'s plain X-Request-Id and replace anything else with one of the server\'s', async () => {
    const t = await startServer({ NORMA_SANDBOX: 'off' });
    servers.push(t);
    const idOf = async (header?: string) => {
      const res = await fetch(`${t.url}/v1/sessions`, { headers: header === undefined ? {} : { 'x-request-id': header } });
      expect(res.status).toBe(200);
      return res.headers.get('x-request-id');
    };
    for (const kept of ['abc', 'trace-1.2:3_4', 'A'.repeat(64), '0']) expect(await idOf(kept)).toBe(kept);
    for (const replaced of ['A'.repeat(65), 'has space', 'semi;colon', 'slash/ed', 'ümlaut', '', 'a,b']) {
      const id = await idOf(replaced);
      expect(id, JSON.stringify(replaced)).toMatch(/^req_[A-Za-z0-9_-]{22}$/);
    }
    expect(await idOf()).toMatch(/^req_/);
    // Two headers arrive as one list: not a plain token either.
    const both = await new Promise<string | undefined>((resolve, reject) => {
      const u = new URL(`${t.url}/healthz`);
      const req = http.request({ host: u.hostname, port: u.port, path: u.pathname, headers: ['host', u.host, 'x-request-id', 'one', 'x-request-id', 'two'] as unknown as http.OutgoingHttpHeaders }, (res) => {
        res.resume();
        resolve(res.headers['x-request-id'] as string | undefined);
      });
      req.on('error', reject);
      req.end();
    });
    expect(both).toMatch(/^req_/);
  });

  it('name the request in the 500 problem\'s detail', async () => {
    class BrokenStore extends MemoryStore {
      override listSessions(): never {
        throw new Error('the disk caught fire');
      }
    }
    const log = capture();
    const t = await startServer({ NORMA_SANDBOX: 'off', NORMA_STORE: 'memory', NORMA_LOG_LEVEL: 'info' }, { store: new BrokenStore(), logDestination: log.sink });
    servers.push(t);
    const kept = await t.api.get('/v1/sessions', { headers: { 'x-request-id': 'support-ticket-42' } });
    expect(kept.status).toBe(500);
    expect(kept.headers.get('x-request-id')).toBe('support-ticket-42');
    expect(kept.body.detail).toBe('internal error; quote request id support-ticket-42 when reporting it');
    expect(kept.body.detail).not.toContain('fire');
    expect(log.lines().find((l) => l.msg === 'unhandled error')).toMatchObject({ reqId: 'support-ticket-42', level: 50 });
    const made = await t.api.get('/v1/sessions', { headers: { 'x-request-id': 'no good' } });
    const id = made.headers.get('x-request-id')!;
    expect(id).toMatch(/^req_/);
    expect(made.body.detail).toBe(`internal error; quote request id ${id} when reporting it`);
  });
});
