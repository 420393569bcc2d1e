// What each tenant's model calls cost per UTC day (its policy's max_usd_per_day), kept by the store
// so that every replica on one database counts the same spending. Amounts are whole nano-dollars
// (1e-9 USD): sums stay exact however many calls add to them. An addition joins the store's open
// transaction (the turn's usage and the tenant's day are written together); a read sees what has
// committed, every replica's.
import type Database from 'better-sqlite3';
import type { PgStatement } from './pg-sync.js';

export interface SpendLedger {
  /** Adds `nanoUsd` to the tenant's `day` (`YYYY-MM-DD`, UTC). */
  add(tenant: string, day: string, nanoUsd: number): void;
  /** What the tenant spent on `day`, in nano-dollars. */
  spent(tenant: string, day: string): number;
  /** Forgets days before `day`; how many were forgotten. */
  sweep(beforeDay: string): number;
}

export const NANO = 1e9;
export const toNano = (usd: number): number => Math.round(usd * NANO);
export const fromNano = (nano: number): number => nano / NANO;

/** The UTC day of a time, as the ledger keys it. */
export function utcDay(at: Date): string {
  return at.toISOString().slice(0, 10);
}

export class MemorySpend implements SpendLedger {
  private readonly days = new Map<string, number>();

  add(tenant: string, day: string, nanoUsd: number): void {
    const key = `${tenant}\n${day}`;
    this.days.set(key, (this.days.get(key) ?? 0) + nanoUsd);
  }

  spent(tenant: string, day: string): number {
    return this.days.get(`${tenant}\n${day}`) ?? 0;
  }

  sweep(beforeDay: string): number {
    let n = 0;
    for (const key of this.days.keys()) {
      if (key.slice(key.indexOf('\n') + 1) < beforeDay) {
        this.days.delete(key);
        n++;
      }
    }
    return n;
  }
}

export class SqliteSpend implements SpendLedger {
  constructor(
    private readonly stmt: (sql: string) => Database.Statement,
    /** Runs `fn` in the store's transaction (joining the open one). */
    private readonly write: (fn: () => void) => void,
  ) {}

  add(tenant: string, day: string, nanoUsd: number): void {
    this.write(() => {
      this.stmt('INSERT INTO tenant_spend (tenant, day, nano_usd) VALUES (?, ?, ?) ON CONFLICT (tenant, day) DO UPDATE SET nano_usd = nano_usd + excluded.nano_usd').run(tenant, day, nanoUsd);
    });
  }

  spent(tenant: string, day: string): number {
    const row = this.stmt('SELECT nano_usd FROM tenant_spend WHERE tenant = ? AND day = ?').get(tenant, day) as { nano_usd: number } | undefined;
    return row?.nano_usd ?? 0;
  }

  sweep(beforeDay: string): number {
    let n = 0;
    this.write(() => {
      n = this.stmt('DELETE FROM tenant_spend WHERE day < ?').run(beforeDay).changes;
    });
    return n;
  }
}

export class PgSpend implements SpendLedger {
  constructor(
    /** Reads through the store (inside its open transaction when there is one). */
    private readonly read: (sql: string, params: unknown[]) => Record<string, unknown>[],
    /** Writes through the store (joining its open transaction, else one of their own). */
    private readonly write: (...s: PgStatement[]) => void,
  ) {}

  add(tenant: string, day: string, nanoUsd: number): void {
    this.write({
      sql: 'INSERT INTO tenant_spend (tenant, day, nano_usd) VALUES ($1, $2, $3) ON CONFLICT (tenant, day) DO UPDATE SET nano_usd = tenant_spend.nano_usd + excluded.nano_usd',
      params: [tenant, day, nanoUsd],
    });
  }

  spent(tenant: string, day: string): number {
    const row = this.read('SELECT nano_usd FROM tenant_spend WHERE tenant = $1 AND day = $2', [tenant, day])[0];
    return row ? Number(row.nano_usd) : 0;
  }

  sweep(beforeDay: string): number {
    return this.read('DELETE FROM tenant_spend WHERE day < $1 RETURNING 1 AS gone', [beforeDay]).length;
  }
}

/** The store's ledger when it keeps one (SQLite, PostgreSQL, memory); a store made elsewhere gets one in memory. */
export function spendOf(store: object): SpendLedger {
  return (store as { spend?: SpendLedger }).spend ?? new MemorySpend();
}
