// Web search backends: one query in, at most `count` results (title, URL, snippet) out.
//
// - Every request goes through the injected Fetcher (the egress guard, with its evidence); nothing
//   here opens a connection itself. Each request: 2 MiB at most, 20 s, no redirect followed (a
//   search API that redirects is misconfigured or intercepted: the error says where it pointed).
// - Backends: DuckDuckGo's HTML endpoint (no key; its result page is parsed), Brave, Tavily,
//   DeepSeek's Search API (keys) and a SearXNG instance (its JSON format). `url` replaces the
//   scheme, host and base path of the default endpoint; the backend's own path is kept.
// - Domain filters run here on every backend's results (Tavily is also told them, so its own
//   results are already narrowed); with a filter, more results are asked for than `count` so
//   filtering leaves enough.
// - Errors are SearchError: backend, HTTP status and the backend's own error text (cut at 300
//   characters). The API key never appears in a message (it is scrubbed should a backend echo
//   it). A Fetcher rejection (egress refusal, connection failure, abort) is passed on untouched.
import { Parser } from 'htmlparser2';
import { ParseTimeout, parseDdgOffThread } from './html-convert.js';
import { redactSecrets } from '../redact.js';
import { domainToASCII } from 'node:url';
import type { EgressResponse, Fetcher } from './types.js';

export const SEARCH_BACKENDS = ['ddgs', 'brave', 'tavily', 'deepseek', 'searxng'] as const;
export type SearchBackendName = (typeof SEARCH_BACKENDS)[number];

export interface SearchConfig {
  backend: SearchBackendName;
  apiKey?: string;
  /**
   * Endpoint override (required for searxng: its base URL, e.g. http://searx.local:8080; optional
   * for others, used by tests/self-hosted proxies).
   */
  url?: string;
}

export interface SearchResult {
  title: string;
  url: string;
  snippet: string;
}

export interface SearchQuery {
  query: string;
  /** 1..20 (clamped). */
  count: number;
  allowedDomains?: string[];
  blockedDomains?: string[];
  signal?: AbortSignal;
}

export class SearchError extends Error {
  /** The backend that failed, and the HTTP status it answered with (when it answered). */
  readonly backend: SearchBackendName | undefined;
  readonly status: number | undefined;

