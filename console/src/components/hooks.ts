// Small hooks: loading a resource, the current hash route, the
// tenant's event stream.
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { postJson } from '../api';
import { ApiError, messageOf } from '../lib/problem.js';
import type { StreamStatus } from '../lib/resume.js';
import { parseRoute, type Route } from '../lib/route.js';
import { TenantStream } from '../lib/tenant-stream.js';
import type { EventTicket } from '../lib/types.js';

export interface Resource<T> {
  data: T | null;
  error: string | null;
  loading: boolean;
  reload: () => void;
}

/**
 * Loads with `load` when `key` changes and again whenever `version` changes (debounced: a
 * replay of many events reloads once).
 */
export function useResource<T>(load: () => Promise<T>, key: string, version = 0): Resource<T> {
  const [state, setState] = useState<{ data: T | null; error: string | null; loading: boolean }>({ data: null, error: null, loading: true });
  const latest = useRef(load);
  latest.current = load;
  const generation = useRef(0);
  const reload = useCallback(() => {
    const mine = ++generation.current;
    setState((s) => ({ ...s, loading: true }));
    latest.current().then(
      (data) => mine === generation.current && setState({ data, error: null, loading: false }),
      (error: unknown) => mine === generation.current && setState((s) => ({ ...s, error: messageOf(error), loading: false })),
    );
  }, []);
  useEffect(() => {
    setState({ data: null, error: null, loading: true });
    reload();
  }, [key, reload]);
  const first = useRef(true);
  useEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    const t = setTimeout(reload, 400);
    return () => clearTimeout(t);
  }, [version, reload]);
  return { ...state, reload };
}

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(location.hash));
  useEffect(() => {
    const onHash = () => setRoute(parseRoute(location.hash));
    window.addEventListener('hashchange', onHash);
    return () => window.removeEventListener('hashchange', onHash);
  }, []);
  return route;
}

/** Moves focus to the element (a view's heading) when `key` changes, for screen readers. */
export function useFocusOnChange<T extends HTMLElement>(key: string) {
  const ref = useRef<T>(null);
  useEffect(() => {
    ref.current?.focus();
  }, [key]);
  return ref;
}

/**
 * Follows the tenant's event stream (GET /v1/events, only `types`) and calls `changed` once per
 * burst of events (`delayMs` after the first), and once more whenever the stream is live again
 * (what happened while it was away). Returns the stream's status.
 */
export function useTenantChanges(types: readonly string[], changed: () => void, delayMs: number, onError: (message: string) => void): StreamStatus {
  const [status, setStatus] = useState<StreamStatus>('connecting');
  const latest = useRef({ changed, onError });
  latest.current = { changed, onError };
  const key = types.join(' ');
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const soon = () => {
      timer ??= setTimeout(() => {
        timer = undefined;
        latest.current.changed();
      }, delayMs);
    };
    const stream = new TenantStream('/v1/events', key.split(' '), {
      takeTicket: async () => (await postJson<EventTicket>('/v1/events/tickets')).ticket,
      open: (url) => new EventSource(url),
      onEvent: soon,
      onStatus: (s) => {
        setStatus(s);
        if (s === 'live') soon();
      },
      onError: (err) => latest.current.onError(messageOf(err)),
      // The login ended (401: the app shows the login) or the key may not read (403).
      isFatal: (err) => err instanceof ApiError && [401, 403].includes(err.status),
    });
    stream.start();
    return () => {
      stream.stop();
      clearTimeout(timer);
    };
  }, [key, delayMs]);
  return status;
}
