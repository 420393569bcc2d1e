// PostgreSQL for the Store (store.ts): a `pg` pool lives on a worker thread (pg-worker.ts), reached
// two ways. `submit` posts a unit of work's statements and returns a promise: the server's thread
// goes on, and the answer to its commit comes as a message. `request` posts and blocks on a shared flag until the reply is posted, which it then
// takes off its port synchronously: what a unit of work must read of its own writes, at start-up,
// and the few callers that need an answer before they go on. A blocking statement that takes longer
// than the statement timeout (10 s) fails instead of blocking on, and a thread given up on is
// replaced by a new one at the next request (what was in flight on it fails).
import path from 'node:path';
import { MessageChannel, Worker, receiveMessageOnPort, type MessagePort } from 'node:worker_threads';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { PgAsyncRequest, PgReply, PgRequest, PgStatement, PgWorkerData } from './pg-worker.js';

export type { PgStatement } from './pg-worker.js';

export interface SyncPgOptions {
  url: string;
  poolSize?: number;
  statementTimeoutMs?: number;
  connectTimeoutMs?: number;
  applicationName?: string;
}

/** The database said no (constraint, syntax, a statement's expectation), or could not be reached. */
export class PgError extends Error {
  constructor(
    message: string,
    readonly code: string | undefined,
    /** A statement affected another number of rows than it had to. */
    readonly expectation: boolean,
  ) {
    super(message);
    this.name = 'PgError';
  }
}

export class SyncPg {
  private worker!: Worker;
  private port!: MessagePort;
  private asyncPort!: MessagePort;
  /** Units posted and not answered yet. */
  private readonly waiting = new Map<number, { resolve: (r: { rows: Record<string, unknown>[]; rowCount: number }) => void; reject: (e: PgError) => void }>();
  private flag!: Int32Array;
  private nextId = 1;
  private readonly waitMs: number;
  private readonly data: Omit<PgWorkerData, 'port' | 'asyncPort' | 'flag'>;
  /** Why the database thread is gone (it failed, stopped, or was given up on); the next request starts a new one. */
  private gone: string | null = null;
  private closed = false;

  constructor(readonly options: SyncPgOptions) {
    const statementTimeoutMs = options.statementTimeoutMs ?? 10_000;
    const connectTimeoutMs = options.connectTimeoutMs ?? 5_000;
    // What a reply may take at most: the statement's own limit plus getting a connection for it.
    this.waitMs = statementTimeoutMs + connectTimeoutMs + 2_000;
    this.data = {
      url: options.url,
      poolSize: options.poolSize ?? 4,
      statementTimeoutMs,
      connectTimeoutMs,
      applicationName: options.applicationName ?? 'norma',
    };
    this.spawn();
  }

  private spawn(): void {
    // What was in flight on a thread that is gone is gone with it: its callers are told.
    this.failWaiting(this.gone ?? 'the database thread was replaced');
    const { port1, port2 } = new MessageChannel();
    port1.unref();
    const a = new MessageChannel();
    a.port1.on('message', (reply: PgReply) => this.answered(reply));
    a.port1.unref();
    const flag = new Int32Array(new SharedArrayBuffer(4));
    const worker = startWorker({ ...this.data, port: port2, asyncPort: a.port2, flag: flag.buffer as SharedArrayBuffer }, [port2, a.port2]);
    // A thread blocked on the database does not keep the process alive by itself.
    worker.unref();
    worker.on('error', (err) => {
      if (this.worker !== worker) return;
      this.gone = `the database thread failed: ${err.message}`;
      this.failWaiting(this.gone);
    });
    worker.on('exit', (code) => {
      if (this.worker !== worker) return;
      if (!this.closed) this.gone ??= `the database thread stopped (exit ${code})`;
      this.failWaiting(this.gone ?? 'the database connection is closed');
    });
    this.worker = worker;
    this.port = port1;
    this.asyncPort?.close();
    this.asyncPort = a.port1;
    this.flag = flag;
    this.gone = null;
  }

  /** Runs statements and returns the last one's rows (see PgRequest for transactions). */
  request(req: Omit<PgRequest, 'id'>): { rows: Record<string, unknown>[]; rowCount: number } {
    if (this.closed) throw new PgError('the database connection is closed', undefined, false);
    // A thread that failed or was given up on is replaced: its connections (and any transaction
    // open on them) are gone with it, and a database that is back is used again.
    if (this.gone !== null) this.spawn();
    const id = this.nextId++;
    Atomics.store(this.flag, 0, 0);
    this.port.postMessage({ ...req, id } satisfies PgRequest);
    const started = Date.now();
    for (;;) {
      const left = this.waitMs - (Date.now() - started);
      if (left <= 0 || Atomics.wait(this.flag, 0, 0, left) === 'timed-out') {
        // The thread is stuck (its reply may still come, for a request nobody waits for): it is
        // not used again, so no later request can be answered with an earlier one's reply.
        this.gone = `the database did not answer within ${this.waitMs} ms`;
        this.failWaiting(this.gone);
        void this.worker.terminate();
        throw new PgError(this.gone, undefined, false);
      }
      const got = receiveMessageOnPort(this.port);
      if (!got) {
        if (this.gone !== null) throw new PgError(this.gone, undefined, false);
        Atomics.store(this.flag, 0, 0);
        continue;
      }
      const reply = got.message as PgReply;
      if (reply.id !== id) continue;
      if (!reply.ok) throw new PgError(reply.message, reply.code, reply.expectation === true);
      return { rows: reply.rows, rowCount: reply.rowCount };
    }
  }

