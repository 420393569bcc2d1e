// The thread that talks to PostgreSQL for the store (pg-sync.ts): a `pg` pool, and two ways in.
// - Commits the server's thread does not wait for (answered on `asyncPort`): a unit of work's
//   statements, sent when it ends and committed in one round trip on a connection of the pool,
//   many at once; those of one session (its `keys`) strictly in the order they were sent, and
//   none after one of that session failed until the server says it recovered the session
//   (`reset`). The server delivers a unit's events when its commit is answered.
// - Requests the server's thread blocks on (`port` and the shared flag): what a unit of work reads
//   of its own writes, and what must be answered before the server goes on. Each waits for every
//   commit sent before it, so it sees them.
import { randomBytes } from 'node:crypto';
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

/**
 * What the server's thread does not wait for: a unit of work to commit, a read of what has
 * committed (after the units sent before it for its keys), or a session recovered.
 */
export type PgAsyncRequest =
  | { id: number; kind: 'commit'; keys: string[]; statements: PgStatement[] }
  | { id: number; kind: 'read'; keys: string[]; statements: PgStatement[] }
  | { kind: 'reset'; keys: string[] };

/** The SQLSTATE a statement's failed expectation raises inside a committed unit (see checked). */
export const EXPECTATION_SQLSTATE = 'NX001';

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
  asyncPort: MessagePort;
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

/**
 * A statement whose row count must be `expect.rows`, as a DO block the database checks itself
 * (so a unit of work with such statements still commits in one round trip): the statement runs
 * through EXECUTE (rows it returns are dropped), its ROW_COUNT is compared, and a difference
 * raises EXPECTATION_SQLSTATE with the expectation's message. The body is dollar-quoted with a
 * random tag it does not contain, and everything given is written in as literals.
 */
