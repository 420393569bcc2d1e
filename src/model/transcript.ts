// How the service's records become a model's conversation.
import type { ToolResult } from '../contract/schemas.js';
import { transcriptResult } from '../contract/transcript.js';
import type { Message, TextBlock, ToolResultBlock } from './provider.js';

/** A tool_result as the model sees it: the (capped) text, and a note built from the structured truncation. */
export function toModelResult(toolUseId: string, result: ToolResult | undefined): ToolResultBlock {
  return transcriptResult(toolUseId, result);
}

/** Providers want alternating roles: consecutive messages of one role become one. */
export function mergeConsecutive(messages: Message[]): Message[] {
  const out: Message[] = [];
  for (const m of messages) {
    const prev = out.at(-1);
    if (prev && prev.role === m.role) {
      out[out.length - 1] = { role: m.role, content: [...prev.content, ...m.content] } as Message;
    } else out.push(m);
  }
  return out;
}

/** A conversation whose last assistant message asked for calls gets the user message answering them. */
export function closeTranscript(messages: Message[], results: ReadonlyMap<string, ToolResult>): Message[] {
  const last = messages.at(-1);
  if (last?.role !== 'assistant') return messages;
  const ids = last.content.flatMap((b) => (b.type === 'tool_use' ? [b.id] : []));
  if (ids.length === 0) return messages;
  return [...messages, { role: 'user', content: ids.map((id) => toModelResult(id, results.get(id))) }];
}
