// One session's live state: the session, its turns, what waits for a person and its todo list
// are read once, then kept current by the event stream (ResumableStream: a ticket per
// connection, resume after the last seq). Events are applied in batches so that a long replay
// renders a few times, not once per event.
import { useEffect, useReducer, useState } from 'preact/hooks';
import { getJson, postJson, sessionPath } from '../api';
import { ApiError, messageOf } from '../lib/problem.js';
import { ResumableStream, type StreamStatus } from '../lib/resume.js';
import { initialSessionState, sessionReducer, type SessionAction, type SessionState } from '../lib/session-state.js';
import type { EventTicket, NormaEvent, PermissionRequest, Question, Session, TodoList, Turn } from '../lib/types.js';

/** How long events are gathered before they are applied together. */
const BATCH_MS = 50;

export interface SessionData {
  state: SessionState;
  dispatch: (action: SessionAction) => void;
  stream: StreamStatus;
  /** The pending listings have loaded (arrivals after this are new). */
  ready: boolean;
  /** The ids of the requests and questions those listings returned. */
  loaded: ReadonlySet<string>;
  loadError: string | null;
  streamError: string | null;
}

export function useSession(id: string): SessionData {
  const [state, dispatch] = useReducer(sessionReducer, initialSessionState);
  const [stream, setStream] = useState<StreamStatus>('connecting');
  const [ready, setReady] = useState(false);
  const [loaded, setLoaded] = useState<ReadonlySet<string>>(new Set());
  const [loadError, setLoadError] = useState<string | null>(null);
  const [streamError, setStreamError] = useState<string | null>(null);

  useEffect(() => {
    let gone = false;
    const load = async <T>(path: string, use: (value: T) => void): Promise<void> => {
      try {
        const value = await getJson<T>(path);
        if (!gone) use(value);
      } catch (error) {
        if (!gone) setLoadError(messageOf(error));
      }
    };
    void load<Session>(sessionPath(id), (session) => dispatch({ kind: 'session', session }));
    void load<{ items: Turn[] }>(sessionPath(id, 'turns'), (l) => dispatch({ kind: 'turns', turns: l.items }));
    void load<TodoList>(sessionPath(id, 'todos'), (list) => dispatch({ kind: 'todos', list }));
    const listed = new Set<string>();
    void Promise.all([
      load<{ items: PermissionRequest[] }>(`${sessionPath(id, 'permissions')}?status=pending`, (l) => {
        for (const p of l.items) listed.add(p.id);
        dispatch({ kind: 'permissions', items: l.items });
      }),
      load<{ items: Question[] }>(`${sessionPath(id, 'questions')}?status=pending`, (l) => {
        for (const q of l.items) listed.add(q.id);
        dispatch({ kind: 'questions', items: l.items });
      }),
    ]).then(() => {
      if (gone) return;
      setLoaded(listed);
      setReady(true);
    });

    let queue: NormaEvent[] = [];
    let timer: ReturnType<typeof setTimeout> | undefined;
    const flush = () => {
      timer = undefined;
      const events = queue;
      queue = [];
      if (!gone && events.length) dispatch({ kind: 'events', events });
    };
    const enqueue = (event: NormaEvent) => {
      queue.push(event);
      timer ??= setTimeout(flush, BATCH_MS);
    };
    const events = new ResumableStream(sessionPath(id, 'events'), {
      takeTicket: async () => (await postJson<EventTicket>(sessionPath(id, 'events', 'tickets'))).ticket,
      open: (url) => new EventSource(url),
      sessionClosed: async () => (await getJson<Session>(sessionPath(id))).status === 'closed',
      onEvent: enqueue,
      onLive: enqueue,
      onStatus: (status) => {
        if (gone) return;
        // What came before the status change shows with it (`ended` after session.closed).
        clearTimeout(timer);
        flush();
        setStream(status);
        if (status === 'live' || status === 'ended') setStreamError(null);
      },
      onError: (error) => !gone && setStreamError(messageOf(error)),
      // The login ended (401, the app shows the login), the key may not (403), the session is gone (404).
      isFatal: (error) => error instanceof ApiError && [401, 403, 404].includes(error.status),
    });
    events.start();
    return () => {
      gone = true;
      events.stop();
      clearTimeout(timer);
    };
  }, [id]);

  return { state, dispatch, stream, ready, loaded, loadError, streamError };
}
