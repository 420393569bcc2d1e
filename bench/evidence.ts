// What the evidence features add to the two writes they touch, each against a baseline measured
// in the same run, with baseline and measured rounds alternating so machine noise hits both:
//  1. Appending an event to a SQLite store, one implicit transaction per event as the server
//     does: with its chain hash (previous hash looked up, canonical JSON, SHA-256) vs. without.
//     A ~1 KB tool.completed (target: chained/plain p50 ≤ 1.1×) and a ~32 KB one, reported apart.
//  2. A 1 MiB spill file written in 64 KiB chunks (fsynced, renamed, recorded) and read back
//     whole, sealed (AES-256-GCM chunks under a tenant data key) vs. plain (target: write+read
//     p50 ≤ 1.5×), and a 4 KiB range read from the middle of the file.
// Prints figures; nothing here is a pass/fail test.
//   npm run bench:evidence
import { createHash, randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { once } from 'node:events';
import pino from 'pino';
import type { NormaEvent } from '../src/contract/events.js';
import type { Session } from '../src/contract/schemas.js';
import { chained } from '../src/evidence/chain.js';
import { MasterKey, Sealer } from '../src/evidence/encryption.js';
import { newId, systemClock } from '../src/ids.js';
import { OutputFiles } from '../src/store/outputs.js';
import { SqliteStore } from '../src/store/sqlite.js';
import type { SessionRecord } from '../src/store/store.js';
import { quantile } from './lib.js';

const APPEND_SMALL = { bytes: 1024, rounds: 30, perRound: 100, warmup: 300 };
const APPEND_LARGE = { bytes: 32 * 1024, rounds: 20, perRound: 50, warmup: 100 };
const SPILL_BYTES = 1024 * 1024;
const SPILL_CHUNK = 64 * 1024;
const SPILL_ROUNDS = 40;
const SPILL_WARMUP = 5;
const RANGE_BYTES = 4096;
const RANGES_PER_ROUND = 10;
// Straddles the boundary between chunks 7 and 8, so a sealed range read opens two chunks (the worse case).
const RANGE_START = SPILL_BYTES / 2 - RANGE_BYTES / 2;
// Everything above finishes in seconds; this only stops a run that hangs.
const DEADLINE_MS = 110_000;

const ms = (t0: bigint) => Number(process.hrtime.bigint() - t0) / 1e6;
const p = (t: readonly number[], q: number) => quantile([...t].sort((a, b) => a - b), q);
const load = () => os.loadavg().map((n) => n.toFixed(2)).join(' ');

function session(id: string): SessionRecord {
  const s = {
    id, status: 'active', tenant: 'acme', policy: null, workspace: '/ws', workspace_owned: true, permission_mode: 'default',
    allowed_tools: [], disallowed_tools: [], ask_rules: [], rules: [], tools: ['Read', 'Bash'], output_cap_chars: 30000, permission_timeout_s: null,
    question_timeout_s: null, mode_before_plan: null, memory_store: null, skills: [], used_skills: [], unlocked_tools: [], deferred_tools: [],
    mcp_servers: {}, instructions: [], sandbox: 'off', hook_events: [], model: null, system_prompt: null, sandbox_network: false, secret_names: [],
    checkpoints: false, forked_from: null, active_turn_id: null, warnings: [], created_at: new Date().toISOString(), closed_at: null,
  } as unknown as Session;
  return { session: s, hooks: null, modelApiKey: null, model: null };
}

/** A tool.completed as a Read of a source file produces it, its text grown until the event's JSON is about `bytes` long. */
function makeEvent(sessionId: string, seq: number, text: string): NormaEvent {
  const toolUseId = `toolu_${String(seq).padStart(22, '0')}`;
  return {
    type: 'tool.completed', session_id: sessionId, seq, time: new Date().toISOString(), turn_id: 'turn_0123456789abcdefghijkl',
    tool_use_id: toolUseId, tool: 'Read',
    result: { type: 'tool_result', tool_use_id: toolUseId, is_error: false, content: [{ type: 'text', text }] },
  } as NormaEvent;
}

function textFor(bytes: number): string {
  let text = '';
  for (let n = 1; JSON.stringify(makeEvent('ses_x', 1, text)).length < bytes; n++) {
    text += `${String(n).padStart(6)}\t  const value${n} = compute(input.items[${n}], { retries: 3, strict: true });\n`;
  }
  return text;
}

type Side = 'plain' | 'chained';

function appendBench(store: SqliteStore, label: string, cfg: typeof APPEND_SMALL): Record<Side, number[]> & { size: number } {
  const text = textFor(cfg.bytes);
  const ids: Record<Side, string> = { plain: `ses_plain${label}`, chained: `ses_chained${label}` };
  for (const id of Object.values(ids)) store.putSession(session(id));
  const next = (id: string) => makeEvent(id, store.lastSeq(id) + 1, text);
  // The event is made before the clock starts on both sides: only what chaining adds differs.
  const one: Record<Side, () => number> = {
    plain: () => {
      const e = next(ids.plain);
      const t0 = process.hrtime.bigint();
      store.appendEvent(e);
      return ms(t0);
    },
    chained: () => {
      const e = next(ids.chained);
      const t0 = process.hrtime.bigint();
      store.appendEvent(chained(e, store.lastEventHash(ids.chained)));
      return ms(t0);
    },
  };
  for (let i = 0; i < cfg.warmup; i++) {
    one.plain();
    one.chained();
  }
  const out: Record<Side, number[]> = { plain: [], chained: [] };
  for (let r = 0; r < cfg.rounds; r++) {
    for (const side of (r % 2 ? ['chained', 'plain'] : ['plain', 'chained']) as Side[]) {
      for (let i = 0; i < cfg.perRound; i++) out[side].push(one[side]());
    }
  }
  const last = store.lastSeq(ids.chained);
  if (last !== cfg.warmup + cfg.rounds * cfg.perRound || store.lastEventHash(ids.chained) === null) throw new Error(`the chained session ends at seq ${last} without a hash`);
  return { ...out, size: JSON.stringify(makeEvent(ids.plain, 1, text)).length };
}

interface SpillTimes { write: number[]; read: number[]; both: number[]; range: number[] }

async function spillBench(store: SqliteStore, dir: string): Promise<Record<'plain' | 'sealed', SpillTimes>> {
  const logger = pino({ level: 'silent' });
  const retention = { maxAgeMs: 3.6e6, maxBytesPerSession: 2 ** 40 };
  const sealer = new Sealer(MasterKey.of(randomBytes(32)), store.keys, () => new Date().toISOString());
  const sides = {
    plain: { id: 'ses_spillplain', files: new OutputFiles(dir, store, systemClock, newId, retention, logger) },
    sealed: { id: 'ses_spillsealed', files: new OutputFiles(dir, store, systemClock, newId, retention, logger, sealer) },
  };
  for (const s of Object.values(sides)) store.putSession(session(s.id));
  const line = 'output line with some text: the quick brown fox jumps over the lazy dog 0123456789\n';
  const chunks = Array.from({ length: SPILL_BYTES / SPILL_CHUNK }, (_, i) => Buffer.from(`${i}:${line}`.repeat(SPILL_CHUNK / line.length + 1).slice(0, SPILL_CHUNK), 'ascii'));
  // The digest is the same for both sides; the server computes it while collecting, not here.
  const sha256 = chunks.reduce((h, c) => h.update(c), createHash('sha256')).digest('hex');

  const write = async (files: OutputFiles, sessionId: string) => {
    const t0 = process.hrtime.bigint();
    const sink = await files.begin({ sessionId, turnId: 'turn_bench', toolUseId: 'toolu_bench', tool: 'Bash', blockIndex: 0 });
    for (const c of chunks) await sink.write(c);
    const outputId = await sink.commit({ chars: SPILL_BYTES, bytes: SPILL_BYTES, sha256 });
    return { t: ms(t0), outputId };
  };
  // The stream closes the file when it ends (as the route relies on); the time includes that close.
  const read = async (files: OutputFiles, sessionId: string, outputId: string, start?: number, end?: number) => {
    const t0 = process.hrtime.bigint();
    const file = await files.open(sessionId, outputId);
    const stream = file.stream(start, end);
    let n = 0;
    for await (const c of stream) n += (c as Buffer).length;
    if (!stream.closed) await once(stream, 'close');
    const t = ms(t0);
    const want = start === undefined ? SPILL_BYTES : end! - start + 1;
    if (n !== want) throw new Error(`read ${n} bytes of ${want}`);
    return t;
  };

  const out = { plain: { write: [], read: [], both: [], range: [] } as SpillTimes, sealed: { write: [], read: [], both: [], range: [] } as SpillTimes };
  for (let r = 0; r < SPILL_WARMUP + SPILL_ROUNDS; r++) {
    for (const name of (r % 2 ? ['sealed', 'plain'] : ['plain', 'sealed']) as ('plain' | 'sealed')[]) {
      const { id, files } = sides[name];
      const w = await write(files, id);
      const full = await read(files, id, w.outputId);
      const ranges: number[] = [];
      for (let i = 0; i < RANGES_PER_ROUND; i++) ranges.push(await read(files, id, w.outputId, RANGE_START, RANGE_START + RANGE_BYTES - 1));
      if (r === 0 && (await files.digest(id, w.outputId)) !== sha256) throw new Error(`${name} spill file does not read back as written`);
      if (r === 0 && name === 'sealed' && (await fs.readFile(files.filePath(id, w.outputId))).subarray(0, 8).toString() !== 'NORMASF1') throw new Error('the sealed side wrote a plain file');
      // Removed outside the clock so the temp dir stays small; the records stay, equally on both sides.
      await fs.rm(files.filePath(id, w.outputId));
      if (r < SPILL_WARMUP) continue;
      const o = out[name];
      o.write.push(w.t);
      o.read.push(full);
      o.both.push(w.t + full);
      o.range.push(...ranges);
    }
  }
  return out;
}

function row(label: string, side: string, t: readonly number[]): void {
  console.log(`  ${label.padEnd(34)} ${side.padEnd(8)} p50 ${p(t, 0.5).toFixed(3).padStart(8)} ms   p99 ${p(t, 0.99).toFixed(3).padStart(8)} ms   (${t.length})`);
}

function ratio(label: string, mName: string, m: readonly number[], bName: string, b: readonly number[], target?: number, note?: string): void {
  const mp = p(m, 0.5);
  const bp = p(b, 0.5);
  const x = mp / bp;
  const tail = target !== undefined ? `(target ≤ ${target}×: ${x <= target ? 'met' : 'missed'})` : `(${note ?? 'no target'})`;
  console.log(`${label}: ${mName} p50 ${mp.toFixed(3)} ms vs ${bName} p50 ${bp.toFixed(3)} ms = ${x.toFixed(2)}× ${tail}`);
}

async function main(dir: string): Promise<void> {
  console.log(`evidence bench: node ${process.version}, ${os.cpus().length} CPUs, load average at start ${load()} (1, 5, 15 min)`);
  const store = new SqliteStore(path.join(dir, 'db.sqlite'));
  try {
    const small = appendBench(store, '1k', APPEND_SMALL);
    const large = appendBench(store, '32k', APPEND_LARGE);
    const spill = await spillBench(store, path.join(dir, 'outputs'));
    const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;
    console.log(`event append, SQLite, one transaction each (alternating rounds; warm-up ${APPEND_SMALL.warmup}/${APPEND_LARGE.warmup} per side)`);
    row(`tool.completed, ${kb(small.size)} JSON`, 'plain', small.plain);
    row('', 'chained', small.chained);
    row(`tool.completed, ${kb(large.size)} JSON`, 'plain', large.plain);
    row('', 'chained', large.chained);
    console.log(`spill file, ${SPILL_BYTES / 1024 / 1024} MiB in ${SPILL_CHUNK / 1024} KiB chunks (alternating rounds; warm-up ${SPILL_WARMUP} per side)`);
    for (const [what, key] of [['write (chunks, fsynced commit)', 'write'], ['full read (stream to the end)', 'read'], ['write + read', 'both'], [`range read ${RANGE_BYTES / 1024} KiB @ ${RANGE_START}`, 'range']] as const) {
      row(what, 'plain', spill.plain[key]);
      row('', 'sealed', spill.sealed[key]);
    }
    ratio('append 1 KB', 'chained', small.chained, 'plain', small.plain, 1.1);
    ratio('append 32 KB', 'chained', large.chained, 'plain', large.plain, undefined, 'no target; the 1.1× target is for the 1 KB event');
    ratio('spill 1 MiB write', 'sealed', spill.sealed.write, 'plain', spill.plain.write);
    ratio('spill 1 MiB read', 'sealed', spill.sealed.read, 'plain', spill.plain.read);
    ratio('spill 1 MiB write+read', 'sealed', spill.sealed.both, 'plain', spill.plain.both, 1.5);
    ratio('spill range 4 KiB read', 'sealed', spill.sealed.range, 'plain', spill.plain.range, undefined, 'no target; two 64 KiB chunks opened');
  } finally {
    store.close();
  }
  console.log(`load average at end ${load()}`);
}

const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'norma-bench-evidence-'));
const abandon = (why: string) => {
  rmSync(dir, { recursive: true, force: true });
  console.error(`evidence bench stopped: ${why}`);
  process.exit(1);
};
const watchdog = setTimeout(() => abandon(`not done after ${DEADLINE_MS / 1000} s`), DEADLINE_MS);
watchdog.unref();
process.once('SIGINT', () => abandon('interrupted'));
process.once('SIGTERM', () => abandon('terminated'));
try {
  await main(dir);
} finally {
  clearTimeout(watchdog);
  await fs.rm(dir, { recursive: true, force: true });
}
