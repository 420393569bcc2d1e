// Where a turn's time goes: runs the built server with the V8 CPU profiler (started after
// warm-up, bench/profile-on-signal.mjs), drives turns from this process, and sorts
// every sample of the server's main thread into a stage by the innermost frame of the server's
// own code on its stack (a native or library frame counts for the server code that called it).
// Prints microseconds per turn for each stage, the process CPU per turn (all threads, from
// /proc) and the wall time per turn.
// BENCH_KIND=direct (default): direct turns of one Read. BENCH_KIND=prompt: prompt turns against a
// loopback fake Anthropic endpoint (bench/fake-anthropic.ts) — two model calls and a Read — in
// sessions of 10 turns each (the session's creation and close are in the profile, a tenth each).
//   npm run bench:profile          (BENCH_TURNS=3000 BENCH_CONNECTIONS=1; BENCH_PROFILE_KEEP=file.cpuprofile keeps it)
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Pool } from 'undici';
import { startFakeAnthropic, type FakeAnthropic } from './fake-anthropic.js';
import { freePort, root, startChild, stopChildren } from './lib.js';

const TURNS = Number(process.env.BENCH_TURNS ?? 3000);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 1);
const WARMUP = 500;
const KIND = process.env.BENCH_KIND === 'prompt' ? 'prompt' : 'direct';
const TURNS_PER_SESSION = 10;

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** Stages by the server file (relative to dist/) the innermost own frame is in; first match wins. */
const STAGES: [string, RegExp][] = [
  ['store: SQLite statements and commits', /^src\/(store\/|telemetry\/timed-store)/],
  ['events: log, fan-out to subscribers', /^src\/events\//],
  ['metrics and log lines', /^src\/telemetry\//],
  ['input validation (schemas)', /^src\/pipeline\/validate|^src\/http\/validation/],
  ['permission: rules, decision, digest', /^src\/(permission\/|pipeline\/(authorize|inputs)|digest)/],
  ['Read: path confinement, file I/O', /^src\/(sandbox\/|capabilities\/files\/)/],
  ['tool pipeline: hooks, output cap, result', /^src\/(pipeline|hooks|tools)\//],
  ['model calls: request, stream, transcript', /^src\/model\//],
  ['turn runner and session state', /^src\/(session|app|interaction)\//],
  ['HTTP: auth, request context, routes', /^(src\/(http|server|tenants|trace|contract)|routes\/)/],
];

function stageOfFile(file: string): string {
  for (const [name, re] of STAGES) if (re.test(file)) return name;
  return `other server code (${file})`;
}

export function stagesOf(profile: Profile): { stage: string; us: number }[] {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const memo = new Map<number, string>();
  const stageOf = (id: number): string => {
    const hit = memo.get(id);
    if (hit) return hit;
    const leaf = byId.get(id)!;
    let stage: string;
    const fn = leaf.callFrame.functionName;
    if (fn === '(idle)') stage = 'idle (waiting: I/O, thread pool, client)';
    else if (fn === '(garbage collector)') stage = 'garbage collection';
    else {
      stage = 'HTTP: Node http, Fastify, undici (no server frame)';
      for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
        const m = /\/dist\/(.*)\.js$/.exec(byId.get(cur)!.callFrame.url);
        if (m) {
          stage = stageOfFile(m[1]!);
          break;
        }
      }
    }
    memo.set(id, stage);
    return stage;
  };
  const totals = new Map<string, number>();
  for (let i = 0; i < profile.samples.length; i++) {
    const stage = stageOf(profile.samples[i]!);
    totals.set(stage, (totals.get(stage) ?? 0) + (profile.timeDeltas[i] ?? 0));
  }
  return [...totals].map(([stage, us]) => ({ stage, us })).sort((a, b) => b.us - a.us);
}

async function cpuMs(pid: number): Promise<number> {
  const stat = (await fs.readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1]!.split(' ');
  // utime and stime are fields 14 and 15 of the whole line (12 and 13 after the command name).
  return ((Number(stat[11]) + Number(stat[12])) * 1000) / 100;
}

async function waitForFile(file: string): Promise<void> {
  for (let i = 0; i < 600; i++) {
    try {
      await fs.access(file);
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  throw new Error(`${file} did not appear`);
}

async function main(): Promise<void> {
  await fs.access(path.join(root, 'dist/src/main.js')).catch(() => {
    throw new Error('dist/ is missing: run `npm run build` (npm run bench:profile does it for you)');
  });
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'norma-bench-profile-'));
  const out = path.join(dir, 'turns.cpuprofile');
  const port = await freePort();
  const fake: FakeAnthropic | null = KIND === 'prompt' ? await startFakeAnthropic() : null;
  const model: Record<string, string> = fake
    ? { NORMA_SANDBOX: 'off', NORMA_MODEL_PROVIDER: 'anthropic', NORMA_MODEL: 'bench', NORMA_MODEL_BASE_URL: `http://127.0.0.1:${fake.port}`, NORMA_MODEL_API_KEY: 'bench-key' }
    : {};
  const child = await startChild(
    ['--import', path.join(root, 'bench/profile-on-signal.mjs'), path.join(root, 'dist/src/main.js')],
    { NORMA_DATA_DIR: path.join(dir, 'data'), NORMA_LOG_LEVEL: 'warn', NORMA_PROFILE_OUT: out, ...model },
    port,
  );
  const pool = new Pool(`http://127.0.0.1:${port}`, { connections: CONNECTIONS, pipelining: 1 });
  const call = async (method: 'POST' | 'DELETE', p: string, body?: string) => {
    const res = await pool.request({ method, path: p, ...(body !== undefined ? { body, headers: { 'content-type': 'application/json' } } : {}) });
    const text = await res.body.text();
    if (res.statusCode >= 300) throw new Error(`${method} ${p} answered ${res.statusCode}: ${text.slice(0, 300)}`);
    return text;
  };
  const newSession = async () => {
    const s = JSON.parse(await call('POST', '/v1/sessions', KIND === 'prompt' ? '{"permission_mode":"acceptEdits"}' : '{}')) as { id: string; workspace: string };
    await fs.writeFile(path.join(s.workspace, 'small.txt'), 'hello\nworld\n');
    return s.id;
  };
  try {
    const body = KIND === 'prompt' ? JSON.stringify({ prompt: 'small.txt' }) : JSON.stringify({ tool_uses: [{ name: 'Read', input: { file_path: 'small.txt' } }] });
    const drive = async (n: number) => {
      let left = n;
      await Promise.all(
        Array.from({ length: CONNECTIONS }, async () => {
          let id = await newSession();
          for (let done = 0; left > 0; done++) {
            left--;
            if (KIND === 'prompt' && done > 0 && done % TURNS_PER_SESSION === 0) {
              await call('DELETE', `/v1/sessions/${id}`);
              id = await newSession();
            }
            const text = await call('POST', `/v1/sessions/${id}/turns?wait=5`, body);
            if (!text.includes('"status":"completed"')) throw new Error(`turn ended: ${text.slice(0, 300)}`);
          }
        }),
      );
    };
    await drive(WARMUP);
    process.kill(child.pid!, 'SIGUSR2');
    await waitForFile(`${out}.started`);
    const cpu0 = await cpuMs(child.pid!);
    const t0 = performance.now();
    await drive(TURNS);
    const wall = performance.now() - t0;
    const cpu = (await cpuMs(child.pid!)) - cpu0;
    process.kill(child.pid!, 'SIGUSR2');
    await waitForFile(out);
    const profile = JSON.parse(await fs.readFile(out, 'utf8')) as Profile;
    if (process.env.BENCH_PROFILE_KEEP) await fs.copyFile(out, process.env.BENCH_PROFILE_KEEP);
    const stages = stagesOf(profile);
    const sampled = stages.reduce((a, s) => a + s.us, 0);
    const busy = stages.filter((s) => !s.stage.startsWith('idle')).reduce((a, s) => a + s.us, 0);
    console.log(`${KIND === 'prompt' ? 'prompt turns (2 model calls + Read)' : 'direct Read turns'}: ${TURNS} on ${CONNECTIONS} connection(s), ${os.cpus().length} CPUs, node ${process.version}`);
    console.log(`  wall ${(wall / TURNS).toFixed(3)} ms per turn; server CPU (all threads) ${(cpu / TURNS).toFixed(3)} ms per turn; main thread busy ${(busy / TURNS / 1000).toFixed(3)} ms per turn`);
    console.log(`  ${'stage (innermost server frame)'.padEnd(52)} µs/turn   share of busy`);
    for (const s of stages) {
      const share = s.stage.startsWith('idle') ? '' : `${((s.us / busy) * 100).toFixed(1)}%`;
      console.log(`  ${s.stage.padEnd(52)} ${(s.us / TURNS).toFixed(0).padStart(7)}   ${share.padStart(6)}`);
    }
    console.log(`  (${profile.samples.length} samples over ${(sampled / 1e6).toFixed(2)} s)`);
  } finally {
    await pool.close();
    await stopChildren([child]);
    await fake?.close();
    await fs.rm(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
