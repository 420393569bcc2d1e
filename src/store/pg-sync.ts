// PostgreSQL behind a synchronous call, for the Store (store.ts), which is synchronous by design:
// a `pg` pool lives on a worker thread (pg-worker.ts), and each call posts its statements there
// and blocks on a shared flag until the reply is posted, which it then takes off the port
// synchronously. The server's thread waits on the database exactly as it waits on SQLite's disk;
// a statement that takes longer than the statement timeout (10 s) fails instead of blocking on,
// and a thread given up on is replaced by a new one at the next request.
import path from 'node:path';
import { MessageChannel, Worker, receiveMessageOnPort, type MessagePort } from 'node:worker_threads';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { PgReply, PgRequest, PgStatement, PgWorkerData } from './pg-worker.js';

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
  private flag!: Int32Array;
  private nextId = 1;
  private readonly waitMs: number;
  private readonly data: Omit<PgWorkerData, 'port' | 'flag'>;
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
    const { port1, port2 } = new MessageChannel();
    port1.unref();
    const flag = new Int32Array(new SharedArrayBuffer(4));
    const worker = startWorker({ ...this.data, port: port2, flag: flag.buffer as SharedArrayBuffer }, [port2]);
    // A thread blocked on the database does not keep the process alive by itself.
    worker.unref();
    worker.on('error', (err) => {
      if (this.worker === worker) this.gone = `the database thread failed: ${err.message}`;
    });
    worker.on('exit', (code) => {
      if (this.worker === worker && !this.closed) this.gone ??= `the database thread stopped (exit ${code})`;
    });
    this.worker = worker;
    this.port = port1;
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

  query(sql: string, params: unknown[] = []): Record<string, unknown>[] {
    return this.request({ statements: [{ sql, params }] }).rows;
  }

  run(statements: PgStatement[]): Record<string, unknown>[] {
    return this.request({ statements }).rows;
  }

  close(): void {
    if (this.closed) return;
    try {
      if (this.gone === null) this.request({ statements: [], close: true });
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
