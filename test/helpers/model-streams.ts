// What a model provider sends, for fake model servers in tests: an Anthropic Messages stream of
// text and tool_use blocks, event by event as the API sends it.

export type StreamBlock = { text: string } | { id: string; name: string; input: unknown };

export interface StreamOptions {
  /** The stop reason; default `tool_use` when a block is a tool_use, else `end_turn`. */
  stop?: string;
  inputTokens?: number;
  outputTokens?: number;
  /** Input read from and written to the prompt cache (reported apart from `inputTokens`, as the API does). */
  cacheReadTokens?: number;
  cacheWriteTokens?: number;
  /** Send no usage at all (a gateway that reports none). */
  noUsage?: boolean;
}

export function anthropicStream(blocks: StreamBlock[], o: StreamOptions = {}): string {
  const ev = (type: string, data: unknown) => `event: ${type}\ndata: ${JSON.stringify(data)}\n\n`;
  let out = ev('message_start', {
    type: 'message_start',
    message: { id: 'msg_1', type: 'message', role: 'assistant', model: 'claude-test', content: [], stop_reason: null, stop_sequence: null, ...(o.noUsage
      ? {}
      : {
          usage: {
            input_tokens: o.inputTokens ?? 25,
            output_tokens: 1,
            ...(o.cacheReadTokens !== undefined ? { cache_read_input_tokens: o.cacheReadTokens } : {}),
            ...(o.cacheWriteTokens !== undefined ? { cache_creation_input_tokens: o.cacheWriteTokens } : {}),
          },
        }) },
  });
  blocks.forEach((b, index) => {
    if ('text' in b) {
      out += ev('content_block_start', { type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
      out += ev('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'text_delta', text: b.text } });
    } else {
      out += ev('content_block_start', { type: 'content_block_start', index, content_block: { type: 'tool_use', id: b.id, name: b.name, input: {} } });
      out += ev('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: JSON.stringify(b.input) } });
    }
    out += ev('content_block_stop', { type: 'content_block_stop', index });
  });
  const stop = o.stop ?? (blocks.some((b) => 'name' in b) ? 'tool_use' : 'end_turn');
  out += ev('message_delta', { type: 'message_delta', delta: { stop_reason: stop, stop_sequence: null }, ...(o.noUsage ? {} : { usage: { output_tokens: o.outputTokens ?? 30 } }) });
  out += ev('message_stop', { type: 'message_stop' });
  return out;
}