  constructor(message: string, options: { backend?: SearchBackendName; status?: number; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'SearchError';
    this.backend = options.backend;
    this.status = options.status;
  }
}

export const SEARCH_MAX_BYTES = 2 * 1024 * 1024;
export const SEARCH_TIMEOUT_MS = 20_000;
/** How long reading DuckDuckGo's results page may take (in the worker thread). */
export const DDG_PARSE_TIMEOUT_MS = 10_000;
/** HTML fragments (titles, snippets, error bodies) are read up to this many characters. */
const MAX_FRAGMENT_CHARS = 16 * 1024;
export const MAX_SEARCH_COUNT = 20;
/** Results asked for when a domain filter will drop some. */
const FILTERED_FETCH_COUNT = 20;
const MAX_DETAIL_CHARS = 300;
/** DeepSeek's documented query limit, in Unicode characters. */
const DEEPSEEK_MAX_QUERY_CHARS = 128;

const KEYED: ReadonlySet<SearchBackendName> = new Set(['brave', 'tavily', 'deepseek']);

const DEFAULT_ORIGIN: Record<SearchBackendName, string | null> = {
  ddgs: 'https://html.duckduckgo.com',
  brave: 'https://api.search.brave.com',
  tavily: 'https://api.tavily.com',
  deepseek: 'https://api.deepseek.com',
  searxng: null,
};

const PATH: Record<SearchBackendName, string> = {
  ddgs: '/html/',
  brave: '/res/v1/web/search',
  tavily: '/search',
  deepseek: '/v1/tools/search',
  searxng: '/search',
};

const DISPLAY: Record<SearchBackendName, string> = {
  ddgs: 'DuckDuckGo',
  brave: 'Brave Search',
  tavily: 'Tavily',
  deepseek: 'DeepSeek Search',
  searxng: 'SearXNG',
};

/** A desktop browser's user agent: DuckDuckGo's HTML endpoint refuses obvious clients sooner. */
const BROWSER_USER_AGENT =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';

// ---------------------------------------------------------------------------------------------
// Configuration

/**
 * Problems that make the backend unusable (missing key for brave/tavily/deepseek, missing/invalid
 * url for searxng, a url that is not http(s) or has credentials); [] when usable. Each message
 * names the env var to fix: NORMA_WEBSEARCH_BACKEND, NORMA_WEBSEARCH_API_KEY, NORMA_WEBSEARCH_URL.
 */
export function searchConfigProblems(c: SearchConfig): string[] {
  const problems: string[] = [];
  const backend = c.backend as string;
  if (!(SEARCH_BACKENDS as readonly string[]).includes(backend)) {
    problems.push(`NORMA_WEBSEARCH_BACKEND: "${truncate(String(backend), 40)}" is not a search backend; use one of ${SEARCH_BACKENDS.join(', ')}`);
    return problems;
  }
  const b = c.backend;
  if (KEYED.has(b)) {
    const key = c.apiKey ?? '';
    if (key.trim() === '') problems.push(`NORMA_WEBSEARCH_API_KEY: the ${b} search backend needs an API key`);
    else if (/[\s\x00-\x1f\x7f]/.test(key)) problems.push('NORMA_WEBSEARCH_API_KEY: the API key contains whitespace or control characters');
  }
  if (c.url === undefined || c.url.trim() === '') {
    if (b === 'searxng') problems.push('NORMA_WEBSEARCH_URL: the searxng search backend needs the base URL of a SearXNG instance (e.g. http://searx.local:8080)');
  } else {
    problems.push(...urlProblems(c.url.trim()));
  }
  return problems;
}

function urlProblems(raw: string): string[] {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    // The text is not echoed: it may hold a password.
    return ['NORMA_WEBSEARCH_URL: not a valid absolute URL (expected e.g. http://searx.local:8080)'];
  }
  const out: string[] = [];
  if (u.protocol !== 'http:' && u.protocol !== 'https:') out.push(`NORMA_WEBSEARCH_URL: must be an http or https URL, not ${u.protocol}`);
  if (u.username !== '' || u.password !== '') out.push('NORMA_WEBSEARCH_URL: must not contain a user name or password');
  if (u.search !== '' || u.hash !== '' || raw.includes('?') || raw.includes('#')) out.push('NORMA_WEBSEARCH_URL: must be a base URL, without a query or fragment');
  return out;
}

/** The endpoint a backend is asked at: the default, or `url` (scheme, host, base path) + the backend's path. */
function endpoint(c: SearchConfig): string {
  const base = c.url !== undefined && c.url.trim() !== '' ? c.url.trim().replace(/\/+$/, '') : DEFAULT_ORIGIN[c.backend];
  if (base === null) throw new SearchError(`${c.backend}: NORMA_WEBSEARCH_URL is not set`, { backend: c.backend });
  return base + PATH[c.backend];
}

// ---------------------------------------------------------------------------------------------
// Running a search

interface Prepared {
  url: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string;
}

/**
 * Runs the search through `fetch` and returns at most `count` results after domain filtering.
 * Throws SearchError with a clear message (backend name, HTTP status, the backend's own error text
 * truncated ~300 chars; never the API key) on non-2xx, unparseable bodies, or a backend-reported
 * error. A rejection of `fetch` itself (refusal, failure, abort) is passed on unchanged.
 */
