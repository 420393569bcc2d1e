// What waits for a person: pending permission requests and questions, from the listings loaded
// at start and the events that follow. An id once resolved stays resolved, whatever arrives
// later (a listing fetched before the answer, a replayed `…requested` event), so the order in
// which listings and events arrive does not matter.
import type { NormaEvent, PermissionRequest, Question } from './types.js';

export interface PendingState {
  permissions: readonly PermissionRequest[];
  questions: readonly Question[];
  resolved: ReadonlySet<string>;
}

export const emptyPending: PendingState = { permissions: [], questions: [], resolved: new Set() };

const byCreated = (a: { created_at: string }, b: { created_at: string }) => (a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : 0);

function add<T extends { id: string; status: string; created_at: string }>(list: readonly T[], resolved: ReadonlySet<string>, item: T): readonly T[] {
  if (item.status !== 'pending' || resolved.has(item.id)) return list;
  const at = list.findIndex((x) => x.id === item.id);
  const next = at >= 0 ? list.map((x, i) => (i === at ? item : x)) : [...list, item];
  return next.sort(byCreated);
}

/** Marks ids resolved: they leave the pending lists for good. */
export function resolve(state: PendingState, ids: readonly string[]): PendingState {
  // The lists never hold a resolved id: nothing new, nothing to do.
  if (ids.every((id) => state.resolved.has(id))) return state;
  const resolved = new Set(state.resolved);
  for (const id of ids) resolved.add(id);
  return {
    resolved,
    permissions: state.permissions.filter((p) => !resolved.has(p.id)),
    questions: state.questions.filter((q) => !resolved.has(q.id)),
  };
}

export function addPermissions(state: PendingState, items: readonly PermissionRequest[]): PendingState {
  const done = items.filter((p) => p.status !== 'pending').map((p) => p.id);
  const base = done.length ? resolve(state, done) : state;
  return { ...base, permissions: items.reduce((list, p) => add(list, base.resolved, p), base.permissions) };
}

export function addQuestions(state: PendingState, items: readonly Question[]): PendingState {
  const done = items.filter((q) => q.status !== 'pending').map((q) => q.id);
  const base = done.length ? resolve(state, done) : state;
  return { ...base, questions: items.reduce((list, q) => add(list, base.resolved, q), base.questions) };
}

export function applyPendingEvent(state: PendingState, event: NormaEvent): PendingState {
  switch (event.type) {
    case 'permission.requested':
      return addPermissions(state, [event.permission]);
    case 'permission.resolved':
      return resolve(state, [event.permission.id]);
    case 'question.asked':
      return addQuestions(state, [event.question]);
    case 'question.answered':
      return resolve(state, [event.question.id]);
    default:
      return state;
  }
}

/** Ids in `now` that were not in `before`: the requests and questions that just arrived. */
export function arrivals(before: PendingState, now: PendingState): { permissions: PermissionRequest[]; questions: Question[] } {
  const had = new Set([...before.permissions.map((p) => p.id), ...before.questions.map((q) => q.id)]);
  return {
    permissions: now.permissions.filter((p) => !had.has(p.id)),
    questions: now.questions.filter((q) => !had.has(q.id)),
  };
}

/**
 * What was pending when the view loaded: of what is pending now, the requests the view's own
 * listing returned (`loaded`). One that came by the event stream while the listing loaded is not
 * among them, so it is news although it was there before the view was ready.
 */
export function baseline(now: PendingState, loaded: ReadonlySet<string>): PendingState {
  return { permissions: now.permissions.filter((p) => loaded.has(p.id)), questions: now.questions.filter((q) => loaded.has(q.id)), resolved: now.resolved };
}

/** How old a request may be and still be news (a replay brings old ones back, briefly). */
export const NEWS_WINDOW_MS = 60_000;

/** Arrivals worth telling a person about: made within the window before `nowMs` (or after it: clocks differ). */
export function newsworthy<T extends { created_at: string }>(items: readonly T[], nowMs: number, windowMs = NEWS_WINDOW_MS): T[] {
  return items.filter((i) => {
    const t = Date.parse(i.created_at);
    return Number.isNaN(t) || nowMs - t <= windowMs;
  });
}
