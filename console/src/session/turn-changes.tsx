// What a finished turn changed in the workspace (its unified diff, from the session's checkpoints),
// and a rewind to before it: a dry run first, which shows what would be restored, deleted and
// which paths conflict (changed since by something other than the session); then the rewind,
// with `force` only when the person ticks it for conflicts shown.
import { useState } from 'preact/hooks';
import { postJson, request, sessionPath } from '../api';
import { ErrorAlert } from '../components/alert';
import { splitDiffs } from '../lib/diff.js';
import { ApiError, messageOf } from '../lib/problem.js';
import type { RewindResult } from '../lib/types.js';
import { DiffView } from './diff-view';

const list = (paths: readonly string[]) => (paths.length === 0 ? 'none' : paths.join(', '));

export function TurnChanges({ sessionId, turnId, canWrite }: { sessionId: string; turnId: string; canWrite: boolean }) {
  const [diff, setDiff] = useState<string | null>(null);
  const [preview, setPreview] = useState<RewindResult | null>(null);
  const [done, setDone] = useState<RewindResult | null>(null);
  const [force, setForce] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const run = async (fn: () => Promise<void>) => {
    setBusy(true);
    setError(null);
    try {
      await fn();
    } catch (err) {
      setError(messageOf(err));
    } finally {
      setBusy(false);
    }
  };
  const showChanges = () =>
    run(async () => {
      const res = await request(sessionPath(sessionId, 'turns', turnId, 'changes'), { accept: 'text/x-diff' });
      setDiff(await res.text());
    });
  const dryRun = () =>
    run(async () => {
      setDone(null);
      setForce(false);
      setPreview(await postJson<RewindResult>(sessionPath(sessionId, 'rewind'), { to: turnId, dry_run: true }));
    });
  const rewind = () =>
    run(async () => {
      try {
        setDone(await postJson<RewindResult>(sessionPath(sessionId, 'rewind'), { to: turnId, force }));
        setPreview(null);
      } catch (err) {
        // Conflicts appeared since the preview: show them in it.
        if (err instanceof ApiError && err.status === 409 && err.problem?.conflicts && preview) setPreview({ ...preview, conflicts: err.problem.conflicts });
        throw err;
      }
    });
  const parts = diff === null ? [] : splitDiffs(diff);
  return (
    <div class="turn-changes">
      <div class="actions">
        <button type="button" onClick={showChanges} disabled={busy}>
          Show changes
        </button>
        {canWrite && (
          <button type="button" onClick={dryRun} disabled={busy}>
            Rewind to before this turn…
          </button>
        )}
      </div>
      <ErrorAlert message={error} />
      {diff !== null && (
        <section aria-label="Changes of this turn" class="changes">
          {diff.trim() === '' ? (
            <p class="muted">This turn changed no file.</p>
          ) : (
            parts.map((part, i) =>
              part.kind === 'diff' ? <DiffView key={i} diff={part.diff} /> : part.text.trim() ? <pre key={i} class="text">{part.text.trim()}</pre> : null,
            )
          )}
        </section>
      )}
      {preview && (
        <section aria-label="Rewind preview" class="rewind-preview">
          <p>
            Rewinding restores <strong>{preview.restored.length}</strong> path(s) ({list(preview.restored)}) and deletes{' '}
            <strong>{preview.deleted.length}</strong> ({list(preview.deleted)}).
          </p>
          {preview.conflicts.length > 0 && (
            <>
              <p class="turn-error">Changed since by something other than this session:</p>
              <ul class="conflicts">
                {preview.conflicts.map((c) => (
                  <li key={c.path}>
                    <span class="mono">{c.path}</span>: {c.reason}
                  </li>
                ))}
              </ul>
              <label>
                <input type="checkbox" checked={force} onChange={(e) => setForce((e.target as HTMLInputElement).checked)} /> Overwrite them too
              </label>
            </>
          )}
          <div class="actions">
            <button type="button" class="danger" onClick={rewind} disabled={busy || (preview.conflicts.length > 0 && !force)}>
              Rewind
            </button>
            <button type="button" onClick={() => setPreview(null)} disabled={busy}>
              Keep as it is
            </button>
          </div>
        </section>
      )}
      {done && (
        <p role="status" class="rewound">
          Rewound: {done.restored.length} restored, {done.deleted.length} deleted. To undo, rewind to <span class="mono">{done.checkpoint_id}</span>.
        </p>
      )}
    </div>
  );
}
