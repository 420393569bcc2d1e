// The live list of sessions: the first page is read again every few seconds; pages loaded
// with `More` stay, updated where the fresh page covers them.
import type { Session, SessionList } from './types.js';

export const PAGE_SIZE = 50;

export interface ListState {
  items: readonly Session[];
  next_cursor: string | null;
}

/** Appends the next page (dropping any session already listed). */
export function appendPage(state: ListState, page: SessionList): ListState {
  const have = new Set(state.items.map((s) => s.id));
  return { items: [...state.items, ...page.items.filter((s) => !have.has(s.id))], next_cursor: page.next_cursor };
}

/**
 * Merges a fresh first page: it replaces the sessions it lists and puts new ones first; sessions
 * loaded from later pages (older than its oldest) stay after it. When nothing beyond the first page was loaded, the
 * fresh page's cursor is the one to use.
 */
export function refreshFirstPage(state: ListState, fresh: SessionList): ListState {
  const freshIds = new Set(fresh.items.map((s) => s.id));
  const oldest = fresh.items[fresh.items.length - 1]?.created_at;
  const loadedMore = state.items.length > fresh.items.length && fresh.next_cursor !== null;
  // Newest first: what is older than the fresh page's oldest came from later pages.
  const beyond = loadedMore && oldest !== undefined ? state.items.filter((s) => !freshIds.has(s.id) && s.created_at <= oldest) : [];
  return {
    items: [...fresh.items, ...beyond],
    next_cursor: beyond.length ? state.next_cursor : fresh.next_cursor,
  };
}

/** The list's query for a filter (`&label=…&status=…`): labels split on spaces. */
export function listQuery(filter: { labels: string; status: string }): string {
  const labels = filter.labels.split(/\s+/).filter((l) => l !== '');
  return [...labels.map((l) => `&label=${encodeURIComponent(l)}`), ...(filter.status ? [`&status=${encodeURIComponent(filter.status)}`] : [])].join('');
}
