// A unified diff as a diff: added lines in <ins>, removed ones in <del>, each with its +/- sign
// (not colour alone).
import type { FileDiff } from '../lib/diff.js';

export function DiffView({ diff }: { diff: FileDiff }) {
  return (
    <figure class="diff" aria-label={`Diff of ${diff.path}`}>
      <figcaption>
        <span class="mono">{diff.path}</span>: {diff.added} line{diff.added === 1 ? '' : 's'} added, {diff.removed} removed
      </figcaption>
      <pre>
        {diff.lines.map((l, i) =>
          l.kind === 'add' ? (
            <ins key={i} class="add">
              {l.text}
            </ins>
          ) : l.kind === 'del' ? (
            <del key={i} class="del">
              {l.text}
            </del>
          ) : (
            <span key={i} class={l.kind}>
              {l.text}
            </span>
          ),
        )}
      </pre>
    </figure>
  );
}
