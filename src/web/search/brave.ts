// Brave Search's web API: a GET with the subscription token. Titles and descriptions carry HTML
// (<strong> around matched words, character references), so they are read as text.
import { Type } from '@sinclair/typebox';
import { readJson, Text, usable } from './json.js';
import { htmlToText } from './text.js';
import type { SearchBackend } from './types.js';

const BraveResponse = Type.Object({
  /** Absent when Brave found no web results. */
  web: Type.Optional(Type.Object({ results: Type.Array(Type.Object({ title: Text, url: Text, description: Text })) })),
});

export const brave: SearchBackend = {
  display: 'Brave Search',
  origin: 'https://api.search.brave.com',
  path: '/res/v1/web/search',
  keyed: true,

  prepare: ({ url, query, count, apiKey }) => ({
    url: `${url}?${new URLSearchParams({ q: query, count: String(count) }).toString()}`,
    method: 'GET',
    headers: { accept: 'application/json', 'x-subscription-token': apiKey },
  }),

  async parse(body, ctx) {
    const answer = readJson(body, BraveResponse, ctx);
    return usable(
      (answer.web?.results ?? []).map((r) => ({ title: htmlToText(r.title ?? ''), url: r.url ?? '', snippet: htmlToText(r.description ?? '') })),
    );
  },
};
