// The thread that talks to PostgreSQL for the synchronous store (pg-sync.ts): a `pg` pool, and
// one request at a time from the server's thread, which blocks until the reply is posted and
// the shared flag is raised. A request is a list of statements, optionally opening a
// transaction on a client of its own and optionally committing it: a transaction of writes
// only costs one request.
import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import pg from 'pg';

export interface PgStatement {
  sql: string;
  params?: unknown[];
  /** Sent as a simple query: several statements in one, no parameters (migrations). */
  simple?: boolean;
  /** The statement must affect exactly this many rows; otherwise the request fails with `message`. */
  expect?: { rows: number; message: string };
}

export interface PgRequest {
  id: number;
  /** Open a transaction first (on a client kept until commit or rollback). */
  begin?: boolean;
  statements: PgStatement[];
  /**
   * The statements belong to a transaction an earlier request opened: refused when it is gone (its
   * connection failed, or a new thread took over), so no part of it commits on its own.
   */
  continues?: boolean;
  /** End the open transaction: commit it after the statements, or roll it back (statements ignored). */
  end?: 'commit' | 'rollback';
  /** Stop: end the pool. */
  close?: boolean;
}

export type PgReply =
  | { id: number; ok: true; rows: Record<string, unknown>[]; rowCount: number }
  | { id: number; ok: false; message: string; code?: string; expectation?: boolean };

export interface PgWorkerData {
  url: string;
  poolSize: number;
  statementTimeoutMs: number;
  connectTimeoutMs: number;
  applicationName: string;
  port: MessagePort;
  flag: SharedArrayBuffer;
}

class ExpectationFailed extends Error {}

/** `sql` with its `$n` parameters written in as SQL literals (strings through pg's escapeLiteral). */
export function inline(c: { escapeLiteral(s: string): string }, sql: string, params: readonly unknown[]): string {
  const literal = (v: unknown): string => {
    if (v === null || v === undefined) return 'NULL';
    if (typeof v === 'number') {
      if (!Number.isFinite(v)) throw new Error(`a statement parameter is not a finite number: ${v}`);
      return v < 0 ? `(${String(v)})` : String(v);
    }
    if (typeof v === 'boolean') return v ? 'TRUE' : 'FALSE';
    if (typeof v === 'string') return c.escapeLiteral(v);
    if (Array.isArray(v)) return `ARRAY[${v.map(literal).join(', ')}]`;
    throw new Error(`a statement parameter of type ${typeof v} cannot be written in`);
  };
  return sql.replace(/\$(\d+)/g, (_, n: string) => {
    const i = Number(n) - 1;
    if (i < 0 || i >= params.length) throw new Error(`statement parameter $${n} is not given`);
    return literal(params[i]);
  });
}

