// A loopback fake of Anthropic's streaming Messages API that answers at once: a prompt gets a
// `tool_use` of Read on the file the prompt names; a tool_result gets a short text answer. It
// records the gap from finishing a tool_use stream to the request carrying its tool_result.
import http from 'node:http';
import { freePort } from './lib.js';

export interface FakeAnthropic {
  server: http.Server;
  port: number;
  /** Milliseconds from a tool_use stream's end to the request with its tool_result. */
  gaps: number[];
  /** tool_use ids whose stream ended, with when. */
  finishedAt: Map<string, number>;
  close(): Promise<void>;
}

function sse(events: [string, unknown][]): string {
  return events.map(([e, d]) => `event: ${e}\ndata: ${JSON.stringify(d)}\n\n`).join('');
}

export async function startFakeAnthropic(): Promise<FakeAnthropic> {
  const finishedAt = new Map<string, number>();
  const gaps: number[] = [];
  let toolCounter = 0;
  function reply(body: { messages: { role: string; content: { type: string; text?: string; tool_use_id?: string }[] }[] }): { text: string; toolId?: string } {
    const last = body.messages.at(-1)!;
    const result = last.content.find((b) => b.type === 'tool_result');
    const start: [string, unknown] = ['message_start', { type: 'message_start', message: { id: 'msg_b', type: 'message', role: 'assistant', model: 'bench', content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 10, output_tokens: 1 } } }];
    if (result) {
      const at = finishedAt.get(result.tool_use_id!);
      if (at !== undefined) {
        gaps.push(performance.now() - at);
        finishedAt.delete(result.tool_use_id!);
      }
      return {
        text: sse([
          start,
          ['content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }],
          ['content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'The file is read.' } }],
          ['content_block_stop', { type: 'content_block_stop', index: 0 }],
          ['message_delta', { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 5 } }],
          ['message_stop', { type: 'message_stop' }],
        ]),
      };
    }
    const prompt = last.content.find((b) => b.type === 'text')?.text ?? 'a.txt';
    const id = `toolu_bench_${++toolCounter}`;
    const input = JSON.stringify({ file_path: prompt });
    return {
      toolId: id,
      text: sse([
        start,
        ['content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id, name: 'Read', input: {} } }],
        ['content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: input.slice(0, 10) } }],
        ['content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: input.slice(10) } }],
        ['content_block_stop', { type: 'content_block_stop', index: 0 }],
        ['message_delta', { type: 'message_delta', delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 12 } }],
        ['message_stop', { type: 'message_stop' }],
      ]),
    };
  }

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const { text, toolId } = reply(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      res.end(text, () => {
        if (toolId) finishedAt.set(toolId, performance.now());
      });
    });
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return { server, port, gaps, finishedAt, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}
