// WebSearch: a query to the configured backend (src/web/search/), through the egress guard like
// every outbound request, with domain filters applied to what comes back.
import { Type, type Static } from '@sinclair/typebox';
import { EgressRefusal } from '../../sandbox/egress.js';
import { runSearch, SearchError } from '../../web/search/index.js';
import { EgressFailure } from '../../egress/types.js';
import { defineTool, textOutput, ToolRefusal } from '../../tools/tool.js';
import type { WebDeps } from './deps.js';
import { WEB_SEARCH_DESCRIPTION } from './web-search.description.js';

const Domain = Type.String({ minLength: 1, maxLength: 253, pattern: '^(\\*\\.)?[A-Za-z0-9.-]+$' });

const WebSearchInput = Type.Object(
  {
    query: Type.String({ minLength: 2, maxLength: 500, description: 'The search query' }),
    allowed_domains: Type.Optional(Type.Array(Domain, { maxItems: 32, description: 'Only results from these domains (and their subdomains)' })),
    blocked_domains: Type.Optional(Type.Array(Domain, { maxItems: 32, description: 'Never results from these domains (and their subdomains)' })),
    count: Type.Optional(Type.Integer({ minimum: 1, maximum: 20, default: 8, description: 'How many results at most' })),
  },
  { additionalProperties: false },
);
type WebSearchInput = Static<typeof WebSearchInput>;

export const webSearchTool = defineTool<WebSearchInput, WebDeps>({
  name: 'WebSearch',
  description: WEB_SEARCH_DESCRIPTION,
  inputSchema: WebSearchInput,
  // The query leaves the server: asked about unless a rule allows WebSearch.
  isReadOnly: () => false,
  isConcurrencySafe: () => true,
  requiresApproval: () => true,
  async call(input, ctx, deps) {
    const config = deps.state.search;
    if (!config) throw new ToolRefusal('WebSearch has no usable search backend in this session.');
    let results;
    try {
      results = await runSearch(
        config,
        {
          query: input.query,
          count: input.count ?? 8,
          ...(input.allowed_domains ? { allowedDomains: input.allowed_domains } : {}),
          ...(input.blocked_domains ? { blockedDomains: input.blocked_domains } : {}),
          signal: ctx.signal,
        },
        deps.fetcher(ctx, 'WebSearch'),
        deps.html,
      );
    } catch (err) {
      if (err instanceof EgressRefusal) throw new ToolRefusal(`Refused by the egress guard: ${err.message}`);
      if (err instanceof SearchError || err instanceof EgressFailure) throw new ToolRefusal(`The search failed: ${deps.state.redact ? deps.state.redact(err.message) : err.message}`);
      throw err;
    }
    if (results.length === 0) return textOutput(`No results for ${JSON.stringify(input.query)}.`);
    const lines = results.map((r, i) => `${i + 1}. ${r.title}\n   ${r.url}${r.snippet ? `\n   ${r.snippet}` : ''}`);
    return textOutput(`Results for ${JSON.stringify(input.query)} (${config.backend}):\n\n${lines.join('\n\n')}`);
  },
});