export function checked(c: { escapeLiteral(s: string): string }, s: PgStatement): string {
  if (!s.expect) return inline(c, s.sql, s.params ?? []);
  const body =
    `DECLARE n bigint; BEGIN EXECUTE ${c.escapeLiteral(inline(c, s.sql, s.params ?? []))}; GET DIAGNOSTICS n = ROW_COUNT; ` +
    `IF n <> ${Math.trunc(s.expect.rows)} THEN RAISE EXCEPTION USING ERRCODE = '${EXPECTATION_SQLSTATE}', MESSAGE = ${c.escapeLiteral(s.expect.message)}; END IF; END`;
  let tag: string;
  do tag = `$n${randomBytes(6).toString('hex')}$`;
  while (body.includes(tag));
  return `DO ${tag}${body}${tag}`;
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
      if (e.code === EXPECTATION_SQLSTATE) return { id: req.id, ok: false, message: e.message, expectation: true };
      // A failure without a server's error code, or one saying the connection ended (class 08,
      // 57P01-57P03), is the connection's: the next request takes a new one.
      if ((!e.code || /^(08|57P0[1-3])/.test(e.code)) && !(err instanceof ExpectationFailed)) drop(e);
      return { id: req.id, ok: false, message: e.message, ...(e.code ? { code: e.code } : {}), ...(err instanceof ExpectationFailed ? { expectation: true } : {}) };
    }
  };

  // ── units of work the server does not wait for ────────────────────────────────────────
  /** Per key (a session): the last unit sent for it, settled true when it committed. */
  const tails = new Map<string, Promise<boolean>>();
  /** Every unit not answered yet. */
  const inflight = new Set<Promise<unknown>>();
  /** Sessions one of whose units failed: later ones fail too, until the server recovered the session. */
  const poisoned = new Set<string>();

  /** What must have finished before something of `keys` runs: their last units, or (no keys) everything in flight. */
  const before = (keys: readonly string[]): Promise<unknown> =>
    Promise.all(keys.length === 0 ? [...inflight] : keys.flatMap((k) => (tails.has(k) ? [tails.get(k)!] : [])));

  const track = (keys: readonly string[], done: Promise<boolean>): void => {
    for (const k of keys) tails.set(k, done);
    inflight.add(done);
    void done.then(() => {
      inflight.delete(done);
      for (const k of keys) if (tails.get(k) === done) tails.delete(k);
    });
  };

  /** Runs `work` on a connection of the pool; a connection that failed is not given back. */
  const onPool = async <T>(work: (c: pg.PoolClient) => Promise<T>): Promise<T> => {
    const c = await pool.connect();
    try {
      const out = await work(c);
      c.release();
      return out;
    } catch (err) {
      const code = (err as { code?: string }).code;
      const connectionFailed = !code || /^(08|57P0[1-3])/.test(code);
      let rolledBack = !connectionFailed;
      if (rolledBack) await c.query('ROLLBACK').catch(() => (rolledBack = false));
      c.release(rolledBack ? undefined : (err as Error));
      throw err;
    }
  };

  const failure = (id: number, err: unknown): PgReply => {
    const e = err as Error & { code?: string };
    if (e.code === EXPECTATION_SQLSTATE) return { id, ok: false, message: e.message, expectation: true };
    return { id, ok: false, message: e.message, ...(e.code ? { code: e.code } : {}) };
  };

  /**
   * Units of one session that wait for the same earlier unit go to the database together, as one
   * transaction (group commit): a session's next units are usually made while its last one is
   * still on its way (a turn does not wait for its commits), so a turn's units cost about two
   * round trips, not one each. All or none of a group commits; a group that failed fails each of
   * its units (the session's runtime is taken again from the database anyway).
   */
  const groups = new Map<string, { units: Extract<PgAsyncRequest, { kind: 'commit' }>[] }>();

  const commit = (req: Extract<PgAsyncRequest, { kind: 'commit' }>): void => {
    if (req.statements.some((s) => s.simple)) {
      data.asyncPort.postMessage(failure(req.id, new Error('a unit of work cannot carry simple statements')));
      return;
    }
    const lane = req.keys.length === 1 ? req.keys[0]! : null;
    // A unit of several sessions (or of none: it follows everything) closes the groups it follows,
    // so that a later unit of those sessions is not sent before it.
    if (lane === null) {
      if (req.keys.length === 0) groups.clear();
      else for (const k of req.keys) groups.delete(k);
    }
    const open = lane === null ? undefined : groups.get(lane);
    if (open) {
      open.units.push(req);
      return;
    }
    const group = { units: [req] };
    if (lane !== null) groups.set(lane, group);
    const work = (async () => {
      await before(req.keys);
      // From here the group is on its way: a later unit starts the next one.
      if (lane !== null && groups.get(lane) === group) groups.delete(lane);
      const stuck = req.keys.find((k) => poisoned.has(k));
      if (stuck !== undefined) throw new Error(`an earlier unit of work of ${stuck} failed; nothing of this one was stored`);
      // BEGIN, the statements and COMMIT as one simple query: one round trip; a failure anywhere
      // stops the rest, and the transaction is rolled back.
      await onPool((c) => c.query(['BEGIN', ...group.units.flatMap((u) => u.statements.map((s) => checked(c, s))), 'COMMIT'].join(';\n')));
    })();
    const done = work.then(
      () => true,
      () => {
        for (const k of req.keys) poisoned.add(k);
        return false;
      },
    );
    track(req.keys, done);
    work.then(
      () => {
        for (const u of group.units) data.asyncPort.postMessage({ id: u.id, ok: true, rows: [], rowCount: 0 } satisfies PgReply);
      },
      (err) => {
        for (const u of group.units) data.asyncPort.postMessage(failure(u.id, err));
      },
    );
  };

  // A read sees what the units of its keys sent before it wrote; it is not a unit itself (later
  // units do not wait for it), and runs on a pool connection of its own, in no transaction.
  const read = (req: Extract<PgAsyncRequest, { kind: 'read' }>): void => {
    void before(req.keys)
      .then(() => onPool((c) => run(c, req.statements)))
      .then(
        (last) => data.asyncPort.postMessage({ id: req.id, ok: true, rows: last?.rows ?? [], rowCount: last?.rowCount ?? 0 } satisfies PgReply),
        (err) => data.asyncPort.postMessage(failure(req.id, err)),
      );
  };

  // A reset takes its place in the keys' order: units sent before it still see the failure.
  const reset = (keys: string[]): void => {
    track(keys, before(keys).then(() => {
      for (const k of keys) poisoned.delete(k);
      return true;
    }));
  };

  // Everything comes in on one port, in the order the server sent it. Blocking requests come one
  // at a time (the sender waits for each reply), so they never interleave; each first waits for
  // every unit sent before it. The others are answered on asyncPort.
  data.port.on('message', (req: PgRequest | PgAsyncRequest) => {
    if (!('kind' in req)) {
      void before([])
        .then(() => handle(req))
        .then(reply);
    } else if (req.kind === 'reset') reset(req.keys);
    else if (req.kind === 'read') read(req);
    else commit(req);
  });
  parentPort?.postMessage('ready');
}

// Imported outside a worker (a test of `inline`), it does nothing.
if (parentPort) main();
