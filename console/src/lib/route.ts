// Hash routes: `#/` (the inbox), `#/sessions` (the list) and `#/sessions/<id>`.

export type Route = { view: 'inbox' } | { view: 'sessions' } | { view: 'session'; id: string } | { view: 'missing'; hash: string };

const ID = /^[A-Za-z0-9_-]{1,64}$/;

export function parseRoute(hash: string): Route {
  const path = hash.replace(/^#/, '') || '/';
  if (path === '/' || path === '/inbox') return { view: 'inbox' };
  if (path === '/sessions' || path === '/sessions/') return { view: 'sessions' };
  const m = /^\/sessions\/([^/]+)\/?$/.exec(path);
  if (m) {
    let id = m[1]!;
    try {
      id = decodeURIComponent(id);
    } catch {
      return { view: 'missing', hash };
    }
    if (ID.test(id)) return { view: 'session', id };
  }
  return { view: 'missing', hash };
}

export const sessionHref = (id: string): string => `#/sessions/${encodeURIComponent(id)}`;
