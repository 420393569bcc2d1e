// OpenAI's Chat Completions API, streamed, and the servers that speak it (vLLM, llama.cpp,
// Ollama …): POST {baseUrl}/chat/completions with `stream: true`, read `data: {chunk}` events
// until `data: [DONE]`. Reasoning that a compatible server streams (`delta.reasoning_content` or
// `delta.reasoning`) is one thinking block without a signature, and text is one block: they lead
// the content in the order they first appeared (reasoning comes first in practice, so thinking
// is at index 0 and text at 1), and `onThinking`/`onText` indexes are those positions. Tool calls
// are assembled by their `index` from fragments and follow in index order. Tolerated from
// compatible servers: a tool call without an id (one is made up), without an index, sent whole
// in one chunk, several whole calls at one index with distinct ids (each is its own call), or
// finished with `stop` instead of `tool_calls`. A stream without [DONE] was cut off: the attempt
// is retried from scratch.
import { randomBytes } from 'node:crypto';
import { HttpTransport, type HttpProviderOptions } from './http.js';
import {
  ProviderError,
  type AssistantBlock,
  type Message,
  type ModelProvider,
  type ModelRequest,
  type ModelResponse,
  type ThinkingEffort,
  type ThinkingOptions,
  type ToolUseBlock,
  type Usage,
} from './provider.js';
import type { SseEvent } from './sse.js';
import { parseToolInput } from './tool-input.js';
import { parsePeerJson } from '../json-depth.js';

export const OPENAI_BASE_URL = 'https://api.openai.com/v1';

type Json = Record<string, unknown>;

function obj(v: unknown): Json {
  return v && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : {};
}
function num(v: unknown): number {
  return typeof v === 'number' && Number.isFinite(v) ? v : 0;
}

const FINISH_REASONS: Record<string, string> = {
  stop: 'end_turn',
  tool_calls: 'tool_use',
  function_call: 'tool_use',
  length: 'max_tokens',
  content_filter: 'refusal',
};

/** Said by a stream error that is worth another attempt. */
const TRANSIENT = /overload|rate.?limit|server.?error|internal|unavailable|capacity|timeout|try again/i;

/** The `reasoning_effort` of a request: its own, or the level its budget falls in. */
export function reasoningEffort(thinking: ThinkingOptions | undefined): ThinkingEffort | undefined {
  if (thinking?.effort) return thinking.effort;
  const budget = thinking?.budgetTokens;
  if (budget === undefined) return undefined;
  return budget <= 4096 ? 'low' : budget <= 16_384 ? 'medium' : 'high';
}

export function generatedCallId(): string {
  return `call_${randomBytes(12).toString('hex')}`;
}

/**
 * Our transcript as chat messages: tool results become `tool` messages, ahead of the user's text.
 * Thinking blocks are left out: Chat Completions has no place for them.
 */
export function toOpenAIMessages(system: string | undefined, messages: Message[]): Json[] {
  const out: Json[] = [];
  if (system) out.push({ role: 'system', content: system });
  for (const m of messages) {
    if (m.role === 'user') {
      const texts: string[] = [];
      for (const b of m.content) {
        if (b.type === 'tool_result') out.push({ role: 'tool', tool_call_id: b.tool_use_id, content: b.content.map((c) => (c.type === 'text' ? c.text : imageNote(c))).join('\n') });
        else texts.push(b.text);
      }
      if (texts.length > 0) out.push({ role: 'user', content: texts.join('\n') });
    } else {
      const text = m.content.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('');
      const calls = m.content.flatMap((b) =>
        b.type === 'tool_use' ? [{ id: b.id, type: 'function', function: { name: b.name, arguments: JSON.stringify(b.input_error !== undefined ? {} : (b.input ?? {})) } }] : [],
      );
      // Null content is only allowed beside tool calls; a message that was all thinking sends ''.
      const msg: Json = { role: 'assistant', content: text === '' && calls.length > 0 ? null : text };
      if (calls.length > 0) msg.tool_calls = calls;
      out.push(msg);
    }
  }
  return out;
}

export class OpenAIProvider implements ModelProvider {
  readonly name = 'openai';
  readonly model: string;
  private readonly url: string;
  private readonly transport: HttpTransport;

  constructor(private readonly opts: HttpProviderOptions) {
    this.model = opts.model;
    this.url = `${(opts.baseUrl ?? OPENAI_BASE_URL).replace(/\/+$/, '')}/chat/completions`;
    this.transport = new HttpTransport(opts);
  }

