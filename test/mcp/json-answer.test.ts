// A request's answer as JSON when its stream's first message is the answer, and otherwise the
// stream itself, byte for byte: what src/mcp/server/json-answer.ts decides, on streams made here.
import { describe, expect, it } from 'vitest';
import { firstMessage, settleAnswer, type PlainAnswer } from '../../src/mcp/server/json-answer.js';

const enc = new TextEncoder();
const sse = (m: object) => `event: message\ndata: ${JSON.stringify(m)}\n\n`;

/** An SSE response whose chunks are written when `push` is called; `end` closes it. */
function streamed(headers: Record<string, string> = {}) {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let cancelled: unknown;
  const body = new ReadableStream<Uint8Array>({ start: (c) => void (controller = c), cancel: (r) => void (cancelled = r ?? 'cancelled') });
  const response = new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream', 'mcp-session-id': 'ses_a.b', ...headers } });
  return { response, push: (s: string) => controller.enqueue(enc.encode(s)), end: () => controller.close(), cancelled: () => cancelled };
}

const isPlain = (a: Response | PlainAnswer): a is PlainAnswer => !(a instanceof Response);

describe('settleAnswer', () => {
  it('answers as JSON when the first message is the answer, keeping the session header, and lets go of the stream', async () => {
    const s = streamed();
    const answer = { result: { content: [{ type: 'text', text: 'a\n\nb' }], isError: false }, jsonrpc: '2.0', id: 7 };
    const text = sse(answer);
    // Split mid-event and mid-character boundaries do not matter.
    s.push(text.slice(0, 10));
    s.push(text.slice(10));
    const a = await settleAnswer(s.response, 7, 5_000);
    expect(isPlain(a)).toBe(true);
    const plain = a as PlainAnswer;
    expect(plain.status).toBe(200);
    expect(plain.headers).toEqual({ 'content-type': 'application/json', 'mcp-session-id': 'ses_a.b' });
    expect(JSON.parse(plain.body)).toEqual(answer);
    await new Promise((r) => setImmediate(r));
    expect(s.cancelled()).toBeDefined();
  });

  it('hands over the whole stream when a notification or a request comes first', async () => {
    for (const first of [{ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: 1 } }, { jsonrpc: '2.0', id: 1, method: 'elicitation/create', params: {} }]) {
      const s = streamed();
      const answer = { result: {}, jsonrpc: '2.0', id: 1 };
      s.push(sse(first));
      const a = await settleAnswer(s.response, 1, 5_000);
      expect(a).toBeInstanceOf(Response);
      const r = a as Response;
      expect(r.headers.get('content-type')).toBe('text/event-stream');
      expect(r.headers.get('mcp-session-id')).toBe('ses_a.b');
      s.push(sse(answer));
      s.end();
      expect(await r.text()).toBe(sse(first) + sse(answer));
    }
  });

  it('hands over the stream when nothing whole came in time, with what was read and what was still being read', async () => {
    const s = streamed();
    s.push(': keepalive\n\n');
    s.push('event: message\ndata: {"jsonrpc":"2.0",');
    const a = await settleAnswer(s.response, 3, 20);
    expect(a).toBeInstanceOf(Response);
    s.push('"result":{},"id":3}\n\n');
    s.end();
    expect(await (a as Response).text()).toBe(': keepalive\n\nevent: message\ndata: {"jsonrpc":"2.0","result":{},"id":3}\n\n');
  });

  it('a stream that ends without a message, an answer of another id, and a cancelled handover', async () => {
    const empty = streamed();
    empty.end();
    const a = await settleAnswer(empty.response, 1, 5_000);
    expect(a).toBeInstanceOf(Response);
    expect(await (a as Response).text()).toBe('');

    const other = streamed();
    other.push(sse({ result: {}, jsonrpc: '2.0', id: 2 }));
    const b = await settleAnswer(other.response, 1, 5_000);
    expect(b).toBeInstanceOf(Response);
    await (b as Response).body!.cancel('client gone');
    expect(other.cancelled()).toBe('client gone');
  });

  it('passes through what is not a stream', async () => {
    const json = new Response('{"jsonrpc":"2.0","error":{"code":-32600,"message":"x"},"id":null}', { status: 400, headers: { 'content-type': 'application/json' } });
    expect(await settleAnswer(json, 1, 5_000)).toBe(json);
    const none = new Response(null, { status: 202 });
    expect(await settleAnswer(none, 1, 5_000)).toBe(none);
  });
});

describe('firstMessage', () => {
  it('reads the first whole event, skipping comments, on any line ending', () => {
    expect(firstMessage('', 1)).toBe('more');
    expect(firstMessage(': keepalive\n\n', 1)).toBe('more');
    expect(firstMessage('event: message\ndata: {"id":1,"result":{}}', 1)).toBe('more');
    expect(firstMessage(': c\n\nevent: message\ndata: {"id":1,"result":{}}\n\n', 1)).toEqual({ answer: '{"id":1,"result":{}}' });
    expect(firstMessage('event: message\r\ndata:{"id":"x","error":{}}\r\n\r\n', 'x')).toEqual({ answer: '{"id":"x","error":{}}' });
    // An id of the same value but another type is another request's.
    expect(firstMessage('data: {"id":"1","result":{}}\n\n', 1)).toBe('stream');
    // A request from the server that happens to carry the id is not an answer.
    expect(firstMessage('data: {"id":1,"method":"ping","result":{}}\n\n', 1)).toBe('stream');
    expect(firstMessage('data: not json\n\n', 1)).toBe('stream');
    expect(firstMessage('data: 1\n\n', 1)).toBe('stream');
    expect(firstMessage('data: null\n\n', 1)).toBe('stream');
    // Data over several lines is one message.
    expect(firstMessage('data: {"id":1,\ndata: "result":{}}\n\n', 1)).toEqual({ answer: '{"id":1,\n"result":{}}' });
  });
});
