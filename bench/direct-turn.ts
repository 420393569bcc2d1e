// Direct turns: POST /v1/sessions/{id}/turns?wait=5 with one Read of a small file (durable
// SQLite store, every state change committed before its event is delivered), against a bare
// Fastify JSON route measured in the same run on the same machine, with the same client:
//   - latency on one connection: the turn's p50 against the bare route's (target ≤ 3×),
//   - throughput on BENCH_CONNECTIONS (8) connections: turns/s against requests/s (target ≥ 0.20×).
// Both servers run as child processes; the load comes from this process over loopback.
//   npm run bench            (defaults: 5 s per target after 1 s warm-up)
//   BENCH_CONNECTIONS=16 BENCH_SECONDS=10 npm run bench
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Pool } from 'undici';
import { fmt, freePort, load as loadFor, root, startChild, stopChildren, type Result } from './lib.js';

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 8);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const WARMUP_S = 1;
const load = (pool: Pool, connections: number, makeRequest: (conn: number) => { path: string; body: string }, check: (status: number, body: string) => void): Promise<Result> =>
  loadFor(pool, connections, makeRequest, check, { seconds: SECONDS, warmupS: WARMUP_S });

async function main(): Promise<void> {
  await fs.access(path.join(root, 'dist/src/main.js')).catch(() => {
    throw new Error('dist/ is missing: run `npm run build` (npm run bench does it for you)');
  });
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'norma-bench-'));
  const children: ChildProcess[] = [];
  try {
    const barePort = await freePort();
    children.push(await startChild([path.join(root, 'bench/bare-server.mjs')], {}, barePort));
    const normaPort = await freePort();
    children.push(
      await startChild([path.join(root, 'dist/src/main.js')], { NORMA_DATA_DIR: dataDir, NORMA_LOG_LEVEL: 'warn' }, normaPort),
    );

    const bare = new Pool(`http://127.0.0.1:${barePort}`, { connections: CONNECTIONS, pipelining: 1 });
    const norma = new Pool(`http://127.0.0.1:${normaPort}`, { connections: CONNECTIONS, pipelining: 1 });

    // One session per connection: a session runs one turn at a time.
    const sessions: string[] = [];
    for (let i = 0; i < CONNECTIONS; i++) {
      const res = await norma.request({ method: 'POST', path: '/v1/sessions', body: '{}', headers: { 'content-type': 'application/json' } });
      const s = (await res.body.json()) as { id: string; workspace: string };
      await fs.writeFile(path.join(s.workspace, 'small.txt'), 'hello\nworld\n');
      sessions.push(s.id);
    }
    const turnBody = JSON.stringify({ tool_uses: [{ name: 'Read', input: { file_path: 'small.txt' } }] });
    const echoBody = JSON.stringify({ tool_uses: [{ name: 'Read', input: { file_path: 'small.txt' } }] });

    console.log(`direct-turn bench: ${SECONDS} s per target after ${WARMUP_S} s warm-up, ${os.cpus().length} CPUs, node ${process.version}`);
    const bareLoad = (n: number) =>
      load(bare, n, () => ({ path: '/echo', body: echoBody }), (status) => {
        if (status !== 200) throw new Error(`baseline answered ${status}`);
      });
    const turnLoad = (n: number) =>
      load(norma, n, (c) => ({ path: `/v1/sessions/${sessions[c]}/turns?wait=5`, body: turnBody }), (status, body) => {
        if (status !== 200 || !body.includes('"status":"completed"') || !body.includes('     1\\thello')) {
          throw new Error(`turn answered ${status}: ${body.slice(0, 300)}`);
        }
      });
    console.log('  one connection');
    const bare1 = await bareLoad(1);
    console.log(`    bare Fastify JSON route     ${fmt(bare1)}`);
    const turns1 = await turnLoad(1);
    console.log(`    direct turn (Read, ?wait)   ${fmt(turns1)}`);
    const latency = turns1.p50 / bare1.p50;
    console.log(`  ${CONNECTIONS} connections`);
    const baseline = await bareLoad(CONNECTIONS);
    console.log(`    bare Fastify JSON route     ${fmt(baseline)}`);
    const turns = await turnLoad(CONNECTIONS);
    console.log(`    direct turn (Read, ?wait)   ${fmt(turns)}`);
    const ratio = turns.requests / turns.seconds / (baseline.requests / baseline.seconds);
    console.log(`  latency: a direct turn's p50 is ${latency.toFixed(2)}× the bare route's (target ≤ 3×: ${latency <= 3 ? 'met' : 'MISSED'})`);
    console.log(`  throughput: direct turns run at ${ratio.toFixed(3)}× the bare route's (target ≥ 0.20×: ${ratio >= 0.2 ? 'met' : 'MISSED'})`);
    await bare.close();
    await norma.close();
  } finally {
    await stopChildren(children);
    await fs.rm(dataDir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
