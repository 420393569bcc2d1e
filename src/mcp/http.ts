// Streamable HTTP MCP servers through the egress client (SPEC §9.9): DNS pinned, private
// addresses refused unless allowlisted, redirects not followed, an evidence record per request.
// The SDK's transport takes a fetch function; this one answers through the guard. The optional
// standalone GET stream (server-initiated messages outside a request) is not opened: it is
// answered 405 here, which the SDK takes as "the server offers none", so nothing stays open
// between requests; notifications that ride on a request's own response still arrive.
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { Fetcher } from '../egress/types.js';
import type { OpenedTransport } from './connection.js';
import { MAX_MESSAGE_BYTES } from './stdio.js';
import { mcpSdk } from './sdk.js';

const NULL_BODY = new Set([101, 204, 205, 304]);

function headersOf(h: RequestInit['headers']): Record<string, string> {
  const out: Record<string, string> = {};
  new Headers(h ?? {}).forEach((v, k) => (out[k] = v));
  return out;
}

/** A fetch for the SDK's transport that goes through the egress guard. */
export function guardedFetch(fetcher: Fetcher, timeoutMs: number): FetchLike {
  return async (url, init) => {
    const method = (init?.method ?? 'GET').toUpperCase();
    if (method !== 'POST') return new Response(null, { status: 405, statusText: 'Method Not Allowed' });
    const body = init?.body;
    if (body !== undefined && body !== null && typeof body !== 'string') throw new Error('an MCP request body must be text');
    const r = await fetcher({
      url: String(url),
      method: 'POST',
      headers: headersOf(init?.headers),
      ...(typeof body === 'string' ? { body } : {}),
      redirects: 'none',
      maxBytes: MAX_MESSAGE_BYTES,
      timeoutMs,
      ...(init?.signal ? { signal: init.signal } : {}),
    });
    if (r.truncated) throw new Error(`the server's answer is larger than ${MAX_MESSAGE_BYTES} bytes`);
    if (r.redirect) throw new Error(`the server redirected to ${r.redirect.location} (status ${r.redirect.status}); redirects are not followed`);
    const headers = new Headers();
    for (const [k, v] of Object.entries(r.headers)) headers.set(k, v);
    return new Response(NULL_BODY.has(r.status) ? null : new Uint8Array(r.body), { status: r.status, headers });
  };
}

export function openHttpTransport(url: string, headers: Record<string, string>, fetcher: Fetcher, timeoutMs: number): OpenedTransport {
  let reason: string | null = null;
  const transport = new (mcpSdk().http.StreamableHTTPClientTransport)(new URL(url), { fetch: guardedFetch(fetcher, timeoutMs), requestInit: { headers } });
  const onerror = transport.onerror;
  transport.onerror = (e) => {
    reason ??= e.message;
    onerror?.(e);
  };
  return { transport, diagnose: () => ({ reason, code: null, signal: null, stderr: '' }) };
}