  /** The JSON body sent for a request. */
  requestBody(request: ModelRequest): Json {
    const body: Json = { model: this.model, messages: toOpenAIMessages(request.system, request.messages) };
    if (request.tools.length > 0) {
      body.tools = request.tools.map((t) => ({ type: 'function', function: { name: t.name, description: t.description, parameters: t.input_schema } }));
    }
    body.stream = true;
    body.stream_options = { include_usage: true };
    body.max_tokens = request.maxTokens;
    const effort = reasoningEffort(request.thinking);
    if (effort) body.reasoning_effort = effort;
    return body;
  }

  complete(request: ModelRequest): Promise<ModelResponse> {
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'text/event-stream', 'user-agent': 'norma-server' };
    if (this.opts.apiKey) headers.authorization = `Bearer ${this.opts.apiKey}`;
    return this.transport.stream({
      provider: this.name,
      url: this.url,
      headers,
      body: this.requestBody(request),
      request,
      consume: (events) => readChunkStream(events, request, (text) => this.transport.redact(text)),
    });
  }

  /** Releases the kept connections. */
  close(): Promise<void> {
    return this.transport.close();
  }
}

interface PendingCall {
  id: string;
  name: string;
  args: string;
  /** Where it goes among the calls: its `index`, or a fresh place after the others. */
  pos: number;
  /** Order of opening; breaks ties of `pos`. */
  seq: number;
}

