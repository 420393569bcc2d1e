// What tenants and keys cost, each against a baseline measured in the same run:
//   - a session read with an API key looked up among 10,000 keys of 1,000 tenants, with a
//     tenant policy and its requests_per_minute counter, against the same read on a server
//     without keys (loopback);
//   - another tenant's session (404) against a missing one (404): the lookup must cost the
//     same, or the timing would tell that the session exists;
//   - opening the event stream with a ticket (POST …/events/tickets, then GET …?ticket=)
//     against opening it with the Authorization header.
//   npm run bench:tenants        (BENCH_REQUESTS=2000 by default)
import type { ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Agent, request } from 'undici';
import { freePort, quantile, root, startChild, stopChildren } from './lib.js';

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 2000);
const KEYS = 10_000;
const TENANTS = 1_000;

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');
const median = (xs: number[]) => quantile([...xs].sort((a, b) => a - b), 0.5);
const us = (x: number) => `${(x * 1000).toFixed(1).padStart(8)} µs`;

async function call(agent: Agent, url: string, method: 'GET' | 'POST' | 'DELETE', key?: string, body?: unknown): Promise<{ status: number; json: any }> {
  const headers: Record<string, string> = {};
  if (key) headers.authorization = `Bearer ${key}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await request(url, { method, headers, dispatcher: agent, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
  const text = await res.body.text();
  return { status: res.statusCode, json: text ? JSON.parse(text) : null };
}

/** Opens the event stream, waits for its head, and closes it; the time to the head. */
async function openStream(agent: Agent, url: string, key?: string): Promise<number> {
  const ac = new AbortController();
  const t0 = performance.now();
  const res = await request(url, { method: 'GET', dispatcher: agent, signal: ac.signal, headers: key ? { authorization: `Bearer ${key}` } : {} });
  const dt = performance.now() - t0;
  if (res.statusCode !== 200) throw new Error(`stream: ${res.statusCode}`);
  ac.abort();
  await res.body.text().catch(() => undefined);
  return dt;
}

async function timeEach(n: number, fn: () => Promise<unknown>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await fn();
    out.push(performance.now() - t0);
  }
  return out;
}

async function main(): Promise<void> {
  await fs.access(path.join(root, 'dist/src/main.js')).catch(() => {
    throw new Error('dist/ is missing: run `npm run build` (npm run bench:tenants does it for you)');
  });
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'norma-bench-'));
  const children: ChildProcess[] = [];
  const agent = new Agent({ connections: 1, pipelining: 1 });
  try {
    // 10,000 keys of 1,000 tenants; the measured tenants have a policy with a (high) request budget.
    const keys = Array.from({ length: KEYS }, (_, i) => ({ key: `nk_${i}_${randomBytes(18).toString('base64url')}`, tenant: `t${i % TENANTS}` }));
    const policy = { requests_per_minute: 1_000_000, max_sessions: 1000, disallowed_tools: ['Bash(rm *)'] };
    const entries = keys.map((k, i) => ({ key_sha256: sha256(k.key), tenant: k.tenant, scopes: ['write'], ...(i < TENANTS ? { policy } : {}) }));
    await fs.writeFile(path.join(dir, 'keys.json'), JSON.stringify(entries));
    const [mine, theirs] = [keys[0]!, keys[1]!];

    const common = { NORMA_LOG_LEVEL: 'warn', NORMA_SANDBOX: 'off' };
    const [portA, portB] = [await freePort(), await freePort()];
    children.push(await startChild([path.join(root, 'dist/src/main.js')], { ...common, NORMA_DATA_DIR: path.join(dir, 'a') }, portA));
    children.push(await startChild([path.join(root, 'dist/src/main.js')], { ...common, NORMA_DATA_DIR: path.join(dir, 'b'), NORMA_API_KEYS_FILE: path.join(dir, 'keys.json') }, portB));
    const [a, b] = [`http://127.0.0.1:${portA}`, `http://127.0.0.1:${portB}`];

    const plain = (await call(agent, `${a}/v1/sessions`, 'POST', undefined, {})).json.id as string;
    const own = (await call(agent, `${b}/v1/sessions`, 'POST', mine.key, {})).json.id as string;
    const foreign = (await call(agent, `${b}/v1/sessions`, 'POST', theirs.key, {})).json.id as string;
    const missing = `ses_${randomBytes(16).toString('base64url')}`;
    // Both tenants hold many sessions, so the lookups are not of a tiny table.
    for (let i = 0; i < 200; i++) await call(agent, `${b}/v1/sessions`, 'POST', keys[2 + (i % 50)]!.key, {});

    // Warm-up, then interleaved rounds so drift hits both sides alike.
    for (let i = 0; i < 300; i++) {
      await call(agent, `${a}/v1/sessions/${plain}`, 'GET');
      await call(agent, `${b}/v1/sessions/${own}`, 'GET', mine.key);
      await call(agent, `${b}/v1/sessions/${foreign}`, 'GET', mine.key);
      await call(agent, `${b}/v1/sessions/${missing}`, 'GET', mine.key);
    }
    const rounds = 5;
    const per = Math.ceil(REQUESTS / rounds);
    const t = { plain: [] as number[], keyed: [] as number[], foreign: [] as number[], missing: [] as number[], ticket: [] as number[], header: [] as number[] };
    for (let r = 0; r < rounds; r++) {
      t.plain.push(...(await timeEach(per, () => call(agent, `${a}/v1/sessions/${plain}`, 'GET'))));
      t.keyed.push(...(await timeEach(per, () => call(agent, `${b}/v1/sessions/${own}`, 'GET', mine.key))));
      // Alternating, in both orders: the two are compared under the same conditions.
      for (let i = 0; i < per; i++) {
        const pair: [number[], string][] = [
          [t.foreign, foreign],
          [t.missing, missing],
        ];
        if (i % 2 === 1) pair.reverse();
        for (const [into, id] of pair) {
          const t0 = performance.now();
          if ((await call(agent, `${b}/v1/sessions/${id}`, 'GET', mine.key)).status !== 404) throw new Error(`${id} was not 404`);
          into.push(performance.now() - t0);
        }
      }
      for (let i = 0; i < per / 10; i++) {
        t.header.push(await openStream(agent, `${b}/v1/sessions/${own}/events`, mine.key));
        const t0 = performance.now();
        const ticket = (await call(agent, `${b}/v1/sessions/${own}/events/tickets`, 'POST', mine.key)).json.ticket as string;
        await openStream(agent, `${b}/v1/sessions/${own}/events?ticket=${ticket}`);
        t.ticket.push(performance.now() - t0);
      }
    }
    const m = Object.fromEntries(Object.entries(t).map(([k, v]) => [k, median(v)])) as Record<keyof typeof t, number>;
    console.log(`tenants and keys (${KEYS} keys, ${TENANTS} tenants; medians of ${per * rounds} requests, ${t.ticket.length} stream opens)`);
    console.log(`  GET a session, no keys (baseline)        ${us(m.plain)}`);
    console.log(`  GET a session, key among ${KEYS}, policy ${us(m.keyed)}   ${(m.keyed / m.plain).toFixed(2)}× the baseline`);
    console.log(`  GET a missing session (404)              ${us(m.missing)}`);
    console.log(`  GET another tenant's session (404)       ${us(m.foreign)}   ${(m.foreign / m.missing).toFixed(3)}× a missing one`);
    console.log(`  open the event stream with the header    ${us(m.header)}`);
    console.log(`  take a ticket and open the stream with it ${us(m.ticket)}   ${(m.ticket / m.header).toFixed(2)}× the header`);
  } finally {
    await agent.close();
    await stopChildren(children);
    await fs.rm(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
