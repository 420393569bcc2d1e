// Anthropic's Messages API, streamed: POST {baseUrl}/v1/messages with `stream: true`, read as
// Server-Sent Events (message_start, content_block_start/delta/stop, message_delta,
// message_stop; ping and unknown events ignored; `error` events fail the attempt). Text,
// tool_use, thinking and redacted_thinking blocks are kept in order; other block types (server
// tools, types added later) are dropped, and `onText`/`onThinking` indexes are positions in the
// content we return, not the provider's. Thinking blocks go back to the API unchanged, signature
// included: once thinking is on, the API refuses a tool-use turn whose thinking went missing. A
// stream without message_stop was cut off: the attempt is retried from scratch.
import { HttpTransport, type HttpProviderOptions } from './http.js';
import {
  ProviderError,
  type AssistantBlock,
  type Message,
  type ModelProvider,
  type ModelRequest,
  type ModelResponse,
  type TextBlock,
  type ThinkingBlock,
  type ThinkingEffort,
  type ThinkingOptions,
  type ToolUseBlock,
  type Usage,
} from './provider.js';
import type { SseEvent } from './sse.js';
import { parseToolInput } from './tool-input.js';
import { parsePeerJson } from '../json-depth.js';

export const ANTHROPIC_BASE_URL = 'https://api.anthropic.com';
export const ANTHROPIC_VERSION = '2023-06-01';

/** Stream error types worth another attempt; the first two are the provider being busy. */
const TRANSIENT_ERRORS: Record<string, 'provider_overloaded' | 'provider_stream'> = {
  overloaded_error: 'provider_overloaded',
  rate_limit_error: 'provider_overloaded',
  api_error: 'provider_stream',
};

type Json = Record<string, unknown>;

/** The thinking budget an effort level stands for when no budget was given. */
export const EFFORT_BUDGET: Record<ThinkingEffort, number> = { low: 2048, medium: 8192, high: 24_576 };
/** The smallest budget the API takes. */
export const MIN_THINKING_BUDGET = 1024;

function obj(v: unknown): Json {
  return v && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : {};
}
function num(v: unknown): number {
  return typeof v === 'number' && Number.isFinite(v) ? v : 0;
}

/**
 * Our transcript in the Messages API's shape. Empty text blocks are left out (the API refuses
 * them), and so are thinking blocks without a signature (another provider's reasoning, which the
 * API would refuse as unsigned); signed thinking and redacted thinking go back exactly as they came.
 */
export function toAnthropicMessages(messages: Message[]): Json[] {
  return messages.map((m) => {
    if (m.role === 'user') {
      return {
        role: 'user',
        content: m.content
          .filter((b) => b.type !== 'text' || b.text !== '')
          .map((b) =>
            b.type === 'text'
              ? { type: 'text', text: b.text }
              : {
                  type: 'tool_result',
                  tool_use_id: b.tool_use_id,
                  content: b.content.filter((c) => c.type !== 'text' || c.text !== '').map((c) => (c.type === 'text' ? { type: 'text', text: c.text } : { type: 'image', source: c.source })),
                  is_error: b.is_error,
                },
          ),
      };
    }
    return { role: 'assistant', content: m.content.flatMap(assistantBlock) };
  });
}

function assistantBlock(b: AssistantBlock): Json[] {
  switch (b.type) {
    case 'text':
      return b.text === '' ? [] : [{ type: 'text', text: b.text }];
    case 'tool_use':
      return [{ type: 'tool_use', id: b.id, name: b.name, input: b.input_error !== undefined ? {} : b.input }];
    case 'thinking':
      return b.signature === '' ? [] : [{ type: 'thinking', thinking: b.thinking, signature: b.signature }];
    case 'redacted_thinking':
      return [{ type: 'redacted_thinking', data: b.data }];
  }
}

/** The thinking budget of a request: its own, or its effort's; at least the API's minimum. */
export function thinkingBudget(thinking: ThinkingOptions | undefined): number | undefined {
  const budget = thinking?.budgetTokens ?? (thinking?.effort ? EFFORT_BUDGET[thinking.effort] : undefined);
  return budget === undefined ? undefined : Math.max(MIN_THINKING_BUDGET, Math.floor(budget));
}