/** One attempt's chunk stream into the final message; throws when it failed or was cut off. */
export async function readChunkStream(
  events: AsyncIterable<SseEvent>,
  { onText, onThinking }: Pick<ModelRequest, 'onText' | 'onThinking'> = {},
  /** Secrets out of event text quoted in an error, before it is cut (the whole message is redacted again later). */
  redact: (text: string) => string = (text) => text,
): Promise<ModelResponse> {
  let text = '';
  let thinking = '';
  /** The text and thinking blocks in the order they first appeared: their positions in the content. */
  const lead: ('text' | 'thinking')[] = [];
  /** Adds a piece to the text or the thinking (placing the block on its first piece) and streams it. */
  const add = (kind: 'text' | 'thinking', piece: string): void => {
    let at = lead.indexOf(kind);
    if (at === -1) at = lead.push(kind) - 1;
    if (kind === 'text') {
      text += piece;
      onText?.(piece, at);
    } else {
      thinking += piece;
      onThinking?.(piece, at);
    }
  };
  const calls: PendingCall[] = [];
  /** By the `index` of the fragments: the call last opened there, which continuations extend. */
  const atIndex = new Map<number, PendingCall>();
  /** By id: the first call that had it. */
  const byIds = new Map<string, PendingCall>();
  let last: PendingCall | undefined;
  let maxPos = -1;
  const open = (pos: number): PendingCall => {
    const call: PendingCall = { id: '', name: '', args: '', pos, seq: calls.length };
    calls.push(call);
    maxPos = Math.max(maxPos, pos);
    return call;
  };
  let finish: string | null = null;
  let refused = false;
  const usage: Usage = { input_tokens: 0, output_tokens: 0 };
  let reported = false;

  for await (const ev of events) {
    const raw = ev.data.trim();
    if (raw === '[DONE]') {
      const content: AssistantBlock[] = lead.map((kind) => (kind === 'text' ? { type: 'text', text } : { type: 'thinking', thinking, signature: '' }));
      for (const call of [...calls].sort((a, b) => a.pos - b.pos || a.seq - b.seq)) {
        const parsed = parseToolInput(call.args);
        const block: ToolUseBlock = { type: 'tool_use', id: call.id || generatedCallId(), name: call.name, input: parsed.input };
        if (parsed.input_error !== undefined) block.input_error = parsed.input_error;
        content.push(block);
      }
      let stopReason = finish === null ? 'end_turn' : (FINISH_REASONS[finish] ?? finish);
      if (calls.length > 0 && (finish === null || finish === 'stop')) stopReason = 'tool_use';
      else if (refused && (finish === null || finish === 'stop')) stopReason = 'refusal';
      return { content, stopReason, usage, usageReported: reported };
    }
    if (raw === '') continue;
    let chunk: Json;
    try {
      chunk = obj(parsePeerJson(raw));
    } catch {
      throw new ProviderError(`openai sent an event that is not JSON: ${redact(raw).slice(0, 200)}`, 'provider_stream');
    }
    if (chunk.error !== undefined || chunk.object === 'error') {
      const e = chunk.error !== undefined ? chunk.error : chunk;
      const eo = obj(e);
      const message = typeof e === 'string' ? e : typeof eo.message === 'string' ? eo.message : JSON.stringify(e);
      const type = typeof eo.type === 'string' ? eo.type : '';
      const errorCode = typeof eo.code === 'string' || typeof eo.code === 'number' ? String(eo.code) : '';
      const kind = type && errorCode ? `${type} (${errorCode})` : type || errorCode;
      const transient = TRANSIENT.test(`${kind} ${message}`) || (typeof eo.code === 'number' && eo.code >= 500);
      const code = /overload|rate.?limit|capacity/i.test(`${kind} ${message}`) ? 'provider_overloaded' : 'provider_stream';
      throw new ProviderError(`openai stream error: ${kind ? `${kind}: ` : ''}${message}`, code, transient);
    }
    if (chunk.usage && typeof chunk.usage === 'object') {
      const u = obj(chunk.usage);
      reported = true;
      usage.input_tokens = num(u.prompt_tokens);
      usage.output_tokens = num(u.completion_tokens);
      // Cached input is part of prompt_tokens, priced apart.
      const cached = num(obj(u.prompt_tokens_details).cached_tokens);
      if (cached > 0) usage.cache_read_input_tokens = Math.min(cached, usage.input_tokens);
      else delete usage.cache_read_input_tokens;
    }
    const choices = Array.isArray(chunk.choices) ? chunk.choices : [];
    const choice = obj(choices.find((c) => num(obj(c).index) === 0) ?? choices[0]);
    const delta = obj(choice.delta);
    // DeepSeek and older vLLM say reasoning_content, newer vLLM, Ollama and OpenRouter say
    // reasoning; a server sending both sends the same text twice, so one is read.
    const reasoning = [delta.reasoning_content, delta.reasoning].find((r): r is string => typeof r === 'string' && r !== '');
    if (reasoning !== undefined) add('thinking', reasoning);
    if (typeof delta.content === 'string' && delta.content !== '') add('text', delta.content);
    // OpenAI streams a refusal in its own field; it is the answer's text all the same.
    if (typeof delta.refusal === 'string' && delta.refusal !== '') {
      refused = true;
      add('text', delta.refusal);
    }
    if (Array.isArray(delta.tool_calls)) {
      for (const tc of delta.tool_calls) {
        const t = obj(tc);
        const fn = obj(t.function);
        const id = typeof t.id === 'string' ? t.id : '';
        const name = typeof fn.name === 'string' ? fn.name : '';
        const byId = id !== '' ? byIds.get(id) : undefined;
        let call: PendingCall;
        if (typeof t.index === 'number') {
          const there = atIndex.get(t.index);
          if (!there) call = open(t.index);
          // Some gateways send parallel calls whole, all at index 0: a new id there is a new call.
          else if (id !== '' && there.id !== '' && id !== there.id) call = byId ?? open(maxPos + 1);
          else call = there;
          atIndex.set(t.index, call);
        } else {
          // No index (some compatible servers): a new id or a name opens a new call; else it continues the last.
          if (byId) call = byId;
          else if (id !== '' || name !== '' || !last) call = open(maxPos + 1);
          else call = last;
        }
        last = call;
        if (id !== '' && call.id === '') {
          call.id = id;
          if (!byIds.has(id)) byIds.set(id, call);
        }
        if (name !== '' && call.name === '') call.name = name;
        if (typeof fn.arguments === 'string') call.args += fn.arguments;
        else if (fn.arguments && typeof fn.arguments === 'object') call.args += JSON.stringify(fn.arguments);
      }
    }
    if (typeof choice.finish_reason === 'string' && choice.finish_reason !== '') finish = choice.finish_reason;
  }
  throw new ProviderError('the openai stream ended early, before [DONE]', 'provider_stream', true);
}

/** Chat Completions' tool messages carry text only: an image result is described, not dropped silently. */
function imageNote(c: { source: { media_type: string; data: string } }): string {
  return `[an image (${c.source.media_type}, ${Math.floor((c.source.data.length * 3) / 4)} bytes) was returned; this model API takes no images in tool results]`;
}
