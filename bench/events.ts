// Event throughput and replay, against baselines measured in the same run:
//  1. Events persisted (SQLite, one transaction each) and delivered over SSE to 100 concurrent
//     subscribers while direct turns run, vs. bare better-sqlite3 inserting the same event
//     JSON one transaction per row (the floor the store cannot beat).
//  2. Replaying 100,000 stored events to one SSE client from `?after=0`, vs. reading and
//     parsing the same rows with a bare SELECT.
// The server runs as a child process (built dist); subscribers and load come from this one.
//   npm run bench:events            (BENCH_SUBSCRIBERS=100 BENCH_TURNS=40 BENCH_REPLAY=100000)
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { Agent, request } from 'undici';
import type { NormaEvent } from '../src/contract/events.js';
import { SqliteStore } from '../src/store/sqlite.js';
import { apiCall, freePort, root, startChild, stopChildren } from './lib.js';

const SUBSCRIBERS = Number(process.env.BENCH_SUBSCRIBERS ?? 100);
const TURNS = Number(process.env.BENCH_TURNS ?? 40);
const CALLS = 128;
const REPLAY = Number(process.env.BENCH_REPLAY ?? 100_000);

const agent = new Agent({ connections: SUBSCRIBERS + 8, pipelining: 0 });

const api = (base: string, method: string, p: string, body?: unknown) => apiCall(agent, base, method, p, body);

/** Reads an SSE stream until an event with id `untilSeq` arrives; resolves with the time it did. */
async function subscriber(url: string, untilSeq: number): Promise<number> {
  const res = await request(url, { dispatcher: agent, headers: { accept: 'text/event-stream' } });
  let tail = '';
  const marker = `\nid: ${untilSeq}\n`;
  for await (const chunk of res.body) {
    const text = tail + chunk.toString('utf8');
    tail = text.slice(-64);
    if (text.includes(marker)) {
      const at = performance.now();
      res.body.destroy();
      return at;
    }
  }
  throw new Error(`stream ended before event ${untilSeq}`);
}

async function launch(dataDir: string): Promise<{ child: ChildProcess; base: string }> {
  const port = await freePort();
  const child = await startChild([path.join(root, 'dist/src/main.js')], { NORMA_DATA_DIR: dataDir, NORMA_LOG_LEVEL: 'warn', NORMA_SANDBOX: 'off' }, port);
  return { child, base: `http://127.0.0.1:${port}` };
}

function sampleEvent(sessionId: string, seq: number): NormaEvent {
  return {
    type: 'tool.completed',
    session_id: sessionId,
    seq,
    time: new Date().toISOString(),
    turn_id: 'turn_bench',
    tool_use_id: `toolu_${seq}`,
    tool: 'Read',
    result: { type: 'tool_result', tool_use_id: `toolu_${seq}`, is_error: false, content: [{ type: 'text', text: '     1\tsome file content of a typical small read\n' }] },
  } as NormaEvent;
}

async function throughput(dataDir: string, subscribers: number): Promise<number> {
  const { child, base } = await launch(dataDir);
  try {
    const s = await api(base, 'POST', '/v1/sessions', { permission_mode: 'bypassPermissions' });
    await fs.writeFile(path.join(s.workspace, 'f.txt'), 'hello\n');
    const calls = Array.from({ length: CALLS }, () => ({ name: 'Read', input: { file_path: 'f.txt' } }));
    // Per turn: turn.started, a tool.started and a tool.completed per call, turn.completed.
    const perTurn = 2 + 2 * CALLS;
    const first = 1; // session.created
    const last = first + TURNS * perTurn;
    const subs = Array.from({ length: subscribers }, () => subscriber(`${base}/v1/sessions/${s.id}/events`, last));
    await new Promise((r) => setTimeout(r, 500)); // all connected and replayed
    const t0 = performance.now();
    for (let i = 0; i < TURNS; i++) await api(base, 'POST', `/v1/sessions/${s.id}/turns?wait=60`, { tool_uses: calls });
    const persisted = performance.now();
    const ends = await Promise.all(subs);
    const allDelivered = Math.max(persisted, ...ends);
    const events = last - first;
    const perSecond = events / ((allDelivered - t0) / 1000);
    if (subscribers === 0) {
      console.log(`  no subscribers (baseline)          ${events} events persisted in ${((persisted - t0) / 1000).toFixed(2)} s = ${perSecond.toFixed(0)} events/s`);
      return perSecond;
    }
    console.log(`  persisted by the server            ${events} events in ${((persisted - t0) / 1000).toFixed(2)} s = ${(events / ((persisted - t0) / 1000)).toFixed(0)} events/s`);
    console.log(`  delivered to all ${subscribers} subscribers    ${perSecond.toFixed(0)} events/s each = ${(perSecond * subscribers).toFixed(0)} deliveries/s`);

    // Baseline: bare inserts of the same JSON, one transaction per event.
    const db = new Database(path.join(dataDir, 'baseline.db'));
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.exec('CREATE TABLE e (s TEXT, seq INTEGER, data TEXT, PRIMARY KEY (s, seq)) WITHOUT ROWID');
    const ins = db.prepare('INSERT INTO e VALUES (?, ?, ?)');
    const one = db.transaction((seq: number) => ins.run('s', seq, JSON.stringify(sampleEvent('s', seq))));
    const b0 = performance.now();
    for (let i = 1; i <= events; i++) one(i);
    const bare = events / ((performance.now() - b0) / 1000);
    db.close();
    console.log(`  baseline: bare SQLite inserts      ${bare.toFixed(0)} events/s`);
    console.log(`  ratio: persisted-and-delivered events/s are ${(perSecond / bare).toFixed(3)}x bare inserts (with ${subscribers} subscribers, and the tool calls producing them)`);
    return perSecond;
  } finally {
    await stopChildren([child]);
  }
}

