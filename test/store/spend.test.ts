// A tenant's spending per UTC day (max_usd_per_day): exact sums in nano-dollars, kept apart by
// tenant and day, joined to the store's transaction (rolled back with it), shared by every
// replica on one PostgreSQL database, and swept by day.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MemoryStore } from '../../src/store/memory.js';
import { PostgresStore } from '../../src/store/pg-store.js';
import { fromNano, spendOf, toNano, utcDay, type SpendLedger } from '../../src/store/spend.js';
import { SqliteStore } from '../../src/store/sqlite.js';
import type { Store } from '../../src/store/store.js';
import { createTestDatabase, type TestDatabase } from '../helpers/postgres.js';
import { committed } from '../helpers/commit.js';

const cleanups: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function sqlite(): SqliteStore {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'norma-spend-'));
  const store = new SqliteStore(path.join(dir, 'db.sqlite'));
  cleanups.push(() => {
    store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  return store;
}

describe.each([
  ['memory', () => new MemoryStore() as Store],
  ['sqlite', () => sqlite() as Store],
])('spending ledger (%s)', (_name, make) => {
  it('sums exactly by tenant and day, and sweeps days before a day', () => {
    const store = make();
    const ledger: SpendLedger = spendOf(store);
    // 0.1 + 0.2 in floating point is not 0.3; in nano-dollars it is.
    ledger.add('acme', '2026-12-06', toNano(0.1));
    ledger.add('acme', '2026-12-06', toNano(0.2));
    ledger.add('acme', '2026-12-05', toNano(5));
    ledger.add('other', '2026-12-06', toNano(7));
    expect(fromNano(ledger.spent('acme', '2026-12-06'))).toBe(0.3);
    expect(fromNano(ledger.spent('acme', '2026-12-05'))).toBe(5);
    expect(ledger.spent('nobody', '2026-12-06')).toBe(0);
    expect(ledger.sweep('2026-12-06')).toBe(1);
    expect(ledger.spent('acme', '2026-12-05')).toBe(0);
    expect(fromNano(ledger.spent('other', '2026-12-06'))).toBe(7);
  });
});

it('an addition in a transaction that fails is not kept (SQLite)', () => {
  const store = sqlite();
  const ledger = spendOf(store);
  ledger.add('acme', '2026-12-06', 1000);
  expect(() =>
    store.transaction(() => {
      ledger.add('acme', '2026-12-06', 5000);
      throw new Error('disk full');
    }),
  ).toThrow('disk full');
  expect(ledger.spent('acme', '2026-12-06')).toBe(1000);
});

it('days are UTC days', () => {
  expect(utcDay(new Date('2026-12-06T23:59:59.999Z'))).toBe('2026-12-06');
  expect(utcDay(new Date('2026-12-07T00:00:00-05:00'))).toBe('2026-12-07');
});

describe('spending ledger (PostgreSQL replicas)', () => {
  let db: TestDatabase;
  it('two replicas add to one tenant day and each reads the sum', async () => {
    db = await createTestDatabase();
    const a = new PostgresStore({ url: db.url, nodeId: 'node-a' });
    const b = new PostgresStore({ url: db.url, nodeId: 'node-b' });
    cleanups.push(async () => {
      a.close();
      b.close();
      await db.drop();
    });
    // Both replicas' additions interleave; each is its own unit of work, committed when the database answers.
    await Promise.all(
      Array.from({ length: 10 }, () => [
        committed(() => spendOf(a).add('acme', '2026-12-06', toNano(0.01))),
        committed(() => spendOf(b).add('acme', '2026-12-06', toNano(0.02))),
      ]).flat(),
    );
    await committed(() => spendOf(b).add('other', '2026-12-06', toNano(1)));
    expect(fromNano(spendOf(a).spent('acme', '2026-12-06'))).toBe(0.3);
    expect(fromNano(spendOf(b).spent('acme', '2026-12-06'))).toBe(0.3);
    expect(spendOf(a).sweep('2026-12-07')).toBe(2);
    expect(spendOf(b).spent('acme', '2026-12-06')).toBe(0);
  });
});
