// A session's web state: WebFetch's 15-minute cache, the fetch caps and the search backend.
import { LRUCache } from 'lru-cache';
import type { ToolOutput } from '../tools/tool.js';
import { searchConfigProblems, type SearchConfig } from './search/index.js';

export const FETCH_CACHE_TTL_MS = 15 * 60 * 1000;
const CACHE_ENTRIES = 64;
/** Larger answers are not kept (the cache must not become the session's memory problem). */
const CACHE_ENTRY_CHARS = 2 * 1024 * 1024;

interface Entry {
  at: number;
  output: ToolOutput;
}

/** Per-session cache keyed by the URL asked for (without its fragment). */
export class FetchCache {
  private readonly entries: LRUCache<string, Entry>;

  constructor(private readonly now: () => number = Date.now) {
    // The clock is read on every lookup (ttlResolution 0): sessions inject their own.
    this.entries = new LRUCache<string, Entry>({ max: CACHE_ENTRIES, ttl: FETCH_CACHE_TTL_MS, ttlResolution: 0, perf: { now } });
  }

  static key(url: string): string {
    try {
      const u = new URL(url);
      u.hash = '';
      return u.toString();
    } catch {
      return url;
    }
  }

  /** The answer fetched at most FETCH_CACHE_TTL_MS ago, and when it was fetched. */
  get(url: string): { output: ToolOutput; at: number } | undefined {
    const e = this.entries.get(FetchCache.key(url));
    return e && { output: e.output, at: e.at };
  }

  set(url: string, output: ToolOutput): void {
    const chars = output.content.reduce((n, b) => n + (b.type === 'text' ? b.text.length : 0), 0);
    if (chars > CACHE_ENTRY_CHARS) return;
    const at = this.now();
    this.entries.set(FetchCache.key(url), { at, output }, { start: at });
  }
}

export interface WebState {
  cache: FetchCache;
  fetchMaxBytes: number;
  fetchTimeoutMs: number;
  /** HTML conversion's time limit (then the plain-text fallback). */
  convertTimeoutMs: number;
  /** null: no usable backend (WebSearch is then not installable). */
  search: SearchConfig | null;
  /** The session's secrets out of what a peer answered (an error page, a failure), before it is cut. */
  redact?: (text: string) => string;
}

export interface SearchStatus {
  usable: boolean;
  /** Configured at all (an unconfigured backend is not a fault, but WebSearch cannot be installed). */
  configured: boolean;
  detail: string;
  config: SearchConfig | null;
}

/** Whether WebSearch can work with the operator's configuration, and why not. */
export function searchStatus(c: { backend: string | undefined; apiKey: string | undefined; url: string | undefined }): SearchStatus {
  if (c.backend === undefined) {
    return { usable: false, configured: false, detail: 'no search backend is configured (set NORMA_WEBSEARCH_BACKEND)', config: null };
  }
  const config: SearchConfig = { backend: c.backend as SearchConfig['backend'], ...(c.apiKey ? { apiKey: c.apiKey } : {}), ...(c.url ? { url: c.url } : {}) };
  const problems = searchConfigProblems(config);
  if (problems.length > 0) return { usable: false, configured: true, detail: `the ${c.backend} search backend is misconfigured: ${problems.join('; ')}`, config: null };
  return { usable: true, configured: true, detail: `WebSearch uses ${c.backend}${c.url ? ` at ${c.url}` : ''}`, config };
}
