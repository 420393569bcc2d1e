// A real browser (Debian's Chromium, driven by playwright-core): a page on another loopback
// origin creates a session through CORS with a key of its tenant, takes an event ticket,
// follows the session over EventSource through a permission request it answers, and stops
// once the session is closed. And /docs renders under a host name other than localhost.
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newKey, startWithKeys, type KeyedServer } from '../helpers/tenants.js';

const CHROMIUM = '/usr/bin/chromium';
const ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'];

let browser: Browser;
let t: KeyedServer;
let page: http.Server;
let pageOrigin: string;
const key = newKey('web');

/** The page: plain browser APIs only (fetch, EventSource), as a front-end would use them. */
function html(api: string): string {
  return `<!doctype html><meta charset="utf-8"><title>front-end</title><script>
const API = ${JSON.stringify(api)};
const KEY = ${JSON.stringify(key)};
const auth = { authorization: 'Bearer ' + KEY };
const json = { ...auth, 'content-type': 'application/json' };
window.log = [];
window.run = async () => {
  const created = await fetch(API + '/v1/sessions', { method: 'POST', headers: json, body: JSON.stringify({ tools: ['Write', 'Read'] }) });
  const session = await created.json();
  window.requestId = created.headers.get('x-request-id');
  const ticket = await (await fetch(API + '/v1/sessions/' + session.id + '/events/tickets', { method: 'POST', headers: auth })).json();
  const es = new EventSource(API + '/v1/sessions/' + session.id + '/events?ticket=' + ticket.ticket);
  window.es = es;
  const seen = (type) => es.addEventListener(type, (e) => window.log.push({ type, id: e.lastEventId, data: JSON.parse(e.data) }));
  ['session.created', 'turn.started', 'tool.started', 'permission.requested', 'permission.resolved', 'tool.completed', 'turn.completed', 'session.closed'].forEach(seen);
  es.addEventListener('permission.requested', async (e) => {
    const { permission } = JSON.parse(e.data);
    await fetch(API + '/v1/sessions/' + session.id + '/permissions/' + permission.id, { method: 'POST', headers: json, body: JSON.stringify({ behavior: 'allow' }) });
  });
  es.addEventListener('turn.completed', () => fetch(API + '/v1/sessions/' + session.id, { method: 'DELETE', headers: auth }));
  es.onerror = () => window.log.push({ type: 'error', readyState: es.readyState });
  await new Promise((resolve) => es.addEventListener('session.created', resolve, { once: true }));
  await fetch(API + '/v1/sessions/' + session.id + '/turns', { method: 'POST', headers: json, body: JSON.stringify({ tool_uses: [{ name: 'Write', input: { file_path: 'hello.txt', content: 'hi from the browser' } }] }) });
  return session.id;
};
// After the close: a new ticket and the last id seen. Nothing is left, so the answer is 204 and
// the EventSource stops at once.
window.reopen = async (sessionId, after) => {
  const ticket = await (await fetch(API + '/v1/sessions/' + sessionId + '/events/tickets', { method: 'POST', headers: auth })).json();
  const es = new EventSource(API + '/v1/sessions/' + sessionId + '/events?after=' + after + '&ticket=' + ticket.ticket);
  return await new Promise((resolve) => {
    let messages = 0;
    es.onmessage = () => messages++;
    es.onerror = () => resolve({ readyState: es.readyState, messages });
  });
};
</script>`;
}

beforeAll(async () => {
  if (!fs.existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: install Debian's chromium package (apt-get install chromium)`);
  page = http.createServer();
  await new Promise<void>((r) => page.listen(0, '127.0.0.1', r));
  pageOrigin = `http://127.0.0.1:${(page.address() as AddressInfo).port}`;
  t = await startWithKeys([{ key, tenant: 'web', scopes: ['write'] }], { NORMA_CORS_ORIGINS: pageOrigin, NORMA_ALLOWED_HOSTS: 'norma.test' });
  page.on('request', (_req, res) => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html(t.url)));
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: [...ARGS, '--host-resolver-rules=MAP norma.test 127.0.0.1'] });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await t?.close();
  await new Promise((r) => page?.close(r));
});

