// Server-Sent Events framing: the response head, `id:`/`event:`/`data:` frames and `:` comment
// lines (the connect notice and heartbeats), written to a raw Node response.
import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';

// A live event is one object delivered to every subscriber of the session: serialise it once.
const serializedEvents = new WeakMap<object, string>();
export function serialized(event: object): string {
  let text = serializedEvents.get(event);
  if (text === undefined) {
    text = JSON.stringify(event);
    serializedEvents.set(event, text);
  }
  return text;
}

/**
 * Sends the event-stream head (unbuffered by proxies) with the headers already set for the
 * reply, a first `: connected` comment, and `retry:` (how long an EventSource waits before it
 * reconnects).
 */
export function openEventStream(res: ServerResponse, requestId: string, headers: OutgoingHttpHeaders = {}, retryMs?: number): void {
  res.writeHead(200, {
    ...headers,
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
    'x-request-id': requestId,
  });
  writeComment(res, 'connected');
  if (retryMs !== undefined) res.write(`retry: ${retryMs}\n\n`);
}

/** A comment line: clients ignore it, proxies see traffic (`: ping` is the heartbeat). */
export function writeComment(res: ServerResponse, text: string): boolean {
  return res.write(`: ${text}\n\n`);
}

/** One event frame; `data` is already JSON. Without `id` the client's Last-Event-ID stays put. */
export function writeEvent(res: ServerResponse, type: string, data: string, id?: number): boolean {
  const idLine = id === undefined ? '' : `id: ${id}\n`;
  return res.write(`${idLine}event: ${type}\ndata: ${data}\n\n`);
}

/** The headers a reply has so far, for a raw `writeHead` after `reply.hijack()`. */
export function headTaken(headers: Record<string, string | number | string[] | undefined>): OutgoingHttpHeaders {
  const out: OutgoingHttpHeaders = {};
  for (const [k, v] of Object.entries(headers)) if (v !== undefined) out[k] = typeof v === 'number' ? String(v) : v;
  return out;
}