export async function runSearch(c: SearchConfig, q: SearchQuery, fetch: Fetcher): Promise<SearchResult[]> {
  const problems = searchConfigProblems(c);
  if (problems.length > 0) throw new SearchError(`web search is not configured: ${problems.join('; ')}`, { backend: c.backend });
  const query = q.query.trim();
  if (query === '') throw new SearchError(`${c.backend}: the search query is empty`, { backend: c.backend });
  const count = clampCount(q.count);
  const allowed = normalizeDomains(q.allowedDomains);
  const blocked = normalizeDomains(q.blockedDomains);
  const filtered = allowed.length > 0 || blocked.length > 0;
  const want = filtered ? Math.max(count, FILTERED_FETCH_COUNT) : count;

  const prepared = prepare(c, query, want, allowed, blocked);
  const res = await fetch({
    url: prepared.url,
    method: prepared.method,
    headers: prepared.headers,
    ...(prepared.body === undefined ? {} : { body: prepared.body }),
    redirects: 'none',
    maxBytes: SEARCH_MAX_BYTES,
    timeoutMs: SEARCH_TIMEOUT_MS,
    ...(q.signal === undefined ? {} : { signal: q.signal }),
  });

  const key = c.apiKey;
  // Scrubbed first, cut second: a shortened message could keep most of an echoed key.
  const fail = (message: string, status?: number): SearchError =>
    new SearchError(truncate(scrub(`${c.backend}: ${message}`, key), MAX_MESSAGE_CHARS), { backend: c.backend, ...(status === undefined ? {} : { status }) });

  if (res.redirect !== undefined || (res.status >= 300 && res.status < 400)) {
    const location = res.redirect?.location ?? res.headers['location'] ?? '(no location)';
    throw fail(
      `HTTP ${res.redirect?.status ?? res.status}: ${DISPLAY[c.backend]} redirected to ${truncate(location, MAX_DETAIL_CHARS)}; a search endpoint is not expected to redirect (check NORMA_WEBSEARCH_URL)`,
      res.redirect?.status ?? res.status,
    );
  }
  if (res.truncated) throw fail(`the response is larger than ${SEARCH_MAX_BYTES} bytes; not read`, res.status);
  const text = res.body.toString('utf8');
  // The key out of an error body before any message is cut from it (a backend may echo it).
  if (res.status < 200 || res.status >= 300) throw fail(statusMessage(c.backend, res, redactSecrets(text, [key])), res.status);

  let results: SearchResult[];
  if (c.backend === 'ddgs') {
    try {
      results = await parseDdgOffThread<SearchResult[]>(text, DDG_PARSE_TIMEOUT_MS, q.signal);
    } catch (err) {
      if (q.signal?.aborted) throw err;
      throw fail(`HTTP ${res.status}: ${err instanceof ParseTimeout ? `the results page could not be read within ${DDG_PARSE_TIMEOUT_MS / 1000} s` : (err as Error).message}`, res.status);
    }
  } else {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw fail(`HTTP ${res.status}: the response is not JSON: ${truncate(collapse(stripTags(redactSecrets(text, [key]))), MAX_DETAIL_CHARS) || '(empty body)'}`, res.status);
    }
    results = parseJson(c.backend, json, (m) => fail(`HTTP ${res.status}: ${m}`, res.status));
  }
  return filterByDomain(dedupe(results), allowed, blocked).slice(0, count);
}

function clampCount(n: number): number {
  if (!Number.isFinite(n)) return MAX_SEARCH_COUNT;
  return Math.min(MAX_SEARCH_COUNT, Math.max(1, Math.trunc(n)));
}

function prepare(c: SearchConfig, query: string, count: number, allowed: string[], blocked: string[]): Prepared {
  const url = endpoint(c);
  const key = c.apiKey ?? '';
  switch (c.backend) {
    case 'ddgs':
      return {
        url,
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          'user-agent': BROWSER_USER_AGENT,
          accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8',
          'accept-language': 'en-US,en;q=0.9',
        },
        body: new URLSearchParams({ q: query }).toString(),
      };
    case 'brave':
      return {
        url: `${url}?${new URLSearchParams({ q: query, count: String(count) }).toString()}`,
        method: 'GET',
        headers: { accept: 'application/json', 'x-subscription-token': key },
      };
    case 'tavily': {
      const body: Record<string, unknown> = { query, max_results: count, search_depth: 'basic' };
      if (allowed.length > 0) body['include_domains'] = allowed;
      if (blocked.length > 0) body['exclude_domains'] = blocked;
      return {
        url,
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json', authorization: `Bearer ${key}` },
        body: JSON.stringify(body),
      };
    }
    case 'deepseek':
      if ([...query].length > DEEPSEEK_MAX_QUERY_CHARS) {
        throw new SearchError(`deepseek: the query is longer than ${DEEPSEEK_MAX_QUERY_CHARS} characters, DeepSeek Search's limit`, { backend: 'deepseek' });
      }
      return {
        url,
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json', authorization: `Bearer ${key}` },
        body: JSON.stringify({ query, count }),
      };
    case 'searxng':
      return {
        url: `${url}?${new URLSearchParams({ q: query, format: 'json' }).toString()}`,
        method: 'GET',
        headers: { accept: 'application/json' },
      };
  }
}

