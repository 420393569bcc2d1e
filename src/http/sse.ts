// Server-Sent Events framing: the response head, `id:`/`event:`/`data:` frames (the first with
// `retry:`) and `:` comment lines (heartbeats, never a block of their own), written to a raw
// Node response.
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

/** Writes one event stream: frames, and comments (heartbeats). */
export interface EventStreamWriter {
  /** One event frame; `data` is already JSON. Without `id` the client's Last-Event-ID stays put. */
  event(type: string, data: string, id?: number | string): boolean;
  comment(text: string): boolean;
}

/**
 * Sends the event-stream head (unbuffered by proxies) with the headers already set for the
 * reply, at once. `retry:` (how long an EventSource waits before it reconnects) goes with the
 * first event, in the same block: a block without `data` — a comment-only connect notice, a
 * `retry:` alone — is an empty message to clients such as fetch-event-source, which then fail
 * to parse it.
 */
export function openEventStream(res: ServerResponse, requestId: string, headers: OutgoingHttpHeaders = {}, retryMs?: number): EventStreamWriter {
  res.writeHead(200, {
    ...headers,
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
    'x-request-id': requestId,
  });
  res.flushHeaders();
  let retry = retryMs === undefined ? '' : `retry: ${retryMs}\n`;
  return {
    event(type, data, id) {
      const first = retry;
      retry = '';
      return res.write(first + frame(type, data, id));
    },
    comment: (text) => writeComment(res, text),
  };
}

/**
 * A comment line: clients ignore it, proxies see traffic (`: ping` is the heartbeat). It is not
 * followed by a blank line: the line becomes part of the next event's block (comments may stand
 * anywhere in one), so no block is ever made of comments alone — which clients such as
 * fetch-event-source would hand over as an empty message.
 */
export function writeComment(res: ServerResponse, text: string): boolean {
  return res.write(`: ${text}\n`);
}

function frame(type: string, data: string, id?: number | string): string {
  const idLine = id === undefined ? '' : `id: ${id}\n`;
  return `${idLine}event: ${type}\ndata: ${data}\n\n`;
}

/** The headers a reply has so far, for a raw `writeHead` after `reply.hijack()`. */
export function headTaken(headers: Record<string, string | number | string[] | undefined>): OutgoingHttpHeaders {
  const out: OutgoingHttpHeaders = {};
  for (const [k, v] of Object.entries(headers)) if (v !== undefined) out[k] = typeof v === 'number' ? String(v) : v;
  return out;
}
