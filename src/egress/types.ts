// What tools, hooks and model providers see of the outbound path (src/egress/client.ts): one request through the egress
// guard, its response, and the evidence record every hop leaves.

export interface EgressRequest {
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  /**
   * `same-host` (default): redirects to the same host are followed, each hop checked again; a redirect
   * to another host is returned (`redirect`), not followed. `none`: every redirect is returned.
   */
  redirects?: 'same-host' | 'none';
  /** At most this many redirects are followed (default 5). */
  maxRedirects?: number;
  /** The body is cut here (`truncated: true`); default 10 MiB. */
  maxBytes?: number;
  /** Whole exchange, redirects included (default 30 s). */
  timeoutMs?: number;
  signal?: AbortSignal;
}

export interface EgressResponse {
  /** The URL of the last hop. */
  url: string;
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  /** The response was longer than maxBytes: `body` holds the first maxBytes. */
  truncated: boolean;
  /** The address the last hop connected to (or the proxy's, with a proxy). */
  address: string;
  /** A redirect that was not followed (another host, or `redirects: 'none'`), with the status that asked for it. */
  redirect?: { location: string; status: number };
}

/** One outbound request as evidence (one per hop): defined with the guard, which every outbound path shares. */
export type { EgressEvidence } from '../sandbox/egress.js';

/** Performs one request through the guard; rejects with EgressRefusal (a rule refused it) or EgressFailure. */
export type Fetcher = (request: EgressRequest) => Promise<EgressResponse>;

/** A request that could not be completed (timeout, connection, proxy failure). */
export class EgressFailure extends Error {}