/** The message for a non-2xx answer: status, the backend's own words, and a hint where one helps. */
function statusMessage(backend: SearchBackendName, res: EgressResponse, text: string): string {
  const detail = errorDetail(text);
  let hint = '';
  if (backend === 'searxng' && res.status === 403) {
    hint = 'the SearXNG instance refused the JSON format; SearXNG answers 403 when `json` is not among `search.formats` in its settings.yml';
  } else if (backend === 'searxng' && res.status === 429) {
    hint = "the SearXNG instance's limiter refused the request (disable `server.limiter` for this client)";
  } else if (backend === 'ddgs' && (res.status === 403 || res.status === 429)) {
    hint = 'DuckDuckGo refused the request: rate limit or bot protection';
  } else if (KEYED.has(backend) && (res.status === 401 || res.status === 403)) {
    hint = 'check NORMA_WEBSEARCH_API_KEY';
  } else if (res.status === 402) {
    hint = 'the account has no credit left';
  } else if (res.status === 429) {
    hint = 'rate limited';
  }
  return `HTTP ${res.status}${detail === '' ? '' : `: ${detail}`}${hint === '' ? '' : ` (${hint})`}`;
}

/** The backend's own error text from a JSON error body (Brave, Tavily, DeepSeek, generic), or the body's text. */
export function errorDetail(text: string): string {
  let out = '';
  try {
    out = jsonErrorText(JSON.parse(text));
  } catch {
    out = '';
  }
  if (out === '') out = stripTags(text);
  return truncate(collapse(out), MAX_DETAIL_CHARS);
}

function jsonErrorText(j: unknown): string {
  if (typeof j === 'string') return j;
  if (!isObject(j)) return '';
  const err = j['error'];
  if (typeof err === 'string') return withCode(j['code'] ?? j['type'], err);
  if (isObject(err)) {
    // Brave: {type: "ErrorResponse", error: {code, detail, status, meta}}; OpenAI-style (DeepSeek): {error: {message, type, code}}.
    const msg = str(err['detail']) || str(err['message']) || str(err['error']);
    const code = err['code'] ?? err['type'];
    if (msg !== '') return withCode(code, msg);
    if (code !== undefined) return String(code);
  }
  // Tavily / FastAPI: {detail: {error}} or {detail: "..."} or {detail: [{msg}]}.
  const detail = j['detail'];
  if (typeof detail === 'string') return detail;
  if (isObject(detail)) return str(detail['error']) || str(detail['message']);
  if (Array.isArray(detail)) return detail.map((d) => (isObject(d) ? str(d['msg']) : '')).filter((s) => s !== '').join('; ');
  return str(j['message']);
}

function withCode(code: unknown, msg: string): string {
  if ((typeof code === 'string' && code !== '') || typeof code === 'number') {
    const c = String(code);
    return msg.includes(c) ? msg : `${c}: ${msg}`;
  }
  return msg;
}

// ---------------------------------------------------------------------------------------------
// JSON backends