export class AnthropicProvider implements ModelProvider {
  readonly name = 'anthropic';
  readonly model: string;
  private readonly url: string;
  private readonly transport: HttpTransport;

  constructor(private readonly opts: HttpProviderOptions) {
    this.model = opts.model;
    this.url = `${(opts.baseUrl ?? ANTHROPIC_BASE_URL).replace(/\/+$/, '')}/v1/messages`;
    this.transport = new HttpTransport(opts);
  }

  /**
   * The JSON body sent for a request. With thinking on, the API wants max_tokens above the
   * budget (the budget is part of the response): when the requested max_tokens is not, it is
   * raised to the budget plus the requested max_tokens, so the answer keeps the room it was given.
   */
  requestBody(request: ModelRequest): Json {
    const budget = thinkingBudget(request.thinking);
    const maxTokens = budget !== undefined && request.maxTokens <= budget ? budget + request.maxTokens : request.maxTokens;
    const body: Json = { model: this.model, max_tokens: maxTokens };
    if (request.system) body.system = request.system;
    body.messages = toAnthropicMessages(request.messages);
    if (request.tools.length > 0) body.tools = request.tools.map((t) => ({ name: t.name, description: t.description, input_schema: t.input_schema }));
    if (budget !== undefined) body.thinking = { type: 'enabled', budget_tokens: budget };
    body.stream = true;
    return body;
  }

  complete(request: ModelRequest): Promise<ModelResponse> {
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      accept: 'text/event-stream',
      'anthropic-version': ANTHROPIC_VERSION,
      'user-agent': 'norma-server',
    };
    if (this.opts.apiKey) headers['x-api-key'] = this.opts.apiKey;
    return this.transport.stream({
      provider: this.name,
      url: this.url,
      headers,
      body: this.requestBody(request),
      request,
      consume: (events) => readMessageStream(events, request, (text) => this.transport.redact(text)),
    });
  }

  /** Releases the kept connections. */
  close(): Promise<void> {
    return this.transport.close();
  }
}

interface OpenBlock {
  /** Position in our content; -1 for a text block until its first text, or for a dropped block. */
  ours: number;
  /** `dropped`: takes no more deltas (a dropped block, a finished tool_use, or redacted thinking, whole at its start). */
  kind: 'text' | 'tool_use' | 'thinking' | 'dropped';
  json: string;
}

