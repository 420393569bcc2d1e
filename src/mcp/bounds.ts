// Every message an MCP server sends is measured before anything else looks at it: the evidence
// digest (JSON.stringify recurses), the SDK's result schemas (they walk every block), the listing
// (it compiles every tool's schema). Measuring is iterative and stops at the bound, so a message
// nested 30,000 levels or holding millions of values costs the event loop a bounded walk.
//
// What breaks a bound is not passed on. An answer becomes an error answer for its request, so
// that call (or that listing) fails with the reason and the connection goes on; a notification or
// a request from the server is dropped. Long lists that are walked item by item (a result's
// content blocks, a page of tools or resources, a resource's contents) are cut with a note: the
// first items are still worth having, and what was left out is said.
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { jsonBoundBroken } from '../json-depth.js';
import { MAX_RESOURCES_PER_SERVER, MAX_TOOLS_PER_SERVER } from './listing.js';

/** Deepest nesting of arrays and objects in one message (a tool's schema nests within it). */
export const MAX_MESSAGE_DEPTH = 64;
/** Most values (of any kind) in one message. */
export const MAX_MESSAGE_VALUES = 1_000_000;
/** Most content blocks taken from one result. */
export const MAX_RESULT_BLOCKS = 1000;
/** JSON-RPC's "internal error": the answer could not be used. */
const REFUSED_CODE = -32603;

export type Bounded =
  | { ok: true; message: JSONRPCMessage }
  /** `reply`: the error answer that stands in for a refused answer; absent for a dropped message. */
  | { ok: false; problem: string; reply?: JSONRPCMessage };

function what(m: JSONRPCMessage): string {
  if ('method' in m) return 'id' in m ? `request ${m.method}` : `notification ${m.method}`;
  return 'answer';
}

/** The message within the bounds, or why it was refused. */
export function boundMessage(m: JSONRPCMessage): Bounded {
  const broken = jsonBoundBroken(m, { maxDepth: MAX_MESSAGE_DEPTH, maxValues: MAX_MESSAGE_VALUES });
  if (broken) {
    const problem =
      broken === 'depth'
        ? `the server's ${what(m)} nests deeper than ${MAX_MESSAGE_DEPTH} levels; it was refused`
        : `the server's ${what(m)} holds more than ${MAX_MESSAGE_VALUES.toLocaleString('en-US')} values; it was refused`;
    if ('method' in m || !('id' in m)) return { ok: false, problem };
    return { ok: false, problem, reply: { jsonrpc: '2.0', id: m.id, error: { code: REFUSED_CODE, message: problem } } as JSONRPCMessage };
  }
  if ('result' in m && typeof m.result === 'object' && m.result !== null) cutLists(m.result as Record<string, unknown>);
  return { ok: true, message: m };
}

function cutLists(result: Record<string, unknown>): void {
  const content = result.content;
  if (Array.isArray(content) && content.length > MAX_RESULT_BLOCKS) {
    const left = content.length - MAX_RESULT_BLOCKS;
    content.length = MAX_RESULT_BLOCKS;
    content.push({ type: 'text', text: `[${left.toLocaleString('en-US')} more content blocks of this result were left out: at most ${MAX_RESULT_BLOCKS} are taken]` });
  }
  // One more than is taken: the listing then says the server offers too many.
  if (Array.isArray(result.tools) && result.tools.length > MAX_TOOLS_PER_SERVER + 1) result.tools.length = MAX_TOOLS_PER_SERVER + 1;
  if (Array.isArray(result.resources) && result.resources.length > MAX_RESOURCES_PER_SERVER) result.resources.length = MAX_RESOURCES_PER_SERVER;
  if (Array.isArray(result.contents) && result.contents.length > MAX_RESULT_BLOCKS) result.contents.length = MAX_RESULT_BLOCKS;
}