function parseJson(backend: Exclude<SearchBackendName, 'ddgs'>, j: unknown, fail: (m: string) => SearchError): SearchResult[] {
  if (!isObject(j)) throw fail(`unexpected response: ${truncate(JSON.stringify(j) ?? '', 80)}`);
  // A 2xx body that reports an error (and carries no results).
  if ((j['error'] !== undefined && j['error'] !== null && !Array.isArray(j['results'])) || j['type'] === 'ErrorResponse') {
    throw fail(`${DISPLAY[backend]} reported an error: ${collapse(jsonErrorText(j)) || 'no details'}`);
  }
  switch (backend) {
    case 'brave': {
      // No `web` key at all: Brave found no web results.
      const web = j['web'];
      if (web === undefined) return [];
      if (!isObject(web) || !Array.isArray(web['results'])) throw fail('unexpected response: `web.results` is not a list');
      return collect(web['results'], (r) => ({ title: htmlToText(str(r['title'])), url: str(r['url']), snippet: htmlToText(str(r['description'])) }));
    }
    case 'tavily':
    case 'searxng': {
      if (!Array.isArray(j['results'])) throw fail(`unexpected response: no \`results\` list (keys: ${keysOf(j)})`);
      return collect(j['results'], (r) => ({ title: collapse(str(r['title'])), url: str(r['url']), snippet: collapse(str(r['content'])) }));
    }
    case 'deepseek': {
      if (!Array.isArray(j['results'])) throw fail(`unexpected response: no \`results\` list (keys: ${keysOf(j)})`);
      return collect(j['results'], (r) => ({
        title: collapse(str(r['title'])),
        url: str(r['url']),
        snippet: collapse(str(r['snippet']) || str(r['summary']) || str(r['content'])),
      }));
    }
  }
}

/** Maps each object item; keeps those with an http(s) URL (and a title, else the URL stands in). */
function collect(items: unknown[], map: (r: Record<string, unknown>) => SearchResult): SearchResult[] {
  const out: SearchResult[] = [];
  for (const item of items) {
    if (!isObject(item)) continue;
    const r = map(item);
    const url = httpUrl(r.url.trim());
    if (url === null) continue;
    out.push({ title: r.title || url, url, snippet: r.snippet });
  }
  return out;
}

function keysOf(j: Record<string, unknown>): string {
  const keys = Object.keys(j).slice(0, 10);
  return keys.length === 0 ? 'none' : keys.join(', ');
}

// ---------------------------------------------------------------------------------------------
// DuckDuckGo's HTML results page

/**
 * The organic results of html.duckduckgo.com: `.result` blocks, ads (`.result--ad`) skipped; the
 * title is `a.result__a`'s text, its href usually a `//duckduckgo.com/l/?uddg=<target>` redirect;
 * the snippet is `.result__snippet`'s text. A bot challenge instead of results is an error.
 */
