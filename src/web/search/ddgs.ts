// DuckDuckGo's HTML endpoint: no key, a form POST, and a results page (not JSON) read in the worker
// thread by ddgs-page.ts, with a time limit, so a huge or hostile page cannot stall the server.
import { ParseTimeout } from '../html-convert.js';
import type { SearchBackend, SearchResult } from './types.js';

/** How long reading DuckDuckGo's results page may take (in the worker thread). */
export const DDG_PARSE_TIMEOUT_MS = 10_000;

/** A desktop browser's user agent: DuckDuckGo's HTML endpoint refuses obvious clients sooner. */
const BROWSER_USER_AGENT =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';

export const ddgs: SearchBackend = {
  display: 'DuckDuckGo',
  origin: 'https://html.duckduckgo.com',
  path: '/html/',
  keyed: false,

  prepare: ({ url, query }) => ({
    url,
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      'user-agent': BROWSER_USER_AGENT,
      accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8',
      'accept-language': 'en-US,en;q=0.9',
    },
    body: new URLSearchParams({ q: query }).toString(),
  }),

  async parse(body, ctx) {
    try {
      return await ctx.html.parseDdg<SearchResult[]>(body, DDG_PARSE_TIMEOUT_MS, ctx.signal);
    } catch (err) {
      if (ctx.signal?.aborted) throw err;
      if (err instanceof ParseTimeout) throw ctx.fail(`the results page could not be read within ${DDG_PARSE_TIMEOUT_MS / 1000} s`);
      throw ctx.fail(err instanceof Error ? err.message : String(err));
    }
  },

  statusHint: (status) => (status === 403 || status === 429 ? 'DuckDuckGo refused the request: rate limit or bot protection' : undefined),
};
