// The backend table and what each backend reads: a JSON answer that does not match its backend's
// schema is a SearchError naming the backend and the mismatch; character references in DuckDuckGo's
// titles and snippets are decoded. The Fetcher is an in-memory stand-in answering one canned reply.
import { describe, expect, it } from 'vitest';
import { BACKENDS, SEARCH_BACKENDS, SearchError, type SearchBackendName, type SearchConfig } from '../../src/web/search/index.js';
import { runSearch } from '../helpers/search.js';
import type { EgressRequest, Fetcher } from '../../src/egress/types.js';

const KEY = 'sk-test-0123456789-SECRET';

function answering(body: string, status = 200, contentType = 'application/json'): { fetcher: Fetcher; asked: EgressRequest[] } {
  const asked: EgressRequest[] = [];
  const fetcher: Fetcher = async (req) => {
    asked.push(req);
    return { url: req.url, status, headers: { 'content-type': contentType }, body: Buffer.from(body, 'utf8'), truncated: false, address: '127.0.0.1' };
  };
  return { fetcher, asked };
}

const config = (backend: SearchBackendName): SearchConfig => ({
  backend,
  url: 'http://search.test',
  ...(BACKENDS[backend].keyed ? { apiKey: KEY } : {}),
});

async function searchError(backend: SearchBackendName, body: string): Promise<SearchError> {
  const { fetcher } = answering(body);
  const e = await runSearch(config(backend), { query: 'streams', count: 5 }, fetcher).then(
    () => null,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(SearchError);
  if (!(e instanceof SearchError)) throw new Error('expected a SearchError');
  const err = e;
  expect(err.backend).toBe(backend);
  expect(err.status).toBe(200);
  expect(err.message).not.toContain(KEY);
  return err;
}

describe('the backend table', () => {
  it('has an entry for every backend in SEARCH_BACKENDS, and no other', () => {
    for (const name of SEARCH_BACKENDS) {
      const backend = BACKENDS[name];
      expect(backend, name).toBeDefined();
      expect(typeof backend.prepare).toBe('function');
      expect(typeof backend.parse).toBe('function');
      expect(backend.display).not.toBe('');
      expect(backend.path).toMatch(/^\//);
    }
    expect(Object.keys(BACKENDS).sort()).toEqual([...SEARCH_BACKENDS].sort());
  });
});

describe('a JSON answer that does not match its schema', () => {
  it('brave: a result field of the wrong type', async () => {
    const e = await searchError('brave', JSON.stringify({ web: { results: [{ title: 42, url: 'https://example.com/' }] } }));
    expect(e.message).toBe('brave: HTTP 200: unexpected response: `web.results[0].title` is a number, expected a string or null');
  });

  it('brave: `web` without a results list', async () => {
    const e = await searchError('brave', JSON.stringify({ web: { type: 'search' } }));
    expect(e.message).toBe('brave: HTTP 200: unexpected response: no `web.results` list (keys: type)');
  });

  it('tavily: `results` that is not a list', async () => {
    const e = await searchError('tavily', JSON.stringify({ query: 'streams', results: { url: 'https://example.com/' } }));
    expect(e.message).toBe('tavily: HTTP 200: unexpected response: no `results` list (keys: query, results)');
  });

  it('deepseek: a result that is not an object', async () => {
    const e = await searchError('deepseek', JSON.stringify({ results: [{ url: 'https://example.com/', snippet: 'ok' }, 'https://example.org/'] }));
    expect(e.message).toBe('deepseek: HTTP 200: unexpected response: `results[1]` is a string, expected an object');
  });

  it('deepseek: a snippet of the wrong type', async () => {
    const e = await searchError('deepseek', JSON.stringify({ results: [{ url: 'https://example.com/', snippet: ['a', 'b'] }] }));
    expect(e.message).toBe('deepseek: HTTP 200: unexpected response: `results[0].snippet` is a list, expected a string or null');
  });

  it('searxng: a body that is not an object', async () => {
    const e = await searchError('searxng', JSON.stringify([{ url: 'https://example.com/' }]));
    expect(e.message).toBe('searxng: HTTP 200: unexpected response: [{"url":"https://example.com/"}]');
  });

  it('searxng: a URL of the wrong type', async () => {
    const e = await searchError('searxng', JSON.stringify({ query: 'streams', results: [{ url: { href: 'https://example.com/' }, title: 'x' }] }));
    expect(e.message).toBe('searxng: HTTP 200: unexpected response: `results[0].url` is an object, expected a string or null');
  });

  it('null text fields and missing ones read as empty', async () => {
    const { fetcher } = answering(JSON.stringify({ results: [{ url: 'https://example.com/a', title: null, content: null }, { url: 'https://example.com/b' }] }));
    expect(await runSearch(config('searxng'), { query: 'streams', count: 5 }, fetcher)).toEqual([
      { title: 'https://example.com/a', url: 'https://example.com/a', snippet: '' },
      { title: 'https://example.com/b', url: 'https://example.com/b', snippet: '' },
    ]);
  });
});

describe('DuckDuckGo: character references in titles, snippets and links', () => {
  const page = `<!doctype html><html><body>
    <div class="result results_links results_links_deep web-result">
      <h2 class="result__title">
        <a rel="nofollow" class="result__a" href="//duckduckgo.com/l/?uddg=https%3A%2F%2Fexample.com%2Fa%3Fx%3D1%26y%3D2&amp;rut=abc">Tom &amp; Jerry&#39;s caf&eacute; &#x1F600;</a>
      </h2>
      <a class="result__snippet" href="#">It&#39;s &quot;d&eacute;j&agrave; vu&quot; &mdash; 5 &lt; 6 &#8230; &#X1f600; &amp;copy=1</a>
    </div>
    <div class="result results_links web-result">
      <h2 class="result__title"><a class="result__a" href="https://example.org/p?a=1&amp;b=2">na&iuml;ve &ndash; r&eacute;sum&eacute;</a></h2>
      <div class="result__snippet">&lt;b&gt;not a tag&lt;/b&gt; &unknown; AT&amp;T</div>
    </div>
  </body></html>`;

  it('decodes named and numeric references (decimal, hex, astral)', async () => {
    const { fetcher } = answering(page, 200, 'text/html; charset=utf-8');
    expect(await runSearch(config('ddgs'), { query: 'streams', count: 5 }, fetcher)).toEqual([
      { title: "Tom & Jerry's café 😀", url: 'https://example.com/a?x=1&y=2', snippet: 'It\'s "déjà vu" — 5 < 6 … 😀 &copy=1' },
      { title: 'naïve – résumé', url: 'https://example.org/p?a=1&b=2', snippet: '<b>not a tag</b> &unknown; AT&T' },
    ]);
  });
});
