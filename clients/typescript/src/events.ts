// Reads a session's Server-Sent Events as typed events.
//
// - Parses the text/event-stream format (WHATWG HTML §9.2: `event`, `data`, `id`, `retry`;
//   LF, CRLF or CR line ends; comments ignored).
// - Resumes where it stopped: a dropped connection, a server restart (`stream.end` with
//   `shutdown`) or a slow reader cut off (`overflow`) reconnects with `Last-Event-ID`, after
//   the server's `retry:` delay, so nothing is missed and nothing repeats.
// - Ends after `session.closed` (the last event of a session), or when the server answers 204
//   (a closed session with nothing left to replay).
// - Stops with a NormaStreamError on an error answer (401, 403, 404 …: retrying cannot help),
//   when the key is revoked (`stream.end` `revoked`), or after `maxRetries` failed connects.
import type { components } from './schema.js';

type NormaEvent = components['schemas']['Event'];
type Problem = components['schemas']['Problem'];

/** One block of the stream: an event (`data` set), or only a new reconnection delay (`data` empty). */
export interface SseMessage {
  event: string;
  data: string;
  id: string | undefined;
  retry: number | undefined;
}

export interface EventStreamOptions {
  baseUrl: string;
  sessionId: string;
  /** Sent as `Authorization: Bearer …`. */
  token?: string;
  /**
   * Instead of a token (browsers): returns a fresh single-use ticket for each connection
   * (`POST /v1/sessions/{id}/events/tickets`).
   */
  ticket?: () => Promise<string>;
  /** Start after this event id (a previous stream's last one). */
  lastEventId?: string | number;
  signal?: AbortSignal;
  /** Failed connects in a row before giving up (default 10). */
  maxRetries?: number;
  /** Delay before reconnecting until the server sends `retry:` (default 2000 ms). */
  retryMs?: number;
  fetch?: typeof fetch;
}

export class NormaStreamError extends Error {
  constructor(
    message: string,
    /** The HTTP status, when the server answered. */
    readonly status?: number,
    readonly problem?: Problem,
  ) {
    super(message);
    this.name = 'NormaStreamError';
  }
}

/** Splits a text/event-stream body into messages. */
export async function* parseEventStream(body: ReadableStream<Uint8Array>, signal?: AbortSignal): AsyncGenerator<SseMessage, void, undefined> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let event = '';
  let data: string[] = [];
  let id: string | undefined;
  let retry: number | undefined;
  const onAbort = () => void reader.cancel().catch(() => undefined);
  signal?.addEventListener('abort', onAbort, { once: true });
  try {
    for (;;) {
      const { done, value } = await reader.read();
      // At the end a last CR is a whole line end; an event without its blank line is dropped (as the spec says).
      if (done) {
        if (buffer === '\r' && data.length > 0) yield { event: event || 'message', data: data.join('\n'), id, retry };
        return;
      }
      buffer += decoder.decode(value, { stream: true });
      for (;;) {
        const m = /\r\n|\n|\r/.exec(buffer);
        // A lone CR at the end may be the first half of a CRLF: wait for more.
        if (!m || (m[0] === '\r' && m.index === buffer.length - 1)) break;
        const line = buffer.slice(0, m.index);
        buffer = buffer.slice(m.index + m[0].length);
        if (line === '') {
          // A block with data is an event; one with only `retry:` still sets the reconnection delay.
          if (data.length > 0) yield { event: event || 'message', data: data.join('\n'), id, retry };
          else if (retry !== undefined) yield { event: '', data: '', id, retry };
          event = '';
          data = [];
          retry = undefined;
          continue;
        }
        if (line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon === -1 ? line : line.slice(0, colon);
        let value = colon === -1 ? '' : line.slice(colon + 1);
        if (value.startsWith(' ')) value = value.slice(1);
        if (field === 'event') event = value;
        else if (field === 'data') data.push(value);
        else if (field === 'id' && !value.includes('\0')) id = value;
        else if (field === 'retry' && /^\d+$/.test(value)) retry = Number(value);
      }
    }
  } finally {
    signal?.removeEventListener('abort', onAbort);
    // Stopped early (a consumer broke off, or the stream ended for good): close the connection.
    await reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });

