// A tool_result: its text blocks (diffs of Write, Edit and MultiEdit shown as diffs, long text
// collapsed), images, whether it is an error (said in words), and for capped output the size
// and hash of the full output with a download.
import { useState } from 'preact/hooks';
import { download, sessionPath } from '../api';
import { ErrorAlert } from '../components/alert';
import { DIFF_TOOLS, splitDiffs } from '../lib/diff.js';
import { collapsedSummary, isLong, truncationNote, truncationsOf } from '../lib/format.js';
import { messageOf } from '../lib/problem.js';
import type { ToolResult, Truncation } from '../lib/types.js';
import { DiffView } from './diff-view';

const IMAGE_TYPES: ReadonlySet<string> = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);

export function Collapsible({ text, what }: { text: string; what: string }) {
  if (!isLong(text)) return <pre class="text">{text}</pre>;
  return (
    <details class="long">
      <summary>
        {what}: {collapsedSummary(text)}
      </summary>
      <pre class="text">{text}</pre>
    </details>
  );
}

function TextBlock({ text, tool }: { text: string; tool: string }) {
  if (!DIFF_TOOLS.has(tool)) return <Collapsible text={text} what="Result" />;
  return (
    <>
      {splitDiffs(text).map((part, i) =>
        part.kind === 'diff' ? (
          part.diff.lines.length > 40 ? (
            <details class="long" key={i}>
              <summary>
                Diff of {part.diff.path}: +{part.diff.added} −{part.diff.removed}
              </summary>
              <DiffView diff={part.diff} />
            </details>
          ) : (
            <DiffView key={i} diff={part.diff} />
          )
        ) : (
          <Collapsible key={i} text={part.text} what="Result" />
        ),
      )}
    </>
  );
}

function FullOutput({ sessionId, truncation }: { sessionId: string; truncation: Truncation }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const outputId = truncation.output_id;
  const get = async () => {
    if (!outputId) return;
    setBusy(true);
    setError(null);
    try {
      await download(sessionPath(sessionId, 'outputs', outputId), `${outputId}.txt`, 'text/plain');
    } catch (err) {
      setError(messageOf(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <div class="truncation">
      <p>
        {truncationNote(truncation)}{' '}
        {outputId && (
          <button type="button" onClick={get} disabled={busy}>
            Download full output
          </button>
        )}
      </p>
      <ErrorAlert message={error} />
    </div>
  );
}

export function ToolResultView({ sessionId, tool, result }: { sessionId: string; tool: string; result: ToolResult }) {
  return (
    <div class={`result${result.is_error ? ' is-error' : ''}`}>
      <p class="label">
        Result{' '}
        {result.is_error && <strong class="badge badge-error">error</strong>}
      </p>
      {result.content.length === 0 && <p class="muted">(no output)</p>}
      {result.content.map((block, i) =>
        block.type === 'text' ? (
          <TextBlock key={i} text={block.text} tool={tool} />
        ) : IMAGE_TYPES.has(block.source.media_type) ? (
          <img key={i} class="result-image" alt={`Image returned by ${tool}`} src={`data:${block.source.media_type};base64,${block.source.data}`} />
        ) : (
          <p key={i} class="muted">
            (an image of type {block.source.media_type})
          </p>
        ),
      )}
      {truncationsOf(result).map((t) => (
        <FullOutput key={`${t.block_index}-${t.output_id ?? ''}`} sessionId={sessionId} truncation={t} />
      ))}
    </div>
  );
}