export function parseDdgHtml(html: string, fail: (message: string) => Error = (m) => new SearchError(`ddgs: ${m}`, { backend: 'ddgs' })): SearchResult[] {
  const out: SearchResult[] = [];
  // One pass of a streaming parser (linear, no tree, no recursion: a page of a million nested
  // elements costs a million steps). Open elements are a stack of their text roles.
  interface Open {
    inline: boolean;
    /** This element starts the current result block / its title link / its snippet. */
    role: 'result' | 'ad' | 'link' | 'snippet' | null;
  }
  const stack: Open[] = [];
  let result: { href: string | null; title: string[]; snippet: string[] | null; ad: boolean } | null = null;
  let capture: string[] | null = null;
  let skip = 0;
  let challenge = false;
  const parser = new Parser(
    {
      onopentag(name, attrs) {
        const classes = (attrs.class ?? '').split(/\s+/);
        let role: Open['role'] = null;
        if (SKIPPED_CONTENT.has(name)) skip++;
        if (attrs.id === 'challenge-form' || (name === 'form' && /challenge|anomaly/i.test(attrs.action ?? ''))) challenge = true;
        if (result === null && classes.includes('result')) {
          result = { href: null, title: [], snippet: null, ad: classes.includes('result--ad') || classes.includes('result--ads') };
          role = 'result';
        } else if (result !== null && capture === null) {
          if (name === 'a' && classes.includes('result__a') && result.href === null) {
            result.href = decodeEntities(attrs.href ?? '');
            capture = result.title;
            role = 'link';
          } else if (classes.includes('result__snippet') && result.snippet === null) {
            result.snippet = [];
            capture = result.snippet;
            role = 'snippet';
          }
        }
        const inline = INLINE_ELEMENTS.has(name);
        if (capture !== null && role === null) capture.push(name === 'br' || !inline ? ' ' : '');
        stack.push({ inline, role });
      },
      ontext(text) {
        if (capture !== null && skip === 0) capture.push(decodeEntities(text));
      },
      onclosetag(name) {
        const el = stack.pop();
        if (SKIPPED_CONTENT.has(name) && skip > 0) skip--;
        if (el === undefined) return;
        if (el.role === 'link' || el.role === 'snippet') capture = null;
        else if (capture !== null && !el.inline) capture.push(' ');
        if (el.role === 'result' && result !== null) {
          const r = result;
          result = null;
          capture = null;
          const url = r.href === null ? null : ddgTarget(r.href);
          if (!r.ad && url !== null) {
            const title = collapse(r.title.join(''));
            out.push({ title: title || url, url, snippet: r.snippet === null ? '' : collapse(r.snippet.join('')) });
          }
        }
      },
    },
    { decodeEntities: false, lowerCaseTags: true, lowerCaseAttributeNames: true },
  );
  parser.end(html);
  if (out.length === 0 && (challenge || /anomaly|bots use DuckDuckGo/i.test(html))) {
    throw fail('DuckDuckGo refused the request: it answered with a bot challenge (anomaly page) instead of results; try again later or use another backend (NORMA_WEBSEARCH_BACKEND)');
  }
  return out;
}

/** The target of a result link: the `uddg` parameter of a DuckDuckGo redirect, or the href itself; null for ads and others. */
function ddgTarget(href: string): string | null {
  let u: URL;
  try {
    u = new URL(href.trim(), 'https://html.duckduckgo.com/');
  } catch {
    return null;
  }
  const host = u.hostname.toLowerCase();
  if (host === 'duckduckgo.com' || host.endsWith('.duckduckgo.com')) {
    if (u.pathname !== '/l/' && u.pathname !== '/l') return null; // y.js (ads) and the like
    const target = u.searchParams.get('uddg');
    return target === null ? null : httpUrl(target);
  }
  return httpUrl(u.href);
}

// ---------------------------------------------------------------------------------------------
// Domain filter

/**
 * The domain filter on its own (exported for tests): a result passes when its host equals or is a
 * subdomain of an allowed domain (if any are given) and of no blocked domain; case-insensitive, a
 * leading `*.` or `.` in the filter is ignored, ports ignored, invalid URLs dropped. Blank filter
 * entries are ignored.
 */
export function filterByDomain(results: SearchResult[], allowed?: string[], blocked?: string[]): SearchResult[] {
  const allow = normalizeDomains(allowed);
  const block = normalizeDomains(blocked);
  return results.filter((r) => {
    const host = hostOf(r.url);
    if (host === null) return false;
    if (allow.length > 0 && !allow.some((d) => hostMatches(host, d))) return false;
    return !block.some((d) => hostMatches(host, d));
  });
}

function hostMatches(host: string, domain: string): boolean {
  return host === domain || host.endsWith(`.${domain}`);
}

function hostOf(url: string): string | null {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return null;
  }
  const host = u.hostname.toLowerCase().replace(/^\[|\]$/g, '').replace(/\.$/, '');
  return host === '' ? null : host;
}

