// Direct-turn throughput: POST /v1/sessions/{id}/turns?wait=5 with one Read of a small file,
// against a bare Fastify JSON route measured in the same run on the same machine.
// Both servers run as child processes; the load comes from this process over loopback.
//   npm run bench            (defaults: 8 connections, 5 s per target after 1 s warm-up)
//   BENCH_CONNECTIONS=16 BENCH_SECONDS=10 npm run bench
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Pool } from 'undici';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 8);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const WARMUP_S = 1;

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });
}

async function start(args: string[], env: Record<string, string>, port: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, args, { cwd: root, env: { ...process.env, ...env, PORT: String(port) }, stdio: ['ignore', 'ignore', 'inherit'] });
  for (let i = 0; i < 100; i++) {
    try {
      await new Promise<void>((resolve, reject) => {
        const s = net.connect(port, '127.0.0.1', () => (s.end(), resolve()));
        s.on('error', reject);
      });
      return child;
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  child.kill('SIGKILL');
  throw new Error(`server ${args.join(' ')} did not start on port ${port}`);
}

interface Result {
  requests: number;
  seconds: number;
  p50: number;
  p99: number;
}

/** Each connection sends requests back to back; `makeRequest(i)` gives the i-th connection's request. */
async function load(pool: Pool, makeRequest: (conn: number) => { path: string; body: string }, check: (status: number, body: string) => void): Promise<Result> {
  const latencies: number[] = [];
  let measuring = false;
  let stop = false;
  const worker = async (conn: number) => {
    while (!stop) {
      const { path: p, body } = makeRequest(conn);
      const t0 = performance.now();
      const res = await pool.request({ method: 'POST', path: p, body, headers: { 'content-type': 'application/json' } });
      const text = await res.body.text();
      const dt = performance.now() - t0;
      check(res.statusCode, text);
      if (measuring) latencies.push(dt);
    }
  };
  const workers = Array.from({ length: CONNECTIONS }, (_, i) => worker(i));
  await new Promise((r) => setTimeout(r, WARMUP_S * 1000));
  measuring = true;
  const t0 = performance.now();
  await new Promise((r) => setTimeout(r, SECONDS * 1000));
  measuring = false;
  const seconds = (performance.now() - t0) / 1000;
  stop = true;
  await Promise.all(workers);
  latencies.sort((a, b) => a - b);
  const q = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))] ?? NaN;
  return { requests: latencies.length, seconds, p50: q(0.5), p99: q(0.99) };
}

const fmt = (r: Result) =>
  `${(r.requests / r.seconds).toFixed(0).padStart(7)} req/s   p50 ${r.p50.toFixed(2).padStart(6)} ms   p99 ${r.p99.toFixed(2).padStart(6)} ms   (${r.requests} requests)`;

async function main(): Promise<void> {
  await fs.access(path.join(root, 'dist/src/main.js')).catch(() => {
    throw new Error('dist/ is missing: run `npm run build` (npm run bench does it for you)');
  });
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'norma-bench-'));
  const children: ChildProcess[] = [];
  try {
    const barePort = await freePort();
    children.push(await start([path.join(root, 'bench/bare-server.mjs')], {}, barePort));
    const normaPort = await freePort();
    children.push(
      await start([path.join(root, 'dist/src/main.js')], { NORMA_DATA_DIR: dataDir, NORMA_LOG_LEVEL: 'warn' }, normaPort),
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

    console.log(`direct-turn bench: ${CONNECTIONS} connections, ${SECONDS} s per target after ${WARMUP_S} s warm-up, ${os.cpus().length} CPUs, node ${process.version}`);
    const baseline = await load(bare, () => ({ path: '/echo', body: echoBody }), (status) => {
      if (status !== 200) throw new Error(`baseline answered ${status}`);
    });
    console.log(`  bare Fastify JSON route     ${fmt(baseline)}`);
    const turns = await load(norma, (c) => ({ path: `/v1/sessions/${sessions[c]}/turns?wait=5`, body: turnBody }), (status, body) => {
      if (status !== 200 || !body.includes('"status":"completed"') || !body.includes('     1\\thello')) {
        throw new Error(`turn answered ${status}: ${body.slice(0, 300)}`);
      }
    });
    console.log(`  direct turn (Read, ?wait)   ${fmt(turns)}`);
    const ratio = turns.requests / turns.seconds / (baseline.requests / baseline.seconds);
    console.log(`  ratio: direct turns run at ${(ratio * 100).toFixed(1)}% of the bare route's throughput (${ratio.toFixed(3)}x)`);
    await bare.close();
    await norma.close();
  } finally {
    for (const c of children) c.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 300));
    for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
    await fs.rm(dataDir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
