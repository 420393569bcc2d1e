// Everything the session view shows that events change, as one reducer: the durable events in
// seq order, what waits for a person, the turns, the todo list, and the live-only text that is
// streaming now.
import { isLiveOnly } from './events.js';
import { applyPendingEvent, addPermissions, addQuestions, emptyPending, resolve, type PendingState } from './pending.js';
import { applyTurnEvent, applyTurnList, type TurnView } from './turns.js';
import type { NormaEvent, PermissionRequest, Question, Session, TodoList, Turn } from './types.js';

/** Live output kept per running call (the tail only). */
export const PROGRESS_TAIL = 4000;

export interface LiveState {
  /** Streaming assistant text by `<turn_id>/<message_index>`, until message.completed. */
  messages: Readonly<Record<string, string>>;
  /** Output of running calls by tool_use_id, until tool.completed. */
  progress: Readonly<Record<string, string>>;
}

export interface SessionState {
  session: Session | null;
  /** Durable events, in seq order, each once. */
  events: readonly NormaEvent[];
  pending: PendingState;
  turns: readonly TurnView[];
  todos: TodoList | null;
  live: LiveState;
  /** Durable events seen per type (and `tool:<name>` per tool): panels reload when a count they watch changes. */
  counts: Readonly<Record<string, number>>;
}

export type SessionAction =
  /** Events as they came: durable ones (in seq order) and live-only ones among them. */
  | { kind: 'events'; events: readonly NormaEvent[] }
  | { kind: 'session'; session: Session }
  | { kind: 'turns'; turns: readonly Turn[] }
  | { kind: 'permissions'; items: readonly PermissionRequest[] }
  | { kind: 'questions'; items: readonly Question[] }
  | { kind: 'resolved'; id: string }
  | { kind: 'todos'; list: TodoList };

export const initialSessionState: SessionState = {
  session: null,
  events: [],
  pending: emptyPending,
  turns: [],
  todos: null,
  live: { messages: {}, progress: {} },
  counts: {},
};

const messageKey = (turnId: string, index: number) => `${turnId}/${index}`;

function without<T>(record: Readonly<Record<string, T>>, key: string): Readonly<Record<string, T>> {
  if (!(key in record)) return record;
  const { [key]: _gone, ...rest } = record;
  return rest;
}

function applyLive(live: LiveState, e: NormaEvent): LiveState {
  if (e.type === 'message.delta') {
    const key = messageKey(e.turn_id, e.message_index);
    const before = e.reset ? '' : (live.messages[key] ?? '');
    return { ...live, messages: { ...live.messages, [key]: before + e.text } };
  }
  if (e.type === 'tool.progress') {
    const text = (live.progress[e.tool_use_id] ?? '') + e.chunk;
    return { ...live, progress: { ...live.progress, [e.tool_use_id]: text.length > PROGRESS_TAIL ? text.slice(-PROGRESS_TAIL) : text } };
  }
  if (e.type === 'message.completed') return { ...live, messages: without(live.messages, messageKey(e.turn_id, e.message_index)) };
  if (e.type === 'tool.completed') return { ...live, progress: without(live.progress, e.tool_use_id) };
  return live;
}

function countEvent(counts: Readonly<Record<string, number>>, e: NormaEvent): Readonly<Record<string, number>> {
  const next = { ...counts, [e.type]: (counts[e.type] ?? 0) + 1 };
  // Per tool too: the memory panel reloads after Memory calls.
  if (e.type === 'tool.completed') next[`tool:${e.tool}`] = (counts[`tool:${e.tool}`] ?? 0) + 1;
  return next;
}

function applyDurable(state: SessionState, e: NormaEvent): SessionState {
  let { session, todos } = state;
  if (e.type === 'session.created' || e.type === 'session.updated') session = e.session;
  else if (e.type === 'session.closed' && session) session = { ...session, status: 'closed', closed_at: e.time };
  else if (e.type === 'todo.updated' && (todos?.updated_at ?? '') <= e.updated_at) todos = { items: e.items, updated_at: e.updated_at };
  return {
    ...state,
    session,
    todos,
    pending: applyPendingEvent(state.pending, e),
    turns: applyTurnEvent(state.turns, e),
    live: applyLive(state.live, e),
    counts: countEvent(state.counts, e),
  };
}

export function sessionReducer(state: SessionState, action: SessionAction): SessionState {
  switch (action.kind) {
    case 'events': {
      if (action.events.length === 0) return state;
      const durable = action.events.filter((e) => !isLiveOnly(e));
      // In arrival order, so a delta before its message.completed does not outlive it.
      const next = action.events.reduce((s, e) => (isLiveOnly(e) ? { ...s, live: applyLive(s.live, e) } : applyDurable(s, e)), state);
      return durable.length ? { ...next, events: [...state.events, ...durable] } : next;
    }
    case 'session':
      // An older read must not reopen a session the events closed.
      return { ...state, session: state.session?.status === 'closed' ? { ...action.session, status: 'closed', closed_at: state.session.closed_at } : action.session };
    case 'turns':
      return { ...state, turns: applyTurnList(state.turns, action.turns) };
    case 'permissions':
      return { ...state, pending: addPermissions(state.pending, action.items) };
    case 'questions':
      return { ...state, pending: addQuestions(state.pending, action.items) };
    case 'resolved':
      return { ...state, pending: resolve(state.pending, [action.id]) };
    case 'todos':
      return (state.todos?.updated_at ?? '') > (action.list.updated_at ?? '') ? state : { ...state, todos: action.list };
  }
}
