// How long the server takes to serve after it is started, against a baseline measured in the
// same run: the time from spawning the process to its first answer on /healthz, for
//   - `npm start` with a current build (what the README says to run: npm, the build check, the server),
//   - `node dist/src/main.js` (what the Docker image runs),
//   - a bare Fastify server (bench/bare-server.mjs): Node and Fastify alone,
// each started STARTS times in turn with a fresh data directory; medians are printed.
//   npm run bench:startup        (BENCH_STARTS=10 by default)
import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { request } from 'undici';
import { freePort, quantile, root, SERVER_NODE_FLAGS } from './lib.js';

const STARTS = Number(process.env.BENCH_STARTS ?? 10);
const median = (xs: number[]) => quantile([...xs].sort((a, b) => a - b), 0.5);

/** Spawns `argv`, polls /healthz until it answers 200, and returns the elapsed milliseconds. */
async function timeToServe(argv: string[], env: Record<string, string>, port: number): Promise<number> {
  const t0 = performance.now();
  const child = spawn(argv[0]!, argv.slice(1), { cwd: root, env: { ...process.env, ...env, PORT: String(port) }, stdio: 'ignore', detached: true });
  try {
    for (;;) {
      try {
        const res = await request(`http://127.0.0.1:${port}/healthz`, { method: 'GET' });
        await res.body.dump();
        if (res.statusCode === 200 || res.statusCode === 404) return performance.now() - t0;
      } catch {
        // not listening yet
      }
      if (performance.now() - t0 > 30_000) throw new Error(`${argv.join(' ')} did not serve within 30 s`);
      await new Promise((r) => setTimeout(r, 5));
    }
  } finally {
    // npm starts the server as its child: stop the whole group.
    try {
      process.kill(-child.pid!, 'SIGTERM');
    } catch {
      // already gone
    }
    await new Promise((r) => child.once('exit', r));
  }
}

async function main(): Promise<void> {
  await fs.access(path.join(root, 'dist/.build-hash')).catch(() => {
    throw new Error('dist/ is not built: run `npm run build` (npm run bench:startup does it for you)');
  });
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'norma-bench-startup-'));
  const runs = { npm: [] as number[], node: [] as number[], bare: [] as number[] };
  try {
    for (let i = 0; i < STARTS; i++) {
      const env = { NORMA_DATA_DIR: path.join(dir, String(i)), NORMA_LOG_LEVEL: 'warn' };
      runs.npm.push(await timeToServe(['npm', 'start', '--silent'], env, await freePort()));
      runs.node.push(await timeToServe([process.execPath, ...SERVER_NODE_FLAGS, 'dist/src/main.js'], { ...env, NORMA_DATA_DIR: path.join(dir, `n${i}`) }, await freePort()));
      runs.bare.push(await timeToServe([process.execPath, 'bench/bare-server.mjs'], {}, await freePort()));
    }
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
  const m = { npm: median(runs.npm), node: median(runs.node), bare: median(runs.bare) };
  const ms = (x: number) => `${x.toFixed(0).padStart(6)} ms`;
  console.log(`start to first answer on /healthz, median of ${STARTS} starts each`);
  console.log(`  npm start (build current)   ${ms(m.npm)}   ${(m.npm / m.bare).toFixed(2)}× the bare Fastify server`);
  console.log(`  node dist/src/main.js       ${ms(m.node)}   ${(m.node / m.bare).toFixed(2)}×`);
  console.log(`  bare Fastify (baseline)     ${ms(m.bare)}`);
  console.log(`target: npm start to first answer ≤ 1.5 s: ${m.npm <= 1500 ? 'met' : 'MISSED'}`);
}

await main();
