// Worker thread entry: parses pages off the main thread (src/web/html-convert.ts drives it), so a
// large or hostile page never stalls the server's event loop: HTML → Markdown for WebFetch, and
// DuckDuckGo's results page for WebSearch.
import { parentPort } from 'node:worker_threads';
import { htmlToMarkdown } from './html-markdown.js';
import { parseDdgHtml } from './search/ddgs-page.js';

type Job = { id: number; kind: 'markdown'; html: string; url: string } | { id: number; kind: 'ddg'; html: string };

parentPort!.on('message', (job: Job) => {
  try {
    const result = job.kind === 'markdown' ? htmlToMarkdown(job.html, job.url) : parseDdgHtml(job.html, (m) => new Error(m));
    parentPort!.postMessage({ id: job.id, ok: true, result });
  } catch (err) {
    parentPort!.postMessage({ id: job.id, ok: false, error: (err as Error).message });
  }
});
