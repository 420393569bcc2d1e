// Direct-turn throughput by store and by number of replicas, all measured in one run on this
// machine with the same client: POST /v1/sessions/{id}/turns?wait=5 with one Read of a small file
// on BENCH_CONNECTIONS (8) connections, each with a session of its own:
//   - SQLite, one server (the baseline the others are divided by);
//   - PostgreSQL, one replica;
//   - PostgreSQL, three replicas, each turn posted to the replica that runs its session;
//   - PostgreSQL, three replicas, each turn posted to another replica (forwarded to the owner
//     through the database, as a proxy without affinity would do).
// Beside throughput, each target reports how long the servers' event loops stalled (the longest
// delay prom-client's monitor saw during the run, read from /metrics, largest over the servers) and
// what a bystander sees: GET /healthz on the first server every 10 ms during the load, p99; and
// a bystander session of its own whose stream is open where connection 0 posts (for the
// forwarded target, another replica than its owner), which posts a one-LS turn every 50 ms: how
// long until its stream shows the turn completed, p50 and p99.
// PostgreSQL is a throwaway cluster with its default durability (fsync on), started and removed
// by the bench, reached through a relay that holds every chunk BENCH_PG_DELAY_MS (2) in each
// direction (bench/delay-relay.ts): the round trip of a database in another zone, not the
// microseconds of a socket on the same machine (0 turns the relay off). The servers are child
// processes, the load comes from this process over loopback.
//   npm run bench:replicas              (defaults: 5 s per target after 1 s warm-up)
//   BENCH_SECONDS=10 npm run bench:replicas
//   BENCH_PG_DELAY_MS=0 npm run bench:replicas       (PostgreSQL on the same machine, no relay)
//   BENCH_PG_SYNCHRONOUS_COMMIT=off npm run bench:replicas   (the databases commit without waiting
//     for their WAL flush: what an operator trading the last moments of commits on a database
//     crash for throughput would see)
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { Pool } from 'undici';
// @ts-expect-error -- a plain script of the repository, without type declarations
import { startCluster, stopCluster } from '../scripts/pg-cluster.mjs';
import { delayedDatabaseUrl, type DelayRelay } from './delay-relay.js';
import { fmt, freePort, load, quantile, root, startChild, stopChildren, type Result } from './lib.js';

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 8);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const WARMUP_S = 1;
const DELAY_MS = Number(process.env.BENCH_PG_DELAY_MS ?? 2);
if (!Number.isFinite(DELAY_MS) || DELAY_MS < 0 || DELAY_MS > 1000) throw new Error(`BENCH_PG_DELAY_MS must be 0–1000, got ${process.env.BENCH_PG_DELAY_MS}`);

interface Target {
  label: string;
  /** The servers' URLs. */
  urls: string[];
  /** For connection i: the server its session is created on, and the one its turns are posted to. */
  owner(i: number): number;
  poster(i: number): number;
}

interface Measured extends Result {
  /** GET /healthz on the first server during the load, p99 (ms). */
  healthzP99: number;
  /** The longest event-loop delay any server saw during the load (ms). */
  maxStallMs: number;
  /** A bystander's turn, from its post until its stream shows it completed: p50 and p99 (ms). */
  streamP50: number;
  streamP99: number;
}

/** The longest event-loop delay since the last scrape (prom-client resets its monitor on each). */
async function maxStallSinceLastScrape(url: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const m = /^norma_nodejs_eventloop_lag_max_seconds (\S+)$/m.exec(text);
  if (!m) throw new Error(`${url}/metrics has no norma_nodejs_eventloop_lag_max_seconds`);
  return Number(m[1]) * 1000;
}

/** GET /healthz every 10 ms until stopped; the latencies. */
function probeHealth(url: string): { stop(): Promise<number[]> } {
  const latencies: number[] = [];
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      const t0 = performance.now();
      await (await fetch(`${url}/healthz`)).arrayBuffer();
      latencies.push(performance.now() - t0);
      await new Promise((r) => setTimeout(r, 10));
    }
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
      return latencies.sort((a, b) => a - b);
    },
  };
}

/**
 * A bystander on a session of its own: its stream open on `streamUrl`, a one-LS turn posted to
 * `postUrl` (no wait) every 50 ms; how long from each post until the stream shows its
 * turn.completed (ms).
 */
