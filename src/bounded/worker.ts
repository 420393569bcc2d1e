// Work on data or patterns from outside whose cost cannot be known in advance (an MCP server's
// input schema, a model's regular expression), run off the event loop in a worker thread with a
// deadline. One job runs at a time and its deadline counts from the moment the thread takes it
// (not from when it was queued, nor the thread's start-up): a job that passes it costs the thread,
// which is terminated and replaced, and only that job fails; the jobs queued behind it run on the
// fresh thread. The queue is bounded: past it a job is refused at once rather than waiting for
// minutes behind others. The thread is started on first use, and an idle one does not keep the
// process alive.
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** How long a thread may take to start (loading its modules), before its queued jobs fail. */
const BOOT_TIMEOUT_MS = 60_000;
/**
 * The thread's heap: a job that would need more (ajv inlining one definition at thousands of
 * references builds gigabytes of code) ends the thread, not the process.
 */
const THREAD_HEAP_MB = 512;

/** A job passed its deadline; the thread that ran it was replaced. */
export class Overrun extends Error {
  constructor(readonly deadlineMs: number) {
    super(`it took longer than ${seconds(deadlineMs)}`);
  }
}

/** Too many jobs are waiting already; this one was not queued. */
export class Busy extends Error {}

/** `1.5 s`, `500 ms`: a deadline as people read it. */
export function seconds(ms: number): string {
  return ms >= 1000 ? `${ms / 1000} s` : `${ms} ms`;
}

export interface BoundedWorkerOptions {
  /** Named in errors and in the thread's name. */
  name: string;
  deadlineMs: number;
  /** Jobs waiting (not counting the running one) before more are refused. */
  maxQueued: number;
  /** What the thread loads before it is ready, so that no job's deadline pays for it (thread.ts). */
  preload?: 'schemas';
}

interface Pending {
  id: number;
  job: object;
  deadlineMs: number;
  resolve: (v: unknown) => void;
  reject: (e: Error) => void;
  signal?: AbortSignal;
  onAbort?: () => void;
}

const resourceLimits = { maxOldGenerationSizeMb: THREAD_HEAP_MB };

/** The thread's module, found where this file is: its source under tsx, tsc's output, or beside the bundle. */
function startThread(name: string, preload: string | undefined): Worker {
  const workerData = { preload };
  const here = fileURLToPath(import.meta.url);
  if (here.endsWith('.ts')) {
    // From source (tests, tsx): loader flags do not carry into workers on Node 20, so the thread
    // registers tsx before it imports the entry.
    const entry = pathToFileURL(here.replace(/worker\.ts$/, 'thread.ts')).href;
    return new Worker(`import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${JSON.stringify(entry)}); })`, { eval: true, name, resourceLimits, workerData });
  }
  const file = here.endsWith('worker.js')
    ? here.replace(/worker\.js$/, 'thread.js')
    : // Bundled (dist/src/main.bundle.mjs): the thread is tsc's file beside it, under bounded/.
      path.join(path.dirname(here), 'bounded', 'thread.js');
  return new Worker(file, { name, resourceLimits, workerData });
}

export class BoundedWorker {
  private worker: Worker | null = null;
  private ready = false;
  private bootTimer: NodeJS.Timeout | undefined;
  private running: (Pending & { timer: NodeJS.Timeout }) | null = null;
  private readonly queue: Pending[] = [];
  private nextId = 1;
  private closed = false;
  /** Threads replaced after a job passed its deadline (for tests and diagnostics). */
  overruns = 0;

  constructor(readonly options: BoundedWorkerOptions) {}

  /** Runs `job` in the thread; rejects with Overrun past the deadline, Busy when the queue is full. */
  run<T>(job: object, opts: { deadlineMs?: number; signal?: AbortSignal } = {}): Promise<T> {
    if (this.closed) return Promise.reject(new Error(`the ${this.options.name} thread is closed`));
    if (opts.signal?.aborted) return Promise.reject(abortReason(opts.signal));
    if (this.queue.length >= this.options.maxQueued) {
      return Promise.reject(new Busy(`${this.queue.length} checks are waiting already`));
    }
    return new Promise<T>((resolve, reject) => {
      const p: Pending = { id: this.nextId++, job, deadlineMs: opts.deadlineMs ?? this.options.deadlineMs, resolve: resolve as (v: unknown) => void, reject };
      if (opts.signal) {
        const signal = opts.signal;
        p.signal = signal;
        p.onAbort = () => {
          // A queued job is dropped; a running one is left to finish or pass its deadline (bounded
          // either way), its answer unread.
          const i = this.queue.indexOf(p);
          if (i >= 0) this.queue.splice(i, 1);
          reject(abortReason(signal));
        };
        signal.addEventListener('abort', p.onAbort, { once: true });
      }
      this.queue.push(p);
      this.pump();
    });
  }

