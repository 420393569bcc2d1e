// The sessions of the login's tenant, newest first, with their names, labels and how many of
// their requests wait for a person: the first page is read again when the tenant's event stream
// (GET /v1/events) says a session was made or closed, a turn started or ended, or something was
// asked or answered; `More` loads the next page (cursor/next_cursor). Filters: labels
// (`key:value`, several separated by spaces) and status.
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { getJson } from '../api';
import { ErrorAlert } from '../components/alert';
import { useFocusOnChange, useTenantChanges } from '../components/hooks';
import { isAdmin } from '../lib/access.js';
import { formatDateTime } from '../lib/format.js';
import { messageOf } from '../lib/problem.js';
import { sessionHref } from '../lib/route.js';
import { appendPage, listQuery, PAGE_SIZE, refreshFirstPage, type ListState } from '../lib/sessions-list.js';
import type { ConsoleSession, SessionList } from '../lib/types.js';
import { TableWrap } from '../components/table-wrap';

/** The events after which the list is read again. */
export const LIST_EVENTS = [
  'session.created',
  'session.closed',
  'turn.started',
  'turn.completed',
  'turn.failed',
  'turn.cancelled',
  'permission.requested',
  'permission.resolved',
  'question.asked',
  'question.answered',
] as const;

export function SessionsView({ login }: { login: ConsoleSession }) {
  const [list, setList] = useState<ListState | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [moreBusy, setMoreBusy] = useState(false);
  const [filter, setFilter] = useState<{ labels: string; status: string }>({ labels: '', status: '' });
  const [draft, setDraft] = useState(filter);
  const heading = useFocusOnChange<HTMLHeadingElement>('sessions');
  const admin = isAdmin(login.scopes);
  const query = listQuery(filter);
  const current = useRef(query);
  current.current = query;

  const refresh = useCallback(async () => {
    const asked = current.current;
    try {
      const page = await getJson<SessionList>(`/v1/sessions?limit=${PAGE_SIZE}${asked}`);
      if (asked !== current.current) return;
      setList((old) => refreshFirstPage(old ?? { items: [], next_cursor: null }, page));
      setError(null);
    } catch (err) {
      setError(messageOf(err));
    }
  }, []);

  // A new filter: a new list.
  useEffect(() => {
    setList(null);
    void refresh();
  }, [query, refresh]);

  const status = useTenantChanges(LIST_EVENTS, () => void refresh(), 300, setError);

  const more = async () => {
    if (!list?.next_cursor) return;
    setMoreBusy(true);
    try {
      const page = await getJson<SessionList>(`/v1/sessions?limit=${PAGE_SIZE}${query}&cursor=${encodeURIComponent(list.next_cursor)}`);
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
      <p class="muted">{status === 'live' ? 'Updated as sessions change.' : status === 'reconnecting' ? 'Reconnecting…' : 'Connecting…'}</p>
      <form
        class="filters"
        aria-label="Filter sessions"
        onSubmit={(e) => {
          e.preventDefault();
          setFilter(draft);
        }}
      >
        <div class="field">
          <label for="filter-labels">Labels (key:value, separated by spaces)</label>
          <input id="filter-labels" type="text" value={draft.labels} onInput={(e) => setDraft({ ...draft, labels: e.currentTarget.value })} />
        </div>
        <div class="field">
          <label for="filter-status">Status</label>
          <select id="filter-status" value={draft.status} onChange={(e) => setDraft({ ...draft, status: e.currentTarget.value })}>
            <option value="">any</option>
            <option value="active">active</option>
            <option value="closed">closed</option>
          </select>
        </div>
        <button type="submit">Filter</button>
      </form>
      <ErrorAlert message={error} />
      {list === null && !error && <p class="muted">Loading…</p>}
      {list !== null && list.items.length === 0 && <p>{query === '' ? 'No sessions yet.' : 'No session matches the filter.'}</p>}
      {list !== null && list.items.length > 0 && (
        <TableWrap labelledBy="sessions-h">
          <table aria-labelledby="sessions-h">
            <thead>
              <tr>
                <th scope="col">Session</th>
                <th scope="col">Labels</th>
                <th scope="col">Status</th>
                <th scope="col">Waiting</th>
                <th scope="col">Permission mode</th>
                {admin && <th scope="col">Tenant</th>}
                <th scope="col">Created</th>
              </tr>
            </thead>
            <tbody>
              {list.items.map((s) => (
                <tr key={s.id}>
                  <td>
                    {s.name && <span class="session-name">{s.name} </span>}
                    <a href={sessionHref(s.id)} class="mono">
                      {s.id}
                    </a>
                  </td>
                  <td>
                    {Object.entries(s.labels ?? {}).map(([k, v]) => (
                      <span key={k} class="label-chip">
                        {k}: {v}
                      </span>
                    ))}
                  </td>
                  <td>
                    <span class={`status status-${s.status}`}>{s.status}</span>
                  </td>
                  <td>{s.pending ? <strong>{s.pending} waiting</strong> : ''}</td>
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

