// WebSearch: one query in, at most `count` results (title, URL, snippet) out, the same way for every
// backend in backends.ts. Kept here, so no backend can skip them:
// - Every request goes through the injected Fetcher (the egress guard, with its evidence); nothing
//   opens a connection itself. Each request: 2 MiB at most, 20 s, no redirect followed (a search
//   API that redirects is misconfigured or intercepted: the error says where it pointed).
// - Domain filters run on every backend's results; with a filter, more results are asked for than
//   `count` so filtering leaves enough.
// - Errors are SearchError: backend, HTTP status and the backend's own error text (cut at 300
//   characters). The API key never appears in a message (it is scrubbed should a backend echo it).
//   A Fetcher rejection (egress refusal, connection failure, abort) is passed on untouched.
import type { HtmlConverter } from '../html-convert.js';
import { redactSecrets } from '../../redact.js';
import type { Fetcher } from '../../egress/types.js';
import { BACKENDS } from './backends.js';
import { endpoint, searchConfigProblems } from './config.js';
import { dedupe, filterByDomain, normalizeDomains } from './domains.js';
import { errorDetail } from './error-text.js';
import { MAX_DETAIL_CHARS, truncate } from './text.js';
import { SearchError, type SearchBackend, type SearchConfig, type SearchQuery, type SearchResult } from './types.js';

export { BACKENDS } from './backends.js';
export { searchConfigProblems } from './config.js';
export { DDG_PARSE_TIMEOUT_MS } from './ddgs.js';
export { parseDdgHtml } from './ddgs-page.js';
export { filterByDomain } from './domains.js';
export { errorDetail } from './error-text.js';
export { decodeEntities, htmlToText } from './text.js';
export * from './types.js';

export const SEARCH_MAX_BYTES = 2 * 1024 * 1024;
export const SEARCH_TIMEOUT_MS = 20_000;
export const MAX_SEARCH_COUNT = 20;
/** Results asked for when a domain filter will drop some. */
const FILTERED_FETCH_COUNT = 20;
/** Longest message of a search failure. */
const MAX_MESSAGE_CHARS = 2000;

/**
 * Runs the search through `fetch` and returns at most `count` results after domain filtering.
 * Throws SearchError with a clear message (backend name, HTTP status, the backend's own error text
 * truncated ~300 chars; never the API key) on non-2xx, unparseable bodies, or a backend-reported
 * error. A rejection of `fetch` itself (refusal, failure, abort) is passed on unchanged.
 */
export async function runSearch(c: SearchConfig, q: SearchQuery, fetch: Fetcher, html: HtmlConverter): Promise<SearchResult[]> {
  const problems = searchConfigProblems(c);
  if (problems.length > 0) throw new SearchError(`web search is not configured: ${problems.join('; ')}`, { backend: c.backend });
  const query = q.query.trim();
  if (query === '') throw new SearchError(`${c.backend}: the search query is empty`, { backend: c.backend });
  const backend = BACKENDS[c.backend];
  const count = clampCount(q.count);
  const allowed = normalizeDomains(q.allowedDomains);
  const blocked = normalizeDomains(q.blockedDomains);
  const want = allowed.length > 0 || blocked.length > 0 ? Math.max(count, FILTERED_FETCH_COUNT) : count;

  const key = c.apiKey;
  const request = backend.prepare({ url: endpoint(c), query, count: want, allowed, blocked, apiKey: key ?? '' });
  const res = await fetch({
    url: request.url,
    method: request.method,
    headers: request.headers,
    ...(request.body === undefined ? {} : { body: request.body }),
    redirects: 'none',
    maxBytes: SEARCH_MAX_BYTES,
    timeoutMs: SEARCH_TIMEOUT_MS,
    ...(q.signal === undefined ? {} : { signal: q.signal }),
  });

  // Scrubbed first, cut second: a shortened message could keep most of an echoed key.
  const fail = (message: string, status?: number): SearchError =>
    new SearchError(truncate(redactSecrets(`${c.backend}: ${message}`, [key]), MAX_MESSAGE_CHARS), { backend: c.backend, ...(status === undefined ? {} : { status }) });

  if (res.redirect !== undefined || (res.status >= 300 && res.status < 400)) {
    const status = res.redirect?.status ?? res.status;
    const location = res.redirect?.location ?? res.headers['location'] ?? '(no location)';
    throw fail(
      `HTTP ${status}: ${backend.display} redirected to ${truncate(location, MAX_DETAIL_CHARS)}; a search endpoint is not expected to redirect (check NORMA_WEBSEARCH_URL)`,
      status,
    );
  }
  if (res.truncated) throw fail(`the response is larger than ${SEARCH_MAX_BYTES} bytes; not read`, res.status);
  const text = res.body.toString('utf8');
  // The key out of an error body before any message is cut from it (a backend may echo it).
  if (res.status < 200 || res.status >= 300) throw fail(statusMessage(backend, res.status, redactSecrets(text, [key])), res.status);

  const results = await backend.parse(text, {
    status: res.status,
    html,
    signal: q.signal,
    display: backend.display,
    fail: (m) => fail(`HTTP ${res.status}: ${m}`, res.status),
    redact: (s) => redactSecrets(s, [key]),
  });
  return filterByDomain(dedupe(results), allowed, blocked).slice(0, count);
}

function clampCount(n: number): number {
  if (!Number.isFinite(n)) return MAX_SEARCH_COUNT;
  return Math.min(MAX_SEARCH_COUNT, Math.max(1, Math.trunc(n)));
}

/** The message for a non-2xx answer: status, the backend's own words, and a hint where one helps. */
function statusMessage(backend: SearchBackend, status: number, text: string): string {
  const detail = errorDetail(text);
  const hint = backend.statusHint?.(status) ?? commonHint(backend, status);
  return `HTTP ${status}${detail === '' ? '' : `: ${detail}`}${hint === '' ? '' : ` (${hint})`}`;
}

/** What a status means for any backend. */
function commonHint(backend: SearchBackend, status: number): string {
  if (backend.keyed && (status === 401 || status === 403)) return 'check NORMA_WEBSEARCH_API_KEY';
  if (status === 402) return 'the account has no credit left';
  if (status === 429) return 'rate limited';
  return '';
}
