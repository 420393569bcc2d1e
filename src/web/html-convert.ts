// HTML → Markdown off the event loop: one worker thread, started on first use and kept, jobs in
// order. A conversion that passes its time limit costs the worker (it is terminated and replaced)
// and the caller gets the fast plain-text fallback; pages beyond MAX_HTML_CHARS are converted from
// their beginning.
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Converted } from './html-markdown.js';
import { htmlToPlainText } from './html-text.js';

export const MAX_HTML_CHARS = 4 * 1024 * 1024;
export const CONVERT_TIMEOUT_MS = 15_000;
/** Most of a page the plain-text fallback reads (it is linear, a few ms per MiB). */
export const FALLBACK_HTML_CHARS = 1024 * 1024;

export interface ConvertOutcome extends Converted {
  /** How the text was made: `markdown`, or `text` when the conversion was cut short. */
  mode: 'markdown' | 'text';
  /** Characters of HTML left out (beyond MAX_HTML_CHARS). */
  omittedChars: number;
}

interface Job {
  worker: Worker;
  resolve: (c: unknown) => void;
  reject: (e: Error) => void;
}

type JobInput = { kind: 'markdown'; html: string; url: string } | { kind: 'ddg'; html: string };

class ConverterThread {
  private worker: Worker | null = null;
  private readonly jobs = new Map<number, Job>();
  private nextId = 1;

  private start(): Worker {
    // Built, the worker is html-worker.js; from source (tests, tsx) it is the .ts file, loaded
    // after registering tsx in the worker (loader flags do not carry into workers on Node 20).
    const here = fileURLToPath(import.meta.url);
    const worker = here.endsWith('.ts')
      ? new Worker(
          `import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${JSON.stringify(pathToFileURL(here.replace(/html-convert\.ts$/, 'html-worker.ts')).href)}); })`,
          { eval: true },
        )
      : new Worker(
          here.endsWith('html-convert.js')
            ? here.replace(/html-convert\.js$/, 'html-worker.js')
            : // Bundled (dist/src/main.bundle.mjs): the worker is tsc's file beside it, under web/.
              path.join(path.dirname(here), 'web', 'html-worker.js'),
        );
    worker.on('message', (m: { id: number; ok: boolean; result?: unknown; error?: string }) => {
      const job = this.jobs.get(m.id);
      if (!job) return;
      this.jobs.delete(m.id);
      this.idleUnref(worker);
      if (m.ok) job.resolve(m.result!);
      else job.reject(new Error(m.error));
    });
    const failAll = (err: Error) => {
      for (const [id, job] of this.jobs) {
        if (job.worker !== worker) continue;
        this.jobs.delete(id);
        job.reject(err);
      }
      if (this.worker === worker) this.worker = null;
    };
    worker.on('error', failAll);
    worker.on('exit', (code) => failAll(new Error(`the HTML converter stopped (exit ${code})`)));
    // An idle converter does not keep the process alive (unref after the listeners: adding a
    // 'message' listener refs the worker again); a busy one does.
    worker.unref();
    return worker;
  }

  private idleUnref(worker: Worker): void {
    for (const job of this.jobs.values()) if (job.worker === worker) return;
    worker.unref();
  }

  run<T>(input: JobInput, timeoutMs: number, signal?: AbortSignal): Promise<T> {
    this.worker ??= this.start();
    const worker = this.worker;
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        // The worker is busy with this page: replace it (jobs queued behind it fail and fall back too).
        if (this.worker === worker) this.worker = null;
        void worker.terminate();
        reject(new ParseTimeout(`the page took longer than ${timeoutMs / 1000} s to read`));
      }, timeoutMs);
      const onAbort = () => {
        this.jobs.delete(id);
        this.idleUnref(worker);
        clearTimeout(timer);
        reject(signal!.reason instanceof Error ? signal!.reason : new Error('cancelled'));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.jobs.set(id, {
        worker,
        resolve: (c) => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', onAbort);
          resolve(c as T);
        },
        reject: (e) => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', onAbort);
          reject(e);
        },
      });
      worker.ref();
      worker.postMessage({ id, ...input });
    });
  }

  async close(): Promise<void> {
    const w = this.worker;
    this.worker = null;
    if (w) await w.terminate();
  }
}

/** A page that could not be read within its time limit. */
export class ParseTimeout extends Error {}

/**
 * The HTML work done off the event loop: WebFetch's page conversion and WebSearch's DuckDuckGo
 * results page, in one worker thread started on first use. The composition root makes one and
 * closes it at shutdown.
 */
export class HtmlConverter {
  private readonly thread = new ConverterThread();

  async convert(html: string, url: string, opts: { timeoutMs?: number; signal?: AbortSignal } = {}): Promise<ConvertOutcome> {
    const omittedChars = Math.max(0, html.length - MAX_HTML_CHARS);
    const input = omittedChars > 0 ? html.slice(0, MAX_HTML_CHARS) : html;
    try {
      const converted = await this.thread.run<Converted>({ kind: 'markdown', html: input, url }, opts.timeoutMs ?? CONVERT_TIMEOUT_MS, opts.signal);
      return { ...converted, mode: 'markdown', omittedChars };
    } catch (err) {
      if (opts.signal?.aborted) throw err;
      // The fallback runs on the event loop: it reads at most FALLBACK_HTML_CHARS of the page.
      const head = input.length > FALLBACK_HTML_CHARS ? input.slice(0, FALLBACK_HTML_CHARS) : input;
      return { title: null, markdown: htmlToPlainText(head), mode: 'text', omittedChars: omittedChars + (input.length - head.length) };
    }
  }

  /**
   * DuckDuckGo's results page, read in the worker thread (a page of millions of nested elements
   * would otherwise hold the event loop for seconds); rejects with the parser's message or a ParseTimeout.
   */
  parseDdg<T>(html: string, timeoutMs: number, signal?: AbortSignal): Promise<T> {
    return this.thread.run<T>({ kind: 'ddg', html }, timeoutMs, signal);
  }

  /** Stops the worker thread (server shutdown). */
  close(): Promise<void> {
    return this.thread.close();
  }
}