describe('a web front-end on another origin', () => {
  it('creates a session with CORS, follows it with a ticket through an approval, and stops after session.closed', async () => {
    const context = await browser.newContext();
    const tab = await context.newPage();
    const streams: string[] = [];
    const consoleLines: string[] = [];
    tab.on('console', (m) => consoleLines.push(m.text()));
    tab.on('request', (r) => {
      if (r.url().includes('/events?')) streams.push(r.url());
    });
    await tab.goto(pageOrigin);
    const sessionId = (await tab.evaluate('window.run()')) as string;
    await tab.waitForFunction('window.log.some((e) => e.type === "session.closed")', undefined, { timeout: 20_000 }).catch(async (err) => {
      throw new Error(`${err.message}\nlog: ${JSON.stringify(await tab.evaluate('window.log'))}\nconsole: ${consoleLines.join('\n')}`);
    });
    // The server ends the stream after session.closed; the EventSource's reconnect (with its
    // spent ticket) is refused, which stops it for good.
    await tab.waitForFunction('window.es.readyState === 2', undefined, { timeout: 10_000 });
    const log = (await tab.evaluate('window.log')) as { type: string; id?: string; data?: any; readyState?: number }[];
    const types = log.filter((e) => e.type !== 'error').map((e) => e.type);
    expect(types).toEqual([
      'session.created',
      'turn.started',
      'permission.requested',
      'permission.resolved',
      'tool.started',
      'tool.completed',
      'turn.completed',
      'session.closed',
    ]);
    expect(log.find((e) => e.type === 'permission.resolved')!.data.permission).toMatchObject({ status: 'allowed', resolved_by: 'client' });
    expect(log.find((e) => e.type === 'tool.completed')!.data.result.is_error).toBe(false);
    // The page could read an exposed header of a cross-origin answer.
    expect(await tab.evaluate('window.requestId')).toMatch(/^req_/);
    // The work happened, in this tenant's session.
    const session = (await fetch(`${t.url}/v1/sessions/${sessionId}`, { headers: { authorization: `Bearer ${key}` } }).then((r) => r.json())) as { workspace: string; tenant: string; status: string };
    expect(session).toMatchObject({ tenant: 'web', status: 'closed' });
    expect(fs.readFileSync(`${session.workspace}/hello.txt`, 'utf8')).toBe('hi from the browser');
    // It did not keep reconnecting.
    await new Promise((r) => setTimeout(r, 2500));
    expect(streams.length).toBeLessThanOrEqual(2);
    expect(streams.every((u) => u.startsWith(`${t.url}/v1/sessions/${sessionId}/events?ticket=`))).toBe(true);

    // Opened again after the close with the last id: 204, the EventSource closes, nothing arrives.
    const lastId = log.find((e) => e.type === 'session.closed')!.id!;
    expect(await tab.evaluate(`window.reopen(${JSON.stringify(sessionId)}, ${lastId})`)).toEqual({ readyState: 2, messages: 0 });
    await context.close();
  }, 60_000);

  it('cannot call the API from an origin that is not listed', async () => {
    const context = await browser.newContext();
    const tab = await context.newPage();
    // The same page, served from another origin (another loopback address).
    const other = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(html(t.url)));
    await new Promise<void>((r) => other.listen(0, '127.0.0.3', r));
    try {
      await tab.goto(`http://127.0.0.3:${(other.address() as AddressInfo).port}`);
      const outcome = await tab.evaluate('window.run().then(() => "ran", (e) => "refused: " + e.name)');
      expect(outcome).toBe('refused: TypeError');
      const listed = await fetch(`${t.url}/v1/sessions`, { headers: { authorization: `Bearer ${key}` } }).then((r) => r.json() as Promise<{ items: unknown[] }>);
      expect(listed.items).toHaveLength(1); // only the first test's session
    } finally {
      await context.close();
      await new Promise((r) => other.close(r));
    }
  }, 30_000);
});

describe('/docs in a browser', () => {
  it('renders under a plain-http host name that is not localhost', async () => {
    const context = await browser.newContext();
    const tab = await context.newPage();
    const port = new URL(t.url).port;
    await tab.goto(`http://norma.test:${port}/docs/`);
    await tab.waitForSelector('.swagger-ui .info .title', { timeout: 20_000 });
    expect(await tab.textContent('.swagger-ui .info .title')).toContain('Norma Server');
    expect(await tab.locator('.opblock').count()).toBeGreaterThan(20);
    await context.close();
  }, 40_000);
});
