// The audit trail: permission decisions (what decided, by which rule), outbound requests and
// hook runs, and the whole session as a JSON export.
import { useState } from 'preact/hooks';
import { download, sessionPath } from '../api';
import { ErrorAlert } from '../components/alert';
import { egressOutcome } from '../lib/events.js';
import { formatDateTime } from '../lib/format.js';
import { messageOf } from '../lib/problem.js';
import type { Decision, EgressEvent, HookRunEvent } from '../lib/types.js';
import { PagedTable, type Column } from './paged-table';

const when = (iso: string) => <time dateTime={iso}>{formatDateTime(iso)}</time>;

const DECISION_COLUMNS: Column<Decision>[] = [
  { header: 'Time', cell: (d) => when(d.created_at) },
  { header: 'Tool', cell: (d) => <span class="mono">{d.tool}</span> },
  { header: 'Behavior', cell: (d) => <span class={`badge badge-${d.behavior}`}>{d.behavior}</span> },
  { header: 'Decided by', cell: (d) => d.decided_by },
  { header: 'Rules', cell: (d) => (d.rules.length ? <span class="mono">{d.rules.join(', ')}</span> : '—') },
  { header: 'Reason', cell: (d) => d.reason },
];

const EGRESS_COLUMNS: Column<EgressEvent>[] = [
  { header: 'Time', cell: (e) => when(e.time) },
  { header: 'By', cell: (e) => <span class="mono">{e.tool ?? e.hook ?? 'sandbox'}</span> },
  { header: 'Method', cell: (e) => e.method },
  { header: 'URL', cell: (e) => <span class="mono url">{e.url}</span> },
  { header: 'Outcome', cell: (e) => egressOutcome(e) },
];

const HOOK_COLUMNS: Column<HookRunEvent>[] = [
  { header: 'Time', cell: (h) => when(h.time) },
  { header: 'Hook', cell: (h) => <span class="mono">{h.hook}</span> },
  { header: 'Event', cell: (h) => h.event },
  {
    header: 'Outcome',
    cell: (h) => (h.type === 'hook.failed' ? `${h.outcome}: ${h.error}` : `${h.outcome}${h.decision ? ` (${h.decision})` : ''}`),
  },
  { header: 'Duration', cell: (h) => `${h.duration_ms} ms` },
];

export function Audit({ sessionId, counts }: { sessionId: string; counts: Readonly<Record<string, number>> }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const exportSession = async () => {
    setBusy(true);
    setError(null);
    try {
      await download(sessionPath(sessionId, 'export'), `session-${sessionId}.json`, 'application/json');
    } catch (err) {
      setError(messageOf(err));
    } finally {
      setBusy(false);
    }
  };
  const n = (...types: string[]) => types.reduce((sum, t) => sum + (counts[t] ?? 0), 0);
  return (
    <section aria-labelledby="audit-h" class="panel">
      <div class="panel-head">
        <h2 id="audit-h">Audit</h2>
        <button type="button" onClick={exportSession} disabled={busy}>
          Download export
        </button>
      </div>
      <ErrorAlert message={error} />
      <PagedTable<Decision>
        path={sessionPath(sessionId, 'decisions')}
        title="Decisions"
        moreLabel="More decisions"
        empty="No permission decisions yet."
        columns={DECISION_COLUMNS}
        version={n('tool.started', 'tool.completed', 'permission.requested', 'permission.resolved')}
      />
      <PagedTable<EgressEvent>
        path={sessionPath(sessionId, 'egress')}
        title="Egress"
        moreLabel="More egress requests"
        empty="No outbound requests."
        columns={EGRESS_COLUMNS}
        version={n('egress.request')}
      />
      <PagedTable<HookRunEvent>
        path={sessionPath(sessionId, 'hook-runs')}
        title="Hook runs"
        moreLabel="More hook runs"
        empty="No hook runs."
        columns={HOOK_COLUMNS}
        version={n('hook.completed', 'hook.failed')}
      />
    </section>
  );
}
