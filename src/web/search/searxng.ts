// A SearXNG instance's JSON format: no key and no default address (NORMA_WEBSEARCH_URL names the
// instance). Its usual refusals (JSON format disabled, limiter) get an explanation of their own.
import { Type } from '@sinclair/typebox';
import { readJson, Text, usable } from './json.js';
import { collapse } from './text.js';
import type { SearchBackend } from './types.js';

const SearxngResponse = Type.Object({ results: Type.Array(Type.Object({ title: Text, url: Text, content: Text })) });

export const searxng: SearchBackend = {
  display: 'SearXNG',
  origin: { required: 'the base URL of a SearXNG instance (e.g. http://searx.local:8080)' },
  path: '/search',
  keyed: false,

  prepare: ({ url, query }) => ({
    url: `${url}?${new URLSearchParams({ q: query, format: 'json' }).toString()}`,
    method: 'GET',
    headers: { accept: 'application/json' },
  }),

  async parse(body, ctx) {
    const answer = readJson(body, SearxngResponse, ctx);
    return usable(answer.results.map((r) => ({ title: collapse(r.title ?? ''), url: r.url ?? '', snippet: collapse(r.content ?? '') })));
  },

  statusHint(status) {
    if (status === 403) return 'the SearXNG instance refused the JSON format; SearXNG answers 403 when `json` is not among `search.formats` in its settings.yml';
    if (status === 429) return "the SearXNG instance's limiter refused the request (disable `server.limiter` for this client)";
    return undefined;
  },
};
