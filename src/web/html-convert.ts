// HTML → Markdown off the event loop: one worker thread, started on first use and kept, jobs in
// order. A conversion that passes its time limit costs the worker (it is terminated and replaced)
// and the caller gets the fast plain-text fallback; pages beyond MAX_HTML_CHARS are converted from
// their beginning.
import { Worker } from 'node:worker_threads';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { htmlToPlainText, type Converted } from './html-markdown.js';

export const MAX_HTML_CHARS = 4 * 1024 * 1024;
export const CONVERT_TIMEOUT_MS = 15_000;

export interface ConvertOutcome extends Converted {
  /** How the text was made: `markdown`, or `text` when the conversion was cut short. */
  mode: 'markdown' | 'text';
  /** Characters of HTML left out (beyond MAX_HTML_CHARS). */
  omittedChars: number;
}

interface Job {
  worker: Worker;
  resolve: (c: Converted) => void;
  reject: (e: Error) => void;
}

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
      : new Worker(here.replace(/html-convert\.js$/, 'html-worker.js'));
    worker.on('message', (m: { id: number; ok: boolean; result?: Converted; error?: string }) => {
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

  convert(html: string, url: string, timeoutMs: number, signal?: AbortSignal): Promise<Converted> {
    this.worker ??= this.start();
    const worker = this.worker;
    const id = this.nextId++;
    return new Promise<Converted>((resolve, reject) => {
      const timer = setTimeout(() => {
        // The worker is busy with this page: replace it (jobs queued behind it fail and fall back too).
        if (this.worker === worker) this.worker = null;
        void worker.terminate();
        reject(new Error(`the conversion took longer than ${timeoutMs / 1000} s`));
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
          resolve(c);
        },
        reject: (e) => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', onAbort);
          reject(e);
        },
      });
      worker.ref();
      worker.postMessage({ id, html, url });
    });
  }

  async close(): Promise<void> {
    const w = this.worker;
    this.worker = null;
    if (w) await w.terminate();
  }
}

const thread = new ConverterThread();

export async function convertHtml(html: string, url: string, opts: { timeoutMs?: number; signal?: AbortSignal } = {}): Promise<ConvertOutcome> {
  const omittedChars = Math.max(0, html.length - MAX_HTML_CHARS);
  const input = omittedChars > 0 ? html.slice(0, MAX_HTML_CHARS) : html;
  try {
    const converted = await thread.convert(input, url, opts.timeoutMs ?? CONVERT_TIMEOUT_MS, opts.signal);
    return { ...converted, mode: 'markdown', omittedChars };
  } catch (err) {
    if (opts.signal?.aborted) throw err;
    return { title: null, markdown: htmlToPlainText(input), mode: 'text', omittedChars };
  }
}

/** Stops the converter thread (server shutdown). */
export function closeHtmlConverter(): Promise<void> {
  return thread.close();
}
