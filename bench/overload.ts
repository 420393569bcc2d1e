// Overload: 500 sessions, each a client posting direct turns (one LS, `?wait=30`) back to back,
// far more than one server can run (5× and beyond its turns per second), for BENCH_SECONDS (10).
// Two servers measured in the same run on SQLite, the same load against each:
//   - with turn admission as it ships (NORMA_MAX_RUNNING_TURNS 128, a 5 s bound on the wait);
//   - the baseline: admission out of the way (places and queue far above the load), every turn
//     started at once, as before admission existed.
// Printed per server: turns completed per second; the p50, p99 and longest answer of an admitted
// turn; the longest a request waited for any answer (the bound is 5 s); refusals (503/429 with
// Retry-After) and the share of clients that got no turn done at all (starved).
//   npm run bench:overload
//   BENCH_STORE=postgres npm run bench:overload   (the same on PostgreSQL: a throwaway cluster,
//     reached through a relay holding every chunk BENCH_PG_DELAY_MS (2) in each direction)
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { Pool } from 'undici';
// @ts-expect-error -- a plain script of the repository, without type declarations
import { startCluster, stopCluster } from '../scripts/pg-cluster.mjs';
import { delayedDatabaseUrl, type DelayRelay } from './delay-relay.js';
import { freePort, quantile, root, startChild, stopChildren } from './lib.js';

const fmt = (n: number): string => (n >= 100 ? n.toFixed(0) : n.toFixed(2));

const SESSIONS = Number(process.env.BENCH_SESSIONS ?? 500);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const STORE = process.env.BENCH_STORE ?? 'sqlite';
if (STORE !== 'sqlite' && STORE !== 'postgres') throw new Error(`BENCH_STORE must be sqlite or postgres, got ${STORE}`);
const DELAY_MS = Number(process.env.BENCH_PG_DELAY_MS ?? 2);
if (!Number.isFinite(DELAY_MS) || DELAY_MS < 0 || DELAY_MS > 1000) throw new Error(`BENCH_PG_DELAY_MS must be 0–1000, got ${process.env.BENCH_PG_DELAY_MS}`);

const relays: DelayRelay[] = [];
let cluster: { url: string; dir: string } | undefined;

/** The server's store settings: SQLite in its data directory, or a database of its own on the cluster. */
async function storeEnv(name: string): Promise<Record<string, string>> {
  if (STORE === 'sqlite') return {};
  cluster ??= (await startCluster({ durable: true })) as { url: string; dir: string };
  const c = new pg.Client({ connectionString: cluster.url });
  await c.connect();
  await c.query(`CREATE DATABASE ${name}`);
  await c.end();
  const u = new URL(cluster.url);
  u.pathname = `/${name}`;
  let url = u.toString();
  if (DELAY_MS > 0) {
    const delayed = await delayedDatabaseUrl(url, DELAY_MS);
    relays.push(delayed.relay);
    url = delayed.url;
  }
  return { NORMA_STORE: 'postgres', NORMA_DATABASE_URL: url, NORMA_NODE_ID: name };
}

interface Outcome {
  label: string;
  completed: number;
  refused: number;
  retryAfterMissing: number;
  admittedMs: number[];
  longestAnyMs: number;
  starved: number;
}

async function measure(label: string, env: Record<string, string>): Promise<Outcome> {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'norma-bench-overload-'));
  const port = await freePort();
  const children = [await startChild([path.join(root, 'dist/src/main.js')], { NORMA_LOG_LEVEL: 'warn', NORMA_DATA_DIR: dataDir, ...env }, port)];
  const base = `http://127.0.0.1:${port}`;
  const pool = new Pool(base, { connections: SESSIONS + 8, pipelining: 1 });
  try {
    const ids: string[] = [];
    for (let i = 0; i < SESSIONS; i++) {
      const res = await pool.request({ method: 'POST', path: '/v1/sessions', body: '{}', headers: { 'content-type': 'application/json' } });
      const body = JSON.parse(await res.body.text()) as { id: string };
      ids.push(body.id);
    }
    const out: Outcome = { label, completed: 0, refused: 0, retryAfterMissing: 0, admittedMs: [], longestAnyMs: 0, starved: 0 };
    const body = JSON.stringify({ tool_uses: [{ name: 'LS', input: { path: '.' } }] });
    const until = Date.now() + SECONDS * 1000;
    const done = new Array<number>(SESSIONS).fill(0);
    await Promise.all(
      ids.map(async (id, i) => {
        while (Date.now() < until) {
          const t0 = performance.now();
          const res = await pool.request({ method: 'POST', path: `/v1/sessions/${id}/turns?wait=30`, body, headers: { 'content-type': 'application/json' } });
          await res.body.text();
          const ms = performance.now() - t0;
          out.longestAnyMs = Math.max(out.longestAnyMs, ms);
          if (res.statusCode === 200) {
            out.completed++;
            done[i]!++;
            out.admittedMs.push(ms);
          } else if (res.statusCode === 503 || res.statusCode === 429) {
            out.refused++;
            if (res.headers['retry-after'] === undefined) out.retryAfterMissing++;
            // A client that honours Retry-After would wait; this one comes back after 50 ms to keep the pressure on.
            await new Promise((r) => setTimeout(r, 50));
          } else throw new Error(`${label}: turn answered ${res.statusCode}`);
        }
      }),
    );
    out.starved = done.filter((n) => n === 0).length;
    out.admittedMs.sort((a, b) => a - b);
    return out;
  } finally {
    await pool.close();
    await stopChildren(children);
    await fs.rm(dataDir, { recursive: true, force: true });
  }
}

await fs.access(path.join(root, 'dist/src/main.js'));
console.log(
  `overload bench: ${SESSIONS} sessions posting direct turns back to back for ${SECONDS} s, ${os.cpus().length} CPUs, node ${process.version}, ${STORE === 'sqlite' ? 'SQLite' : `PostgreSQL ${DELAY_MS} ms each way`}`,
);
let rows: Outcome[];
try {
  rows = [
    await measure('admission (as shipped)', await storeEnv('bench_admission')),
    await measure('baseline: no admission limit', {
      ...(await storeEnv('bench_baseline')),
      NORMA_MAX_RUNNING_TURNS: '100000',
      NORMA_TURN_QUEUE: '100000',
      NORMA_TURN_QUEUE_PER_TENANT: '100000',
      NORMA_TURN_QUEUE_WAIT_MS: '60000',
    }),
  ];
} finally {
  await Promise.all(relays.map((r) => r.close()));
  if (cluster) stopCluster(cluster.dir);
}
for (const r of rows) {
  console.log(
    `  ${r.label.padEnd(32)} ${fmt(r.completed / SECONDS).padStart(5)} turns/s   admitted p50 ${fmt(quantile(r.admittedMs, 0.5))} ms  p99 ${fmt(quantile(r.admittedMs, 0.99))} ms  longest answer ${fmt(r.longestAnyMs)} ms   refused ${r.refused} (without Retry-After: ${r.retryAfterMissing})   clients with no turn done: ${r.starved}/${SESSIONS}`,
  );
}
const [a, b] = rows as [Outcome, Outcome];
console.log(`  admission against the baseline, same run: throughput ${fmt(a.completed / Math.max(1, b.completed))}×, longest answer ${fmt(a.longestAnyMs / b.longestAnyMs)}×, admitted p99 ${fmt(quantile(a.admittedMs, 0.99) / quantile(b.admittedMs, 0.99))}×`);