async function replay(dataDir: string): Promise<void> {
  // Write the history straight into the store, then start the server on it.
  const store = new SqliteStore(path.join(dataDir, 'norma.db'));
  const sessionId = 'ses_replaybench';
  const now = new Date().toISOString();
  store.putSession({
    session: {
      id: sessionId, status: 'active', workspace: dataDir, workspace_owned: false, permission_mode: 'default', allowed_tools: [],
      disallowed_tools: [], ask_rules: [], rules: [], tools: ['Read'], output_cap_chars: 30000, permission_timeout_s: null, sandbox: 'off',
      hook_events: [], model: null, system_prompt: null, sandbox_network: false, active_turn_id: null, warnings: [], created_at: now, closed_at: null,
    } as never,
    hooks: null,
    modelApiKey: null,
  });
  const batch = 5000;
  for (let from = 1; from <= REPLAY; from += batch) {
    store.transaction(() => {
      for (let seq = from; seq < from + batch && seq <= REPLAY; seq++) store.appendEvent(sampleEvent(sessionId, seq));
    });
  }
  store.close();

  const { child, base } = await launch(dataDir);
  try {
    const t0 = performance.now();
    const at = await subscriber(`${base}/v1/sessions/${sessionId}/events?after=0`, REPLAY);
    const viaSse = (at - t0) / 1000;
    const db = new Database(path.join(dataDir, 'norma.db'), { readonly: true });
    const b0 = performance.now();
    let n = 0;
    for (const row of db.prepare('SELECT data FROM events WHERE session_id = ? AND seq > 0 ORDER BY seq').iterate(sessionId) as Iterable<{ data: string }>) {
      JSON.parse(row.data);
      n++;
    }
    const bare = (performance.now() - b0) / 1000;
    db.close();
    if (n !== REPLAY) throw new Error(`baseline read ${n} rows`);
    console.log(`  replay of ${REPLAY} events over SSE   ${viaSse.toFixed(2)} s (${(REPLAY / viaSse).toFixed(0)} events/s)`);
    console.log(`  baseline: SELECT + JSON.parse      ${bare.toFixed(2)} s`);
    console.log(`  ratio: SSE replay takes ${(viaSse / bare).toFixed(1)}x the bare read`);
  } finally {
    await stopChildren([child]);
  }
}

async function main(): Promise<void> {
  await fs.access(path.join(root, 'dist/src/main.js')).catch(() => {
    throw new Error('dist/ is missing: run `npm run build` (npm run bench:events does it for you)');
  });
  console.log(`events bench: ${SUBSCRIBERS} SSE subscribers, ${TURNS} turns of ${CALLS} calls; replay of ${REPLAY} events; node ${process.version}`);
  const a = await fs.mkdtemp(path.join(os.tmpdir(), 'norma-bench-events-'));
  const b = await fs.mkdtemp(path.join(os.tmpdir(), 'norma-bench-replay-'));
  try {
    const quiet = await throughput(a, 0);
    const busy = await throughput(a, SUBSCRIBERS);
    console.log(`  ratio: with ${SUBSCRIBERS} subscribers the same turns produce ${(busy / quiet).toFixed(2)}x the events/s of none`);
    await replay(b);
  } finally {
    await agent.close();
    await fs.rm(a, { recursive: true, force: true });
    await fs.rm(b, { recursive: true, force: true });
  }
}

await main();
