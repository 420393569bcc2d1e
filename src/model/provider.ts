// One streaming interface for every model backend. A provider turns a transcript and a tool list
// into one assistant message, streaming its text through `onText` (and its reasoning through
// `onThinking`) while it arrives. Providers speak their real wire formats (anthropic.ts,
// openai.ts) or play a script (scripted.ts); the prompt loop (src/session/prompt-turn.ts) only
// ever sees these types.
import type { ImageMediaType } from '../contract/common.js';

export interface TextBlock {
  type: 'text';
  text: string;
}

export interface ToolUseBlock {
  type: 'tool_use';
  id: string;
  name: string;
  /** The parsed input; `{}` when the model's JSON could not be parsed (see `input_error`). */
  input: unknown;
  /** Set when the model sent input that is not a JSON object: the call gets an is_error result naming this. */
  input_error?: string;
}

/** An image in a tool result (an MCP tool's image content). */
export interface ImageContent {
  type: 'image';
  source: { type: 'base64'; media_type: ImageMediaType; data: string };
}

export interface ToolResultBlock {
  type: 'tool_result';
  tool_use_id: string;
  content: (TextBlock | ImageContent)[];
  is_error: boolean;
}

/**
 * The model's reasoning before its answer. Anthropic signs it: a message sent back must carry the
 * block unchanged, signature included. An OpenAI-compatible server's reasoning has no signature
 * (`''`) and is never sent to Anthropic.
 */
export interface ThinkingBlock {
  type: 'thinking';
  thinking: string;
  signature: string;
}

/** Reasoning the provider encrypted (Anthropic's safety systems flagged it): sent back as it came. */
export interface RedactedThinkingBlock {
  type: 'redacted_thinking';
  data: string;
}

export type AssistantBlock = TextBlock | ToolUseBlock | ThinkingBlock | RedactedThinkingBlock;
export type UserBlock = TextBlock | ToolResultBlock;

export type Message = { role: 'user'; content: UserBlock[] } | { role: 'assistant'; content: AssistantBlock[] };

export interface ModelToolSpec {
  name: string;
  description: string;
  input_schema: Record<string, unknown>;
}

/** Tokens of one model call as the provider counted them. */
export interface Usage {
  /** Every input token, cached ones included. */
  input_tokens: number;
  /** Output tokens, thinking included. */
  output_tokens: number;
  /** Of `input_tokens`: read from the provider's prompt cache. */
  cache_read_input_tokens?: number;
  /** Of `input_tokens`: written to the provider's prompt cache. */
  cache_creation_input_tokens?: number;
}

export type ThinkingEffort = 'low' | 'medium' | 'high';

/**
 * How much the model may reason before answering. Each provider takes its own setting when it is
 * given and maps the other one when it is not: Anthropic the budget, OpenAI-compatible servers the effort.
 */
export interface ThinkingOptions {
  /** Tokens of reasoning (Anthropic's `budget_tokens`; mapped to an effort for OpenAI-compatible servers). */
  budgetTokens?: number;
  /** Coarse level (OpenAI's `reasoning_effort`; mapped to a budget for Anthropic). */
  effort?: ThinkingEffort;
}

export interface ModelRequest {
  system?: string;
  messages: Message[];
  tools: ModelToolSpec[];
  /** Largest response the model may produce, in tokens. */
  maxTokens: number;
  signal: AbortSignal;
  /** Extended thinking (reasoning); off when absent. */
  thinking?: ThinkingOptions;
  /** Text as it streams; `index` is the content block's position in the final message. */
  onText?: (text: string, index: number) => void;
  /** Thinking text as it streams; `index` is the thinking block's position in the final message. */
  onThinking?: (text: string, index: number) => void;
  /** A failed attempt is retried after `delayMs`; text already streamed by it is void. */
  onRetry?: (info: { attempt: number; delayMs: number; reason: string }) => void;
}

export interface ModelResponse {
  content: AssistantBlock[];
  /** Normalised: `end_turn`, `tool_use`, `max_tokens`, `stop_sequence`, `refusal`, or the provider's own word. */
  stopReason: string;
  usage: Usage;
  /** False when the provider reported no usage for the call (its `usage` is then all zero). */
  usageReported?: boolean;
}

export interface ModelProvider {
  readonly name: string;
  readonly model: string;
  complete(request: ModelRequest): Promise<ModelResponse>;
  /** Releases kept-alive connections (the session closed). */
  close?(): Promise<void>;
}

/**
 * A provider call that failed for good (after retries, or not retryable). The message is shown
 * to clients (turn.failed): it never contains the API key or request headers.
 */
export class ProviderError extends Error {
  constructor(
    message: string,
    readonly code:
      | 'provider_unreachable'
      | 'provider_auth'
      | 'provider_rejected'
      | 'provider_overloaded'
      | 'provider_http'
      | 'provider_stream'
      | 'provider_timeout'
      | 'provider_script',
    readonly retryable = false,
    readonly status?: number,
    /** Seconds the provider asked us to wait (retry-after), when it said. */
    readonly retryAfterS?: number,
  ) {
    super(message);
    this.name = 'ProviderError';
  }
}

export interface RetryPolicy {
  /** Attempts after the first. */
  maxRetries: number;
  /** First backoff; doubles each time, with jitter, capped by maxDelayMs. */
  baseDelayMs: number;
  maxDelayMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { maxRetries: 4, baseDelayMs: 500, maxDelayMs: 8_000 };

export interface ProviderTimeouts {
  /** Connecting to the provider. */
  connectMs: number;
  /** From sending the request to the response headers. */
  headersMs: number;
  /** Longest silence between two chunks of a streamed body. */
  idleMs: number;
}

export const DEFAULT_TIMEOUTS: ProviderTimeouts = { connectMs: 10_000, headersMs: 120_000, idleMs: 120_000 };