  /**
   * Commits `statements` as one transaction without waiting: after every unit sent earlier for
   * any of `keys` (none: after everything in flight), in one round trip. Rejects with a PgError
   * when nothing of it was stored.
   */
  submit(statements: PgStatement[], keys: readonly string[]): Promise<void> {
    return this.post({ kind: 'commit', keys: [...keys], statements }).then(() => undefined);
  }

  /**
   * Reads without waiting: what has committed, after every unit sent earlier for any of `keys`
   * (none: after everything in flight). The last statement's rows.
   */
  read(sql: string, params: unknown[], keys: readonly string[]): Promise<Record<string, unknown>[]> {
    return this.post({ kind: 'read', keys: [...keys], statements: [{ sql, params }] }).then((r) => r.rows);
  }

  /** Units for `keys` may commit again (their sessions were recovered after one of theirs failed). */
  reset(keys: readonly string[]): void {
    if (this.closed || this.gone !== null) return;
    this.port.postMessage({ kind: 'reset', keys: [...keys] } satisfies PgAsyncRequest);
  }

  /** Units not answered yet. */
  get inFlight(): number {
    return this.waiting.size;
  }

  private post(req: { kind: 'commit' | 'read'; keys: string[]; statements: PgStatement[] }): Promise<{ rows: Record<string, unknown>[]; rowCount: number }> {
    if (this.closed) return Promise.reject(new PgError('the database connection is closed', undefined, false));
    if (this.gone !== null) this.spawn();
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      // Something in flight keeps the process alive until it is answered.
      if (this.waiting.size === 1) this.asyncPort.ref();
      // On the port blocking requests take too: the worker sees everything in the order it was sent.
      this.port.postMessage({ ...req, id } as PgAsyncRequest);
    });
  }

  private answered(reply: PgReply): void {
    const w = this.waiting.get(reply.id);
    if (!w) return;
    this.waiting.delete(reply.id);
    if (this.waiting.size === 0) this.asyncPort.unref();
    if (reply.ok) w.resolve({ rows: reply.rows, rowCount: reply.rowCount });
    else w.reject(new PgError(reply.message, reply.code, reply.expectation === true));
  }

  private failWaiting(why: string): void {
    if (this.waiting.size === 0) return;
    const all = [...this.waiting.values()];
    this.waiting.clear();
    this.asyncPort?.unref();
    for (const w of all) w.reject(new PgError(why, undefined, false));
  }

  query(sql: string, params: unknown[] = []): Record<string, unknown>[] {
    return this.request({ statements: [{ sql, params }] }).rows;
  }

  run(statements: PgStatement[]): Record<string, unknown>[] {
    return this.request({ statements }).rows;
  }

  close(): void {
    if (this.closed) return;
    try {
      if (this.gone === null) {
        // The worker answers it after everything in flight: their answers are taken now.
        this.request({ statements: [], close: true });
        for (let got = receiveMessageOnPort(this.asyncPort); got; got = receiveMessageOnPort(this.asyncPort)) this.answered(got.message as PgReply);
      }
    } catch {
      // closing anyway
    } finally {
      this.closed = true;
      void this.worker.terminate();
    }
  }
}

function startWorker(data: PgWorkerData, transfer: MessagePort[]): Worker {
  // Built, the worker is pg-worker.js beside this file; from source (tests, tsx) the .ts file,
  // loaded after registering tsx in the worker (loader flags do not carry into workers on Node 20).
  const here = fileURLToPath(import.meta.url);
  const opts = { workerData: data, transferList: transfer };
  if (here.endsWith('.ts')) {
    const target = pathToFileURL(here.replace(/pg-sync\.ts$/, 'pg-worker.ts')).href;
    return new Worker(`import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${JSON.stringify(target)}); })`, { ...opts, eval: true });
  }
  return new Worker(
    here.endsWith('pg-sync.js')
      ? here.replace(/pg-sync\.js$/, 'pg-worker.js')
      : // Bundled (dist/src/main.bundle.mjs): the worker is tsc's file beside it, under store/.
        path.join(path.dirname(here), 'store', 'pg-worker.js'),
    opts,
  );
}
