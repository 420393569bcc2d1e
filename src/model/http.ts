// The transport the HTTP model providers share: POST a JSON body, read the answer as a
// Server-Sent Events stream, and retry the whole request when it failed for a passing reason.
//
// - Dispatcher (dispatchers.ts): kept between calls; a session-supplied URL goes through the
//   egress guard on every attempt (checked, resolved once, pinned; a refusal is never retried).
// - Timeouts: connecting, waiting for the response headers, and silence between two body
//   chunks (ProviderTimeouts).
// - Cancellation: the request's AbortSignal stops the request in flight, the stream being read
//   and a backoff sleep; the promise then rejects with the signal's `reason`, untouched.
// - Retries (RetryPolicy): connection errors, timeouts, HTTP 408/409/429/500/502/503/504/529,
//   the provider's own transient stream errors and streams cut off before their terminal event.
//   Backoff doubles from baseDelayMs with jitter, capped by maxDelayMs; a `retry-after` (or
//   `retry-after-ms`) header is honoured as asked, unless it asks for more than 60 s: then the
//   call gives up at once. `onRetry` is told before each sleep (text streamed so far is void).
// - Limits: a response larger than 16 MiB is cut and fails; an error body is read up to 64 KiB
//   and its message (from the provider's JSON) shown up to 500 characters.
// Error messages never contain the API key nor another secret of the session or the server, in
// any encoding (they are scrubbed should a provider echo one), nor any request header.
import { Redactor } from '../redact.js';
import type { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Dispatcher } from 'undici';
import { undici } from '../egress/undici.js';
import { checkTarget, EgressRefusal, type CheckedTarget, type EgressPolicy } from '../sandbox/egress.js';
import { drainAfterEnd, ProviderDispatchers } from './dispatchers.js';
import { DEFAULT_RETRY, DEFAULT_TIMEOUTS, ProviderError, type ModelRequest, type ProviderTimeouts, type RetryPolicy } from './provider.js';
import { parseSse, type SseEvent } from './sse.js';
import { withTraceHeaders } from '../trace/context.js';
import { parsePeerJson } from '../json-depth.js';

export interface HttpProviderOptions {
  model: string;
  /** The API's root; each provider has its default. */
  baseUrl?: string;
  apiKey?: string;
  /**
   * null: an operator-configured URL, trusted (a plain dispatcher). Otherwise the URL came with a
   * session: every attempt is checked by the egress guard and pinned to the checked address.
   */
  egress: EgressPolicy | null;
  retry?: RetryPolicy;
  timeouts?: ProviderTimeouts;
  /** Waits between attempts; must reject when `signal` aborts (tests inject one). */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  /** Told of every attempt: it got an answer (`allowed`), the egress guard refused it, or it failed without one. */
  onEgress?: EgressObserver;
  /** Secrets out of every message (the session's and the server's); `apiKey` is added. */
  redactor?: Redactor;
}

/** How an outbound attempt went (metrics, logs): `detail` says why for `refused` and `error`. */
export type EgressObserver = (outcome: 'allowed' | 'refused' | 'error', detail?: string) => void;

/** Largest response one attempt may stream. */
export const MAX_RESPONSE_BYTES = 16 * 1024 * 1024;
/** Longest `retry-after` honoured; a provider asking for more makes the call fail at once. */
export const MAX_RETRY_AFTER_S = 60;
const MAX_ERROR_BODY_BYTES = 64 * 1024;
const MAX_DETAIL_CHARS = 500;

const RETRY_STATUS = new Set([408, 409, 429, 500, 502, 503, 504, 529]);
/** Errors of the network, before or while the response streams; worth another attempt. */
const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENETDOWN',
  'EAI_AGAIN',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
  'UND_ERR_RES_CONTENT_LENGTH_MISMATCH',
]);

/** Sleeps `ms`, or rejects with the signal's reason as soon as it aborts. */
export async function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  try {
    await sleep(ms, undefined, { signal });
  } catch (err) {
    // timers/promises rejects with an AbortError (the reason as its `cause`): give the reason.
    if (signal.aborted) throw signal.reason;
    throw err;
  }
}

