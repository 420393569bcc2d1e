// What the web tools keep and use for a session: WebFetch's cache with the operator's caps and
// search backend, and the outbound client, one per call so each hop is evidence of that call.
import type { Fetcher } from '../../egress/types.js';
import type { ToolContext } from '../../tools/tool.js';
import type { WebState } from '../../web/state.js';
import type { HtmlConverter } from '../../web/html-convert.js';

export interface WebDeps {
  state: WebState;
  /** HTML conversion and result-page reading off the event loop (one for the server). */
  html: HtmlConverter;
  fetcher(ctx: Pick<ToolContext, 'turnId' | 'toolUseId'>, tool: string): Fetcher;
}
