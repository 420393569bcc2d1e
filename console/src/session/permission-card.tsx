// One pending permission request: what the call would do and why a person is asked, and the
// answer (allow, remembering suggested rules; deny, with a message and optionally stopping the
// turn). ExitPlanMode shows its plan and approves it into a chosen mode. The first card also
// answers to the `a` and `d` keys.
import { useEffect, useRef, useState } from 'preact/hooks';
import { postJson, sessionPath } from '../api';
import { ErrorAlert } from '../components/alert';
import { allowAnswer, denyAnswer, PLAN_EXIT_MODES, type PermissionAnswer } from '../lib/answers.js';
import { formatDateTime, prettyJson } from '../lib/format.js';
import { ApiError, messageOf } from '../lib/problem.js';
import { shortcutOf } from '../lib/shortcuts.js';
import type { PermissionRequest } from '../lib/types.js';
import { Markdown } from './markdown';
import { Preview } from './preview';

export interface CardProps {
  sessionId: string;
  request: PermissionRequest;
  canAnswer: boolean;
  /** The first pending request: the keyboard shortcuts act on it. */
  primary: boolean;
  /** Answered (`notice` set when the server said it already was: 409). */
  onDone: (id: string, what: string, notice?: string) => void;
}

function planOf(request: PermissionRequest): string | null {
  if (request.tool !== 'ExitPlanMode') return null;
  const plan = (request.input as { plan?: unknown } | null)?.plan;
  return typeof plan === 'string' ? plan : null;
}

export function PermissionCard({ sessionId, request, canAnswer, primary, onDone }: CardProps) {
  const [remember, setRemember] = useState<readonly string[]>([]);
  const [message, setMessage] = useState('');
  const [interrupt, setInterrupt] = useState(false);
  const [mode, setMode] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const plan = planOf(request);
  const isPlan = request.tool === 'ExitPlanMode';
  const id = `perm-${request.id}`;

  const send = async (answer: PermissionAnswer) => {
    if (busy) return;
    setBusy(true);
    setError(null);
    try {
      await postJson(sessionPath(sessionId, 'permissions', request.id), answer);
      onDone(request.id, `${request.tool} ${answer.behavior === 'allow' ? 'allowed' : 'denied'}`);
    } catch (err) {
      if (err instanceof ApiError && err.status === 409) onDone(request.id, `${request.tool} was already answered`, err.message);
      else {
        setError(messageOf(err));
        setBusy(false);
      }
    }
  };
  const allow = () => send(allowAnswer(remember, isPlan ? mode : ''));
  const deny = () => send(denyAnswer(message, interrupt));

  // The shortcuts read the card's current choices.
  const actions = useRef({ allow, deny });
  actions.current = { allow, deny };
  useEffect(() => {
    if (!primary || !canAnswer) return;
    const onKey = (e: KeyboardEvent) => {
      const target = e.target instanceof Element ? e.target : null;
      const which = shortcutOf(e, target ? { tagName: target.tagName, isContentEditable: (target as HTMLElement).isContentEditable } : null);
      if (!which) return;
      e.preventDefault();
      void actions.current[which]();
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [primary, canAnswer]);

  const toggle = (rule: string, on: boolean) => setRemember((r) => (on ? [...r.filter((x) => x !== rule), rule] : r.filter((x) => x !== rule)));

  return (
    <section class={`card${primary ? ' primary-card' : ''}`} aria-label={`Permission request ${request.tool}`}>
      <h3>
        Permission: <span class="mono">{request.tool}</span>
      </h3>
      <p class="meta">
        <span class="mono">{request.id}</span> · turn <span class="mono">{request.turn_id}</span> · asked{' '}
        <time dateTime={request.created_at}>{formatDateTime(request.created_at)}</time>
      </p>
      <p class="reason">
        <strong>Why you are asked:</strong> {request.reason}
      </p>
      {request.preview ? (
        <>
          <Preview sessionId={sessionId} preview={request.preview} />
          {request.preview.kind !== 'plan' && (
            <details>
              <summary>Input</summary>
              <pre class="json">{prettyJson(request.input)}</pre>
            </details>
          )}
        </>
      ) : plan !== null ? (
        <Markdown text={plan} label="Plan" />
      ) : (
        <>
          <p class="label">Input</p>
          <pre class="json">{prettyJson(request.input)}</pre>
        </>
      )}
      {!canAnswer && <p class="watch">watch only</p>}
      {canAnswer && (
        <div class="answer">
          <div class="allow-row">
            {isPlan && (
              <div class="field">
                <label for={`${id}-mode`}>Mode after the plan</label>
                <select id={`${id}-mode`} value={mode} onChange={(e) => setMode(e.currentTarget.value)}>
                  <option value="">(the mode before plan mode)</option>
                  {PLAN_EXIT_MODES.map((m) => (
                    <option key={m} value={m}>
                      {m}
                    </option>
                  ))}
                </select>
              </div>
            )}
            {request.suggestions.map((rule) => (
              <label key={rule} class="check">
                <input type="checkbox" checked={remember.includes(rule)} onChange={(e) => toggle(rule, e.currentTarget.checked)} />
                {`Remember: ${rule}`}
              </label>
            ))}
            <button type="button" class="primary" onClick={allow} disabled={busy}>
              {isPlan ? 'Approve plan' : 'Allow'}
            </button>
          </div>
          <div class="deny-row">
            <div class="field grow">
              <label for={`${id}-message`}>Message for the model</label>
              <input id={`${id}-message`} type="text" value={message} onInput={(e) => setMessage(e.currentTarget.value)} />
            </div>
            <label class="check">
              <input type="checkbox" checked={interrupt} onChange={(e) => setInterrupt(e.currentTarget.checked)} />
              Interrupt the turn
            </label>
            <button type="button" class="danger" onClick={deny} disabled={busy}>
              Deny
            </button>
          </div>
        </div>
      )}
      <ErrorAlert message={error} />
    </section>
  );
}
