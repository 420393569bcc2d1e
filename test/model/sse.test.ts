// The event-stream parser: events are found however the bytes are split, in every line-ending
// style, and an event the stream never terminated is not emitted.
import { describe, expect, it } from 'vitest';
import { parseSse, type SseEvent } from '../../src/model/sse.js';
import { fixture } from './fake-server.js';

async function* from(chunks: (Buffer | Uint8Array | string)[]): AsyncGenerator<Buffer | Uint8Array | string> {
  for (const c of chunks) yield c;
}

async function collect(chunks: (Buffer | Uint8Array | string)[]): Promise<SseEvent[]> {
  const out: SseEvent[] = [];
  for await (const ev of parseSse(from(chunks))) out.push(ev);
  return out;
}

/** The bytes cut into pieces of `n`. */
function every(buf: Buffer, n: number): Buffer[] {
  const out: Buffer[] = [];
  for (let i = 0; i < buf.length; i += n) out.push(buf.subarray(i, i + n));
  return out;
}

describe('parseSse', () => {
  it('reads named events and plain data events', async () => {
    expect(await collect(['event: ping\ndata: {"type": "ping"}\n\ndata: hello\n\n'])).toEqual([
      { event: 'ping', data: '{"type": "ping"}' },
      { event: 'message', data: 'hello' },
    ]);
  });

  it.each([
    ['\\n', '\n'],
    ['\\r\\n', '\r\n'],
    ['\\r', '\r'],
  ])('understands %s line endings', async (_name, eol) => {
    const text = `event: a${eol}data: 1${eol}${eol}: comment${eol}data: 2${eol}data: 3${eol}${eol}`;
    const expected = [
      { event: 'a', data: '1' },
      { event: 'message', data: '2\n3' },
    ];
    expect(await collect([text])).toEqual(expected);
    // split after every character, the CR and LF of a pair included
    expect(await collect([...text])).toEqual(expected);
  });

  it('joins multi-line data with \\n and keeps empty data lines', async () => {
    expect(await collect(['data: a\ndata:\ndata: b\n\n'])).toEqual([{ event: 'message', data: 'a\n\nb' }]);
  });

  it('drops exactly one space after the colon', async () => {
    expect(await collect(['data:x\n\ndata:  two spaces\n\nevent:e\ndata:\t tab\n\n'])).toEqual([
      { event: 'message', data: 'x' },
      { event: 'message', data: ' two spaces' },
      { event: 'e', data: '\t tab' },
    ]);
  });

  it('skips comments, unknown fields, id and retry; a line without a colon is a field with no value', async () => {
    expect(await collect([': keep-alive\n\nid: 7\nretry: 1000\nfoo: bar\ndata\ndata: x\n\n'])).toEqual([{ event: 'message', data: '\nx' }]);
  });

  it('does not dispatch an event with no data line, and its name does not leak into the next', async () => {
    expect(await collect(['event: lonely\n\ndata: next\n\n'])).toEqual([{ event: 'message', data: 'next' }]);
  });

  it('does not emit the last event when the stream ends before its blank line', async () => {
    expect(await collect(['data: complete\n\ndata: cut off\n'])).toEqual([{ event: 'message', data: 'complete' }]);
    expect(await collect(['data: complete\n\ndata: cut of'])).toEqual([{ event: 'message', data: 'complete' }]);
  });

  it('decodes multi-byte UTF-8 characters split across chunks', async () => {
    const bytes = Buffer.from('data: café ☕ 日本 🙂\n\n', 'utf8');
    const events = await collect(every(bytes, 1));
    expect(events).toEqual([{ event: 'message', data: 'café ☕ 日本 🙂' }]);
    // Uint8Array chunks too, split inside the 4-byte emoji
    const at = bytes.indexOf(Buffer.from('🙂')) + 2;
    expect(await collect([new Uint8Array(bytes.subarray(0, at)), new Uint8Array(bytes.subarray(at))])).toEqual(events);
  });

  it('strips a leading byte order mark', async () => {
    expect(await collect([Buffer.from('\ufeffdata: x\n\n', 'utf8')])).toEqual([{ event: 'message', data: 'x' }]);
    expect(await collect(['\ufeffdata: x\n\n'])).toEqual([{ event: 'message', data: 'x' }]);
  });

  it.each(['anthropic/tool-use.sse', 'openai/tool-call.sse', 'openai/keepalive-crlf.sse'])('parses %s the same whatever the chunk size', async (name) => {
    const bytes = fixture(name);
    const whole = await collect([bytes]);
    expect(whole.length).toBeGreaterThan(3);
    for (const n of [1, 2, 3, 7, 64, 1000]) expect(await collect(every(bytes, n))).toEqual(whole);
  });
});