/** Lower-cased ASCII (punycode) domains, without a leading `*.`/`.`, a scheme, a path or a port. */
function normalizeDomains(list: string[] | undefined): string[] {
  if (list === undefined) return [];
  const out: string[] = [];
  for (const raw of list) {
    let d = String(raw).trim().toLowerCase();
    d = d.replace(/^[a-z][a-z0-9+.-]*:\/\//, ''); // a scheme, if someone wrote a URL
    d = d.replace(/[/?#].*$/, ''); // a path
    d = d.replace(/^[^@]*@/, ''); // credentials
    d = d.replace(/^(\*\.|\.)+/, '');
    if (d.startsWith('[')) d = d.replace(/^\[([^\]]*)\](:\d*)?$/, '$1');
    else if (d.indexOf(':') === d.lastIndexOf(':')) d = d.replace(/:\d*$/, ''); // a port, unless a bare IPv6 address
    d = d.replace(/\.+$/, '');
    if (d === '') continue;
    if (!d.includes(':')) {
      const ascii = domainToASCII(d);
      if (ascii !== '') d = ascii;
    }
    if (!out.includes(d)) out.push(d);
  }
  return out;
}

function dedupe(results: SearchResult[]): SearchResult[] {
  const seen = new Set<string>();
  return results.filter((r) => (seen.has(r.url) ? false : (seen.add(r.url), true)));
}

// ---------------------------------------------------------------------------------------------
// Text of HTML, with htmlparser2's streaming parser: script/style contents skipped, block
// boundaries a space, inline ones nothing; character references decoded by decodeEntities.

const SKIPPED_CONTENT = new Set(['script', 'style', 'noscript', 'template']);
/** Inline elements: their boundaries add no space to the text. */
const INLINE_ELEMENTS = new Set([
  'a', 'abbr', 'b', 'bdi', 'bdo', 'cite', 'code', 'data', 'dfn', 'em', 'font', 'i', 'kbd', 'mark', 'q', 's', 'samp',
  'small', 'span', 'strong', 'sub', 'sup', 'time', 'u', 'var', 'wbr',
]);

function textOfHtml(html: string): string {
  const parts: string[] = [];
  let skip = 0;
  const parser = new Parser(
    {
      onopentag(name) {
        if (SKIPPED_CONTENT.has(name)) skip++;
        else if (name === 'br' || !INLINE_ELEMENTS.has(name)) parts.push(' ');
      },
      ontext(text) {
        if (skip === 0) parts.push(decodeEntities(text));
      },
      onclosetag(name) {
        if (SKIPPED_CONTENT.has(name)) skip = Math.max(0, skip - 1);
        else if (!INLINE_ELEMENTS.has(name)) parts.push(' ');
      },
    },
    { decodeEntities: false, lowerCaseTags: true },
  );
  parser.end(html);
  return parts.join('');
}

/** Text of an HTML fragment (Brave's titles and descriptions carry <strong> and entities). */
export function htmlToText(fragment: string): string {
  return collapse(textOfHtml(fragment.slice(0, MAX_FRAGMENT_CHARS)));
}

/** Text of an error body: markup removed when there is any. */
function stripTags(s: string): string {
  return textOfHtml(s.slice(0, MAX_FRAGMENT_CHARS));
}

// ---------------------------------------------------------------------------------------------
// Character references

const NAMED_ENTITIES: Record<string, string> = {
  amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0',
  hellip: '\u2026', mdash: '\u2014', ndash: '\u2013', lsquo: '\u2018', rsquo: '\u2019', sbquo: '\u201a',
  ldquo: '\u201c', rdquo: '\u201d', bdquo: '\u201e', laquo: '\u00ab', raquo: '\u00bb', lsaquo: '\u2039', rsaquo: '\u203a',
  bull: '\u2022', middot: '\u00b7', copy: '\u00a9', reg: '\u00ae', trade: '\u2122', deg: '\u00b0', times: '\u00d7',
  divide: '\u00f7', plusmn: '\u00b1', para: '\u00b6', sect: '\u00a7', euro: '\u20ac', pound: '\u00a3', yen: '\u00a5',
  cent: '\u00a2', shy: '\u00ad', thinsp: '\u2009', ensp: '\u2002', emsp: '\u2003', zwnj: '\u200c', zwj: '\u200d',
  larr: '\u2190', rarr: '\u2192', uarr: '\u2191', darr: '\u2193', harr: '\u2194', iexcl: '\u00a1', iquest: '\u00bf',
  frac12: '\u00bd', frac14: '\u00bc', frac34: '\u00be', sup2: '\u00b2', sup3: '\u00b3', micro: '\u00b5',
  aacute: '\u00e1', eacute: '\u00e9', iacute: '\u00ed', oacute: '\u00f3', uacute: '\u00fa', agrave: '\u00e0',
  egrave: '\u00e8', ograve: '\u00f2', auml: '\u00e4', euml: '\u00eb', iuml: '\u00ef', ouml: '\u00f6', uuml: '\u00fc',
  Auml: '\u00c4', Ouml: '\u00d6', Uuml: '\u00dc', szlig: '\u00df', ccedil: '\u00e7', ntilde: '\u00f1', Eacute: '\u00c9',
  acirc: '\u00e2', ecirc: '\u00ea', ocirc: '\u00f4', aring: '\u00e5', oslash: '\u00f8', aelig: '\u00e6',
};

/** How HTML maps numeric references 0x80..0x9F (Windows-1252). */
const C1_REMAP: Record<number, number> = {
  0x80: 0x20ac, 0x82: 0x201a, 0x83: 0x0192, 0x84: 0x201e, 0x85: 0x2026, 0x86: 0x2020, 0x87: 0x2021, 0x88: 0x02c6,
  0x89: 0x2030, 0x8a: 0x0160, 0x8b: 0x2039, 0x8c: 0x0152, 0x8e: 0x017d, 0x91: 0x2018, 0x92: 0x2019, 0x93: 0x201c,
  0x94: 0x201d, 0x95: 0x2022, 0x96: 0x2013, 0x97: 0x2014, 0x98: 0x02dc, 0x99: 0x2122, 0x9a: 0x0161, 0x9b: 0x203a,
  0x9c: 0x0153, 0x9e: 0x017e, 0x9f: 0x0178,
};

const ENTITY_RE = /&(?:#(\d{1,8});?|#[xX]([0-9a-fA-F]{1,7});?|([A-Za-z][A-Za-z0-9]{1,31});|(amp|lt|gt|quot|nbsp)(?![A-Za-z0-9=;]))/g;

/** Decodes character references: numeric (decimal, hex) and the common named ones; unknown names stay as written. */
export function decodeEntities(s: string): string {
  if (!s.includes('&')) return s;
  return s.replace(ENTITY_RE, (whole, dec: string | undefined, hex: string | undefined, name: string | undefined, legacy: string | undefined) => {
    if (dec !== undefined || hex !== undefined) {
      const cp = dec !== undefined ? Number.parseInt(dec, 10) : Number.parseInt(hex!, 16);
      return codePoint(cp);
    }
    const n = name ?? legacy!;
    return Object.hasOwn(NAMED_ENTITIES, n) ? NAMED_ENTITIES[n]! : whole;
  });
}

function codePoint(cp: number): string {
  if (cp === 0 || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return '\ufffd';
  return String.fromCodePoint(C1_REMAP[cp] ?? cp);
}

// ---------------------------------------------------------------------------------------------
// Small helpers

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

function collapse(s: string): string {
  return s.replace(/\s+/g, ' ').trim();
}

/** At most `max` characters (code points), with an ellipsis when cut. */
function truncate(s: string, max: number): string {
  if (s.length <= max) return s;
  const chars = [...s.slice(0, max * 2)];
  if (chars.length <= max && s.length <= max * 2) return s;
  return `${chars.slice(0, max).join('')}…`;
}

/** An absolute http(s) URL, normalised; null otherwise. */
function httpUrl(s: string): string | null {
  let u: URL;
  try {
    u = new URL(s);
  } catch {
    return null;
  }
  if ((u.protocol !== 'http:' && u.protocol !== 'https:') || u.hostname === '') return null;
  return u.href;
}

/** Removes the API key from a message, should a backend have echoed it. */
/** Longest message of a search failure. */
const MAX_MESSAGE_CHARS = 2000;

function scrub(message: string, key: string | undefined): string {
  return redactSecrets(message, [key]);
}
