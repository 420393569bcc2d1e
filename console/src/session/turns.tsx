// The turns, newest first: status, error, and each tool call with its input, live output while
// it runs, and its result. A running turn can be cancelled by write and admin keys.
import { useState } from 'preact/hooks';
import { postJson, sessionPath } from '../api';
import { ErrorAlert } from '../components/alert';
import { formatDateTime, prettyJson } from '../lib/format.js';
import type { PendingState } from '../lib/pending.js';
import { messageOf } from '../lib/problem.js';
import type { LiveState, SessionAction } from '../lib/session-state.js';
import { isFinal, turnStatus, type CallView, type TurnView } from '../lib/turns.js';
import type { Turn } from '../lib/types.js';
import { Collapsible, ToolResultView } from './tool-result';
import { memoized } from '../components/memo';
import { TurnChanges } from './turn-changes';
import { Markdown } from './markdown';

const STATE_TEXT: Record<CallView['state'], string> = { waiting: 'waiting', running: 'running', done: 'done' };

function Call({ sessionId, call, progress }: { sessionId: string; call: CallView; progress: string | undefined }) {
  const failed = call.result?.is_error === true;
  return (
    <li class="call">
      <h4>
        <span class="mono">{call.tool || 'call'}</span> <span class="meta mono">{call.id}</span>{' '}
        <span class={`state state-${failed ? 'error' : call.state}`}>{failed ? 'error' : STATE_TEXT[call.state]}</span>
      </h4>
      {call.parent && (
        <p class="meta">
          inside <span class="mono">{call.parent}</span>
        </p>
      )}
      <p class="label">Input</p>
      <Collapsible text={prettyJson(call.input)} what="Input" />
      {progress && call.state !== 'done' && (
        <>
          <p class="label">Output so far</p>
          <pre class="text progress">{progress}</pre>
        </>
      )}
      {call.result && <ToolResultView sessionId={sessionId} tool={call.tool} result={call.result} />}
    </li>
  );
}

/** A call renders again when it changed, or when its live output did. */
const MemoCall = memoized(Call, (a, b) => a.call === b.call && a.progress === b.progress && a.sessionId === b.sessionId);

interface TurnItemProps {
  sessionId: string;
  turn: TurnView;
  pending: PendingState;
  live: LiveState;
  canWrite: boolean;
  dispatch: (a: SessionAction) => void;
}

function TurnItem({ sessionId, turn, pending, live, canWrite, dispatch }: TurnItemProps) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const status = turnStatus(turn, pending);
  const cancel = async () => {
    setBusy(true);
    setError(null);
    try {
      const updated = await postJson<Turn>(sessionPath(sessionId, 'turns', turn.id, 'cancel'));
      dispatch({ kind: 'turns', turns: [updated] });
    } catch (err) {
      setError(messageOf(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <li class="turn">
      <article aria-labelledby={`turn-${turn.id}`}>
        <h3 id={`turn-${turn.id}`}>
          Turn <span class="mono">{turn.id}</span>
        </h3>
        <p class="meta">
          {turn.kind} · <span class={`status status-${status}`}>{status}</span> · started{' '}
          <time dateTime={turn.created_at}>{formatDateTime(turn.created_at)}</time>
          {turn.ended_at && (
            <>
              {' '}
              · ended <time dateTime={turn.ended_at}>{formatDateTime(turn.ended_at)}</time>
            </>
          )}
        </p>
        {turn.error && (
          <p class="turn-error">
            <strong>Error {turn.error.code}:</strong> {turn.error.message}
          </p>
        )}
        {canWrite && !isFinal(turn.status) && (
          <button type="button" class="danger" onClick={cancel} disabled={busy}>
            Cancel turn
          </button>
        )}
        <ErrorAlert message={error} />
        {isFinal(turn.status) && <TurnChanges sessionId={sessionId} turnId={turn.id} canWrite={canWrite} />}
        {turn.kind === 'prompt' && (turn.prompt !== undefined || (turn.said?.length ?? 0) > 0) ? (
          <Conversation sessionId={sessionId} turn={turn} progress={live.progress} />
        ) : turn.calls.length === 0 ? (
          <p class="muted">No tool calls.</p>
        ) : (
          <ol class="calls">
            {turn.calls.map((c) => (
              <MemoCall key={c.id} sessionId={sessionId} call={c} progress={live.progress[c.id]} />
            ))}
          </ol>
        )}
      </article>
    </li>
  );
}

/**
 * A prompt turn as a conversation: the prompt, then each message of the model rendered as
 * (sanitised) Markdown with the calls it asked for folded in below it; calls of no message (a
 * subagent's) after them.
 */
function Conversation({ sessionId, turn, progress }: { sessionId: string; turn: TurnView; progress: Readonly<Record<string, string>> }) {
  const byId = new Map(turn.calls.map((c) => [c.id, c]));
  const placed = new Set((turn.said ?? []).flatMap((m) => m.calls));
  const rest = turn.calls.filter((c) => !placed.has(c.id));
  return (
    <div class="conversation" aria-label="Conversation">
      {turn.prompt !== undefined && (
        <div class="said user">
          <p class="label">Prompt</p>
          <pre class="text">{turn.prompt}</pre>
        </div>
      )}
      {(turn.said ?? []).map((m) => (
        <div key={m.index} class="said model">
          {m.text !== '' && <Markdown text={m.text} label="The model" />}
          {m.calls.length > 0 && (
            <details>
              <summary>
                {m.calls.length} tool call{m.calls.length === 1 ? '' : 's'}: {m.calls.map((id) => byId.get(id)?.tool ?? id).join(', ')}
              </summary>
              <ol class="calls">
                {m.calls.map((id) => {
                  const c = byId.get(id);
                  return c ? <MemoCall key={id} sessionId={sessionId} call={c} progress={progress[id]} /> : null;
                })}
              </ol>
            </details>
          )}
        </div>
      ))}
      {rest.length > 0 && (
        <ol class="calls">
          {rest.map((c) => (
            <MemoCall key={c.id} sessionId={sessionId} call={c} progress={progress[c.id]} />
          ))}
        </ol>
      )}
    </div>
  );
}

/**
 * A turn renders again when it changed; while it is not over, also when what waits or streams
 * changed (its status and its calls' live output come from those).
 */
const MemoTurn = memoized(
  TurnItem,
  (a, b) =>
    a.turn === b.turn && a.canWrite === b.canWrite && a.sessionId === b.sessionId && (isFinal(b.turn.status) || (a.pending === b.pending && a.live === b.live)),
);

export interface TurnsProps {
  sessionId: string;
  turns: readonly TurnView[];
  pending: PendingState;
  live: LiveState;
  canWrite: boolean;
  dispatch: (a: SessionAction) => void;
}

export function Turns({ sessionId, turns, pending, live, canWrite, dispatch }: TurnsProps) {
  return (
    <section aria-labelledby="turns-h" class="panel">
      <h2 id="turns-h">Turns</h2>
      {turns.length === 0 && <p class="muted">No turns yet.</p>}
      <ol class="turns" reversed>
        {[...turns].reverse().map((t) => (
          <MemoTurn key={t.id} sessionId={sessionId} turn={t} pending={pending} live={live} canWrite={canWrite} dispatch={dispatch} />
        ))}
      </ol>
    </section>
  );
}
