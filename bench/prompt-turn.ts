// Prompt-turn latency and memory against a loopback fake Anthropic endpoint that answers at once
// (the server speaks the real streaming wire format to it). Measured in one run:
//  1. tool-call gap: from the fake provider finishing a `tool_use` for a small Read to the server's
//     next model request arriving with the paired tool_result (median, p90; target p50 ≤ 2 ms),
//  2. the full prompt round trip: POST /turns?wait → 200 completed, two model calls and one Read
//     (target p50 ≤ 8 ms),
//  3. RSS of the server process before and after 1,000 prompt turns (target < 20 MB growth), each
//     reading taken after a full GC (the server is preloaded with bench/gc-on-signal.mjs),
// against baselines taken in the same run: one model call made straight to the fake (no server),
// a direct Read turn through the server, and the RSS growth over 1,000 direct-turn sessions.
//   npm run bench:prompt           (BENCH_TURNS=200 BENCH_MEMORY_TURNS=1000)
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Agent, request } from 'undici';
import { startFakeAnthropic } from './fake-anthropic.js';
import { apiCall, freePort, quantile, root, startChild, stopChildren } from './lib.js';

const TURNS = Number(process.env.BENCH_TURNS ?? 200);
const MEMORY_TURNS = Number(process.env.BENCH_MEMORY_TURNS ?? 1000);
const agent = new Agent({ connections: 4 });

// ---- the client -------------------------------------------------------------------------------

const api = (base: string, method: string, p: string, body?: unknown) => apiCall(agent, base, method, p, body);

/** RSS after a full collection in the server (SIGUSR2, see gc-on-signal.mjs). */
async function settledRssKiB(pid: number): Promise<number> {
  process.kill(pid, 'SIGUSR2');
  await new Promise((r) => setTimeout(r, 300));
  return rssKiB(pid);
}

async function rssKiB(pid: number): Promise<number> {
  const status = await fs.readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)![1]);
}

function stats(label: string, xs: number[]): { median: number; p90: number } {
  const sorted = [...xs].sort((a, b) => a - b);
  const median = quantile(sorted, 0.5);
  const p90 = quantile(sorted, 0.9);
  console.log(`${label.padEnd(44)} median ${median.toFixed(2)} ms   p90 ${p90.toFixed(2)} ms   (n=${xs.length})`);
  return { median, p90 };
}