function main(): void {
  const data = workerData as PgWorkerData;
  const flag = new Int32Array(data.flag);
  // 64-bit integers (COUNT, BIGINT columns) come back as numbers: seqs and counts stay far below 2^53.
  pg.types.setTypeParser(20, (v) => Number(v));
  const pool = new pg.Pool({
    connectionString: data.url,
    max: data.poolSize,
    statement_timeout: data.statementTimeoutMs,
    connectionTimeoutMillis: data.connectTimeoutMs,
    application_name: data.applicationName,
    idleTimeoutMillis: 30_000,
  });
  // An idle client that loses its connection is dropped by the pool; the next request gets a new one.
  pool.on('error', () => undefined);
  let tx: pg.PoolClient | null = null;
  // Requests come one at a time, so one connection serves them all: it is kept (a new one is
  // taken from the pool after it fails), and each distinct statement is prepared on it once.
  let kept: pg.PoolClient | null = null;
  const names = new Map<string, string>();
  const client = async (): Promise<pg.PoolClient> => {
    if (!kept) {
      const c = await pool.connect();
      // A connection that fails while idle (the server restarted, an administrator ended it) is
      // let go at once: the next request takes a new one instead of failing on it.
      c.on('error', (err) => {
        if (kept === c && tx !== c) drop(err);
      });
      kept = c;
    }
    return kept;
  };
  const named = (sql: string): string | undefined => {
    let name = names.get(sql);
    // Statements are few and fixed; one built from a varying list beyond that is not kept.
    if (name === undefined && names.size < 1000) names.set(sql, (name = `n${names.size + 1}`));
    return name;
  };

  const reply = (r: PgReply): void => {
    data.port.postMessage(r);
    Atomics.store(flag, 0, 1);
    Atomics.notify(flag, 0);
  };

  const run = async (c: pg.PoolClient, statements: PgStatement[]): Promise<pg.QueryResult | null> => {
    let last: pg.QueryResult | null = null;
    for (const s of statements) {
      last = s.simple ? await c.query(s.sql) : await c.query({ name: named(s.sql), text: s.sql, values: s.params ?? [] });
      // A multi-statement query answers with one result per statement: the last one counts.
      if (Array.isArray(last)) last = (last as pg.QueryResult[]).at(-1) ?? null;
      if (s.expect && last?.rowCount !== s.expect.rows) throw new ExpectationFailed(s.expect.message);
    }
    return last;
  };

  /**
   * A transaction's statements in one round trip: one simple query of them all, parameters
   * written in as literals (pg's escaping), with BEGIN in front and COMMIT behind. When a
   * statement must affect a number of rows, the COMMIT waits for that to be checked (a second
   * round trip); a failure rolls the whole transaction back.
   */
  const batch = async (c: pg.PoolClient, req: PgRequest): Promise<pg.QueryResult | null> => {
    const texts = req.statements.map((x) => inline(c, x.sql, x.params ?? []));
    const checks = req.statements.some((x) => x.expect);
    const commitHere = req.end === 'commit' && !checks;
    if (req.begin) {
      texts.unshift('BEGIN');
      tx = c;
    }
    if (commitHere) texts.push('COMMIT');
    const raw = (await c.query(texts.join(';\n'))) as unknown as pg.QueryResult | pg.QueryResult[];
    const results = Array.isArray(raw) ? raw : [raw];
    const first = req.begin ? 1 : 0;
    for (const [i, x] of req.statements.entries()) {
      if (x.expect && results[first + i]?.rowCount !== x.expect.rows) throw new ExpectationFailed(x.expect.message);
    }
    const last = req.statements.length > 0 ? (results[first + req.statements.length - 1] ?? null) : null;
    if (commitHere) tx = null;
    else if (req.end === 'commit') await endTx('COMMIT');
    return last;
  };

  const endTx = async (how: 'COMMIT' | 'ROLLBACK', broken?: Error): Promise<void> => {
    const c = tx;
    tx = null;
    if (!c) return;
    try {
      if (!broken) await c.query(how);
      else await c.query('ROLLBACK');
    } catch (err) {
      // A connection that failed mid-transaction is not used again.
      drop(err as Error);
      throw err;
    }
  };
  const drop = (err: Error): void => {
    if (!kept) return;
    kept.release(err);
    kept = null;
    names.clear();
  };

  const handle = async (req: PgRequest): Promise<PgReply> => {
    if (req.close) {
      await endTx('ROLLBACK').catch(() => undefined);
      kept?.release();
      kept = null;
      await pool.end();
      return { id: req.id, ok: true, rows: [], rowCount: 0 };
    }
    try {
      if (req.end === 'rollback') {
        await endTx('ROLLBACK');
        return { id: req.id, ok: true, rows: [], rowCount: 0 };
      }
      if (req.continues && !tx) throw new Error('the transaction was lost with its database connection; nothing of it was stored');
      const c = await client();
      if (req.begin && tx) throw new Error('a transaction is already open');
      if ((req.begin || tx) && req.statements.length + (req.begin ? 1 : 0) + (req.end === 'commit' ? 1 : 0) > 1 && req.statements.every((x) => !x.simple)) {
        const last = await batch(c, req);
        return { id: req.id, ok: true, rows: last?.rows ?? [], rowCount: last?.rowCount ?? 0 };
      }
      if (req.begin) {
        await c.query('BEGIN');
        tx = c;
      }
      const last = await run(c, req.statements);
      if (req.end === 'commit') await endTx('COMMIT');
      return { id: req.id, ok: true, rows: last?.rows ?? [], rowCount: last?.rowCount ?? 0 };
    } catch (err) {
      // Any failure ends the transaction it happened in: PostgreSQL refuses everything after it.
      await endTx('ROLLBACK', err as Error).catch(() => undefined);
      const e = err as Error & { code?: string };
      // A failure without a server's error code, or one saying the connection ended (class 08,
      // 57P01-57P03), is the connection's: the next request takes a new one.
      if ((!e.code || /^(08|57P0[1-3])/.test(e.code)) && !(err instanceof ExpectationFailed)) drop(e);
      return { id: req.id, ok: false, message: e.message, ...(e.code ? { code: e.code } : {}), ...(err instanceof ExpectationFailed ? { expectation: true } : {}) };
    }
  };

  // Requests come one at a time (the sender waits for each reply), so they never interleave.
  data.port.on('message', (req: PgRequest) => {
    void handle(req).then(reply);
  });
  parentPort?.postMessage('ready');
}

// Imported outside a worker (a test of `inline`), it does nothing.
if (parentPort) main();
