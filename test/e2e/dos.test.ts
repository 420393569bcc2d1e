// Single requests that used to hold the event loop for seconds, or broke a session: a hostile
// page through WebFetch and WebSearch, a command of thousands of here-documents, JSON nested
// far too deep. Each now answers with a clear result while the loop stays responsive; the
// stall measured (the longest event-loop delay during the request) is printed for the record.
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { afterEach, describe, expect, it } from 'vitest';
import { closeFixtures, serve } from '../helpers/http-fixture.js';
import { startServer, type TestServer } from '../helpers/server.js';

let t: TestServer | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
  await closeFixtures();
});

/** The longest event-loop stall (ms) while `run` goes on. */
async function stall<T>(run: () => Promise<T>): Promise<{ value: T; maxMs: number }> {
  const h = monitorEventLoopDelay({ resolution: 10 });
  h.enable();
  try {
    const value = await run();
    return { value, maxMs: h.max / 1e6 };
  } finally {
    h.disable();
  }
}

/** Generous against a loaded 2-core machine, far below the seconds these inputs used to take. */
const STALL_BOUND_MS = 1000;

const MiB = 1024 * 1024;
const HOSTILE_PAGES: Record<string, string> = {
  'nested divs': `<html><body>${'<div>'.repeat((4 * MiB) / 5)}deep</body></html>`,
  'unclosed <': `<html><body>${'<'.repeat(4 * MiB)}</body></html>`,
  'unclosed <a': `<html><body>${'<a '.repeat((4 * MiB) / 3)}</body></html>`,
  'endless <script': `<html><body>text${'<script>'.repeat((4 * MiB) / 8)}</body></html>`,
  'entities and blanks': `<html><body>${'&amp; \n '.repeat((4 * MiB) / 9)}</body></html>`,
};

describe('hostile pages', () => {
  it.each(Object.keys(HOSTILE_PAGES))('WebFetch of a page of %s answers without stalling the server', async (name) => {
    const page = HOSTILE_PAGES[name]!;
    const site = await serve('127.0.0.2', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(page);
    });
    t = await startServer({ NORMA_EGRESS_ALLOW: '127.0.0.2', NORMA_WEBFETCH_CONVERT_TIMEOUT_S: '1' });
    const s = (await t.api.post('/v1/sessions', { tools: ['WebFetch'], permission_mode: 'bypassPermissions' })).body;
    const { value: turn, maxMs } = await stall(async () => (await t!.api.post(`/v1/sessions/${s.id}/turns?wait=60`, { tool_uses: [{ name: 'WebFetch', input: { url: `${site.origin}/p` } }] })).body);
    console.log(`[dos] WebFetch ${name}: longest event-loop stall ${maxMs.toFixed(0)} ms`);
    expect(turn.status).toBe('completed');
    expect(turn.results[0].is_error).toBe(false);
    expect(maxMs).toBeLessThan(STALL_BOUND_MS);
  }, 60_000);

  it('WebSearch of a hostile DuckDuckGo page answers without stalling the server', async () => {
    const page = `<html><body>${'<div class="result">'.repeat((0.9 * MiB) / 20)}${'<div>'.repeat((0.9 * MiB) / 5)}</body></html>`;
    const site = await serve('127.0.0.2', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(page);
    });
    t = await startServer({ NORMA_EGRESS_ALLOW: '127.0.0.2', NORMA_WEBSEARCH_BACKEND: 'ddgs', NORMA_WEBSEARCH_URL: `${site.origin}/html/` });
    const s = (await t.api.post('/v1/sessions', { tools: ['WebSearch'], permission_mode: 'bypassPermissions' })).body;
    const { value: turn, maxMs } = await stall(async () => (await t!.api.post(`/v1/sessions/${s.id}/turns?wait=60`, { tool_uses: [{ name: 'WebSearch', input: { query: 'norma sandbox' } }] })).body);
    console.log(`[dos] WebSearch nested results page: longest event-loop stall ${maxMs.toFixed(0)} ms`);
    expect(turn.status).toBe('completed');
    // Read in the worker within its limit (no result) or cut off there: either way, an answer.
    expect(turn.results[0].content[0].text).toMatch(/No results|could not be read within|no results/i);
    expect(maxMs).toBeLessThan(STALL_BOUND_MS);
  }, 60_000);
});

describe('hostile requests', () => {
  it('a command of 11,000 here-documents is analysed without stalling, and asked about', async () => {
    t = await startServer();
    const s = (await t.api.post('/v1/sessions', {})).body;
    const command = 'cat <<E\nE\n'.repeat(11_000).slice(0, 99_000);
    const { value: turn, maxMs } = await stall(async () => (await t!.api.post(`/v1/sessions/${s.id}/turns?wait=30`, { tool_uses: [{ name: 'Bash', input: { command } }] })).body);
    console.log(`[dos] Bash of 11,000 here-documents: longest event-loop stall ${maxMs.toFixed(0)} ms`);
    expect(['awaiting_permission', 'completed']).toContain(turn.status);
    expect(maxMs).toBeLessThan(STALL_BOUND_MS);
  });

  it.each([10_000, 1_000_000])('a turn input nested %i deep is a 400; the session goes on', async (depth) => {
    t ??= await startServer();
    const s = (await t.api.post('/v1/sessions', {})).body;
    const deep = `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
    const { value: res, maxMs } = await stall(() =>
      fetch(`${t!.url}/v1/sessions/${s.id}/turns`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: `{"tool_uses":[{"name":"LS","input":${deep}}]}` }),
    );
    const body = (await res.json()) as { detail: string; status: number };
    console.log(`[dos] JSON nested ${depth} deep: longest event-loop stall ${maxMs.toFixed(0)} ms`);
    expect(res.status).toBe(400);
    expect(body.detail).toContain('nests arrays and objects deeper than 64 levels');
    expect(maxMs).toBeLessThan(STALL_BOUND_MS);
    const next = (await t.api.post(`/v1/sessions/${s.id}/turns?wait=10`, { tool_uses: [{ name: 'LS', input: {} }] })).body;
    expect(next.status).toBe('completed');
    expect((await t.api.post(`/v1/sessions/${s.id}/turns/${next.id}/cancel`, {})).status).toBe(409);
  });

  it('JSON at the depth limit is accepted, one level more is not (brackets in strings do not count)', async () => {
    t = await startServer();
    const s = (await t.api.post('/v1/sessions', {})).body;
    const nest = (n: number) => `${'['.repeat(n)}${']'.repeat(n)}`;
    // body {…} + tool_uses [ + item { + input { = 4 levels before the nested value.
    const post = (inner: string) =>
      fetch(`${t!.url}/v1/sessions/${s.id}/turns?wait=10`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: `{"tool_uses":[{"name":"LS","input":{"x":${inner}}}]}` });
    const atLimit = await post(nest(60));
    expect(atLimit.status).toBe(200);
    expect(((await atLimit.json()) as { results: { is_error: boolean }[] }).results[0]!.is_error).toBe(true); // LS refuses the unknown field
    expect((await post(nest(61))).status).toBe(400);
    expect((await post(JSON.stringify('['.repeat(10_000)))).status).toBe(200);
  });
});
