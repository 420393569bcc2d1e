// What the WebSearch backends have in common: their names, a query and its results, the error every
// failure becomes, and the shape each backend file fills in (backends.ts lists them), so the flow in
// index.ts treats every backend alike.

/** The backends and a backend's configuration are named once, with the configuration they come from. */
export { WEBSEARCH_BACKENDS as SEARCH_BACKENDS, type SearchBackendName, type SearchConfig } from '../../config.js';
import type { SearchBackendName } from '../../config.js';
import type { HtmlConverter } from '../html-convert.js';

export interface SearchResult {
  title: string;
  url: string;
  snippet: string;
}

export interface SearchQuery {
  query: string;
  /** 1..20 (clamped). */
  count: number;
  allowedDomains?: string[];
  blockedDomains?: string[];
  signal?: AbortSignal;
}

export class SearchError extends Error {
  /** The backend that failed, and the HTTP status it answered with (when it answered). */
  readonly backend: SearchBackendName | undefined;
  readonly status: number | undefined;

  constructor(message: string, options: { backend?: SearchBackendName; status?: number; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'SearchError';
    this.backend = options.backend;
    this.status = options.status;
  }
}

/** One query as a backend is asked it. */
export interface BackendQuery {
  /** The endpoint: the default origin or NORMA_WEBSEARCH_URL, plus the backend's path. */
  url: string;
  /** Trimmed, not empty. */
  query: string;
  /** Results to ask for (more than the caller's count when a domain filter will drop some). */
  count: number;
  /** Normalised domain filters (results are filtered afterwards whatever the backend does with them). */
  allowed: string[];
  blocked: string[];
  /** '' for a backend without a key. */
  apiKey: string;
}

/** The request a backend sends; the Fetcher adds the shared limits (size, time, no redirects). */
export interface BackendRequest {
  url: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string;
}

/** What reading a 2xx answer may use. */
export interface ParseContext {
  status: number;
  /** Where HTML result pages are read (off the event loop). */
  html: HtmlConverter;
  signal?: AbortSignal;
  /** The backend's name for people, e.g. "Brave Search". */
  display: string;
  /** A SearchError of this backend: `<backend>: HTTP <status>: <message>`, the API key scrubbed. */
  fail(message: string): SearchError;
  /** The text without the API key, for use before a message is cut from it. */
  redact(text: string): string;
}

export interface SearchBackend {
  display: string;
  /** The default base URL, or, for a backend without one, what NORMA_WEBSEARCH_URL must name. */
  origin: string | { required: string };
  /** Appended to the base URL (kept when NORMA_WEBSEARCH_URL replaces the origin). */
  path: string;
  /** Needs NORMA_WEBSEARCH_API_KEY. */
  keyed: boolean;
  /** The request for one query; may refuse it with a SearchError before anything is sent. */
  prepare(q: BackendQuery): BackendRequest;
  /** The results of a 2xx body; a body that is not the expected answer is a ctx.fail error. */
  parse(body: string, ctx: ParseContext): Promise<SearchResult[]>;
  /** A backend-specific explanation of a non-2xx status, if it has one. */
  statusHint?(status: number): string | undefined;
}
