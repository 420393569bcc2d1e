// The app shell: who is logged in (GET /console/session), the login view when nobody is, the
// header with the login's tenant, key and scopes, and the view of the hash route.
import { useCallback, useEffect, useState } from 'preact/hooks';
import { getLogin, logOut, onUnauthorized } from './api';
import { ErrorAlert } from './components/alert';
import { useRoute } from './components/hooks';
import { ApiError, messageOf } from './lib/problem.js';
import type { ConsoleSession } from './lib/types.js';
import { LoginView } from './views/login';
import { NotFoundView } from './views/not-found';
import { SessionsView } from './views/sessions';
import { InboxView } from './views/inbox';
import { SessionView } from './session/session-view';

type Auth =
  | { kind: 'loading' }
  | { kind: 'out'; alert?: string; status?: string }
  | { kind: 'in'; login: ConsoleSession }
  | { kind: 'failed'; message: string };

export function App() {
  const [auth, setAuth] = useState<Auth>({ kind: 'loading' });
  const route = useRoute();

  const check = useCallback(() => {
    setAuth({ kind: 'loading' });
    getLogin().then(
      (login) => setAuth({ kind: 'in', login }),
      (error: unknown) => setAuth(error instanceof ApiError && error.status === 401 ? { kind: 'out' } : { kind: 'failed', message: messageOf(error) }),
    );
  }, []);

  useEffect(check, [check]);
  useEffect(() => onUnauthorized(() => setAuth({ kind: 'out', alert: 'Your console session ended, log in again.' })), []);

  const [logoutError, setLogoutError] = useState<string | null>(null);
  const doLogout = async () => {
    setLogoutError(null);
    try {
      await logOut();
      setAuth({ kind: 'out', status: 'You are logged out.' });
    } catch (error) {
      setLogoutError(messageOf(error));
    }
  };

  return (
    <>
      <header class="top">
        <div class="brand">
          <a href="#/">Norma console</a>
        </div>
        {auth.kind === 'in' && (
          <>
            <nav aria-label="Main">
              <a href="#/" aria-current={route.view === 'inbox' ? 'page' : undefined}>
                Inbox
              </a>
              <a href="#/sessions" aria-current={route.view === 'sessions' ? 'page' : undefined}>
                Sessions
              </a>
            </nav>
            <div class="who">
              <span>
                Tenant <strong>{auth.login.tenant}</strong>
              </span>
              {auth.login.key && (
                <span>
                  Key <strong>{auth.login.key}</strong>
                </span>
              )}
              <span>
                Scopes <strong>{auth.login.scopes.join(', ') || 'none'}</strong>
              </span>
              {auth.login.keys_required && (
                <button type="button" class="quiet" onClick={doLogout}>
                  Log out
                </button>
              )}
            </div>
          </>
        )}
      </header>
      <main id="main">
        <ErrorAlert message={logoutError} />
        {auth.kind === 'loading' && <p class="muted">Loading…</p>}
        {auth.kind === 'failed' && (
          <ErrorAlert message={`The console could not ask who is logged in: ${auth.message}`}>
            <button type="button" onClick={check}>
              Try again
            </button>
          </ErrorAlert>
        )}
        {auth.kind === 'out' && <LoginView alert={auth.alert} status={auth.status} onLoggedIn={(login) => setAuth({ kind: 'in', login })} />}
        {auth.kind === 'in' && route.view === 'inbox' && <InboxView login={auth.login} />}
        {auth.kind === 'in' && route.view === 'sessions' && <SessionsView login={auth.login} />}
        {auth.kind === 'in' && route.view === 'session' && <SessionView key={route.id} id={route.id} login={auth.login} />}
        {auth.kind === 'in' && route.view === 'missing' && <NotFoundView />}
      </main>
    </>
  );
}
