// WebFetch and WebSearch: a fetch cache per session (15 minutes), the operator's caps and search
// backend, and every request through the egress guard with its evidence.
import type { Capability } from '../../tools/capability.js';
import { FetchCache } from '../../web/state.js';
import type { HtmlConverter } from '../../web/html-convert.js';
import type { WebDeps } from './deps.js';
import { webFetchTool } from './web-fetch.js';
import { webSearchTool } from './web-search.js';

export function webCapability(html: HtmlConverter): Capability<WebDeps> {
  return {
    group: 'web',
    tools: [webFetchTool, webSearchTool],
    install: (s) => ({
      deps: { state: { cache: new FetchCache(() => s.clock().getTime()), ...s.web }, fetcher: s.fetcher, html },
    }),
  };
}
