// DeepSeek's Search API: a JSON POST with a bearer key. Its query limit is checked before anything
// is sent, and a result's text is its snippet, else its summary, else its content.
import { Type } from '@sinclair/typebox';
import { readJson, Text, usable } from './json.js';
import { collapse } from './text.js';
import { SearchError, type SearchBackend } from './types.js';

/** DeepSeek's documented query limit, in Unicode characters. */
const DEEPSEEK_MAX_QUERY_CHARS = 128;

const DeepSeekResponse = Type.Object({
  results: Type.Array(Type.Object({ title: Text, url: Text, snippet: Text, summary: Text, content: Text })),
});

export const deepseek: SearchBackend = {
  display: 'DeepSeek Search',
  origin: 'https://api.deepseek.com',
  path: '/v1/tools/search',
  keyed: true,

  prepare({ url, query, count, apiKey }) {
    if ([...query].length > DEEPSEEK_MAX_QUERY_CHARS) {
      throw new SearchError(`deepseek: the query is longer than ${DEEPSEEK_MAX_QUERY_CHARS} characters, DeepSeek Search's limit`, { backend: 'deepseek' });
    }
    return {
      url,
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', authorization: `Bearer ${apiKey}` },
      body: JSON.stringify({ query, count }),
    };
  },

  async parse(body, ctx) {
    const answer = readJson(body, DeepSeekResponse, ctx);
    return usable(
      answer.results.map((r) => ({
        title: collapse(r.title ?? ''),
        url: r.url ?? '',
        snippet: collapse(r.snippet || r.summary || r.content || ''),
      })),
    );
  },
};