async function bystander(postUrl: string, streamUrl: string): Promise<{ stop(): Promise<number[]> }> {
  const s = (await (await fetch(`${postUrl}/v1/sessions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).json()) as { id: string };
  const controller = new AbortController();
  const res = await fetch(`${streamUrl}/v1/sessions/${s.id}/events`, { signal: controller.signal });
  const seen = new Map<string, number>();
  const waiters = new Map<string, (at: number) => void>();
  const reading = (async () => {
    const decoder = new TextDecoder();
    let buffer = '';
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      const at = performance.now();
      buffer += decoder.decode(chunk, { stream: true });
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        if (!/^event: turn\.completed$/m.test(block)) continue;
        const data = /^data: (.*)$/m.exec(block)?.[1];
        const id = data ? (JSON.parse(data) as { turn?: { id?: string } }).turn?.id : undefined;
        if (!id) continue;
        const w = waiters.get(id);
        if (w) w(at);
        else seen.set(id, at);
      }
    }
  })().catch(() => undefined);
  const latencies: number[] = [];
  let stopped = false;
  const body = JSON.stringify({ tool_uses: [{ name: 'LS', input: { path: '.' } }] });
  const loop = (async () => {
    while (!stopped) {
      const t0 = performance.now();
      const r = await fetch(`${postUrl}/v1/sessions/${s.id}/turns`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      const turn = (await r.json()) as { id: string };
      const at = seen.get(turn.id) ?? (await new Promise<number>((resolve) => waiters.set(turn.id, resolve)));
      latencies.push(at - t0);
      await new Promise((r2) => setTimeout(r2, 50));
    }
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
      controller.abort();
      await reading;
      return latencies.sort((a, b) => a - b);
    },
  };
}

async function measure(t: Target): Promise<Measured> {
  const pools = t.urls.map((u) => new Pool(u, { connections: CONNECTIONS, pipelining: 1 }));
  try {
    const sessions: string[] = [];
    for (let i = 0; i < CONNECTIONS; i++) {
      const res = await pools[t.owner(i)]!.request({ method: 'POST', path: '/v1/sessions', body: '{}', headers: { 'content-type': 'application/json' } });
      const s = (await res.body.json()) as { id: string; workspace: string };
      await fs.writeFile(path.join(s.workspace, 'small.txt'), 'hello\nworld\n');
      sessions.push(s.id);
    }
    const body = JSON.stringify({ tool_uses: [{ name: 'Read', input: { file_path: 'small.txt' } }] });
    await Promise.all(t.urls.map(maxStallSinceLastScrape)); // starts the stall count afresh
    const health = probeHealth(t.urls[0]!);
    // The bystander's session is on the first server; its stream where connection 0 posts.
    const watcher = await bystander(t.urls[0]!, t.urls[t.poster(0)]!);
    // One pool per server; connection i's requests go to its poster.
    const results = await Promise.all(
      pools.map((p, server) => {
        const mine = sessions.flatMap((id, i) => (t.poster(i) === server ? [id] : []));
        if (mine.length === 0) return null;
        return load(
          p,
          mine.length,
          (c) => ({ path: `/v1/sessions/${mine[c]}/turns?wait=5`, body }),
          (status, text) => {
            if (status !== 200 || !text.includes('"status":"completed"')) throw new Error(`${t.label}: turn answered ${status}: ${text.slice(0, 300)}`);
          },
          { seconds: SECONDS, warmupS: WARMUP_S },
        );
      }),
    );
    const healthz = await health.stop();
    const streamed = await watcher.stop();
    const stalls = await Promise.all(t.urls.map(maxStallSinceLastScrape));
    const done = results.filter((r): r is Result => r !== null);
    const latencies = done.map((r) => r.p50);
    return {
      healthzP99: quantile(healthz, 0.99),
      streamP50: quantile(streamed, 0.5),
      streamP99: quantile(streamed, 0.99),
      maxStallMs: Math.max(...stalls),
      requests: done.reduce((n, r) => n + r.requests, 0),
      seconds: Math.max(...done.map((r) => r.seconds)),
      p50: latencies.reduce((a, b) => a + b, 0) / latencies.length,
      p99: Math.max(...done.map((r) => r.p99)),
    };
  } finally {
    await Promise.all(pools.map((p) => p.close()));
  }
}

async function main(): Promise<void> {
  await fs.access(path.join(root, 'dist/src/main.js')).catch(() => {
    throw new Error('dist/ is missing: run `npm run build` (npm run bench:replicas does it for you)');
  });
  const dirs: string[] = [];
  const children: ChildProcess[] = [];
  const relays: DelayRelay[] = [];
  const cluster = (await startCluster({ durable: true })) as { url: string; dir: string };
  const tmp = async () => {
    const d = await fs.mkdtemp(path.join(os.tmpdir(), 'norma-bench-'));
    dirs.push(d);
    return d;
  };
  const database = async (name: string): Promise<string> => {
    const c = new pg.Client({ connectionString: cluster.url });
    await c.connect();
    await c.query(`CREATE DATABASE ${name}`);
    const sync = process.env.BENCH_PG_SYNCHRONOUS_COMMIT;
    if (sync !== undefined) {
      if (!/^(on|off|local|remote_write|remote_apply)$/.test(sync)) throw new Error(`BENCH_PG_SYNCHRONOUS_COMMIT must be on, off, local, remote_write or remote_apply, got ${sync}`);
      await c.query(`ALTER DATABASE ${name} SET synchronous_commit = ${sync}`);
    }
    await c.end();
    const u = new URL(cluster.url);
    u.pathname = `/${name}`;
    if (DELAY_MS === 0) return u.toString();
    const delayed = await delayedDatabaseUrl(u.toString(), DELAY_MS);
    relays.push(delayed.relay);
    return delayed.url;
  };
  const server = async (env: Record<string, string>): Promise<string> => {
    const port = await freePort();
    children.push(await startChild([path.join(root, 'dist/src/main.js')], { NORMA_LOG_LEVEL: 'warn', ...env }, port));
    return `http://127.0.0.1:${port}`;
  };
  const stopAll = async () => {
    await stopChildren(children.splice(0));
  };
  try {
    console.log(
      `replicas bench: ${SECONDS} s per target after ${WARMUP_S} s warm-up, ${CONNECTIONS} connections, ${os.cpus().length} CPUs, node ${process.version}, PostgreSQL synchronous_commit=${process.env.BENCH_PG_SYNCHRONOUS_COMMIT ?? 'on'}, ${DELAY_MS} ms each way to it`,
    );
    const out: [string, Measured][] = [];
    const run = async (t: Target) => {
      const r = await measure(t);
      out.push([t.label, r]);
      console.log(
        `  ${t.label.padEnd(44)} ${fmt(r)}   /healthz p99 ${r.healthzP99.toFixed(1)} ms   longest stall ${r.maxStallMs.toFixed(0)} ms   bystander's stream p50 ${r.streamP50.toFixed(1)} ms, p99 ${r.streamP99.toFixed(1)} ms`,
      );
      await stopAll();
    };

    await run({ label: 'SQLite, one server', urls: [await server({ NORMA_DATA_DIR: await tmp() })], owner: () => 0, poster: () => 0 });

    const one = await database('bench_one');
    await run({
      label: 'PostgreSQL, one replica',
      urls: [await server({ NORMA_DATA_DIR: await tmp(), NORMA_STORE: 'postgres', NORMA_DATABASE_URL: one, NORMA_NODE_ID: 'solo' })],
      owner: () => 0,
      poster: () => 0,
    });

    for (const [label, shift] of [
      ['PostgreSQL, three replicas, posted to owner', 0],
      ['PostgreSQL, three replicas, posted to another', 1],
    ] as const) {
      const url = await database(`bench_three_${shift}`);
      const shared = await tmp();
      const urls: string[] = [];
      for (const id of ['r1', 'r2', 'r3']) urls.push(await server({ NORMA_DATA_DIR: shared, NORMA_STORE: 'postgres', NORMA_DATABASE_URL: url, NORMA_NODE_ID: id }));
      await run({ label, urls, owner: (i) => i % 3, poster: (i) => (i + shift) % 3 });
    }

    const base = out[0]![1];
    const rate = (r: Result) => r.requests / r.seconds;
    console.log('  throughput against SQLite, one server, in this run:');
    for (const [label, r] of out.slice(1)) {
      console.log(
        `    ${label.padEnd(44)} ${(rate(r) / rate(base)).toFixed(2)}×   /healthz p99 ${(r.healthzP99 / base.healthzP99).toFixed(1)}×   bystander's stream p50 ${(r.streamP50 / base.streamP50).toFixed(1)}×`,
      );
    }
    const single = out[1]?.[1];
    if (single) {
      console.log('  against PostgreSQL, one replica:');
      for (const [label, r] of out.slice(2)) console.log(`    ${label.padEnd(44)} ${(rate(r) / rate(single)).toFixed(2)}×`);
    }
  } finally {
    await stopAll();
    await Promise.all(relays.map((r) => r.close()));
    stopCluster(cluster.dir);
    await Promise.all(dirs.map((d) => fs.rm(d, { recursive: true, force: true })));
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
