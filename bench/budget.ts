// What cost and budget accounting adds to a model call: the check before it (the worst case
// against a turn's, a session's and a tenant's limits, the tenant's day read from the store) and
// the record after it (priced, added to the turn, written to the session document and to the
// tenant's day), on a SQLite store as a server runs them. The baseline, measured in the same run,
// is the write every model call already makes: the turn with its transcript stored in a
// transaction. Target: check + record ≤ 0.2 ms p50. Prints figures; nothing here is a pass/fail test.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Session, Turn } from '../src/contract/schemas.js';
import { EventLog } from '../src/events/log.js';
import { systemClock } from '../src/ids.js';
import { priceTable } from '../src/model/prices.js';
import { SessionSettings } from '../src/session/settings.js';
import { emptySessionUsage, emptyUsage, Spending } from '../src/session/spending.js';
import { spendOf } from '../src/store/spend.js';
import { SqliteStore } from '../src/store/sqlite.js';
import type { SessionRecord } from '../src/store/store.js';
import { quantile } from './lib.js';

const ITERATIONS = 5_000;
const NO_POLICIES = { policyOf: () => null } as never;

function session(): SessionRecord {
  const s = {
    id: 'ses_bench', status: 'active', tenant: 'acme', policy: null, workspace: '/ws', workspace_owned: true, permission_mode: 'default',
    allowed_tools: [], disallowed_tools: [], ask_rules: [], rules: [], tools: ['Read'], output_cap_chars: 30000, permission_timeout_s: null,
    question_timeout_s: null, mode_before_plan: null, memory_store: null, skills: [], used_skills: [], unlocked_tools: [], deferred_tools: [],
    mcp_servers: {}, instructions: [], sandbox: 'off', hook_events: [], model: null, system_prompt: null, sandbox_network: false, secret_names: [],
    checkpoints: false, forked_from: null, budget: { max_usd: 1e5 }, usage: emptySessionUsage(), compaction: { auto: true, threshold: 0.8 },
    limits: { enforcement: 'none', memory_bytes: 1 << 30, processes: 64, cpu_weight: 50, file_size_bytes: 1 << 30, open_files: 256, disk_bytes: 1 << 30 },
    active_turn_id: null, warnings: [], created_at: new Date().toISOString(), closed_at: null,
  } as unknown as Session;
  return { session: s, hooks: null, modelApiKey: null, model: null };
}

function timeIt(fn: (i: number) => void): number[] {
  const times: number[] = [];
  for (let i = 0; i < ITERATIONS; i++) {
    const t0 = process.hrtime.bigint();
    fn(i);
    times.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  return times.sort((a, b) => a - b);
}

const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'norma-bench-budget-'));
try {
  const store = new SqliteStore(path.join(dir, 'db.sqlite'));
  const record = session();
  store.putSession(record);
  const settings = new SessionSettings(record, { store, events: new EventLog(store, systemClock), policies: NO_POLICIES, onPermissionChange: () => {} });
  const spending = new Spending({
    prices: priceTable(),
    ledger: spendOf(store),
    now: systemClock,
    provider: 'anthropic',
    model: 'claude-sonnet-4-5',
    maxTokens: 8192,
    session: () => settings.session,
    tenantLimitUsd: () => 1e5,
    updateSession: (change) => settings.update(change),
  });
  // A turn 20 messages into its loop, as a model call finds it.
  const messages = Array.from({ length: 20 }, (_, i) => ({ role: i % 2 ? 'assistant' : 'user', content: [{ type: 'text', text: 'x'.repeat(2000) }] }));
  const turn = { id: 'turn_bench', session_id: 'ses_bench', kind: 'prompt', status: 'running', tool_uses: [], results: [], pending: [], messages, usage: emptyUsage(), model_calls: 0, budget: { max_usd: 1e5 }, created_at: new Date().toISOString() } as unknown as Turn;
  const usage = { input_tokens: 12_000, output_tokens: 400, cache_read_input_tokens: 10_000 };

  console.log(`budget bench: ${ITERATIONS} model calls' accounting on SQLite, node ${process.version}`);
  const base = timeIt(() => store.transaction(() => store.putTurn(turn)));
  const check = timeIt(() => {
    if (spending.check(turn, { inputChars: 60_000 }) !== null) throw new Error('a budget was reached');
  });
  const record2 = timeIt(() => store.transaction(() => spending.record(turn, usage, true, 60_000)));
  const both = check.map((c, i) => c + record2[i]!).sort((a, b) => a - b);
  const line = (label: string, t: number[]) => console.log(`  ${label.padEnd(52)} p50 ${quantile(t, 0.5).toFixed(3).padStart(7)} ms   p99 ${quantile(t, 0.99).toFixed(3).padStart(7)} ms`);
  line('turn stored in a transaction (baseline)', base);
  line('check before a call (3 scopes, the tenant day read)', check);
  line('record after a call (priced, session and day written)', record2);
  line('check + record', both);
  const p50 = quantile(both, 0.5);
  console.log(`  check + record: ${p50.toFixed(3)} ms p50 (target ≤ 0.2 ms: ${p50 <= 0.2 ? 'met' : 'missed'}), ${(p50 / quantile(base, 0.5)).toFixed(2)}x the turn write every call already makes`);
  store.close();
} finally {
  await fs.rm(dir, { recursive: true, force: true });
}
