// A tenant's checkpoint budget: measured from the packs of every session the store lists for the
// tenant (paged), kept current by what this server adds, and measured again once stale — so
// what another replica wrote, or retention removed, counts within REFRESH_MS.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { REFRESH_MS, TenantCheckpointBudgets } from '../../src/session/checkpoint-budget.js';
import type { SessionPageQuery, Store } from '../../src/store/store.js';
import type { TenantPolicies } from '../../src/tenants/policy.js';

let dataDir: string;
beforeEach(async () => {
  dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'norma-budget-'));
});
afterEach(async () => {
  await fs.rm(dataDir, { recursive: true, force: true });
});

async function pack(sid: string, name: string, bytes: number): Promise<void> {
  const dir = path.join(dataDir, 'checkpoints', sid, 'objects', 'packs');
  await fs.mkdir(dir, { recursive: true });
  await fs.writeFile(path.join(dir, name), Buffer.alloc(bytes));
}

function setup(sessions: { id: string; tenant: string }[], limit: number | null) {
  let now = 1_000_000;
  const queries: SessionPageQuery[] = [];
  const store = {
    listSessions(q: SessionPageQuery) {
      queries.push(q);
      const all = sessions.filter((s) => s.tenant === q.tenant).map((s, i) => ({ session: { id: s.id, created_at: String(1e6 - i).padStart(8, '0') } }));
      const from = q.after ? all.findIndex((r) => r.session.id === q.after!.id) + 1 : 0;
      return all.slice(from, from + q.limit);
    },
  } as unknown as Store;
  const tenants = { policyOf: (t: string) => (t === 'm' && limit !== null ? { source: { max_checkpoint_bytes: limit } } : null) } as unknown as TenantPolicies;
  const budgets = new TenantCheckpointBudgets({ dataDir, store, tenants, now: () => now });
  return { budgets, queries, advance: (ms: number) => (now += ms) };
}

describe('tenant checkpoint budgets', () => {
  it('sum every session of the tenant over pages, and no other tenant\'s', async () => {
    const sessions = Array.from({ length: 1203 }, (_, i) => ({ id: `ses_${String(i).padStart(5, '0')}`, tenant: i % 2 ? 'm' : 'x' }));
    for (const s of sessions.slice(0, 40)) await pack(s.id, 'p1', 100);
    const { budgets, queries } = setup(sessions, 10_000);
    // 20 of the first 40 are the tenant's: 2,000 bytes.
    expect(await budgets.for('m').remaining()).toEqual({ bytes: 8_000, limit: 10_000 });
    expect(queries.length).toBe(2); // 601 sessions, 500 a page
    expect(await budgets.for('x').remaining()).toBeNull();
  });

  it('count what this server adds at once, what others add once stale, and never go below zero', async () => {
    await pack('ses_a', 'p1', 1_000);
    const { budgets, queries, advance } = setup([{ id: 'ses_a', tenant: 'm' }, { id: 'ses_b', tenant: 'm' }], 5_000);
    const a = budgets.for('m');
    expect((await a.remaining())!.bytes).toBe(4_000);
    a.grew(500);
    expect((await a.remaining())!.bytes).toBe(3_500);
    // Another replica writes ses_b's packs: not seen until the measurement is stale.
    await pack('ses_b', 'p1', 2_000);
    advance(REFRESH_MS - 1);
    expect((await a.remaining())!.bytes).toBe(3_500);
    expect(queries.length).toBe(1);
    advance(2);
    // On disk now: 1,000 (ses_a, what grew() counted was never written here) + 2,000.
    expect((await a.remaining())!.bytes).toBe(2_000);
    await pack('ses_b', 'p2', 10_000);
    advance(REFRESH_MS);
    expect((await a.remaining())!.bytes).toBe(0);
    // Retention removes a session's store: the room comes back at the next measurement.
    await fs.rm(path.join(dataDir, 'checkpoints', 'ses_b'), { recursive: true });
    advance(REFRESH_MS);
    expect((await a.remaining())!.bytes).toBe(4_000);
  });

  it('measure once for sessions that ask together', async () => {
    await pack('ses_a', 'p1', 10);
    const { budgets, queries } = setup([{ id: 'ses_a', tenant: 'm' }], 100);
    const all = await Promise.all([budgets.for('m').remaining(), budgets.for('m').remaining(), budgets.for('m').remaining()]);
    expect(all.map((r) => r!.bytes)).toEqual([90, 90, 90]);
    expect(queries.length).toBe(1);
  });
});
