// The sessions of the login's tenant, newest first: the first page is read again every 3 s
// while the tab is visible; `More` loads the next page (cursor/next_cursor).
import { useCallback, useState } from 'preact/hooks';
import { getJson } from '../api';
import { ErrorAlert } from '../components/alert';
import { useFocusOnChange, usePolling } from '../components/hooks';
import { isAdmin } from '../lib/access.js';
import { formatDateTime } from '../lib/format.js';
import { messageOf } from '../lib/problem.js';
import { sessionHref } from '../lib/route.js';
import { appendPage, PAGE_SIZE, refreshFirstPage, type ListState } from '../lib/sessions-list.js';
import type { ConsoleSession, SessionList } from '../lib/types.js';
import { TableWrap } from '../components/table-wrap';

export function SessionsView({ login }: { login: ConsoleSession }) {
  const [list, setList] = useState<ListState | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [moreBusy, setMoreBusy] = useState(false);
  const heading = useFocusOnChange<HTMLHeadingElement>('sessions');
  const admin = isAdmin(login.scopes);

  const refresh = useCallback(async () => {
    try {
      const page = await getJson<SessionList>(`/v1/sessions?limit=${PAGE_SIZE}`);
      setList((old) => refreshFirstPage(old ?? { items: [], next_cursor: null }, page));
      setError(null);
    } catch (err) {
      setError(messageOf(err));
    }
  }, []);
  usePolling(refresh, 3000);

  const more = async () => {
    if (!list?.next_cursor) return;
    setMoreBusy(true);
    try {
      const page = await getJson<SessionList>(`/v1/sessions?limit=${PAGE_SIZE}&cursor=${encodeURIComponent(list.next_cursor)}`);
      setList((old) => appendPage(old ?? { items: [], next_cursor: null }, page));
      setError(null);
    } catch (err) {
      setError(messageOf(err));
    } finally {
      setMoreBusy(false);
    }
  };

  return (
    <section aria-labelledby="sessions-h">
      <h1 id="sessions-h" tabIndex={-1} ref={heading}>
        Sessions
      </h1>
      <p class="muted">Updated every 3 seconds while this tab is visible.</p>
      <ErrorAlert message={error} />
      {list === null && !error && <p class="muted">Loading…</p>}
      {list !== null && list.items.length === 0 && <p>No sessions yet.</p>}
      {list !== null && list.items.length > 0 && (
        <TableWrap labelledBy="sessions-h">
          <table aria-labelledby="sessions-h">
            <thead>
              <tr>
                <th scope="col">Session</th>
                <th scope="col">Status</th>
                <th scope="col">Permission mode</th>
                {admin && <th scope="col">Tenant</th>}
                <th scope="col">Created</th>
              </tr>
            </thead>
            <tbody>
              {list.items.map((s) => (
                <tr key={s.id}>
                  <td>
                    <a href={sessionHref(s.id)} class="mono">
                      {s.id}
                    </a>
                  </td>
                  <td>
                    <span class={`status status-${s.status}`}>{s.status}</span>
                  </td>
                  <td>{s.permission_mode}</td>
                  {admin && <td>{s.tenant}</td>}
                  <td>
                    <time dateTime={s.created_at}>{formatDateTime(s.created_at)}</time>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      )}
      {list?.next_cursor && (
        <button type="button" onClick={more} disabled={moreBusy}>
          More
        </button>
      )}
    </section>
  );
}
