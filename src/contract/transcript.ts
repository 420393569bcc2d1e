// How a recorded tool_result reads in a conversation: its (capped) text, and a note built from
// its structured truncation. Stored transcripts keep only a reference to the result and are
// read back through this, so the store and the model loop agree on it.
import type { ImageBlock } from './common.js';
import type { ToolResult } from './tool.js';

export interface TranscriptResultBlock {
  type: 'tool_result';
  tool_use_id: string;
  content: ({ type: 'text'; text: string } | ImageBlock)[];
  is_error: boolean;
}

export function transcriptResult(toolUseId: string, result: ToolResult | undefined): TranscriptResultBlock {
  if (!result) return { type: 'tool_result', tool_use_id: toolUseId, is_error: true, content: [{ type: 'text', text: 'No result was recorded for this call.' }] };
  const content: TranscriptResultBlock['content'] = result.content.map((b) => (b.type === 'text' ? { type: 'text', text: b.text } : b));
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
