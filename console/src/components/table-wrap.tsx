// A table that may scroll sideways on a narrow screen: its wrapper can take the keyboard focus
// (so the arrow keys scroll it) and is named by the table's heading.
import type { ComponentChildren } from 'preact';

export function TableWrap({ labelledBy, children }: { labelledBy: string; children: ComponentChildren }) {
  return (
    <div class="table-wrap" tabIndex={0} role="group" aria-labelledby={labelledBy}>
      {children}
    </div>
  );
}
