// Opening a long session in the web console, against a baseline measured in the same run: the
// time until the console's timeline holds every stored event of a session (BENCH_TURNS turns of
// 100 TodoWrite calls each, ~3 events per call), vs. a bare EventSource in the same browser page
// reading and JSON-parsing the same stream (what any page must pay before rendering anything).
// The server is the built dist in a child process; the browser is Debian's Chromium.
//   npm run bench:console            (BENCH_TURNS=30 BENCH_ROUNDS=5)
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { Agent } from 'undici';
import { buildConsole } from '../scripts/build-console.mjs';
import { apiCall, freePort, quantile, root, startChild, stopChildren } from './lib.js';

const TURNS = Number(process.env.BENCH_TURNS ?? 30);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const CALLS = 100;

const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'norma-bench-console-'));
const built = path.join(dataDir, 'console');
await buildConsole(built);
const port = await freePort();
const base = `http://127.0.0.1:${port}`;
const server = await startChild([path.join(root, 'dist/src/main.js')], { NORMA_DATA_DIR: dataDir, NORMA_SANDBOX: 'off', NORMA_LOG_LEVEL: 'warn', NORMA_CONSOLE_DIR: built }, port);
const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
});
const dispatcher = new Agent();
try {
  const session = (await apiCall(dispatcher, base, 'POST', '/v1/sessions', { tools: ['TodoWrite'] })) as { id: string };
  for (let k = 0; k < TURNS; k++) {
    const tool_uses = Array.from({ length: CALLS }, (_, i) => ({ name: 'TodoWrite', input: { todos: [{ content: `item ${k}-${i}`, activeForm: 'working', status: 'pending' }] } }));
    await apiCall(dispatcher, base, 'POST', `/v1/sessions/${session.id}/turns?wait=120`, { tool_uses });
  }
  await apiCall(dispatcher, base, 'DELETE', `/v1/sessions/${session.id}`);
  const stored = ((await apiCall(dispatcher, base, 'GET', `/v1/sessions/${session.id}/export`)) as { events: unknown[] }).events.length;

  const consoleMs: number[] = [];
  const rawMs: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    // The console: from navigation to every event in the timeline.
    const page = await browser.newPage();
    let t0 = Date.now();
    await page.goto(`${base}/console/#/sessions/${session.id}`);
    // A function, not a string: the page's CSP refuses eval. It runs in the page (its DOM).
    await page.waitForFunction(
      (n) => (globalThis as unknown as { document: { querySelectorAll(s: string): { length: number } } }).document.querySelectorAll('ol[aria-label="Event timeline"] > li').length === n,
      stored,
      { timeout: 300_000, polling: 20 },
    );
    consoleMs.push(Date.now() - t0);
    // The baseline, in the same page: a ticket, an EventSource, every event parsed.
    t0 = Date.now();
    // (A string: this runs in the page, which the bench's own types know nothing of.)
    const got = (await page.evaluate(`(async () => {
      const types = ['session.created', 'turn.started', 'tool.started', 'todo.updated', 'tool.completed', 'turn.completed', 'session.closed'];
      const ticket = (await (await fetch('/v1/sessions/${session.id}/events/tickets', { method: 'POST', headers: { 'x-norma-console': '1' } })).json()).ticket;
      return await new Promise((resolve) => {
        const es = new EventSource('/v1/sessions/${session.id}/events?ticket=' + ticket);
        let seen = 0;
        for (const type of types) {
          es.addEventListener(type, (e) => {
            JSON.parse(e.data);
            if (++seen === ${stored}) (es.close(), resolve(seen));
          });
        }
      });
    })()`)) as number;
    rawMs.push(Date.now() - t0);
    if (got !== stored) throw new Error(`the baseline read ${got} of ${stored} events`);
    await page.close();
  }
  const med = (xs: number[]) => quantile([...xs].sort((a, b) => a - b), 0.5);
  const fmt = (xs: number[]) => `min ${Math.min(...xs)} / median ${med(xs)} / max ${Math.max(...xs)} ms`;
  console.log(`session of ${stored} events (${TURNS} turns × ${CALLS} calls), ${ROUNDS} rounds`);
  console.log(`  console, navigation → whole timeline: ${fmt(consoleMs)}`);
  console.log(`  bare EventSource + JSON.parse:        ${fmt(rawMs)}`);
  console.log(`  ratio (medians): ${(med(consoleMs) / med(rawMs)).toFixed(2)}×`);
} finally {
  await browser.close();
  await dispatcher.close();
  await stopChildren([server]);
  await fs.rm(dataDir, { recursive: true, force: true });
}
