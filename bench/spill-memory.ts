// Spill memory bench: 200 MB of tool output through the cap-and-spill path, against the same
// output collected into one string (the naive way), each in a fresh process. Prints peak RSS
// growth of both, the ratio, throughput, and checks the spill's digest.
//   npx tsx bench/spill-memory.ts            (BENCH_SPILL_MB=200 by default)
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import { CappedTextCollector } from '../src/pipeline/output-cap.js';
import { newId } from '../src/ids.js';
import { MemoryStore } from '../src/store/memory.js';
import { OutputFiles } from '../src/store/outputs.js';

const MB = Number(process.env.BENCH_SPILL_MB ?? 200);
const CHUNK = 64 * 1024;
const CAP = 30_000;

function* chunks(): Generator<string> {
  const line = 'output line with some text: the quick brown fox jumps over the lazy dog 0123456789\n';
  const block = line.repeat(Math.ceil(CHUNK / line.length)).slice(0, CHUNK);
  const count = Math.ceil((MB * 1024 * 1024) / CHUNK);
  for (let i = 0; i < count; i++) yield block;
}

async function child(mode: string): Promise<void> {
  const before = process.memoryUsage().rss;
  const t0 = performance.now();
  let digest: string;
  let peak = 0;
  let elapsed = 0;
  let cleanup = async () => {};
  if (mode === 'spill') {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'norma-spill-bench-'));
    cleanup = () => fs.rm(dir, { recursive: true, force: true });
    const outputs = new OutputFiles(dir, new MemoryStore(), () => new Date(), newId, { maxAgeMs: 3.6e6, maxBytesPerSession: 2 ** 40 }, pino({ level: 'silent' }));
    const collector = new CappedTextCollector(CAP, 0, (blockIndex) =>
      outputs.begin({ sessionId: 'ses_bench', turnId: 'turn_bench', toolUseId: 'toolu_bench', tool: 'Bench', blockIndex }),
    );
    for (const c of chunks()) await collector.write(c);
    const done = await collector.finish();
    digest = done.truncation!.sha256;
    peak = process.resourceUsage().maxRSS * 1024;
    elapsed = performance.now() - t0;
    const hash = createHash('sha256');
    for await (const part of createReadStream(path.join(dir, 'ses_bench', `${done.truncation!.output_id}.txt`))) hash.update(part as Buffer);
    if (hash.digest('hex') !== digest) throw new Error('spill file digest differs from the recorded one');
  } else {
    let all = '';
    for (const c of chunks()) all += c;
    digest = createHash('sha256').update(all).digest('hex');
  }
  const seconds = (elapsed || performance.now() - t0) / 1000;
  // For the spill run, the peak is taken before the (streamed) digest check.
  const peakGrowth = (peak || process.resourceUsage().maxRSS * 1024) - before;
  await cleanup();
  process.stdout.write(JSON.stringify({ peakGrowth, seconds, digest }));
}

async function main(): Promise<void> {
  const self = fileURLToPath(import.meta.url);
  const run = (mode: string) => {
    const r = spawnSync(process.execPath, ['--import', 'tsx', self, mode], { encoding: 'utf8', maxBuffer: 1 << 20 });
    if (r.status !== 0) throw new Error(`${mode} run failed: ${r.stderr}`);
    return JSON.parse(r.stdout) as { peakGrowth: number; seconds: number; digest: string };
  };
  console.log(`spill memory bench: ${MB} MB of output in ${CHUNK / 1024} KiB chunks, cap ${CAP} characters`);
  const naive = run('string');
  const spill = run('spill');
  if (naive.digest !== spill.digest) throw new Error('the two runs saw different output');
  const mib = (b: number) => `${(b / 1024 / 1024).toFixed(1)} MiB`;
  console.log(`  collected into a string   peak RSS growth ${mib(naive.peakGrowth).padStart(10)}   ${(MB / naive.seconds).toFixed(0)} MB/s`);
  console.log(`  cap + streamed spill      peak RSS growth ${mib(spill.peakGrowth).padStart(10)}   ${(MB / spill.seconds).toFixed(0)} MB/s (written, fsynced, digested)`);
  console.log(`  ratio: the spill path grows RSS by ${((spill.peakGrowth / naive.peakGrowth) * 100).toFixed(1)}% of the naive path`);
}

const mode = process.argv[2];
(mode ? child(mode) : main()).catch((err) => {
  console.error(err);
  process.exit(1);
});
