// How the service's records become a model's conversation.
import type { ToolResult } from '../contract/schemas.js';
import type { Message, TextBlock, ToolResultBlock } from './provider.js';

/** A tool_result as the model sees it: the (capped) text, and a note built from the structured truncation. */
export function toModelResult(toolUseId: string, result: ToolResult | undefined): ToolResultBlock {
  if (!result) return { type: 'tool_result', tool_use_id: toolUseId, is_error: true, content: [{ type: 'text', text: 'No result was recorded for this call.' }] };
  const content: TextBlock[] = result.content.filter((b) => b.type === 'text').map((b) => ({ type: 'text', text: b.text }));
  const capped = result.truncation ? [result.truncation, ...(result.truncations ?? []).slice(1)] : [];
  for (const t of capped) {
    content.push({
      type: 'text',
      text: `[Output truncated: ${t.shown_chars} of ${t.total_chars} characters shown. The full output is kept as ${t.output_id}.]`,
    });
  }
  if (content.length === 0) content.push({ type: 'text', text: '(no output)' });
  return { type: 'tool_result', tool_use_id: toolUseId, is_error: result.is_error, content };
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
