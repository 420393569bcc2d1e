// An audit listing paged with `after`/`next_after` (oldest first): the first page, `More …` for
// the next, and while the end is shown, what happened since is fetched when `version` changes.
import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { getJson } from '../api';
import { ErrorAlert } from '../components/alert';
import { messageOf } from '../lib/problem.js';
import type { AuditPage } from '../lib/types.js';
import { TableWrap } from '../components/table-wrap';

export interface Column<T> {
  header: string;
  cell: (item: T) => ComponentChildren;
}

export interface PagedTableProps<T extends { seq: number }> {
  /** The listing's path, without query. */
  path: string;
  title: string;
  /** The More button's name (`More decisions`). */
  moreLabel: string;
  empty: string;
  columns: Column<T>[];
  version: number;
}

export function PagedTable<T extends { seq: number }>({ path, title, moreLabel, empty, columns, version }: PagedTableProps<T>) {
  const [items, setItems] = useState<T[] | null>(null);
  const [nextAfter, setNextAfter] = useState<number | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const latest = useRef({ items, nextAfter, busy });
  latest.current = { items, nextAfter, busy };

  const fetchAfter = async (after: number) => {
    setBusy(true);
    try {
      const page = await getJson<AuditPage<T>>(`${path}?after=${after}`);
      setItems((old) => {
        const have = new Set((old ?? []).map((i) => i.seq));
        return [...(old ?? []), ...page.items.filter((i) => !have.has(i.seq))];
      });
      setNextAfter(page.next_after);
      setError(null);
    } catch (err) {
      setError(messageOf(err));
    } finally {
      setBusy(false);
    }
  };

  useEffect(() => {
    setItems(null);
    setNextAfter(null);
    void fetchAfter(0);
  }, [path]);

  // New activity: fetch what came after the last row, if the end is what is shown.
  useEffect(() => {
    if (version === 0) return;
    const t = setTimeout(() => {
      const { items: shown, nextAfter: next, busy: loading } = latest.current;
      if (shown === null || next !== null || loading) return;
      void fetchAfter(shown.length ? shown[shown.length - 1]!.seq : 0);
    }, 500);
    return () => clearTimeout(t);
  }, [version]);

  const id = `audit-${title.toLowerCase().replace(/\W+/g, '-')}`;
  return (
    <div class="audit-table">
      <h3 id={id}>{title}</h3>
      <ErrorAlert message={error} />
      {items !== null && items.length === 0 && <p class="muted">{empty}</p>}
      {items !== null && items.length > 0 && (
        <TableWrap labelledBy={id}>
          <table aria-labelledby={id}>
            <thead>
              <tr>
                {columns.map((c) => (
                  <th scope="col" key={c.header}>
                    {c.header}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {items.map((item) => (
                <tr key={item.seq}>
                  {columns.map((c) => (
                    <td key={c.header}>{c.cell(item)}</td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      )}
      {nextAfter !== null && (
        <button type="button" onClick={() => void fetchAfter(nextAfter)} disabled={busy}>
          {moreLabel}
        </button>
      )}
    </div>
  );
}
