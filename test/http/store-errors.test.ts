// A store that refuses a request's write answers a problem that says nothing was stored: 503 with
// Retry-After when trying again may help (the database or the file busy, unreachable, refusing),
// 507 without it when its storage is full (waiting alone does not help).
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installProblemHandling } from '../../src/http/problem.js';
import { ValidationExplainer } from '../../src/http/validation.js';
import { PgError } from '../../src/store/pg-sync.js';

const app = Fastify();
beforeAll(async () => {
  installProblemHandling(app, { bodyLimitBytes: 1024, explainer: new ValidationExplainer([]) });
  const throwing = (err: Error) => () => Promise.reject(err);
  const sqlite = (code: string) => Object.assign(new Error(`sqlite ${code}`), { code });
  app.get('/pg-refused', throwing(new PgError('refused by a trigger', 'P0001', false)));
  app.get('/pg-gone', throwing(new PgError('connection terminated', undefined, false)));
  app.get('/pg-full', throwing(new PgError('could not extend file', '53100', false)));
  app.get('/sqlite-busy', throwing(sqlite('SQLITE_BUSY')));
  app.get('/sqlite-full', throwing(sqlite('SQLITE_FULL')));
  await app.ready();
});
afterAll(() => app.close());

describe('a store that refuses a write', () => {
  it.each([
    ['/pg-refused', 503, '1', /the database cannot be used right now \(P0001\): nothing of this request was stored/],
    ['/pg-gone', 503, '1', /the database cannot be used right now: nothing of this request was stored/],
    ['/sqlite-busy', 503, '1', /the store cannot be used right now \(SQLITE_BUSY\)/],
    ['/pg-full', 507, undefined, /storage is full/],
    ['/sqlite-full', 507, undefined, /storage is full/],
  ])('%s answers %i, Retry-After %s', async (url, status, retryAfter, detail) => {
    const res = await app.inject({ url });
    expect(res.statusCode).toBe(status);
    expect(res.headers['retry-after']).toBe(retryAfter);
    expect(res.headers['content-type']).toContain('application/problem+json');
    expect(res.json().detail).toMatch(detail);
  });
});
