// A permission request's preview: what the call would do, shown before the person decides — a
// file change as a diff, a command line as its parts (each with its verdict and why), where a
// fetch or connection goes, an MCP tool with its server's claims, a plan as Markdown.
import { splitDiffs } from '../lib/diff.js';
import { prettyJson } from '../lib/format.js';
import type { PermissionPreview } from '../lib/types.js';
import { DiffView } from './diff-view';
import { Markdown } from './markdown';
import { download, sessionPath } from '../api';

export function Preview({ sessionId, preview }: { sessionId: string; preview: PermissionPreview }) {
  return (
    <div class="preview">
      {preview.stale && <p class="warn">The target changed since this was asked: the call is checked again before it runs.</p>}
      {preview.kind === 'diff' && <DiffPreviewView sessionId={sessionId} preview={preview} />}
      {preview.kind === 'command' && <CommandPreviewView preview={preview} />}
      {preview.kind === 'network' && (
        <dl class="facts" aria-label="Where it goes">
          <dt>Host</dt>
          <dd class="mono">{preview.host}</dd>
          <dt>Port</dt>
          <dd class="mono">{preview.port ?? '—'}</dd>
          <dt>Scheme</dt>
          <dd class="mono">{preview.scheme}</dd>
          <dt>Address</dt>
          <dd>{preview.address ?? 'a name, not looked up before you answer'}</dd>
          {preview.url && (
            <>
              <dt>URL</dt>
              <dd class="mono">{preview.url}</dd>
            </>
          )}
        </dl>
      )}
      {preview.kind === 'mcp' && (
        <>
          <p>
            MCP server <strong class="mono">{preview.server}</strong>, tool <strong class="mono">{preview.tool}</strong>
          </p>
          {preview.annotations && (
            <p class="muted">
              The server says:{' '}
              {Object.entries(preview.annotations)
                .map(([k, v]) => `${k} ${String(v)}`)
                .join(', ')}{' '}
              (its claims, not checked)
            </p>
          )}
          <pre class="json">{prettyJson(preview.input)}</pre>
        </>
      )}
      {preview.kind === 'plan' && <Markdown text={preview.plan} label="Plan" />}
    </div>
  );
}

function DiffPreviewView({ sessionId, preview }: { sessionId: string; preview: Extract<PermissionPreview, { kind: 'diff' }> }) {
  const diff = preview.diff ? splitDiffs(preview.diff).find((p) => p.kind === 'diff') : undefined;
  const verb = preview.operation === 'create' ? 'Creates' : preview.operation === 'delete' ? 'Deletes' : 'Changes';
  return (
    <>
      <p>
        {verb} <span class="mono">{preview.path}</span>
        {preview.binary && ` (not text: ${preview.before_bytes ?? 0} → ${preview.after_bytes ?? 0} bytes)`}
      </p>
      {preview.not_shown && <p class="muted">No diff: {preview.not_shown}</p>}
      {diff && diff.kind === 'diff' && <DiffView diff={diff.diff} />}
      {preview.diff === '' && <p class="muted">The content stays the same.</p>}
      {preview.truncated && (
        <p class="muted">
          The diff is longer than shown.{' '}
          {preview.output_id && (
            <button type="button" class="quiet" onClick={() => void download(sessionPath(sessionId, 'outputs', preview.output_id!), `${preview.output_id}.diff`, 'text/plain')}>
              Download the whole diff
            </button>
          )}
        </p>
      )}
    </>
  );
}

function CommandPreviewView({ preview }: { preview: Extract<PermissionPreview, { kind: 'command' }> }) {
  return (
    <>
      <pre class="json">{preview.command}</pre>
      {!preview.analysed && <p class="warn">{preview.reason}</p>}
      {preview.parts.length > 0 && (
        <ul class="parts" aria-label="The command's parts">
          {preview.parts.map((p, i) => (
            <li key={i} class={p.asks ? 'asks' : 'fine'}>
              <span class="mono">{p.command}</span> — {p.verdict === 'allow' ? 'allowed' : p.verdict === 'deny' ? 'denied' : 'asks'}
              {p.decided_by === 'read_only' && ' (it only reads)'}
              {p.decided_by === 'rule' && p.rule && ` (rule ${p.rule})`}
              {p.decided_by === 'none' && ' (no rule allows it and it changes things)'}
              {p.nested && ' · nested'}
              {p.asks && <strong> · why you are asked</strong>}
              {p.dangers.length > 0 && <span class="muted"> · {p.dangers.join('; ')}</span>}
            </li>
          ))}
        </ul>
      )}
      {preview.redirects.some((r) => r.writes) && (
        <p>
          Writes to:{' '}
          {preview.redirects
            .filter((r) => r.writes)
            .map((r) => r.target ?? '(unknown)')
            .join(', ')}
        </p>
      )}
    </>
  );
}