/** One attempt's event stream into the final message; throws when it failed or was cut off. */
export async function readMessageStream(
  events: AsyncIterable<SseEvent>,
  { onText, onThinking }: Pick<ModelRequest, 'onText' | 'onThinking'> = {},
  /** Secrets out of event text quoted in an error, before it is cut (the whole message is redacted again later). */
  redact: (text: string) => string = (text) => text,
): Promise<ModelResponse> {
  const content: AssistantBlock[] = [];
  const blocks = new Map<number, OpenBlock>();
  const usage: Usage = { input_tokens: 0, output_tokens: 0 };
  let reported = false;
  /** Input is reported in three parts; `input_tokens` is their sum, the cache's parts are kept apart (they are priced apart). */
  const readInput = (u: Json): void => {
    const read = num(u.cache_read_input_tokens);
    const written = num(u.cache_creation_input_tokens);
    usage.input_tokens = num(u.input_tokens) + read + written;
    if (read > 0) usage.cache_read_input_tokens = read;
    if (written > 0) usage.cache_creation_input_tokens = written;
  };
  let stopReason: string | null = null;

  const addText = (block: OpenBlock, text: string): void => {
    if (text === '') return;
    if (block.ours === -1) {
      block.ours = content.length;
      content.push({ type: 'text', text: '' });
    }
    (content[block.ours] as TextBlock).text += text;
    onText?.(text, block.ours);
  };
  const addThinking = (block: OpenBlock, text: string): void => {
    if (text === '') return;
    (content[block.ours] as ThinkingBlock).thinking += text;
    onThinking?.(text, block.ours);
  };
  const finishTool = (block: OpenBlock): void => {
    if (block.kind !== 'tool_use') return;
    const tool = content[block.ours] as ToolUseBlock;
    const parsed = parseToolInput(block.json);
    tool.input = parsed.input;
    if (parsed.input_error !== undefined) tool.input_error = parsed.input_error;
    block.kind = 'dropped'; // finished: a second stop changes nothing
  };

  for await (const ev of events) {
    let data: Json;
    try {
      data = obj(parsePeerJson(ev.data));
    } catch {
      throw new ProviderError(`anthropic sent an event that is not JSON (${ev.event}): ${redact(ev.data).slice(0, 200)}`, 'provider_stream');
    }
    const type = typeof data.type === 'string' ? data.type : ev.event;
    switch (type) {
      case 'message_start': {
        const u = obj(obj(data.message).usage);
        if (Object.keys(u).length > 0) reported = true;
        readInput(u);
        usage.output_tokens = num(u.output_tokens);
        break;
      }
      case 'content_block_start': {
        const index = num(data.index);
        const cb = obj(data.content_block);
        if (cb.type === 'text') {
          const block: OpenBlock = { ours: -1, kind: 'text', json: '' };
          blocks.set(index, block);
          addText(block, typeof cb.text === 'string' ? cb.text : '');
        } else if (cb.type === 'tool_use') {
          blocks.set(index, { ours: content.length, kind: 'tool_use', json: '' });
          content.push({ type: 'tool_use', id: String(cb.id ?? ''), name: String(cb.name ?? ''), input: {} });
        } else if (cb.type === 'thinking') {
          // Kept even when empty: a signed block with no visible text still goes back to the API.
          const block: OpenBlock = { ours: content.length, kind: 'thinking', json: '' };
          blocks.set(index, block);
          content.push({ type: 'thinking', thinking: '', signature: typeof cb.signature === 'string' ? cb.signature : '' });
          addThinking(block, typeof cb.thinking === 'string' ? cb.thinking : '');
        } else if (cb.type === 'redacted_thinking') {
          // Complete in its start event; it has no deltas.
          blocks.set(index, { ours: content.length, kind: 'dropped', json: '' });
          content.push({ type: 'redacted_thinking', data: typeof cb.data === 'string' ? cb.data : '' });
        } else blocks.set(index, { ours: -1, kind: 'dropped', json: '' });
        break;
      }
      case 'content_block_delta': {
        const block = blocks.get(num(data.index));
        const delta = obj(data.delta);
        if (!block) break;
        if (delta.type === 'text_delta' && block.kind === 'text' && typeof delta.text === 'string') addText(block, delta.text);
        else if (delta.type === 'input_json_delta' && block.kind === 'tool_use' && typeof delta.partial_json === 'string') block.json += delta.partial_json;
        else if (delta.type === 'thinking_delta' && block.kind === 'thinking' && typeof delta.thinking === 'string') addThinking(block, delta.thinking);
        else if (delta.type === 'signature_delta' && block.kind === 'thinking' && typeof delta.signature === 'string') {
          (content[block.ours] as ThinkingBlock).signature += delta.signature;
        }
        break;
      }
      case 'content_block_stop': {
        const block = blocks.get(num(data.index));
        if (block) finishTool(block);
        break;
      }
      case 'message_delta': {
        const delta = obj(data.delta);
        if (typeof delta.stop_reason === 'string') stopReason = delta.stop_reason;
        const u = obj(data.usage);
        if (typeof u.output_tokens === 'number') {
          usage.output_tokens = num(u.output_tokens);
          reported = true;
        }
        if (typeof u.input_tokens === 'number') readInput(u);
        break;
      }
      case 'message_stop': {
        for (const block of blocks.values()) finishTool(block);
        const hasTools = content.some((b) => b.type === 'tool_use');
        return { content, stopReason: stopReason ?? (hasTools ? 'tool_use' : 'end_turn'), usage, usageReported: reported };
      }
      case 'error': {
        const err = obj(data.error);
        const errType = typeof err.type === 'string' ? err.type : 'error';
        const message = typeof err.message === 'string' ? err.message : JSON.stringify(data.error ?? null);
        const transient = TRANSIENT_ERRORS[errType];
        throw new ProviderError(`anthropic stream error: ${errType}: ${message}`, transient ?? 'provider_stream', transient !== undefined);
      }
      default:
        // ping, and event types added after this was written
        break;
    }
  }
  throw new ProviderError('the anthropic stream ended early, before message_stop', 'provider_stream', true);
}
