// Event fan-out: SUBSCRIBERS SSE clients of one session while direct turns (128 Reads each) emit
// EVENTS events, every one committed to the durable SQLite store before it is delivered. Each
// client checks that it got every seq exactly once, in order (loss and duplicates are counted),
// and measures each event's delivery latency: its arrival here minus the `time` the server gave it
// (the same clock). Baseline in the same run: a bare node:http broadcaster (bench/bare-sse.mjs)
// sending the same frames to the same number of clients at the same pace (a turn's events per
// turn's time), stamped as it writes them.
// Target: 0 lost, p99 ≤ 50 ms.
//   npm run bench:fanout          (BENCH_SUBSCRIBERS=100 BENCH_EVENTS=10000)
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Agent, request } from 'undici';
import { apiCall, freePort, quantile, root, startChild, stopChildren } from './lib.js';

const SUBSCRIBERS = Number(process.env.BENCH_SUBSCRIBERS ?? 100);
const EVENTS = Number(process.env.BENCH_EVENTS ?? 10_000);
const CALLS = 128;
const PER_TURN = 2 + 2 * CALLS; // turn.started, tool.started + tool.completed per call, turn.completed

const agent = new Agent({ connections: SUBSCRIBERS + 4, pipelining: 0 });

interface Received {
  seqs: number;
  lost: number;
  duplicates: number;
  latencies: number[];
  frames: string[];
}

/** Reads an SSE stream until seq `last`; checks order, counts what is missing or repeated. */
async function subscribe(url: string, first: number, last: number, keepFrames: boolean, connected: () => void): Promise<Received> {
  const res = await request(url, { dispatcher: agent, headers: { accept: 'text/event-stream' } });
  connected();
  const out: Received = { seqs: 0, lost: 0, duplicates: 0, latencies: [], frames: [] };
  let expected = first;
  let buf = '';
  for await (const chunk of res.body) {
    buf += chunk.toString('utf8');
    const now = Date.now();
    let end: number;
    while ((end = buf.indexOf('\n\n')) >= 0) {
      const frame = buf.slice(0, end);
      buf = buf.slice(end + 2);
      const idAt = frame.indexOf('id: ');
      const dataAt = frame.indexOf('\ndata: ');
      if (idAt < 0 || dataAt < 0) continue;
      const seq = Number(frame.slice(idAt + 4, frame.indexOf('\n', idAt)));
      if (seq < expected) out.duplicates++;
      else {
        out.lost += seq - expected;
        expected = seq + 1;
        out.seqs++;
      }
      const data = frame.slice(dataAt + 7);
      const t = data.lastIndexOf('"time":"') + 8;
      out.latencies.push(now - Date.parse(data.slice(t, data.indexOf('"', t))));
      if (keepFrames) out.frames.push(data);
      if (seq >= last) {
        res.body.destroy();
        return out;
      }
    }
  }
  out.lost += last + 1 - expected;
  return out;
}

function summary(label: string, runs: Received[], expected: number): { p50: number; p99: number; lost: number } {
  const all = runs.flatMap((r) => r.latencies).sort((a, b) => a - b);
  const lost = runs.reduce((a, r) => a + r.lost, 0);
  const dup = runs.reduce((a, r) => a + r.duplicates, 0);
  const got = runs.reduce((a, r) => a + r.seqs, 0);
  const p50 = quantile(all, 0.5);
  const p99 = quantile(all, 0.99);
  console.log(`  ${label.padEnd(34)} delivered ${got}/${expected * runs.length}  lost ${lost}  duplicated ${dup}  latency p50 ${p50} ms  p99 ${p99} ms  max ${all.at(-1)} ms`);
  return { p50, p99, lost: lost + dup };
}

async function main(): Promise<void> {
  await fs.access(path.join(root, 'dist/src/main.js')).catch(() => {
    throw new Error('dist/ is missing: run `npm run build` (npm run bench:fanout does it for you)');
  });
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'norma-bench-fanout-'));
  const children: ChildProcess[] = [];
  try {
    const port = await freePort();
    children.push(await startChild([path.join(root, 'dist/src/main.js')], { NORMA_DATA_DIR: path.join(dir, 'data'), NORMA_LOG_LEVEL: 'warn' }, port));
    const base = `http://127.0.0.1:${port}`;
    const s = await apiCall(agent, base, 'POST', '/v1/sessions', {});
    await fs.writeFile(path.join(s.workspace, 'f.txt'), 'hello\n');
    const turns = Math.ceil(EVENTS / PER_TURN);
    const first = 2; // after session.created
    const last = 1 + turns * PER_TURN;
    let connected = 0;
    const subs = Array.from({ length: SUBSCRIBERS }, (_, i) => subscribe(`${base}/v1/sessions/${s.id}/events?after=1`, first, last, i === 0, () => connected++));
    while (connected < SUBSCRIBERS) await new Promise((r) => setTimeout(r, 20));
    await new Promise((r) => setTimeout(r, 300)); // every stream attached live
    const calls = Array.from({ length: CALLS }, () => ({ name: 'Read', input: { file_path: 'f.txt' } }));
    const t0 = performance.now();
    for (let i = 0; i < turns; i++) {
      const turn = await apiCall(agent, base, 'POST', `/v1/sessions/${s.id}/turns?wait=60`, { tool_uses: calls });
      if (turn.status !== 'completed') throw new Error(`turn ended ${turn.status}`);
    }
    const received = await Promise.all(subs);
    const seconds = (performance.now() - t0) / 1000;
    const n = last - first + 1;
    console.log(`fan-out: ${SUBSCRIBERS} SSE subscribers × ${n} events (${turns} direct turns of ${CALLS} Reads), ${os.cpus().length} CPUs, node ${process.version}`);
    const norma = summary(`server (${(n / seconds).toFixed(0)} events/s in)`, received, n);
    await stopChildren(children.splice(0));

    // The baseline: the same frames from a bare broadcaster, a turn's events at a time, as often as turns ended.
    const framesFile = path.join(dir, 'frames.jsonl');
    await fs.writeFile(framesFile, received[0]!.frames.join('\n') + '\n');
    const barePort = await freePort();
    children.push(await startChild([path.join(root, 'bench/bare-sse.mjs')], { FRAMES_FILE: framesFile, SUBSCRIBERS: String(SUBSCRIBERS), BURST: String(PER_TURN), INTERVAL_MS: String(Math.round((seconds * 1000) / turns)) }, barePort));
    const bareSubs = Array.from({ length: SUBSCRIBERS }, () => subscribe(`http://127.0.0.1:${barePort}/events`, 1, n, false, () => undefined));
    const bare = summary('bare node:http broadcaster', await Promise.all(bareSubs), n);
    console.log(`  p99 delivery: ${(norma.p99 / Math.max(1, bare.p99)).toFixed(2)}× the bare broadcaster's`);
    console.log(`target: 0 lost, p99 ≤ 50 ms: ${norma.lost === 0 && norma.p99 <= 50 ? 'met' : 'MISSED'}`);
  } finally {
    await stopChildren(children);
    await agent.close();
    await fs.rm(dir, { recursive: true, force: true });
  }
}

await main();
