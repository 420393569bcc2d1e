// An MCP tool result (or a resource read) as tool_result blocks: text stays text (it passes the
// common cap and spill like any tool's), images become image blocks, embedded resources become
// text (a text resource) or an image, and what a model cannot take (audio, other binary data) is
// described in words rather than dropped. Structured content without content blocks is shown as
// JSON.
import { IMAGE_MEDIA_TYPES, type ResultBlock } from '../contract/common.js';

/** The largest image (as base64 characters) passed to the model; a larger one is described instead. */
export const MAX_IMAGE_BASE64_CHARS = 5 * 1024 * 1024;

const IMAGE_TYPES: ReadonlySet<string> = new Set(IMAGE_MEDIA_TYPES);

type McpBlock = { type: string; [k: string]: unknown };

function base64Bytes(data: string): number {
  const pad = data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((data.length * 3) / 4) - pad);
}

function image(data: unknown, mimeType: unknown, what: string): ResultBlock {
  const mime = typeof mimeType === 'string' ? mimeType.toLowerCase() : '';
  if (typeof data !== 'string' || data.length === 0 || data.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(data)) {
    return { type: 'text', text: `[${what}: the data is not base64]` };
  }
  if (!IMAGE_TYPES.has(mime)) return { type: 'text', text: `[${what} of type ${mime || 'unknown'} (${base64Bytes(data)} bytes): not a type a model takes (${IMAGE_MEDIA_TYPES.join(', ')})]` };
  if (data.length > MAX_IMAGE_BASE64_CHARS) return { type: 'text', text: `[${what} (${mime}, ${base64Bytes(data)} bytes): larger than the ${MAX_IMAGE_BASE64_CHARS / 1024 / 1024} MiB of base64 passed to a model]` };
  return { type: 'image', source: { type: 'base64', media_type: mime as (typeof IMAGE_MEDIA_TYPES)[number], data } };
}

/** One resource's contents (`resources/read`, or a result's embedded resource). */
export function resourceBlocks(r: { uri?: unknown; mimeType?: unknown; text?: unknown; blob?: unknown }): ResultBlock[] {
  const uri = typeof r.uri === 'string' ? r.uri : '(no uri)';
  const mime = typeof r.mimeType === 'string' ? r.mimeType : undefined;
  if (typeof r.text === 'string') return [{ type: 'text', text: `Resource ${uri}${mime ? ` (${mime})` : ''}:\n${r.text}` }];
  if (typeof r.blob === 'string') {
    if (mime && IMAGE_TYPES.has(mime.toLowerCase())) return [{ type: 'text', text: `Resource ${uri} (${mime}):` }, image(r.blob, mime, `image resource ${uri}`)];
    return [{ type: 'text', text: `[resource ${uri}: binary data${mime ? ` of type ${mime}` : ''}, ${base64Bytes(r.blob)} bytes, not shown]` }];
  }
  return [{ type: 'text', text: `[resource ${uri}: no contents]` }];
}

function block(b: McpBlock): ResultBlock[] {
  switch (b.type) {
    case 'text':
      return [{ type: 'text', text: typeof b.text === 'string' ? b.text : '' }];
    case 'image':
      return [image(b.data, b.mimeType, 'image')];
    case 'audio':
      return [{ type: 'text', text: `[audio${typeof b.mimeType === 'string' ? ` of type ${b.mimeType}` : ''}, ${typeof b.data === 'string' ? base64Bytes(b.data) : 0} bytes: not passed to the model]` }];
    case 'resource':
      return resourceBlocks((b.resource ?? {}) as Record<string, unknown>);
    case 'resource_link': {
      if (typeof b.uri !== 'string') return [{ type: 'text', text: '[a resource link without a uri]' }];
      const about = [typeof b.name === 'string' ? b.name : '', typeof b.mimeType === 'string' ? b.mimeType : ''].filter((x) => x !== '').join(', ');
      return [{ type: 'text', text: `Resource link: ${b.uri}${about ? ` (${about})` : ''} — read it with ReadMcpResource` }];
    }
    default:
      return [{ type: 'text', text: `[a content block of type ${JSON.stringify(String(b.type))} this server does not know]` }];
  }
}

/** A `tools/call` result as the call's content. */
export function toolResultBlocks(result: { content?: unknown; structuredContent?: unknown; isError?: unknown }): { content: ResultBlock[]; isError: boolean } {
  const blocks = Array.isArray(result.content) ? (result.content as McpBlock[]) : [];
  const content = blocks.flatMap((b) => (typeof b === 'object' && b !== null ? block(b) : []));
  if (content.length === 0 && result.structuredContent !== undefined) content.push({ type: 'text', text: JSON.stringify(result.structuredContent, null, 2) });
  if (content.length === 0) content.push({ type: 'text', text: '(no output)' });
  return { content, isError: result.isError === true };
}
