// Units of work on PostgreSQL (NORMA_STORE=postgres), for pg-store.ts.
//
// A transaction is a unit of work: its writes are collected while `fn` runs (no round trip),
// and at its end sent as one unit the server does not wait for (pg-sync.ts `submit`): one round
// trip, statements' checks made by the database, many units in flight at once. Its afterCommit
// callbacks (delivering its events, adopting its state in memory) run when the commit is
// answered, in the order units were made per session (commit-order.ts); the request that made
// it answers after it (commit-watch.ts). A unit that did not commit runs none of its callbacks,
// and the store is told, so that what the server holds in memory of those sessions is dropped
// and taken again from what the database has (as a restart would). A unit that reads its own
// writes (a check the database makes inside it) is begun in the database at that read and
// committed while the server waits.
import { CommitOrder } from './commit-order.js';
import { watchCommit } from './commit-watch.js';
import type { PgStatement, SyncPg } from './pg-sync.js';

export interface UnitHooks {
  /** The unit being made was rolled back: what the store remembers beyond the database is forgotten. */
  rolledBack(): void;
  /** A unit sent did not commit: nothing of it is stored, its callbacks did not run; `keys` are its sessions. */
  failed(keys: string[], err: unknown): void;
  /** An afterCommit callback threw (the others ran). */
  callbackError(err: unknown): void;
}

export class PgUnits {
  private committed: (() => void)[] = [];
  private pending: PgStatement[] = [];
  /** The sessions the open unit wrote to. */
  private readonly touched = new Set<string>();
  /** The sessions of the last unit that wrote. */
  private lastKeys: string[] = [];
  private readonly order: CommitOrder;
  /** Per session, its last unit sent: settles when that unit (and so every earlier one of it) did. */
  private readonly lastSent = new Map<string, Promise<void>>();
  private depth = 0;
  /** The open transaction has been begun in the database (a read inside it needed its writes). */
  private began = false;

  constructor(
    private readonly db: SyncPg,
    private readonly hooks: UnitHooks,
  ) {
    this.order = new CommitOrder((err) => this.hooks.callbackError(err));
  }

  /** A transaction is open. */
  get open(): boolean {
    return this.depth > 0;
  }

  /** The open transaction has been begun in the database: what it reads is not committed yet. */
  get begun(): boolean {
    return this.began;
  }

  /** Units sent and not answered yet (metrics, shutdown). */
  get inFlight(): number {
    return this.db.inFlight;
  }

  transaction<T>(fn: () => T): T {
    if (this.depth > 0) {
      this.depth++;
      try {
        return fn();
      } finally {
        this.depth--;
      }
    }
    this.depth = 1;
    this.began = false;
    this.pending = [];
    this.touched.clear();
    let value: T;
    let sent: Promise<void> | null = null;
    let statements: PgStatement[] = [];
    const keys: string[] = [];
    try {
      value = fn();
      statements = this.pending;
      this.pending = [];
      keys.push(...this.touched);
      if (this.began) this.db.request({ statements, end: 'commit', continues: true });
      else if (statements.length > 0) sent = this.db.submit(statements, keys);
    } catch (err) {
      if (this.began) {
        try {
          this.db.request({ statements: [], end: 'rollback' });
        } catch {
          // the database thread ended it already
        }
      }
      this.pending = [];
      this.committed = [];
      this.hooks.rolledBack();
      throw err;
    } finally {
      this.depth = 0;
      this.began = false;
      this.touched.clear();
    }
    const callbacks = this.committed.splice(0);
    if (statements.length > 0) this.lastKeys = keys;
    if (callbacks.length === 0 && !sent) return value;
    const unit = this.order.add(keys, callbacks);
    if (!sent) unit.settle(true);
    else {
      // Who watches the commit (the request that made it) hears of it once its callbacks ran; a
      // failure nobody watches is handled by the store all the same.
      const delivered = sent.then(
        () => unit.settle(true),
        (err: unknown) => {
          unit.settle(false);
          this.hooks.failed(keys, err);
          throw err;
        },
      );
      delivered.catch(() => undefined);
      watchCommit(delivered);
      for (const k of keys) this.lastSent.set(k, delivered);
      void delivered.then(
        () => this.sent(keys, delivered),
        () => this.sent(keys, delivered),
      );
    }
    return value;
  }

  private sent(keys: readonly string[], unit: Promise<void>): void {
    for (const k of keys) if (this.lastSent.get(k) === unit) this.lastSent.delete(k);
  }

  /** Resolves once every unit of session `key` made so far committed; rejects when one did not. */
  whenCommitted(key: string): Promise<void> {
    return this.lastSent.get(key) ?? Promise.resolve();
  }

  afterCommit(fn: () => void): void {
    if (this.depth > 0) this.committed.push(fn);
    // Outside a transaction: after the last unit made (a write just before it, in its own unit).
    else this.order.add(this.lastKeys, [fn]).settle(true);
  }

  /**
   * Writes of session `key` (null: of none) join the open unit (sent with its next read or at its
   * end); alone, they are one.
   */
  write(key: string | null, ...statements: PgStatement[]): void {
    if (this.depth === 0) {
      this.transaction(() => this.write(key, ...statements));
      return;
    }
    if (key !== null) this.touched.add(key);
    this.pending.push(...statements);
  }

  /** Reads what has committed, or inside a transaction what it has written so far too. */
  read(sql: string, params: unknown[] = []): Record<string, unknown>[] {
    if (this.depth === 0 || (!this.began && this.pending.length === 0)) return this.db.query(sql, params);
    return this.inTransaction([{ sql, params }]);
  }

  /** Runs statements inside the open transaction (begun in the database now if it was not): the last one's rows. */
  inTransaction(statements: PgStatement[]): Record<string, unknown>[] {
    if (this.depth === 0) throw new Error('a statement that must run inside a transaction was called outside one');
    const all = [...this.pending, ...statements];
    this.pending = [];
    const rows = this.db.request(this.began ? { statements: all, continues: true } : { begin: true, statements: all }).rows;
    this.began = true;
    return rows;
  }

  /** Sessions whose units failed were taken again from the database: their units may commit again. */
  reset(keys: readonly string[]): void {
    this.db.reset(keys);
  }
}
