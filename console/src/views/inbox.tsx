// The inbox: every permission request and question of the login's tenant that waits for a
// person, oldest first, each with its session's name and what the call would do. It follows the
// tenant's event stream (GET /v1/events) and reads GET /v1/pending again when something was asked
// or answered. Keyboard: j/k move the selection, a/d allow or deny the selected request.
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { getJson } from '../api';
import { ErrorAlert } from '../components/alert';
import { useFocusOnChange, useTenantChanges } from '../components/hooks';
import { canAnswer as mayAnswer } from '../lib/access.js';
import { inboxKeyOf, itemId, merged, moved, withoutAnswered } from '../lib/inbox.js';
import { messageOf } from '../lib/problem.js';
import { sessionHref } from '../lib/route.js';
import type { ConsoleSession, PendingItem, PendingList } from '../lib/types.js';
import { PermissionCard } from '../session/permission-card';
import { QuestionCard } from '../session/question-card';

/** What is asked and answered: the events after which the inbox is read again. */
export const INBOX_EVENTS = ['permission.requested', 'permission.resolved', 'question.asked', 'question.answered', 'session.closed'] as const;
const MAX_PAGES = 10;

async function loadPending(): Promise<PendingItem[]> {
  const items: PendingItem[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < MAX_PAGES; page++) {
    const list: PendingList = await getJson<PendingList>(`/v1/pending?limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    items.push(...list.items);
    cursor = list.next_cursor;
    if (!cursor) break;
  }
  return items;
}

function title(item: PendingItem): string {
  const session = item.session.name ?? item.session.id;
  if (item.kind === 'permission') return `${session}: ${item.permission.tool}`;
  return `${session}: ${item.question.questions[0]?.question ?? 'a question'}`;
}

export function InboxView({ login }: { login: ConsoleSession }) {
  const [items, setItems] = useState<PendingItem[] | null>(null);
  const [selected, setSelected] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [said, setSaid] = useState<string | null>(null);
  const heading = useFocusOnChange<HTMLHeadingElement>('inbox');
  const answerable = mayAnswer(login.scopes);
  const answered = useRef(new Set<string>());
  const state = useRef({ items: [] as PendingItem[], selected: null as string | null });
  state.current = { items: items ?? [], selected };

  const reload = useCallback(async () => {
    try {
      const fresh = await loadPending();
      const next = merged(state.current.items, fresh, state.current.selected, answered.current);
      setItems(next.items);
      setSelected(next.selected);
      setError(null);
    } catch (err) {
      setError(messageOf(err));
    }
  }, []);

  useEffect(() => {
    void reload();
  }, [reload]);
  const status = useTenantChanges(INBOX_EVENTS, () => void reload(), 150, setError);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const target = e.target instanceof Element ? e.target : null;
      const key = inboxKeyOf(e, target ? { tagName: target.tagName, isContentEditable: (target as HTMLElement).isContentEditable } : null);
      if (!key) return;
      e.preventDefault();
      setSelected((s) => moved(state.current.items, s, key));
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, []);

  // The selected row stays in view as j/k move it.
  useEffect(() => {
    if (selected) document.getElementById(`inbox-${selected}`)?.scrollIntoView({ block: 'nearest' });
  }, [selected]);

  const done = (id: string, what: string, notice?: string) => {
    answered.current.add(id);
    const next = withoutAnswered(state.current.items, id, state.current.selected);
    setItems(next.items);
    setSelected(next.selected);
    setSaid(notice ? `${what}: ${notice}` : what);
  };

  const chosen = items?.find((i) => itemId(i) === selected) ?? null;
  return (
    <section aria-labelledby="inbox-h">
      <h1 id="inbox-h" tabIndex={-1} ref={heading}>
        Inbox
      </h1>
      <p class="muted">
        Everything waiting for a person in tenant <strong>{login.tenant}</strong>, oldest first
        {status === 'live' ? ', updated as it happens.' : status === 'reconnecting' ? ' (reconnecting…).' : '.'}
      </p>
      {answerable && (
        <p class="hint">
          <kbd>j</kbd>/<kbd>k</kbd> move, <kbd>a</kbd> allow, <kbd>d</kbd> deny the selected request — when no text field has focus.
        </p>
      )}
      <div class="sr-only" aria-live="polite">
        {said}
      </div>
      <ErrorAlert message={error} />
      {items === null && !error && <p class="muted">Loading…</p>}
      {items !== null && items.length === 0 && <p>Nothing waits for you.</p>}
      {items !== null && items.length > 0 && (
        <h2 class="inbox-count">
          {items.length} waiting
        </h2>
      )}
      {items !== null && items.length > 0 && (
        <div class="inbox">
          <ol class="inbox-list" aria-label="Waiting">
            {items.map((item) => {
              const id = itemId(item);
              return (
                <li key={id} id={`inbox-${id}`} class={id === selected ? 'selected' : undefined} aria-current={id === selected ? 'true' : undefined}>
                  <button type="button" class="row" onClick={() => setSelected(id)}>
                    {title(item)}
                  </button>
                </li>
              );
            })}
          </ol>
          {chosen && (
            <div class="inbox-detail">
              <p class="meta">
                Session <a href={sessionHref(chosen.session.id)}>{chosen.session.name ?? chosen.session.id}</a>
                {Object.entries(chosen.session.labels).map(([k, v]) => (
                  <span key={k} class="label-chip">
                    {k}: {v}
                  </span>
                ))}{' '}
                · mode {chosen.session.permission_mode}
              </p>
              {chosen.kind === 'permission' ? (
                <PermissionCard key={itemId(chosen)} sessionId={chosen.session.id} request={chosen.permission} canAnswer={answerable} primary onDone={done} />
              ) : (
                <QuestionCard key={itemId(chosen)} sessionId={chosen.session.id} question={chosen.question} canAnswer={answerable} onDone={done} />
              )}
            </div>
          )}
        </div>
      )}
    </section>
  );
}

