// Worker thread entry: converts pages off the main thread (src/web/html-convert.ts drives it), so a
// large page never stalls the server's event loop.
import { parentPort } from 'node:worker_threads';
import { htmlToMarkdown } from './html-markdown.js';

parentPort!.on('message', (job: { id: number; html: string; url: string }) => {
  try {
    parentPort!.postMessage({ id: job.id, ok: true, result: htmlToMarkdown(job.html, job.url) });
  } catch (err) {
    parentPort!.postMessage({ id: job.id, ok: false, error: (err as Error).message });
  }
});