/** `p`, or the signal's reason as soon as it aborts (for an injected sleep that ignores it). */
function raceAbort<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}

/** Backoff before retry number `attempt + 1`: base·2^attempt, capped, with jitter over its upper half. */
export function backoffMs(policy: RetryPolicy, attempt: number): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** attempt);
  return Math.max(0, Math.round(ceiling / 2 + (Math.random() * ceiling) / 2));
}

/** Seconds a `retry-after-ms` / `retry-after` header (seconds or an HTTP date) asks for, if any. */
export function parseRetryAfter(headers: Record<string, string | string[] | undefined>, now = Date.now()): number | undefined {
  const one = (name: string): string | undefined => {
    const v = headers[name];
    return Array.isArray(v) ? v[0] : v;
  };
  const ms = one('retry-after-ms');
  if (ms !== undefined && /^\s*\d+(\.\d+)?\s*$/.test(ms)) return Number(ms) / 1000;
  const raw = one('retry-after')?.trim();
  if (!raw) return undefined;
  if (/^\d+(\.\d+)?$/.test(raw)) return Number(raw);
  const at = Date.parse(raw);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, Math.ceil((at - now) / 1000));
}

/** Longest error message a caller gets. */
const MAX_MESSAGE_CHARS = 4000;

function truncate(text: string, max = MAX_DETAIL_CHARS): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}

/**
 * The provider's own words from an error body: `{"error":{"type","message"}}` (Anthropic,
 * OpenAI), `{"error":"…"}` (Ollama), `{"message","type"}` (vLLM), `{"detail"}`; else the text.
 */
export function errorDetail(text: string): string {
  if (text.trim() === '') return '';
  let parsed: unknown;
  try {
    parsed = parsePeerJson(text);
  } catch {
    return truncate(text);
  }
  const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : typeof v === 'number' ? String(v) : undefined);
  if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) {
    const o = parsed as Record<string, unknown>;
    let message: string | undefined;
    let type: string | undefined;
    if (o.error && typeof o.error === 'object') {
      const e = o.error as Record<string, unknown>;
      message = str(e.message);
      type = str(e.type) ?? str(e.code);
    } else if (typeof o.error === 'string') message = o.error;
    else {
      message = str(o.message) ?? (typeof o.detail === 'string' ? o.detail : undefined);
      type = str(o.type);
    }
    if (message !== undefined) return truncate(type && !message.startsWith(type) ? `${type}: ${message}` : message);
  }
  return truncate(text);
}

