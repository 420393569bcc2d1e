// Web search backends against a loopback stand-in: each backend is pointed at it with `url`, the
// stand-in replays recorded response shapes (test/fixtures/web/) and records what it received. The
// Fetcher here is a plain undici request honouring what runSearch asks of the egress client
// (method, headers, body, maxBytes, redirects: 'none', timeout, signal).
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { decodeEntities, filterByDomain, htmlToText, SEARCH_BACKENDS, searchConfigProblems, SearchError, type SearchConfig, type SearchResult } from '../../src/web/search/index.js';
import { runSearch } from '../helpers/search.js';
import { EgressFailure, type EgressRequest, type EgressResponse, type Fetcher } from '../../src/egress/types.js';

const KEY = 'sk-test-0123456789-SECRET';

function fixture(name: string): Buffer {
  return readFileSync(new URL(`../fixtures/web/${name}`, import.meta.url));
}

// --- the loopback stand-in ----------------------------------------------------------------------

interface Received {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: http.IncomingHttpHeaders;
  body: string;
}

interface Reply {
  status?: number;
  headers?: Record<string, string>;
  body?: Buffer | string;
}

let server: http.Server;
let origin = '';
let received: Received[] = [];
let reply: Reply = { status: 500 };

const json = (body: Buffer | string, status = 200): Reply => ({ status, headers: { 'content-type': 'application/json' }, body });
const html = (body: Buffer | string, status = 200): Reply => ({ status, headers: { 'content-type': 'text/html; charset=utf-8' }, body });

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const u = new URL(req.url ?? '/', 'http://fake');
      received.push({ method: req.method ?? '', path: u.pathname, query: u.searchParams, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(reply.status ?? 200, reply.headers ?? {});
      res.end(reply.body ?? '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

beforeEach(() => {
  received = [];
  asked = [];
  reply = { status: 500, body: 'no reply set' };
});

// --- the test Fetcher -----------------------------------------------------------------------------

let asked: EgressRequest[] = [];

const fetcher: Fetcher = async (req) => {
  asked.push(req);
  const signals = [AbortSignal.timeout(req.timeoutMs ?? 30_000)];
  if (req.signal !== undefined) signals.push(req.signal);
  const res = await request(req.url, {
    method: req.method ?? 'GET',
    headers: req.headers ?? {},
    body: req.body ?? null,
    signal: AbortSignal.any(signals),
  });
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(', ') : v;
  const max = req.maxBytes ?? 10 * 1024 * 1024;
  const chunks: Buffer[] = [];
  let total = 0;
  let truncated = false;
  for await (const chunk of res.body as AsyncIterable<Buffer>) {
    if (total + chunk.length > max) {
      chunks.push(chunk.subarray(0, max - total));
      truncated = true;
      break;
    }
    chunks.push(chunk);
    total += chunk.length;
  }
  const out: EgressResponse = { url: req.url, status: res.statusCode, headers, body: Buffer.concat(chunks), truncated, address: '127.0.0.1' };
  if (res.statusCode >= 300 && res.statusCode < 400 && headers['location'] !== undefined) {
    if (req.redirects !== 'none') throw new Error('the test fetcher follows no redirects');
    out.redirect = { location: headers['location'], status: res.statusCode };
  }
  return out;
};

const at = (backend: SearchConfig['backend'], path = ''): SearchConfig => ({
  backend,
  url: origin + path,
  ...(backend === 'ddgs' || backend === 'searxng' ? {} : { apiKey: KEY }),
});

async function searchError(p: Promise<unknown>): Promise<SearchError> {
  const e = await p.then(
    () => null,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(SearchError);
  const err = e as SearchError;
  expect(err.message).not.toContain(KEY);
  return err;
}

const urls = (rs: SearchResult[]): string[] => rs.map((r) => r.url);

// --- DuckDuckGo -----------------------------------------------------------------------------------

describe('ddgs', () => {
  it('POSTs the query as a form to /html/ and reads the organic results (ad skipped, redirects decoded, entities and tags resolved)', async () => {
    reply = html(fixture('ddgs.html'));
    const results = await runSearch(at('ddgs'), { query: 'node.js streams & backpressure', count: 10 }, fetcher);

    expect(received).toHaveLength(1);
    const r = received[0]!;
    expect(r.method).toBe('POST');
    expect(r.path).toBe('/html/');
    expect(r.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(r.headers['user-agent']).toMatch(/^Mozilla\/5\.0 .*Chrome\//);
    expect(new URLSearchParams(r.body).get('q')).toBe('node.js streams & backpressure');
    expect(r.body).toBe('q=node.js+streams+%26+backpressure');

    expect(results).toEqual([
      {
        title: 'Backpressuring in Streams | Node.js',
        url: 'https://nodejs.org/en/learn/modules/backpressuring-in-streams',
        snippet:
          'There is a general problem that occurs during data handling called backpressure and describes a buildup of data behind a buffer during data transfer. When the receiving end of the transfer has complex operations, or is slower for whatever reason, there is a tendency for data from the incoming source to accumulate, like a clog.',
      },
      {
        title: 'How to handle "backpressure" in Node.js streams? - Stack Overflow',
        url: 'https://stackoverflow.com/questions/12345678/how-to-handle-backpressure?tab=votes&page=2',
        snippet: "I'm piping a readable into a writable and write() returns false — what's the right way to wait for 'drain'? Tried <stream>.pause() & resume…",
      },
      {
        title: 'Streams guide — pipeline() & finished()',
        url: 'https://docs.example.org/guide/streams#pipeline',
        snippet: 'Use stream.pipeline() to forward errors and clean up; café © 2024.',
      },
      {
        title: 'Streams in depth: highWaterMark explained',
        url: 'https://blog.example.com/2023/streams-in-depth?ref=ddg&lang=en',
        snippet: 'A deep dive on highWaterMark, objectMode and buffering.',
      },
      {
        title: 'Node.js Streams: Everything you need to know',
        url: 'https://example.com/node-streams',
        snippet: 'Readable, Writable, Duplex and Transform streams explained with examples.',
      },
      {
        title: 'Ask HN: Why are Node streams so hard? | Hacker News',
        url: 'https://news.ycombinator.com/item?id=31415926',
        snippet: 'Because error handling across pipe() was never consistent…',
      },
    ]);
    expect(results.some((x) => x.url.includes('streams-pro') || x.url.includes('script.invalid'))).toBe(false);
  });

  it('keeps at most `count` results', async () => {
    reply = html(fixture('ddgs.html'));
    const results = await runSearch(at('ddgs'), { query: 'streams', count: 2 }, fetcher);
    expect(urls(results)).toEqual(['https://nodejs.org/en/learn/modules/backpressuring-in-streams', 'https://stackoverflow.com/questions/12345678/how-to-handle-backpressure?tab=votes&page=2']);
  });

  it('filters by domain: allowed with subdomains and any case, blocked on top, then count', async () => {
    reply = html(fixture('ddgs.html'));
    const allowed = await runSearch(at('ddgs'), { query: 'streams', count: 10, allowedDomains: ['EXAMPLE.org', '*.example.com'] }, fetcher);
    expect(urls(allowed)).toEqual(['https://docs.example.org/guide/streams#pipeline', 'https://blog.example.com/2023/streams-in-depth?ref=ddg&lang=en', 'https://example.com/node-streams']);

    const both = await runSearch(at('ddgs'), { query: 'streams', count: 1, allowedDomains: ['example.com', 'example.org'], blockedDomains: ['.Docs.Example.org'] }, fetcher);
    expect(urls(both)).toEqual(['https://blog.example.com/2023/streams-in-depth?ref=ddg&lang=en']);

    const blocked = await runSearch(at('ddgs'), { query: 'streams', count: 10, blockedDomains: ['nodejs.org', 'ycombinator.com', 'example.com'] }, fetcher);
    expect(urls(blocked)).toEqual(['https://stackoverflow.com/questions/12345678/how-to-handle-backpressure?tab=votes&page=2', 'https://docs.example.org/guide/streams#pipeline']);
  });

  it('a bot challenge (anomaly page) is an error saying DuckDuckGo refused the request', async () => {
    reply = html(fixture('ddgs-anomaly.html'), 202);
    const e = await searchError(runSearch(at('ddgs'), { query: 'streams', count: 5 }, fetcher));
    expect(e.message).toMatch(/^ddgs: HTTP 202: DuckDuckGo refused the request/);
    expect(e.backend).toBe('ddgs');
    expect(e.status).toBe(202);
  });

  it('a page with no results is an empty list', async () => {
    reply = html(fixture('ddgs-empty.html'));
    expect(await runSearch(at('ddgs'), { query: 'zzqxjvkwpq', count: 5 }, fetcher)).toEqual([]);
  });

  it('a non-2xx answer names the status', async () => {
    reply = html('<html><body><h1>Too Many Requests</h1></body></html>', 429);
    const e = await searchError(runSearch(at('ddgs'), { query: 'streams', count: 5 }, fetcher));
    expect(e.message).toBe('ddgs: HTTP 429: Too Many Requests (DuckDuckGo refused the request: rate limit or bot protection)');
  });

  it('`url` with a base path keeps the backend path after it', async () => {
    reply = html(fixture('ddgs-empty.html'));
    await runSearch(at('ddgs', '/proxy/ddg/'), { query: 'x', count: 1 }, fetcher);
    expect(received[0]!.path).toBe('/proxy/ddg/html/');
  });
});

// --- Brave ----------------------------------------------------------------------------------------

describe('brave', () => {
  it('GETs /res/v1/web/search with q, count and the subscription token; strips <strong> and decodes entities', async () => {
    reply = json(fixture('brave.json'));
    const results = await runSearch(at('brave'), { query: 'node.js streams backpressure', count: 5 }, fetcher);

    const r = received[0]!;
    expect(r.method).toBe('GET');
    expect(r.path).toBe('/res/v1/web/search');
    expect(Object.fromEntries(r.query)).toEqual({ q: 'node.js streams backpressure', count: '5' });
    expect(r.headers['x-subscription-token']).toBe(KEY);
    expect(r.headers['accept']).toBe('application/json');
    expect(r.headers['authorization']).toBeUndefined();

    expect(results).toEqual([
      {
        title: 'Backpressuring in Streams | Node.js',
        url: 'https://nodejs.org/en/learn/modules/backpressuring-in-streams',
        snippet: 'There is a general problem that occurs during data handling called backpressure and describes a buildup of data behind a buffer during data transfer.',
      },
      {
        title: 'How to handle "backpressure" in Node.js streams? - Stack Overflow',
        url: 'https://stackoverflow.com/questions/12345678/how-to-handle-backpressure',
        snippet: "I'm piping a readable into a writable and write() returns false & I don't know how to wait for 'drain'. Streams <3",
      },
      { title: 'Streams guide — pipeline() & finished()', url: 'https://docs.example.org/guide/streams', snippet: 'Use stream.pipeline() to forward errors and clean up.' },
      { title: 'Node.js Streams: Everything you need to know', url: 'https://example.com/node-streams', snippet: 'Readable, Writable, Duplex and Transform streams explained with examples.' },
    ]);
  });

  it('asks for `count` and keeps at most `count`; with a domain filter it asks for 20', async () => {
    reply = json(fixture('brave.json'));
    expect(await runSearch(at('brave'), { query: 'streams', count: 2 }, fetcher)).toHaveLength(2);
    expect(received[0]!.query.get('count')).toBe('2');

    const filtered = await runSearch(at('brave'), { query: 'streams', count: 3, allowedDomains: ['example.org', 'Example.com'] }, fetcher);
    expect(received[1]!.query.get('count')).toBe('20');
    expect(urls(filtered)).toEqual(['https://docs.example.org/guide/streams', 'https://example.com/node-streams']);
  });

  it('a body without `web` is no results', async () => {
    reply = json('{"type":"search","query":{"original":"zzqxjvkwpq"},"mixed":{"type":"mixed","main":[],"top":[],"side":[]}}');
    expect(await runSearch(at('brave'), { query: 'zzqxjvkwpq', count: 5 }, fetcher)).toEqual([]);
  });

  it.each([
    [401, 'brave-401.json', 'brave: HTTP 401: SUBSCRIPTION_TOKEN_INVALID: The provided subscription token is invalid. (check NORMA_WEBSEARCH_API_KEY)'],
    [429, 'brave-429.json', 'brave: HTTP 429: RATE_LIMITED: Request rate limit exceeded for plan. (rate limited)'],
  ])('HTTP %i → SearchError with the backend, the status and Brave’s own words', async (status, file, message) => {
    reply = json(fixture(file), status);
    const e = await searchError(runSearch(at('brave'), { query: 'streams', count: 5 }, fetcher));
    expect(e.message).toBe(message);
    expect(e.status).toBe(status);
    expect(e.backend).toBe('brave');
  });

  it('never repeats the key, even when the backend echoes it', async () => {
    reply = json(JSON.stringify({ type: 'ErrorResponse', error: { code: 'SUBSCRIPTION_TOKEN_INVALID', detail: `The token ${KEY} is invalid.` } }), 401);
    const e = await searchError(runSearch(at('brave'), { query: 'streams', count: 5 }, fetcher));
    expect(e.message).toContain('The token [redacted] is invalid.');
  });

  it('cuts a long error text at about 300 characters', async () => {
    reply = json(JSON.stringify({ type: 'ErrorResponse', error: { code: 'VALIDATION', detail: 'x'.repeat(2000) } }), 422);
    const e = await searchError(runSearch(at('brave'), { query: 'streams', count: 5 }, fetcher));
    expect(e.message).toBe(`brave: HTTP 422: ${'VALIDATION: '}${'x'.repeat(300 - 'VALIDATION: '.length)}…`);
  });

  it('a 2xx body that is not JSON → SearchError', async () => {
    reply = html('<html><body><p>Service temporarily unavailable</p></body></html>', 200);
    const e = await searchError(runSearch(at('brave'), { query: 'streams', count: 5 }, fetcher));
    expect(e.message).toBe('brave: HTTP 200: the response is not JSON: Service temporarily unavailable');
  });

  it('a redirect is not followed: the error says where it pointed', async () => {
    reply = { status: 302, headers: { location: 'https://login.example.net/portal?next=/res/v1/web/search' } };
    const e = await searchError(runSearch(at('brave'), { query: 'streams', count: 5 }, fetcher));
    expect(e.message).toMatch(/^brave: HTTP 302: Brave Search redirected to https:\/\/login\.example\.net\/portal\?next=\/res\/v1\/web\/search;/);
    expect(received).toHaveLength(1);
  });
});

// --- Tavily ---------------------------------------------------------------------------------------

describe('tavily', () => {
  it('POSTs JSON {query, max_results, search_depth} with a bearer key to /search', async () => {
    reply = json(fixture('tavily.json'));
    const results = await runSearch(at('tavily'), { query: 'node.js streams backpressure', count: 3 }, fetcher);

    const r = received[0]!;
    expect(r.method).toBe('POST');
    expect(r.path).toBe('/search');
    expect(r.headers['authorization']).toBe(`Bearer ${KEY}`);
    expect(r.headers['content-type']).toBe('application/json');
    expect(JSON.parse(r.body)).toEqual({ query: 'node.js streams backpressure', max_results: 3, search_depth: 'basic' });

    expect(results).toEqual([
      {
        title: 'Backpressuring in Streams | Node.js',
        url: 'https://nodejs.org/en/learn/modules/backpressuring-in-streams',
        snippet: 'There is a general problem that occurs during data handling called backpressure and describes a buildup of data behind a buffer during data transfer.',
      },
      {
        title: 'How to handle "backpressure" in Node.js streams? - Stack Overflow',
        url: 'https://stackoverflow.com/questions/12345678/how-to-handle-backpressure',
        snippet: "I'm piping a readable into a writable and write() returns false. How do I wait for 'drain'?",
      },
      { title: 'Streams guide — pipeline() & finished()', url: 'https://docs.example.org/guide/streams', snippet: 'Use stream.pipeline() to forward errors and clean up.' },
    ]);
  });

  it('passes domain filters as include_domains/exclude_domains (normalised) and filters the answer too', async () => {
    reply = json(fixture('tavily.json'));
    const results = await runSearch(at('tavily'), { query: 'streams', count: 2, allowedDomains: ['*.Example.org', 'stackoverflow.com'], blockedDomains: ['.docs.example.org'] }, fetcher);
    expect(JSON.parse(received[0]!.body)).toEqual({
      query: 'streams',
      max_results: 20,
      search_depth: 'basic',
      include_domains: ['example.org', 'stackoverflow.com'],
      exclude_domains: ['docs.example.org'],
    });
    expect(urls(results)).toEqual(['https://stackoverflow.com/questions/12345678/how-to-handle-backpressure']);
  });

  it.each([
    [401, 'tavily-401.json', 'tavily: HTTP 401: Unauthorized: missing or invalid API key. (check NORMA_WEBSEARCH_API_KEY)'],
    [432, 'tavily-432.json', "tavily: HTTP 432: This request exceeds your plan's set usage limit. Please upgrade your plan or contact support@tavily.com"],
  ])('HTTP %i → SearchError with Tavily’s detail', async (status, file, message) => {
    reply = json(fixture(file), status);
    const e = await searchError(runSearch(at('tavily'), { query: 'streams', count: 5 }, fetcher));
    expect(e.message).toBe(message);
  });

  it('a 2xx JSON body without results → SearchError', async () => {
    reply = json('{"query":"streams","answer":null}');
    const e = await searchError(runSearch(at('tavily'), { query: 'streams', count: 5 }, fetcher));
    expect(e.message).toBe('tavily: HTTP 200: unexpected response: no `results` list (keys: query, answer)');
  });
});

// --- DeepSeek -------------------------------------------------------------------------------------

describe('deepseek', () => {
  it('POSTs JSON {query, count} with a bearer key to /v1/tools/search; snippet, else summary', async () => {
    reply = json(fixture('deepseek.json'));
    const results = await runSearch(at('deepseek'), { query: 'node.js streams backpressure', count: 4 }, fetcher);

    const r = received[0]!;
    expect(r.method).toBe('POST');
    expect(r.path).toBe('/v1/tools/search');
    expect(r.headers['authorization']).toBe(`Bearer ${KEY}`);
    expect(JSON.parse(r.body)).toEqual({ query: 'node.js streams backpressure', count: 4 });

    expect(results).toEqual([
      {
        title: 'Backpressuring in Streams | Node.js',
        url: 'https://nodejs.org/en/learn/modules/backpressuring-in-streams',
        snippet: 'There is a general problem that occurs during data handling called backpressure.',
      },
      { title: 'Streams guide — pipeline() & finished()', url: 'https://docs.example.org/guide/streams', snippet: 'Use stream.pipeline() to forward errors and clean up.' },
      { title: 'Node.js Streams: Everything you need to know', url: 'https://example.com/node-streams', snippet: 'Readable, Writable, Duplex and Transform streams explained with examples.' },
    ]);
  });

  it('keeps at most `count`, after the domain filter', async () => {
    reply = json(fixture('deepseek.json'));
    const results = await runSearch(at('deepseek'), { query: 'streams', count: 1, blockedDomains: ['NODEJS.org'] }, fetcher);
    expect(JSON.parse(received[0]!.body)).toEqual({ query: 'streams', count: 20 });
    expect(urls(results)).toEqual(['https://docs.example.org/guide/streams']);
  });

  it('HTTP 402 → SearchError with DeepSeek’s message', async () => {
    reply = json(fixture('deepseek-402.json'), 402);
    const e = await searchError(runSearch(at('deepseek'), { query: 'streams', count: 5 }, fetcher));
    expect(e.message).toBe('deepseek: HTTP 402: invalid_request_error: Insufficient Balance (the account has no credit left)');
  });

  it('a 2xx body reporting an error → SearchError', async () => {
    reply = json('{"error":{"message":"query must not be blank","type":"invalid_request_error","code":"invalid_query"}}');
    const e = await searchError(runSearch(at('deepseek'), { query: 'streams', count: 5 }, fetcher));
    expect(e.message).toBe('deepseek: HTTP 200: DeepSeek Search reported an error: invalid_query: query must not be blank');
  });

  it('a query over 128 characters is refused before any request', async () => {
    const e = await searchError(runSearch(at('deepseek'), { query: 'ü'.repeat(129), count: 5 }, fetcher));
    expect(e.message).toMatch(/longer than 128 characters/);
    expect(received).toHaveLength(0);
  });
});

// --- SearXNG --------------------------------------------------------------------------------------

describe('searxng', () => {
  it('GETs <url>/search?q=…&format=json; keeps http(s) results only, URLs normalised', async () => {
    reply = json(fixture('searxng.json'));
    const results = await runSearch(at('searxng', '/searx'), { query: 'node.js streams backpressure', count: 10 }, fetcher);

    const r = received[0]!;
    expect(r.method).toBe('GET');
    expect(r.path).toBe('/searx/search');
    expect(Object.fromEntries(r.query)).toEqual({ q: 'node.js streams backpressure', format: 'json' });
    expect(r.headers['authorization']).toBeUndefined();

    expect(results).toEqual([
      {
        title: 'Backpressuring in Streams | Node.js',
        url: 'https://nodejs.org/en/learn/modules/backpressuring-in-streams',
        snippet: 'There is a general problem that occurs during data handling called backpressure and describes a buildup of data behind a buffer during data transfer.',
      },
      {
        title: 'How to handle "backpressure" in Node.js streams? - Stack Overflow',
        url: 'https://stackoverflow.com/questions/12345678/how-to-handle-backpressure',
        snippet: "I'm piping a readable into a writable and write() returns false.",
      },
      { title: 'Streams guide — pipeline() & finished()', url: 'https://docs.example.org:8443/guide/streams', snippet: 'Use stream.pipeline() to forward errors and clean up.' },
      { title: 'Node.js Streams: Everything you need to know', url: 'https://example.com/node-streams', snippet: '' },
    ]);
  });

  it('count and domain filters (ports ignored)', async () => {
    reply = json(fixture('searxng.json'));
    expect(await runSearch(at('searxng'), { query: 'streams', count: 1 }, fetcher)).toHaveLength(1);
    const filtered = await runSearch(at('searxng'), { query: 'streams', count: 5, allowedDomains: ['docs.example.org:443', 'StackOverflow.COM'] }, fetcher);
    expect(urls(filtered)).toEqual(['https://stackoverflow.com/questions/12345678/how-to-handle-backpressure', 'https://docs.example.org:8443/guide/streams']);
  });

  it('HTTP 403 says the instance probably has the JSON format disabled', async () => {
    reply = html(fixture('searxng-403.html'), 403);
    const e = await searchError(runSearch(at('searxng'), { query: 'streams', count: 5 }, fetcher));
    expect(e.message).toBe(
      "searxng: HTTP 403: 403 Forbidden Forbidden You don't have the permission to access the requested resource. It is either read-protected or not readable by the server. " +
        '(the SearXNG instance refused the JSON format; SearXNG answers 403 when `json` is not among `search.formats` in its settings.yml)',
    );
  });

  it('a 2xx body that is not JSON → SearchError', async () => {
    reply = html('<!doctype html><title>SearXNG</title><p>results page</p>');
    const e = await searchError(runSearch(at('searxng'), { query: 'streams', count: 5 }, fetcher));
    expect(e.message).toBe('searxng: HTTP 200: the response is not JSON: SearXNG results page');
  });
});

// --- what every request carries ---------------------------------------------------------------------

describe('every request', () => {
  it.each(SEARCH_BACKENDS.map((b) => [b]))('%s: 2 MiB, 20 s, no redirects, the caller’s signal', async (backend) => {
    reply = backend === 'ddgs' ? html(fixture('ddgs-empty.html')) : json('{"results":[]}');
    const controller = new AbortController();
    await runSearch(at(backend), { query: 'streams', count: 3, signal: controller.signal }, fetcher);
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({ maxBytes: 2 * 1024 * 1024, timeoutMs: 20_000, redirects: 'none' });
    expect(asked[0]!.signal).toBe(controller.signal);
  });

  it('a response cut at maxBytes → SearchError', async () => {
    reply = json(Buffer.alloc(2 * 1024 * 1024 + 100, 0x20));
    const e = await searchError(runSearch(at('tavily'), { query: 'streams', count: 5 }, fetcher));
    expect(e.message).toBe('tavily: the response is larger than 2097152 bytes; not read');
  });

  it('a rejection of the Fetcher is passed on untouched', async () => {
    const failure = new EgressFailure('connect ECONNREFUSED');
    const failing: Fetcher = () => Promise.reject(failure);
    await expect(runSearch(at('brave'), { query: 'streams', count: 5 }, failing)).rejects.toBe(failure);
  });

  it('an aborted signal stops the request', async () => {
    reply = json(fixture('brave.json'));
    const controller = new AbortController();
    controller.abort(new Error('stopped by the caller'));
    await expect(runSearch(at('brave'), { query: 'streams', count: 5, signal: controller.signal }, fetcher)).rejects.toThrow('stopped by the caller');
    expect(received).toHaveLength(0);
  });

  it('an unusable configuration or an empty query is refused before any request', async () => {
    const e = await searchError(runSearch({ backend: 'brave' }, { query: 'streams', count: 5 }, fetcher));
    expect(e.message).toMatch(/NORMA_WEBSEARCH_API_KEY/);
    const e2 = await searchError(runSearch(at('ddgs'), { query: '   ', count: 5 }, fetcher));
    expect(e2.message).toBe('ddgs: the search query is empty');
    expect(asked).toHaveLength(0);
  });

  it('count is clamped to 1..20', async () => {
    reply = json(fixture('deepseek.json'));
    await runSearch(at('deepseek'), { query: 'streams', count: 500 }, fetcher);
    await runSearch(at('deepseek'), { query: 'streams', count: 0 }, fetcher);
    expect(received.map((r) => (JSON.parse(r.body) as { count: number }).count)).toEqual([20, 1]);
  });
});

// --- configuration ----------------------------------------------------------------------------------

describe('searchConfigProblems', () => {
  it('usable configurations have none', () => {
    expect(searchConfigProblems({ backend: 'ddgs' })).toEqual([]);
    expect(searchConfigProblems({ backend: 'brave', apiKey: 'BSA123' })).toEqual([]);
    expect(searchConfigProblems({ backend: 'tavily', apiKey: 'tvly-abc', url: 'https://proxy.internal:8443/tavily/' })).toEqual([]);
    expect(searchConfigProblems({ backend: 'deepseek', apiKey: 'sk-abc' })).toEqual([]);
    expect(searchConfigProblems({ backend: 'searxng', url: 'http://searx.local:8080' })).toEqual([]);
  });

  it.each(['brave', 'tavily', 'deepseek'] as const)('%s without a key names NORMA_WEBSEARCH_API_KEY', (backend) => {
    expect(searchConfigProblems({ backend })).toEqual([`NORMA_WEBSEARCH_API_KEY: the ${backend} search backend needs an API key`]);
    expect(searchConfigProblems({ backend, apiKey: '  ' })).toHaveLength(1);
    expect(searchConfigProblems({ backend, apiKey: 'sk-abc\n' })).toEqual(['NORMA_WEBSEARCH_API_KEY: the API key contains whitespace or control characters']);
  });

  it('searxng without a url names NORMA_WEBSEARCH_URL', () => {
    const [p, ...rest] = searchConfigProblems({ backend: 'searxng' });
    expect(rest).toEqual([]);
    expect(p).toMatch(/^NORMA_WEBSEARCH_URL: the searxng search backend needs the base URL/);
  });

  it.each([
    ['searx.local:8080/', /NORMA_WEBSEARCH_URL: must be an http or https URL/],
    ['not a url', /NORMA_WEBSEARCH_URL: not a valid absolute URL/],
    ['ftp://searx.local/', /NORMA_WEBSEARCH_URL: must be an http or https URL, not ftp:/],
    ['http://searx.local/?token=1', /NORMA_WEBSEARCH_URL: must be a base URL, without a query or fragment/],
  ])('url %s is a problem', (url, problem) => {
    const problems = searchConfigProblems({ backend: 'searxng', url });
    expect(problems.length).toBeGreaterThan(0);
    expect(problems.join('\n')).toMatch(problem);
  });

  it('a url with credentials is a problem, and the password is not repeated', () => {
    const problems = searchConfigProblems({ backend: 'brave', apiKey: 'k123', url: 'https://user:hunter2@proxy.internal/' });
    expect(problems).toEqual(['NORMA_WEBSEARCH_URL: must not contain a user name or password']);
    expect(searchConfigProblems({ backend: 'searxng', url: 'http://user:hunter2@[bad' }).join('\n')).not.toContain('hunter2');
  });

  it('an unknown backend names NORMA_WEBSEARCH_BACKEND and the choices', () => {
    expect(searchConfigProblems({ backend: 'google' as never })).toEqual([
      'NORMA_WEBSEARCH_BACKEND: "google" is not a search backend; use one of ddgs, brave, tavily, deepseek, searxng',
    ]);
  });

  it('problems add up', () => {
    expect(searchConfigProblems({ backend: 'tavily', url: 'file:///etc/passwd' })).toHaveLength(2);
  });
});

// --- the domain filter on its own -------------------------------------------------------------------

describe('filterByDomain', () => {
  const r = (url: string): SearchResult => ({ title: url, url, snippet: '' });
  const all = [
    r('https://example.com/a'),
    r('https://WWW.Example.COM/b'),
    r('http://deep.sub.example.com:8080/c'),
    r('https://notexample.com/d'),
    r('https://example.com.evil.net/e'),
    r('https://other.org/f'),
    r('not a url'),
    r('https://xn--bcher-kva.de/g'),
    r('http://[::1]:3000/h'),
  ];

  it('no filters: every valid URL passes, invalid ones are dropped', () => {
    expect(urls(filterByDomain(all))).toEqual(urls(all).filter((u) => u !== 'not a url'));
    expect(urls(filterByDomain(all, [], []))).toHaveLength(all.length - 1);
  });

  it('allowed: the domain and its subdomains, not look-alikes', () => {
    expect(urls(filterByDomain(all, ['example.com']))).toEqual(['https://example.com/a', 'https://WWW.Example.COM/b', 'http://deep.sub.example.com:8080/c']);
  });

  it('case-insensitive, a leading *. or . ignored, ports ignored', () => {
    const want = ['https://example.com/a', 'https://WWW.Example.COM/b', 'http://deep.sub.example.com:8080/c'];
    for (const f of ['EXAMPLE.com', '*.example.com', '.Example.Com', 'example.com:443', ' example.com. ']) {
      expect(urls(filterByDomain(all, [f]))).toEqual(want);
    }
    expect(urls(filterByDomain(all, ['sub.example.com']))).toEqual(['http://deep.sub.example.com:8080/c']);
  });

  it('blocked: removes the domain and its subdomains, also from the allowed ones', () => {
    expect(urls(filterByDomain(all, undefined, ['example.com', 'other.org', 'evil.net', '::1', 'bücher.de']))).toEqual(['https://notexample.com/d']);
    expect(urls(filterByDomain(all, ['example.com'], ['www.example.com']))).toEqual(['https://example.com/a', 'http://deep.sub.example.com:8080/c']);
  });

  it('internationalised names match their punycode form; blank entries are ignored', () => {
    expect(urls(filterByDomain(all, ['BÜCHER.de', '']))).toEqual(['https://xn--bcher-kva.de/g']);
    expect(urls(filterByDomain(all, ['  '], ['']))).toHaveLength(all.length - 1);
  });
});

// --- text helpers -------------------------------------------------------------------------------------

describe('entities and tags', () => {
  it.each([
    ['a &amp; b &lt;c&gt; &quot;d&quot; &#x27;e&#39; &#8212; &#X2014;', 'a & b <c> "d" \'e\' — —'],
    ['&hellip;&nbsp;&copy;&eacute;', '…\u00a0©é'],
    ['&#150; &#0; &#x110000; &#55296;', '– \ufffd \ufffd \ufffd'],
    ['&unknown; &constructor; &amp AT&T &ampx', '&unknown; &constructor; & AT&T &ampx'],
  ])('%s', (input, output) => {
    expect(decodeEntities(input)).toBe(output);
  });

  it('htmlToText strips tags (nested ones too), keeps text that only looks like markup, collapses space', () => {
    expect(htmlToText('Use <strong>pipe<b>()</b></strong>\n  when a < b &amp;&amp; <em>c</em>'))
      .toBe('Use pipe() when a < b && c');
    expect(htmlToText('<div>one</div><div>two</div><script>alert(1)</script><!-- x -->three')).toBe('one two three');
    expect(htmlToText('<a href="x>y" title=\'<b>\'>link</a>')).toBe('link');
  });
});