  /** Stops the thread; queued jobs fail. */
  async close(): Promise<void> {
    this.closed = true;
    const w = this.worker;
    this.drop(new Error(`the ${this.options.name} thread is closed`));
    if (w) await w.terminate();
  }

  private pump(): void {
    if (this.running || this.queue.length === 0 || this.closed) return;
    if (!this.worker) this.worker = this.start();
    const worker = this.worker;
    // Jobs wait for it: a starting thread keeps the process alive as a busy one does.
    worker.ref();
    if (!this.ready) return;
    const p = this.queue.shift()!;
    const timer = setTimeout(() => {
      // The job still runs: the thread is ended mid-job (V8 interrupts even a backtracking
      // regular expression) and the next job gets a fresh one.
      if (this.running?.id !== p.id) return;
      this.running = null;
      this.overruns++;
      this.retire(worker);
      settle(p, () => p.reject(new Overrun(p.deadlineMs)));
      this.pump();
    }, p.deadlineMs);
    this.running = { ...p, timer };
    worker.postMessage({ id: p.id, job: p.job });
  }

  private start(): Worker {
    const worker = startThread(this.options.name, this.options.preload);
    this.ready = false;
    this.bootTimer = setTimeout(() => {
      this.retire(worker);
      this.failQueued(new Error(`the ${this.options.name} thread did not start within ${seconds(BOOT_TIMEOUT_MS)}`));
    }, BOOT_TIMEOUT_MS);
    this.bootTimer.unref();
    worker.on('message', (m: { ready?: true; id?: number; ok?: boolean; result?: unknown; error?: string }) => {
      if (this.worker !== worker) return;
      if (m.ready) {
        clearTimeout(this.bootTimer);
        this.ready = true;
        this.pump();
        this.idle(worker);
        return;
      }
      const r = this.running;
      if (!r || r.id !== m.id) return;
      clearTimeout(r.timer);
      this.running = null;
      settle(r, () => (m.ok ? r.resolve(m.result) : r.reject(new Error(m.error ?? 'the job failed'))));
      this.pump();
      this.idle(worker);
    });
    const lost = (err: Error) => {
      if (this.worker !== worker) return;
      const booted = this.ready;
      this.retire(worker);
      const r = this.running;
      this.running = null;
      if (r) {
        clearTimeout(r.timer);
        settle(r, () => r.reject(err));
      }
      // A thread that dies before it is ready would die again: the queue fails instead of looping.
      if (!booted) this.failQueued(err);
      else this.pump();
    };
    worker.on('error', lost);
    worker.on('exit', (code) => lost(new Error(`the ${this.options.name} thread stopped (exit ${code})`)));
    // Until a job is given to it, the thread does not keep the process alive (unref after the
    // listeners: adding a 'message' listener refs the worker again).
    worker.unref();
    return worker;
  }

  private idle(worker: Worker): void {
    if (!this.running && this.queue.length === 0) worker.unref();
  }

  private retire(worker: Worker): void {
    if (this.worker === worker) {
      this.worker = null;
      this.ready = false;
      clearTimeout(this.bootTimer);
    }
    void worker.terminate();
  }

  private failQueued(err: Error): void {
    for (const p of this.queue.splice(0)) settle(p, () => p.reject(err));
  }

  private drop(err: Error): void {
    const r = this.running;
    this.running = null;
    if (r) {
      clearTimeout(r.timer);
      settle(r, () => r.reject(err));
    }
    this.failQueued(err);
    if (this.worker) this.retire(this.worker);
  }
}

function settle(p: Pending, fn: () => void): void {
  if (p.onAbort) p.signal?.removeEventListener('abort', p.onAbort);
  fn();
}

function abortReason(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new Error('cancelled');
}
