// "Waiting for you": the pending permission requests and questions of the session, announced
// when they arrive (a polite live region, and a desktop notification while the tab is hidden
// if the person allowed them).
import { useEffect, useRef, useState } from 'preact/hooks';
import { ErrorAlert } from '../components/alert';
import { arrivals, baseline, newsworthy, type PendingState } from '../lib/pending.js';
import { PermissionCard } from './permission-card';
import { QuestionCard } from './question-card';

export interface WaitingProps {
  sessionId: string;
  pending: PendingState;
  ready: boolean;
  /** The ids the view's listing of pending requests returned (see baseline). */
  loaded: ReadonlySet<string>;
  canAnswer: boolean;
  onResolved: (id: string) => void;
}

const notificationsSupported = () => typeof Notification !== 'undefined';

function notify(title: string, body: string, tag: string): void {
  if (!document.hidden || !notificationsSupported() || Notification.permission !== 'granted') return;
  try {
    const n = new Notification(title, { body, tag });
    n.onclick = () => window.focus();
  } catch {
    // Some browsers allow notifications only from a service worker: the live region still tells.
  }
}

export function Waiting({ sessionId, pending, ready, loaded, canAnswer, onResolved }: WaitingProps) {
  const [notice, setNotice] = useState<string | null>(null);
  const [news, setNews] = useState<{ key: number; text: string }[]>([]);
  const [permission, setPermission] = useState(() => (notificationsSupported() ? Notification.permission : 'denied'));
  const before = useRef<PendingState | null>(null);
  const counter = useRef(0);

  const say = (text: string) => setNews((n) => [...n.slice(-2), { key: ++counter.current, text }]);

  useEffect(() => {
    if (!ready) return;
    // What the view's listing returned is not news; what arrives afterwards is, and so is what
    // came by the event stream while the listing loaded.
    before.current ??= baseline(pending, loaded);
    const came = arrivals(before.current, pending);
    before.current = pending;
    const now = Date.now();
    for (const p of newsworthy(came.permissions, now)) {
      say(`Permission asked: ${p.tool}`);
      notify(`Permission asked: ${p.tool}`, p.reason, p.id);
    }
    for (const q of newsworthy(came.questions, now)) {
      const text = q.questions[0]?.question ?? '';
      say(`Question asked: ${text}`);
      notify('Question asked', text, q.id);
    }
  }, [pending, ready, loaded]);

  const done = (id: string, what: string, problem?: string) => {
    onResolved(id);
    say(what);
    setNotice(problem ?? null);
  };

  const enable = () => {
    void Notification.requestPermission().then(setPermission);
  };

  const empty = pending.permissions.length === 0 && pending.questions.length === 0;
  return (
    <section aria-labelledby="waiting-h" class="panel">
      <div class="panel-head">
        <h2 id="waiting-h">Waiting for you</h2>
        {permission === 'default' && (
          <button type="button" class="quiet" onClick={enable}>
            Enable notifications
          </button>
        )}
      </div>
      <div class="sr-only" aria-live="polite">
        {news.map((n) => (
          <p key={n.key}>{n.text}</p>
        ))}
      </div>
      {canAnswer && pending.permissions.length > 0 && (
        <p class="hint">
          Shortcuts for the first request: <kbd>a</kbd> allow, <kbd>d</kbd> deny (with its message) — when no text field has focus.
        </p>
      )}
      <ErrorAlert message={notice} />
      {/* Not before the view's listing is in: until then "nothing" would not be known (and a request that came meanwhile is news). */}
      {!ready && <p class="muted">Loading what waits…</p>}
      {ready && empty && <p class="muted">Nothing waits for you.</p>}
      {pending.permissions.map((p, i) => (
        <PermissionCard key={p.id} sessionId={sessionId} request={p} canAnswer={canAnswer} primary={i === 0} onDone={done} />
      ))}
      {pending.questions.map((q) => (
        <QuestionCard key={q.id} sessionId={sessionId} question={q} canAnswer={canAnswer} onDone={done} />
      ))}
    </section>
  );
}
