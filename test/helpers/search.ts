// runSearch as the WebSearch tool calls it, with one HTML converter for the test file.
import type { Fetcher } from '../../src/egress/types.js';
import { HtmlConverter } from '../../src/web/html-convert.js';
import { runSearch as runWith, type SearchConfig, type SearchQuery } from '../../src/web/search/index.js';

export const testHtmlConverter = new HtmlConverter();

export function runSearch(c: SearchConfig, q: SearchQuery, fetch: Fetcher) {
  return runWith(c, q, fetch, testHtmlConverter);
}
