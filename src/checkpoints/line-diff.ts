// A line diff (Myers' O(ND) algorithm, after trimming the common head and tail) and unified-diff
// hunks. Bounded: past MAX_EDITS differing lines the two versions are reported as one replacement
// of the middle (every line out, every line in), which keeps a diff of two unrelated large files
// linear in time and its memory (the trace of each step's frontier, D² cells) under 4 MB.

const MAX_EDITS = 1_000;

export type Op = { kind: 'same' | 'del' | 'add'; line: string };

/** The lines of a text: split on \n, a last line without its newline kept as it is. */
export function linesOf(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  return lines;
}

/** The edit script turning `a` into `b`. */
export function diffLines(a: readonly string[], b: readonly string[]): Op[] {
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const am = a.slice(head, a.length - tail);
  const bm = b.slice(head, b.length - tail);
  const ops: Op[] = a.slice(0, head).map((line) => ({ kind: 'same', line }));
  ops.push(...middle(am, bm));
  ops.push(...a.slice(a.length - tail).map((line) => ({ kind: 'same' as const, line })));
  return ops;
}

function middle(a: readonly string[], b: readonly string[]): Op[] {
  const n = a.length;
  const m = b.length;
  if (n === 0) return b.map((line) => ({ kind: 'add', line }));
  if (m === 0) return a.map((line) => ({ kind: 'del', line }));
  const max = Math.min(n + m, MAX_EDITS);
  const offset = max + 1;
  const v = new Int32Array(2 * max + 3);
  // trace[d]: the frontier before step d, k = -d..d (what the walk back reads of it).
  const trace: Int32Array[] = [];
  let found = -1;
  for (let d = 0; d <= max && found < 0; d++) {
    trace.push(v.slice(offset - d - 1, offset + d + 2));
    for (let k = -d; k <= d; k += 2) {
      let x = k === -d || (k !== d && v[offset + k - 1]! < v[offset + k + 1]!) ? v[offset + k + 1]! : v[offset + k - 1]! + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      v[offset + k] = x;
      if (x >= n && y >= m) {
        found = d;
        break;
      }
    }
  }
  if (found < 0) return [...a.map((line) => ({ kind: 'del' as const, line })), ...b.map((line) => ({ kind: 'add' as const, line }))];
  // Walk the trace back from (n, m).
  const ops: Op[] = [];
  let x = n;
  let y = m;
  for (let d = found; d > 0; d--) {
    const vd = trace[d]!;
    // vd[j] is v[offset + k] for k = j - d - 1.
    const at = (k: number) => vd[k + d + 1]!;
    const k = x - y;
    const prevK = k === -d || (k !== d && at(k - 1) < at(k + 1)) ? k + 1 : k - 1;
    const prevX = at(prevK);
    const prevY = prevX - prevK;
    while (x > prevX && y > prevY) ops.push({ kind: 'same', line: a[--x]! }), y--;
    if (x === prevX) ops.push({ kind: 'add', line: b[--y]! });
    else ops.push({ kind: 'del', line: a[--x]! });
  }
  while (x > 0 && y > 0) ops.push({ kind: 'same', line: a[--x]! }), y--;
  return ops.reverse();
}

/** Additions and deletions of an edit script. */
export function counts(ops: readonly Op[]): { additions: number; deletions: number } {
  let additions = 0;
  let deletions = 0;
  for (const o of ops) {
    if (o.kind === 'add') additions++;
    else if (o.kind === 'del') deletions++;
  }
  return { additions, deletions };
}

/** The hunks of a unified diff (with `context` lines around each change), without the file header. */
export function hunks(ops: readonly Op[], context = 3): string {
  const out: string[] = [];
  let i = 0;
  let aLine = 1;
  let bLine = 1;
  const lineNos: { a: number; b: number }[] = [];
  for (const o of ops) {
    lineNos.push({ a: aLine, b: bLine });
    if (o.kind !== 'add') aLine++;
    if (o.kind !== 'del') bLine++;
  }
  while (i < ops.length) {
    if (ops[i]!.kind === 'same') {
      i++;
      continue;
    }
    let start = Math.max(0, i - context);
    let end = i;
    // Extend while the next change is within 2 × context of this one.
    for (;;) {
      while (end < ops.length && ops[end]!.kind !== 'same') end++;
      let next = end;
      while (next < ops.length && ops[next]!.kind === 'same') next++;
      if (next < ops.length && next - end <= 2 * context) end = next;
      else break;
    }
    const stop = Math.min(ops.length, end + context);
    const slice = ops.slice(start, stop);
    const aCount = slice.filter((o) => o.kind !== 'add').length;
    const bCount = slice.filter((o) => o.kind !== 'del').length;
    const from = lineNos[start]!;
    const aStart = aCount === 0 ? from.a - 1 : from.a;
    const bStart = bCount === 0 ? from.b - 1 : from.b;
    out.push(`@@ -${aStart},${aCount} +${bStart},${bCount} @@`);
    for (const o of slice) out.push(`${o.kind === 'same' ? ' ' : o.kind === 'del' ? '-' : '+'}${o.line}`);
    i = stop;
    start = stop;
  }
  return out.length > 0 ? `${out.join('\n')}\n` : '';
}