async function main(): Promise<void> {
  const fake = await startFakeAnthropic();
  const { gaps, finishedAt } = fake;
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'norma-bench-prompt-'));
  const port = await freePort();
  const child = await startChild(
    ['--expose-gc', '--import', path.join(root, 'bench/gc-on-signal.mjs'), path.join(root, 'dist/src/main.js')],
    {
      NORMA_DATA_DIR: dataDir,
      NORMA_LOG_LEVEL: 'warn',
      NORMA_SANDBOX: 'off',
      NORMA_MODEL_PROVIDER: 'anthropic',
      NORMA_MODEL: 'bench',
      NORMA_MODEL_BASE_URL: `http://127.0.0.1:${fake.port}`,
      NORMA_MODEL_API_KEY: 'bench-key',
    },
    port,
  );
  const base = `http://127.0.0.1:${port}`;
  try {
    const session = async () => {
      const s = await api(base, 'POST', '/v1/sessions', { permission_mode: 'acceptEdits' });
      await fs.writeFile(path.join(s.workspace, 'a.txt'), 'hello from the bench\n'.repeat(20));
      return s;
    };
    const promptTurn = async (s: { id: string }) => {
      const t0 = performance.now();
      const turn = await api(base, 'POST', `/v1/sessions/${s.id}/turns?wait=30`, { prompt: 'a.txt' });
      const ms = performance.now() - t0;
      if (turn.status !== 'completed' || turn.results[0]?.is_error !== false) throw new Error(`unexpected turn: ${JSON.stringify(turn).slice(0, 500)}`);
      return ms;
    };

    // Warm-up: JIT, SQLite pages, connection pools.
    for (let i = 0; i < 30; i++) {
      const s = await session();
      await promptTurn(s);
      await api(base, 'DELETE', `/v1/sessions/${s.id}`);
    }
    gaps.length = 0;

    // Baselines in this run.
    const providerCall: number[] = [];
    const body = JSON.stringify({ model: 'bench', max_tokens: 100, stream: true, messages: [{ role: 'user', content: [{ type: 'text', text: 'a.txt' }] }] });
    for (let i = 0; i < TURNS; i++) {
      const t0 = performance.now();
      const res = await request(`http://127.0.0.1:${fake.port}/v1/messages`, { method: 'POST', body, dispatcher: agent, headers: { 'content-type': 'application/json' } });
      await res.body.text();
      providerCall.push(performance.now() - t0);
    }
    finishedAt.clear();
    const directRead: number[] = [];
    const ds = await session();
    for (let i = 0; i < TURNS; i++) {
      const t0 = performance.now();
      const turn = await api(base, 'POST', `/v1/sessions/${ds.id}/turns?wait=30`, { tool_uses: [{ name: 'Read', input: { file_path: 'a.txt' } }] });
      directRead.push(performance.now() - t0);
      if (turn.status !== 'completed') throw new Error('direct Read failed');
    }
    await api(base, 'DELETE', `/v1/sessions/${ds.id}`);

    // Prompt turns: one session, many turns would grow the conversation; a session per turn keeps each the same.
    const roundTrips: number[] = [];
    for (let i = 0; i < TURNS; i++) {
      const s = await session();
      roundTrips.push(await promptTurn(s));
      await api(base, 'DELETE', `/v1/sessions/${s.id}`);
    }

    console.log(`Prompt turns against a loopback fake Anthropic endpoint (${TURNS} each; ${os.cpus().length} cores)`);
    const gap = stats('tool-call gap (tool_use end → tool_result in)', gaps);
    const rt = stats('prompt round trip (2 model calls + Read)', roundTrips);
    const call = stats('baseline: one model call, no server', providerCall);
    const read = stats('baseline: direct Read turn through server', directRead);
    const floor = 2 * call.median + read.median;
    console.log(`round trip / (2 model calls + direct Read) = ${(rt.median / floor).toFixed(2)}×   tool-call gap / direct Read turn = ${(gap.median / read.median).toFixed(2)}×`);
    console.log(`targets: gap median ≤ 2 ms: ${gap.median <= 2 ? 'met' : 'MISSED'}; round trip median ≤ 8 ms: ${rt.median <= 8 ? 'met' : 'MISSED'}`);

    // Memory: RSS of the server (after a full GC) before and after MEMORY_TURNS sessions, each with
    // one turn: direct Read turns first (the baseline), then prompt turns.
    const direct = async () => {
      const s = await session();
      const turn = await api(base, 'POST', `/v1/sessions/${s.id}/turns?wait=30`, { tool_uses: [{ name: 'Read', input: { file_path: 'a.txt' } }] });
      if (turn.status !== 'completed') throw new Error('direct Read failed');
      await api(base, 'DELETE', `/v1/sessions/${s.id}`);
    };
    const prompt = async () => {
      const s = await session();
      await promptTurn(s);
      await api(base, 'DELETE', `/v1/sessions/${s.id}`);
    };
    const growth = async (label: string, run: () => Promise<void>) => {
      const before = await settledRssKiB(child.pid!);
      for (let i = 0; i < MEMORY_TURNS; i++) await run();
      const after = await settledRssKiB(child.pid!);
      const mib = (after - before) / 1024;
      console.log(`server RSS over ${MEMORY_TURNS} ${label}: ${(before / 1024).toFixed(1)} → ${(after / 1024).toFixed(1)} MiB (growth ${mib.toFixed(1)} MiB)`);
      return mib;
    };
    const directGrowth = await growth('direct-turn sessions (baseline)', direct);
    const promptGrowth = await growth('prompt-turn sessions', prompt);
    console.log(
      `RSS growth: prompt ${promptGrowth.toFixed(1)} MiB vs direct ${directGrowth.toFixed(1)} MiB; target < 20 MB: ${promptGrowth * 1.048576 < 20 ? 'met' : 'MISSED'}`,
    );
  } finally {
    await stopChildren([child]);
    await fake.close();
    await agent.close();
    await fs.rm(dataDir, { recursive: true, force: true });
  }
}

await main();
