// Small hooks: polling while the tab is visible, loading a resource, the current hash route.
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { messageOf } from '../lib/problem.js';
import { parseRoute, type Route } from '../lib/route.js';

/** Runs `fn` now and every `ms` while the page is visible (at once when it becomes visible). */
export function usePolling(fn: () => Promise<void>, ms: number): void {
  const latest = useRef(fn);
  latest.current = fn;
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    let running = false;
    let stopped = false;
    const run = async () => {
      clearTimeout(timer);
      timer = undefined;
      if (stopped || running) return;
      if (!document.hidden) {
        running = true;
        try {
          await latest.current();
        } finally {
          running = false;
        }
      }
      if (!stopped) timer = setTimeout(run, ms);
    };
    const onVisibility = () => {
      if (!document.hidden) void run();
    };
    void run();
    document.addEventListener('visibilitychange', onVisibility);
    return () => {
      stopped = true;
      clearTimeout(timer);
      document.removeEventListener('visibilitychange', onVisibility);
    };
  }, [ms]);
}

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
