// Tavily's search API: a JSON POST with a bearer key. Tavily is also told the domain filters, so
// its own results are already narrowed before they are filtered here like every backend's.
import { Type } from '@sinclair/typebox';
import { readJson, Text, usable } from './json.js';
import { collapse } from './text.js';
import type { SearchBackend } from './types.js';

const TavilyResponse = Type.Object({ results: Type.Array(Type.Object({ title: Text, url: Text, content: Text })) });

export const tavily: SearchBackend = {
  display: 'Tavily',
  origin: 'https://api.tavily.com',
  path: '/search',
  keyed: true,

  prepare({ url, query, count, allowed, blocked, apiKey }) {
    const body: { query: string; max_results: number; search_depth: 'basic'; include_domains?: string[]; exclude_domains?: string[] } = {
      query,
      max_results: count,
      search_depth: 'basic',
    };
    if (allowed.length > 0) body.include_domains = allowed;
    if (blocked.length > 0) body.exclude_domains = blocked;
    return {
      url,
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', authorization: `Bearer ${apiKey}` },
      body: JSON.stringify(body),
    };
  },

  async parse(body, ctx) {
    const answer = readJson(body, TavilyResponse, ctx);
    return usable(answer.results.map((r) => ({ title: collapse(r.title ?? ''), url: r.url ?? '', snippet: collapse(r.content ?? '') })));
  },
};
