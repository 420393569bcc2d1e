// A tool_result as MCP content: text and image blocks as they are; a capped block also gets a
// link to its spill file, which is a resource of the MCP session (`norma://…/outputs/…`).
import type { ToolResult } from '../../contract/tool.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

const OUTPUT_URI = /^norma:\/\/sessions\/([A-Za-z0-9_-]{1,128})\/outputs\/([A-Za-z0-9_-]{1,128})$/;

export function outputUri(sessionId: string, outputId: string): string {
  return `norma://sessions/${sessionId}/outputs/${outputId}`;
}

/** The session and output a resource URI names, or null when it names no spill file. */
export function parseOutputUri(uri: string): { sessionId: string; outputId: string } | null {
  const m = OUTPUT_URI.exec(uri);
  return m ? { sessionId: m[1]!, outputId: m[2]! } : null;
}

export function callToolResult(sessionId: string, result: ToolResult): CallToolResult {
  const content: CallToolResult['content'] = result.content.map((b) =>
    b.type === 'text' ? { type: 'text' as const, text: b.text } : { type: 'image' as const, data: b.source.data, mimeType: b.source.media_type },
  );
  const capped = result.truncations ?? (result.truncation ? [result.truncation] : []);
  for (const t of capped) {
    if (t.output_id === undefined) continue;
    content.push({
      type: 'resource_link',
      uri: outputUri(sessionId, t.output_id),
      name: t.output_id,
      mimeType: 'text/plain',
      description: `The full text of block ${t.block_index} (${t.total_chars} characters, ${t.shown_chars} shown; SHA-256 ${t.sha256})`,
    });
  }
  return { content, isError: result.is_error };
}
