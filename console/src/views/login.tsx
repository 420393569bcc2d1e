// Login: an API key is exchanged for an HttpOnly cookie (POST /console/session); the page does
// not keep the key.
import { useState } from 'preact/hooks';
import { logIn } from '../api';
import { ErrorAlert } from '../components/alert';
import { useFocusOnChange } from '../components/hooks';
import { messageOf } from '../lib/problem.js';
import type { ConsoleSession } from '../lib/types.js';

export function LoginView({ alert, status, onLoggedIn }: { alert?: string | undefined; status?: string | undefined; onLoggedIn: (login: ConsoleSession) => void }) {
  const [key, setKey] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const heading = useFocusOnChange<HTMLHeadingElement>('login');

  const submit = async (e: Event) => {
    e.preventDefault();
    if (busy) return;
    setBusy(true);
    setError(null);
    try {
      const login = await logIn(key);
      setKey('');
      onLoggedIn(login);
    } catch (err) {
      setError(messageOf(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section class="login" aria-labelledby="login-h">
      <h1 id="login-h" tabIndex={-1} ref={heading}>
        Log in
      </h1>
      {alert && (
        <p class="alert" role="alert">
          {alert}
        </p>
      )}
      {status && (
        <p class="notice" role="status">
          {status}
        </p>
      )}
      <form onSubmit={submit}>
        <label for="api-key">API key</label>
        <input
          id="api-key"
          name="key"
          type="password"
          autocomplete="off"
          spellcheck={false}
          required
          value={key}
          onInput={(e) => setKey(e.currentTarget.value)}
        />
        <p class="hint">The key is exchanged for a login cookie; the page does not keep it.</p>
        <button type="submit" class="primary" disabled={busy}>
          Log in
        </button>
      </form>
      <ErrorAlert message={error} />
    </section>
  );
}
