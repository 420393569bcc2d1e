// The one outbound HTTP path for tools: every hop is checked by the egress guard (scheme, no
// userinfo, every resolved address) and its connection pinned to the checked address; redirects are
// followed by hand, each hop checked again, only within the same host (a redirect elsewhere is
// returned for the caller to decide about), at most N; the body is read up to a byte cap and the
// whole exchange under a time cap. With an explicit proxy (NORMA_EGRESS_PROXY) requests go through
// it or fail — there is no fallback to a direct connection, and environment proxies are never used.
// Every hop leaves an evidence record (time, method, URL, address, status, bytes, SHA-256).
import { createHash } from 'node:crypto';
import type { Dispatcher } from 'undici';
import { undici } from './undici.js';
import { checkTarget, EgressRefusal, pinnedAgent, type EgressPolicy } from '../sandbox/egress.js';
import { withTraceHeaders } from '../trace/context.js';
import { EgressFailure, type EgressEvidence, type EgressRequest, type EgressResponse, type Fetcher } from './types.js';

export const DEFAULT_MAX_BYTES = 10 * 1024 * 1024;
export const DEFAULT_TIMEOUT_MS = 30_000;
export const DEFAULT_MAX_REDIRECTS = 5;

export interface EgressClientOptions {
  policy: EgressPolicy;
  /** An explicit proxy (http(s) URL); requests go through it or fail. */
  proxy?: string;
  onEvidence?: (evidence: EgressEvidence) => void;
  clock?: () => Date;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

export function egressFetcher(opts: EgressClientOptions): Fetcher {
  const clock = opts.clock ?? (() => new Date());
  return async (req: EgressRequest): Promise<EgressResponse> => {
    const timeoutMs = req.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const maxBytes = req.maxBytes ?? DEFAULT_MAX_BYTES;
    const maxRedirects = req.maxRedirects ?? DEFAULT_MAX_REDIRECTS;
    const deadline = AbortSignal.timeout(timeoutMs);
    const signal = req.signal ? AbortSignal.any([req.signal, deadline]) : deadline;
    let url = req.url;
    let method = req.method ?? 'GET';
    let body = req.body;
    const startHost = hostKey(url);
    for (let hop = 0; ; hop++) {
      const started = performance.now();
      const evidence: EgressEvidence = { time: clock().toISOString(), method, url: short(url), address: '', status: null, bytes: 0, sha256: null, duration_ms: 0 };
      const finish = (error?: string) => {
        evidence.duration_ms = Math.round(performance.now() - started);
        if (error) evidence.error = error;
        opts.onEvidence?.(evidence);
      };
      let target;
      try {
        target = await checkTarget(url, opts.policy);
      } catch (err) {
        finish((err as Error).message);
        throw err;
      }
      evidence.address = target.address;
      const { ProxyAgent, request } = await undici();
      const dispatcher: Dispatcher = opts.proxy
        ? new ProxyAgent({ uri: opts.proxy, proxyTls: { timeout: timeoutMs }, requestTls: { timeout: timeoutMs } })
        : await pinnedAgent(target, timeoutMs);
      try {
        let res: Dispatcher.ResponseData;
        try {
          res = await request(target.url, {
            method,
            // Each hop is a span of the current trace (W3C traceparent, a fresh span id).
            headers: { 'accept-encoding': 'identity', ...withTraceHeaders(req.headers ?? {}) },
            ...(body !== undefined ? { body } : {}),
            dispatcher,
            signal,
          });
        } catch (err) {
          const why = failure(err, req.signal, deadline, timeoutMs, opts.proxy, url);
          finish(why.message);
          throw why;
        }
        evidence.status = res.statusCode;
        const headers = flatHeaders(res.headers);
        const location = headers.location;
        if (REDIRECTS.has(res.statusCode) && location !== undefined) {
          res.body.resume();
          finish();
          let next: string;
          try {
            next = new URL(location, url).toString();
          } catch {
            throw new EgressFailure(`${short(url)} answered HTTP ${res.statusCode} with an invalid Location ${JSON.stringify(location.slice(0, 200))}`);
          }
          if (req.redirects === 'none' || hostKey(next) !== startHost) {
            return { url, status: res.statusCode, headers, body: Buffer.alloc(0), truncated: false, address: target.address, redirect: { location: next, status: res.statusCode } };
          }
          if (hop >= maxRedirects) throw new EgressFailure(`more than ${maxRedirects} redirects (last: ${short(url)} → ${short(next)})`);
          if (res.statusCode === 303 || ((res.statusCode === 301 || res.statusCode === 302) && method === 'POST')) {
            method = 'GET';
            body = undefined;
          }
          url = next;
          continue;
        }
        const hash = createHash('sha256');
        const chunks: Buffer[] = [];
        let bytes = 0;
        let truncated = false;
        try {
          for await (const chunk of res.body as AsyncIterable<Buffer>) {
            const room = maxBytes - bytes;
            const piece = chunk.length > room ? chunk.subarray(0, room) : chunk;
            hash.update(piece);
            chunks.push(piece);
            bytes += piece.length;
            if (chunk.length > room) {
              truncated = true;
              res.body.destroy();
              break;
            }
          }
        } catch (err) {
          const why = failure(err, req.signal, deadline, timeoutMs, opts.proxy, url);
          evidence.bytes = bytes;
          finish(why.message);
          throw why;
        }
        evidence.bytes = bytes;
        evidence.sha256 = hash.digest('hex');
        finish();
        return { url, status: res.statusCode, headers, body: Buffer.concat(chunks), truncated, address: target.address };
      } finally {
        await dispatcher.close().catch(() => undefined);
      }
    }
  };
}

/** The same host: the same name and port; a scheme's default port matches the other's (http → https). */
function hostKey(raw: string): string {
  try {
    const u = new URL(raw);
    return `${u.hostname.toLowerCase()}|${u.port || 'default'}`;
  } catch {
    return raw;
  }
}

/** URLs in evidence and messages stay a readable length. */
function short(raw: string): string {
  return raw.length > 2048 ? `${raw.slice(0, 2048)}…` : raw;
}

function flatHeaders(h: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h)) if (v !== undefined) out[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}

function failure(err: unknown, callerSignal: AbortSignal | undefined, deadline: AbortSignal, timeoutMs: number, proxy: string | undefined, url: string): Error {
  if (callerSignal?.aborted) return callerSignal.reason instanceof Error ? callerSignal.reason : new EgressFailure('the request was cancelled');
  if (deadline.aborted) return new EgressFailure(`${short(url)} did not answer within ${timeoutMs / 1000} s`);
  if (err instanceof EgressRefusal || err instanceof EgressFailure) return err;
  const e = err as Error & { code?: string; cause?: { code?: string; message?: string } };
  const detail = [e.code ?? e.cause?.code, e.cause?.message ?? e.message].filter(Boolean).join(': ');
  if (proxy) return new EgressFailure(`the request through the egress proxy failed (${detail}); it is not retried without the proxy`);
  return new EgressFailure(`cannot fetch ${short(url)}: ${detail}`);
}
