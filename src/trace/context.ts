// W3C trace context (https://www.w3.org/TR/trace-context/): the trace a piece of work belongs to,
// carried through its promise chain by AsyncLocalStorage, and the `traceparent` header every
// outbound request of that work sends. An incoming valid `traceparent` is continued; anything
// else starts a new trace. Each outbound request is a span of its own: a fresh span id, the
// trace's id and flags, and the incoming `tracestate` passed on unchanged.
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomFillSync } from 'node:crypto';

export interface TraceContext {
  /** 32 lowercase hex digits, not all zero. */
  readonly traceId: string;
  /** The caller's span (the incoming `traceparent`'s parent id); null for a trace started here. */
  readonly parentId: string | null;
  /** 2 lowercase hex digits (`01`: sampled). */
  readonly flags: string;
  /** The incoming `tracestate`, passed on as it came. */
  readonly state?: string;
}

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;
const ZERO_TRACE = '0'.repeat(32);
const ZERO_SPAN = '0'.repeat(16);
/** What a `tracestate` may be to be passed on: printable ASCII, at most 512 characters (the spec's floor for propagation). */
const TRACESTATE = /^[\x20-\x7e]{1,512}$/;

/** Random hex from pooled CSPRNG bytes: one syscall serves many spans. */
const pool = Buffer.alloc(4096);
let offset = pool.length;
function randomHex(bytes: number): string {
  if (offset + bytes > pool.length) {
    randomFillSync(pool);
    offset = 0;
  }
  const hex = pool.toString('hex', offset, offset + bytes);
  offset += bytes;
  return hex;
}

/** A fresh id of `bytes` random bytes that is not all zero (the spec forbids it). */
function nonZeroHex(bytes: number, zero: string): string {
  for (;;) {
    const hex = randomHex(bytes);
    if (hex !== zero) return hex;
  }
}

/**
 * A version-00 `traceparent` as the spec defines it: lowercase hex, a trace id and a parent id
 * that are not all zero; null for anything else (another version, upper case, extra fields).
 */
export function parseTraceparent(header: string | undefined): { traceId: string; parentId: string; flags: string } | null {
  if (header === undefined) return null;
  const m = TRACEPARENT.exec(header.trim());
  if (!m || m[1] === ZERO_TRACE || m[2] === ZERO_SPAN) return null;
  return { traceId: m[1]!, parentId: m[2]!, flags: m[3]! };
}

/** A new trace started here: a fresh trace id, marked sampled (the server's logs record it). */
export function newTrace(): TraceContext {
  return { traceId: nonZeroHex(16, ZERO_TRACE), parentId: null, flags: '01' };
}

/**
 * The trace of an incoming request: its `traceparent` continued when valid (with its
 * `tracestate`), a new trace otherwise (a `tracestate` without a valid `traceparent` is dropped,
 * as the spec says).
 */
export function traceFromHeaders(headers: Record<string, string | string[] | undefined>): TraceContext {
  const raw = headers.traceparent;
  const parent = parseTraceparent(typeof raw === 'string' ? raw : undefined);
  if (!parent) return newTrace();
  const rawState = headers.tracestate;
  const state = Array.isArray(rawState) ? rawState.join(',') : rawState;
  return { ...parent, ...(state !== undefined && TRACESTATE.test(state) ? { state } : {}) };
}

const storage = new AsyncLocalStorage<TraceContext>();

/** The trace of the work running now, if any. */
export function currentTrace(): TraceContext | undefined {
  return storage.getStore();
}

/** Runs `fn` (and everything it starts: promises, timers, callbacks) in `trace`. */
export function runInTrace<T>(trace: TraceContext, fn: () => T): T {
  return storage.run(trace, fn);
}

/**
 * The headers an outbound request carries: `traceparent` with the current trace's id and flags
 * and a fresh span id (the request is a span of its own), and the incoming `tracestate`. Work
 * that runs outside any trace (a background restart) gets a trace of its own per request.
 */
export function outboundTraceHeaders(trace: TraceContext = currentTrace() ?? newTrace()): Record<string, string> {
  const headers: Record<string, string> = { traceparent: `00-${trace.traceId}-${nonZeroHex(8, ZERO_SPAN)}-${trace.flags}` };
  if (trace.state !== undefined) headers.tracestate = trace.state;
  return headers;
}

/** `headers` without any spelling of traceparent/tracestate, then the current trace's: ours are the ones sent. */
export function withTraceHeaders(headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) {
    const lower = k.toLowerCase();
    if (lower !== 'traceparent' && lower !== 'tracestate') out[k] = v;
  }
  return { ...out, ...outboundTraceHeaders() };
}