/** The session's events, typed, from `lastEventId` on; see the module comment for when it ends. */
export function streamEvents(options: EventStreamOptions): AsyncGenerator<NormaEvent, void, undefined> {
  return follow(`${options.baseUrl.replace(/\/+$/, '')}/v1/sessions/${encodeURIComponent(options.sessionId)}/events`, options, true);
}

export interface TenantEventStreamOptions extends Omit<EventStreamOptions, 'sessionId' | 'ticket'> {
  /** Only events of these types (`?type=`). */
  types?: readonly string[];
  /**
   * Instead of a token (browsers): returns a fresh single-use ticket for each connection
   * (`POST /v1/events/tickets`).
   */
  ticket?: () => Promise<string>;
  /** Told the cursor after every event (`Last-Event-ID` to resume from, e.g. after a restart of the caller). */
  onCursor?: (cursor: string) => void;
}

/**
 * Every event of every session of the caller's tenant (`GET /v1/events`), in commit order,
 * resumed across disconnects after the last cursor; from `lastEventId` on, or from now. It does
 * not end on its own: stop it with `signal` (or by leaving the loop).
 */
export function streamTenantEvents(options: TenantEventStreamOptions): AsyncGenerator<NormaEvent, void, undefined> {
  const query = (options.types ?? []).map((t) => `type=${encodeURIComponent(t)}`);
  return follow(`${options.baseUrl.replace(/\/+$/, '')}/v1/events${query.length ? `?${query.join('&')}` : ''}`, options, false);
}

async function* follow(
  base: string,
  options: Omit<EventStreamOptions, 'sessionId'> & { onCursor?: (cursor: string) => void },
  sessionStream: boolean,
): AsyncGenerator<NormaEvent, void, undefined> {
  const doFetch = options.fetch ?? fetch;
  let lastId = options.lastEventId === undefined ? undefined : String(options.lastEventId);
  let retryMs = options.retryMs ?? 2000;
  const maxRetries = options.maxRetries ?? 10;
  let failures = 0;

  while (!options.signal?.aborted) {
    const headers: Record<string, string> = { accept: 'text/event-stream' };
    if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
    if (lastId !== undefined) headers['last-event-id'] = lastId;
    let url = base;
    if (options.ticket) url += `${base.includes('?') ? '&' : '?'}ticket=${encodeURIComponent(await options.ticket())}`;

    let res: Response;
    try {
      res = await doFetch(url, { headers, ...(options.signal ? { signal: options.signal } : {}) });
    } catch (err) {
      if (options.signal?.aborted) return;
      if (++failures > maxRetries) throw new NormaStreamError(`cannot reach the event stream: ${(err as Error).message}`);
      await sleep(retryMs, options.signal);
      continue;
    }
    if (res.status === 204) return; // closed, and nothing left to replay
    if (!res.ok || !res.body) {
      const text = await res.text().catch(() => '');
      let problem: Problem | undefined;
      try {
        problem = JSON.parse(text) as Problem;
      } catch {
        problem = undefined;
      }
      // The server is unavailable for a moment (restarting, overloaded): try again; anything else is final.
      if ((res.status === 503 || res.status === 502 || res.status === 504) && ++failures <= maxRetries) {
        await sleep(retryMs, options.signal);
        continue;
      }
      throw new NormaStreamError(`the event stream answered ${res.status}: ${problem?.detail ?? text.slice(0, 200)}`, res.status, problem);
    }
    failures = 0;

    let resumeFrom: string | undefined;
    try {
      for await (const msg of parseEventStream(res.body, options.signal)) {
        if (msg.retry !== undefined) retryMs = msg.retry;
        if (msg.id !== undefined) lastId = msg.id;
        if (msg.data === '') continue; // only a retry delay
        const event = JSON.parse(msg.data) as NormaEvent;
        if (event.type === 'stream.end') {
          if (event.reason === 'revoked') throw new NormaStreamError('the stream was ended: the key it was opened with is no longer valid', 401);
          resumeFrom = String(event.resume_after);
          break;
        }
        if (msg.id !== undefined) options.onCursor?.(msg.id);
        yield event;
        if (sessionStream && event.type === 'session.closed') return;
      }
    } catch (err) {
      if (err instanceof NormaStreamError) throw err;
      if (options.signal?.aborted) return;
      // The connection broke mid-stream: resume below.
    }
    if (resumeFrom !== undefined) lastId = resumeFrom;
    if (options.signal?.aborted) return;
    await sleep(retryMs, options.signal);
  }
}