/** A URL as shown in messages: no credentials, no query (either could carry a secret). */
function shown(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname}`;
  } catch {
    return url;
  }
}

function errCode(err: unknown): string | undefined {
  if (err && typeof err === 'object') {
    const code = (err as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    if (err instanceof AggregateError) for (const e of err.errors) if (errCode(e)) return errCode(e);
  }
  return undefined;
}

function errMessage(err: unknown): string {
  if (err instanceof AggregateError && (err.message === '' || err.errors.length > 0)) {
    const inner = err.errors.map(errMessage).filter((m) => m !== '');
    if (inner.length > 0) return [...new Set(inner)].join('; ');
  }
  if (err instanceof Error) return err.message || err.name;
  return String(err);
}

export interface StreamCall<T> {
  /** Names the provider in messages (`anthropic answered HTTP 401 …`). */
  provider: string;
  url: string;
  headers: Record<string, string>;
  body: unknown;
  request: Pick<ModelRequest, 'signal' | 'onRetry'>;
  /**
   * Reads one attempt's events into the result. Throws a ProviderError (retryable for a
   * transient stream error or a stream that ended before its terminal event) to fail the attempt.
   */
  consume: (events: AsyncIterable<SseEvent>) => Promise<T>;
}

export class HttpTransport {
  private readonly dispatchers: ProviderDispatchers;
  private readonly retry: RetryPolicy;
  private readonly timeouts: ProviderTimeouts;
  private readonly sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  private readonly redactor: Redactor;

  constructor(private readonly opts: HttpProviderOptions) {
    this.redactor = (opts.redactor ?? Redactor.NONE).with([opts.apiKey]);
    this.retry = opts.retry ?? DEFAULT_RETRY;
    this.timeouts = opts.timeouts ?? DEFAULT_TIMEOUTS;
    this.sleep = opts.sleep ?? abortableSleep;
    this.dispatchers = new ProviderDispatchers(this.timeouts);
  }

  /** Runs the call, retrying it whole as the policy allows. */
  async stream<T>(call: StreamCall<T>): Promise<T> {
    const { signal, onRetry } = call.request;
    for (let attempt = 0; ; attempt++) {
      if (signal.aborted) throw signal.reason;
      try {
        const result = await this.attempt(call, signal);
        // Cancelled while the last events were being read: the caller asked for nothing more.
        if (signal.aborted) throw signal.reason;
        return result;
      } catch (err) {
        if (signal.aborted) throw signal.reason;
        if (!(err instanceof ProviderError)) throw err;
        if (!err.retryable || attempt >= this.retry.maxRetries) throw this.final(err, attempt);
        let delayMs: number;
        if (err.retryAfterS !== undefined) {
          if (err.retryAfterS > MAX_RETRY_AFTER_S) {
            const msg = `${err.message}; it asked to be retried after ${err.retryAfterS} s, longer than the ${MAX_RETRY_AFTER_S} s this server waits, so the call gives up`;
            throw this.final(new ProviderError(msg, err.code, err.retryable, err.status, err.retryAfterS), attempt);
          }
          delayMs = Math.round(err.retryAfterS * 1000);
        } else delayMs = backoffMs(this.retry, attempt);
        onRetry?.({ attempt: attempt + 1, delayMs, reason: this.redact(err.message) });
        await raceAbort(this.sleep(delayMs, signal), signal);
      }
    }
  }

  /** Closes the kept dispatchers (their idle keep-alive connections). */
  close(): Promise<void> {
    return this.dispatchers.close();
  }

  private async attempt<T>(call: StreamCall<T>, signal: AbortSignal): Promise<T> {
    let url: string | URL = call.url;
    let target: CheckedTarget | null = null;
    if (this.opts.egress) {
      try {
        target = await checkTarget(call.url, this.opts.egress);
        url = target.url;
      } catch (err) {
        if (err instanceof EgressRefusal) {
          this.opts.onEgress?.('refused', err.message);
          throw new ProviderError(`refused by the egress guard: ${err.message}`, 'provider_unreachable');
        }
        throw err;
      }
    }
    const dispatcher = await this.dispatchers.for(target);
    const { request } = await undici();
    let body: Dispatcher.ResponseData['body'] | null = null;
    let ok = false;
    try {
      let res: Dispatcher.ResponseData;
      try {
        res = await request(url, {
          method: 'POST',
          // Each attempt is a span of the turn's trace (W3C traceparent, a fresh span id).
          headers: withTraceHeaders(call.headers),
          body: JSON.stringify(call.body),
          dispatcher,
          signal,
        });
      } catch (err) {
        if (signal.aborted) throw signal.reason;
        const failed = this.classify(err, 'connect', call.url);
        this.opts.onEgress?.('error', this.redact(failed.message));
        throw failed;
      }
      this.opts.onEgress?.('allowed');
      body = res.body;
      if (res.statusCode < 200 || res.statusCode > 299) {
        const text = await this.readCapped(res.body, signal);
        throw this.httpError(call.provider, res.statusCode, res.headers, text);
      }
      const type = String(res.headers['content-type'] ?? '');
      if (/\bjson\b/i.test(type)) {
        const text = await this.readCapped(res.body, signal);
        const detail = errorDetail(this.redact(text));
        throw new ProviderError(`${call.provider} answered HTTP ${res.statusCode} with ${type.split(';')[0]} instead of an event stream${detail ? `: ${detail}` : ''}`, 'provider_stream');
      }
      const events = parseSse(this.guarded(res.body, signal, call.url));
      const result = await call.consume({ [Symbol.asyncIterator]: () => ({ next: () => events.next(), return: async () => ({ done: true as const, value: undefined }) }) });
      ok = true;
      await drainAfterEnd(events);
      return result;
    } finally {
      if (body && !body.readableEnded) body.destroy();
      if (!ok) this.dispatchers.drop(dispatcher);
    }
  }

  /** The body's chunks, counted against the size limit; its failures become ProviderErrors. */
  private async *guarded(body: Readable, signal: AbortSignal, url: string): AsyncGenerator<Buffer> {
    let bytes = 0;
    try {
      for await (const chunk of body as AsyncIterable<Buffer>) {
        bytes += chunk.length;
        if (bytes > MAX_RESPONSE_BYTES) {
          body.destroy();
          throw new ProviderError(`the response from ${shown(url)} streamed more than ${MAX_RESPONSE_BYTES / (1024 * 1024)} MiB; it was cut`, 'provider_stream');
        }
        yield chunk;
      }
    } catch (err) {
      if (err instanceof ProviderError) throw err;
      if (signal.aborted) throw signal.reason;
      throw this.classify(err, 'stream', url);
    }
  }

  /** An error body, up to MAX_ERROR_BODY_BYTES; whatever breaks while reading it leaves what came. */
  private async readCapped(body: Readable, signal: AbortSignal): Promise<string> {
    const chunks: Buffer[] = [];
    let bytes = 0;
    try {
      for await (const chunk of body as AsyncIterable<Buffer>) {
        chunks.push(chunk);
        bytes += chunk.length;
        if (bytes >= MAX_ERROR_BODY_BYTES) break;
      }
    } catch {
      if (signal.aborted) throw signal.reason;
    }
    return Buffer.concat(chunks).subarray(0, MAX_ERROR_BODY_BYTES).toString('utf8');
  }

  private httpError(provider: string, status: number, headers: Record<string, string | string[] | undefined>, text: string): ProviderError {
    // Redacted before errorDetail cuts it: a body that echoes the key loses all of it.
    const detail = errorDetail(this.redact(text));
    const retryable = RETRY_STATUS.has(status);
    const code =
      status === 401 || status === 403
        ? 'provider_auth'
        : status === 429 || status === 503 || status === 529
          ? 'provider_overloaded'
          : status === 408
            ? 'provider_timeout'
            : status >= 400 && status < 500 && !retryable
              ? 'provider_rejected'
              : 'provider_http';
    const retryAfterS = retryable ? parseRetryAfter(headers) : undefined;
    return new ProviderError(`${provider} answered HTTP ${status}${detail ? `: ${detail}` : ''}`, code, retryable, status, retryAfterS);
  }

  /** A network failure as a ProviderError: before the response (`connect`) or while it streamed. */
  private classify(err: unknown, phase: 'connect' | 'stream', rawUrl: string): ProviderError {
    const url = shown(rawUrl);
    const code = errCode(err);
    const message = errMessage(err);
    const t = this.timeouts;
    switch (code) {
      case 'UND_ERR_CONNECT_TIMEOUT':
        return new ProviderError(`cannot reach ${url}: no connection within ${t.connectMs} ms`, 'provider_timeout', true);
      case 'UND_ERR_HEADERS_TIMEOUT':
        return new ProviderError(`${url} sent no response within ${t.headersMs} ms`, 'provider_timeout', true);
      case 'UND_ERR_BODY_TIMEOUT':
        return new ProviderError(`the stream from ${url} was silent for more than ${t.idleMs} ms`, 'provider_timeout', true);
    }
    const transient = code !== undefined && CONNECTION_CODES.has(code);
    if (phase === 'connect') return new ProviderError(`cannot reach ${url}: ${message}`, 'provider_unreachable', transient);
    return new ProviderError(`the stream from ${url} was cut off: ${message}`, 'provider_stream', transient);
  }

  /** The error the caller gets: the key scrubbed, then shortened, the retries counted. */
  private final(err: ProviderError, retries: number): ProviderError {
    const message = truncate(this.redact(retries > 0 ? `${err.message} (gave up after ${retries} ${retries === 1 ? 'retry' : 'retries'})` : err.message), MAX_MESSAGE_CHARS);
    if (message === err.message) return err;
    return new ProviderError(message, err.code, err.retryable, err.status, err.retryAfterS);
  }

  /** The key and the other secrets out of a text, in any encoding, before anything shortens it (runs of their characters too). */
  redact(text: string): string {
    return this.redactor.redact(text);
  }
}
