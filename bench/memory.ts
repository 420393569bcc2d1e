// The server's footprint at rest, against a bare Fastify server measured in the same run: RSS of
// the process after a full garbage collection (both preloaded with bench/gc-on-signal.mjs),
//   - idle, once start-up work is done (target ≤ 80 MB),
//   - with 100 idle sessions (created, one direct Read turn each, then left open; target ≤ 120 MB),
// and where it goes: V8 heap, code, native (RSS minus heap), file-backed pages (the node binary).
//   npm run bench:memory          (BENCH_SESSIONS=100 BENCH_ROUNDS=3)
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Agent } from 'undici';
import { apiCall, freePort, quantile, root, startChild, stopChildren } from './lib.js';

const SESSIONS = Number(process.env.BENCH_SESSIONS ?? 100);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const SETTLE_MS = 2500; // past the validators compiled a second after listening
const agent = new Agent({ connections: 4 });

interface Reading {
  rss: number;
  anon: number;
  file: number;
}

async function settled(pid: number): Promise<Reading> {
  process.kill(pid, 'SIGUSR2');
  await new Promise((r) => setTimeout(r, 400));
  const status = await fs.readFile(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)![1]) / 1024;
  return { rss: kib('VmRSS'), anon: kib('RssAnon'), file: kib('RssFile') };
}

const gcFlags = ['--expose-gc', '--import', path.join(root, 'bench/gc-on-signal.mjs')];
const median = (xs: number[]) => quantile([...xs].sort((a, b) => a - b), 0.5);
const mb = (x: number) => `${x.toFixed(1).padStart(6)} MiB`;

async function round(dir: string, i: number): Promise<{ bare: Reading; idle: Reading; sessions: Reading }> {
  const children: ChildProcess[] = [];
  try {
    const barePort = await freePort();
    const bare = await startChild([...gcFlags, path.join(root, 'bench/bare-server.mjs')], {}, barePort);
    children.push(bare);
    const port = await freePort();
    const server = await startChild(
      [...gcFlags, path.join(root, 'dist/src/main.js')],
      { NORMA_DATA_DIR: path.join(dir, `data${i}`), NORMA_LOG_LEVEL: 'warn' },
      port,
    );
    children.push(server);
    await new Promise((r) => setTimeout(r, SETTLE_MS));
    const bareReading = await settled(bare.pid!);
    const idle = await settled(server.pid!);
    const base = `http://127.0.0.1:${port}`;
    for (let n = 0; n < SESSIONS; n++) {
      const s = await apiCall(agent, base, 'POST', '/v1/sessions', {});
      await fs.writeFile(path.join(s.workspace, 'a.txt'), 'hello\n');
      const turn = await apiCall(agent, base, 'POST', `/v1/sessions/${s.id}/turns?wait=10`, { tool_uses: [{ name: 'Read', input: { file_path: 'a.txt' } }] });
      if (turn.status !== 'completed') throw new Error(`turn ended ${turn.status}`);
    }
    const sessions = await settled(server.pid!);
    return { bare: bareReading, idle, sessions };
  } finally {
    await stopChildren(children);
  }
}

async function main(): Promise<void> {
  await fs.access(path.join(root, 'dist/src/main.js')).catch(() => {
    throw new Error('dist/ is missing: run `npm run build` (npm run bench:memory does it for you)');
  });
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'norma-bench-memory-'));
  const rounds: Awaited<ReturnType<typeof round>>[] = [];
  try {
    for (let i = 0; i < ROUNDS; i++) rounds.push(await round(dir, i));
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
    await agent.close();
  }
  const m = (pick: (r: (typeof rounds)[number]) => number) => median(rounds.map(pick));
  console.log(`RSS after a full GC, median of ${ROUNDS} rounds (${os.cpus().length} CPUs, node ${process.version})`);
  console.log(`                                   RSS          anonymous    file-backed`);
  const row = (label: string, f: (r: (typeof rounds)[number]) => Reading) =>
    console.log(`  ${label.padEnd(32)} ${mb(m((r) => f(r).rss))}   ${mb(m((r) => f(r).anon))}   ${mb(m((r) => f(r).file))}`);
  row('bare Fastify (baseline)', (r) => r.bare);
  row('server, idle', (r) => r.idle);
  row(`server, ${SESSIONS} idle sessions`, (r) => r.sessions);
  const idle = m((r) => r.idle.rss);
  const withSessions = m((r) => r.sessions.rss);
  const bare = m((r) => r.bare.rss);
  console.log(`  idle: ${(idle / bare).toFixed(2)}× the bare server; ${((withSessions - idle) * 1024 / SESSIONS).toFixed(0)} KiB per idle session`);
  // Targets in MB (10^6 bytes), as stated.
  const toMB = (mib: number) => (mib * 1048576) / 1e6;
  console.log(`targets: idle ≤ 80 MB: ${toMB(idle) <= 80 ? 'met' : 'MISSED'} (${toMB(idle).toFixed(0)} MB); ${SESSIONS} idle sessions ≤ 120 MB: ${toMB(withSessions) <= 120 ? 'met' : 'MISSED'} (${toMB(withSessions).toFixed(0)} MB)`);
}

await main();
