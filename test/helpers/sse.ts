// A real SSE client over a real socket (undici streaming body), parsing the wire format as
// EventSource does: `id:`, `event:`, `data:` lines, comment lines, blank-line dispatch.
import { request } from 'undici';
import { assertComponent } from './contract.js';

export interface SseMessage {
  id: string | undefined;
  event: string;
  data: any;
}

export interface SseStream {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  events: SseMessage[];
  comments: string[];
  /** The last `retry:` the server sent (ms), if any. */
  retry: number | undefined;
  /** Resolves with the first received event (past or future) matching the predicate. */
  waitFor(predicate: (m: SseMessage) => boolean, timeoutMs?: number): Promise<SseMessage>;
  waitForComment(predicate: (c: string) => boolean, timeoutMs?: number): Promise<string>;
  /** Resolves when the server ends the stream. */
  ended: Promise<void>;
  close(): void;
}

export async function openSse(
  url: string,
  opts: { lastEventId?: string; token?: string; validate?: boolean; headers?: Record<string, string> } = {},
): Promise<SseStream> {
  const controller = new AbortController();
  const headers: Record<string, string> = { accept: 'text/event-stream', ...(opts.headers ?? {}) };
  if (opts.lastEventId !== undefined) headers['last-event-id'] = opts.lastEventId;
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  const res = await request(url, { method: 'GET', headers, signal: controller.signal });
  const events: SseMessage[] = [];
  const comments: string[] = [];
  const waiters = new Set<() => void>();
  const notify = () => {
    for (const w of [...waiters]) w();
  };

  let buffer = '';
  let retry: number | undefined;
  let id: string | undefined;
  let event = '';
  let data: string[] = [];
  const dispatch = () => {
    if (data.length > 0) {
      const parsed = JSON.parse(data.join('\n'));
      if (opts.validate !== false) assertComponent('Event', parsed);
      events.push({ id, event: event || 'message', data: parsed });
    }
    id = undefined;
    event = '';
    data = [];
  };
  const onLine = (line: string) => {
    if (line === '') return dispatch();
    if (line.startsWith(':')) return void comments.push(line.slice(1).trim());
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'id') id = value;
    else if (field === 'event') event = value;
    else if (field === 'data') data.push(value);
    else if (field === 'retry' && /^\d+$/.test(value)) retry = Number(value);
  };

  const ended = (async () => {
    if (res.statusCode !== 200) return;
    try {
      for await (const chunk of res.body) {
        buffer += chunk.toString('utf8');
        let nl: number;
        while ((nl = buffer.indexOf('\n')) !== -1) {
          onLine(buffer.slice(0, nl).replace(/\r$/, ''));
          buffer = buffer.slice(nl + 1);
        }
        notify();
      }
    } catch {
      // aborted by close()
    }
    notify();
  })();

  const waitGeneric = <T>(find: () => T | undefined, what: string, timeoutMs: number): Promise<T> =>
    new Promise((resolve, reject) => {
      const check = () => {
        const found = find();
        if (found !== undefined) {
          waiters.delete(check);
          clearTimeout(timer);
          resolve(found);
        }
      };
      const timer = setTimeout(() => {
        waiters.delete(check);
        reject(new Error(`timed out waiting for ${what}; got events: ${events.map((e) => `${e.id}:${e.event}`).join(', ')}`));
      }, timeoutMs);
      waiters.add(check);
      check();
    });

  return {
    status: res.statusCode,
    headers: res.headers,
    events,
    comments,
    get retry() {
      return retry;
    },
    ended,
    waitFor: (predicate, timeoutMs = 5000) => waitGeneric(() => events.find(predicate), 'an SSE event', timeoutMs),
    waitForComment: (predicate, timeoutMs = 5000) => waitGeneric(() => comments.find(predicate), 'an SSE comment', timeoutMs),
    close: () => controller.abort(),
  };
}
