// Grep's query model and output, shared by both engines (ripgrep and the TypeScript fallback)
// so that the same findings always print the same text.
//
// Output formats (paths relative to the workspace, files sorted by path):
//   files_with_matches  one path per line
//   count               `path:N`, N = number of matching lines
//   content             ripgrep's `--no-heading` lines: `path:N:text` for a matching line,
//                       `path-N-text` for a context line (`path:text` / `path-text` with -n
//                       false), and `--` between non-adjacent groups (also between files) when
//                       context was asked for.
// `head_limit` (or, without it, GREP_DEFAULT_MAX_LINES) caps output lines; a note says how many
// more there were. Memory stays bounded: in content mode, a file whose lines cannot appear in the
// first `limit` lines (files with smaller paths already fill them) is dropped as soon as that is
// known, and no file keeps more than `limit` lines.

export type GrepMode = 'content' | 'files_with_matches' | 'count';

export interface GrepQuery {
  pattern: string;
  ignoreCase: boolean;
  multiline: boolean;
  mode: GrepMode;
  lineNumbers: boolean;
  before: number;
  after: number;
  glob?: string;
  type?: string;
  /** Output lines shown. */
  limit: number;
  /** The caller set head_limit (changes only the wording of the note). */
  headLimited: boolean;
}

export const GREP_DEFAULT_MAX_LINES = 10_000;
export const GREP_MAX_LINE_CHARS = 2000;

function comparePaths(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** A matching or context line as shown: one trailing CR dropped, very long lines cut. */
export function displayText(text: string): string {
  const t = text.endsWith('\r') ? text.slice(0, -1) : text;
  if (t.length <= GREP_MAX_LINE_CHARS) return t;
  return `${t.slice(0, GREP_MAX_LINE_CHARS)}… [${t.length - GREP_MAX_LINE_CHARS} more characters]`;
}

/** The formatted lines of one file in content mode. */
export class FileLines {
  readonly lines: string[] = [];
  /** Lines this file contributes, including `--` separators inside it (kept or not). */
  total = 0;
  private lastLine = 0;

  constructor(
    readonly path: string,
    private readonly q: GrepQuery,
  ) {}

  private get context(): boolean {
    return this.q.before > 0 || this.q.after > 0;
  }

  private add(line: string): void {
    this.total++;
    if (this.lines.length < this.q.limit) this.lines.push(line);
  }

  push(lineNo: number, text: string, isMatch: boolean): void {
    if (lineNo <= this.lastLine) return; // never print a line twice
    if (this.context && this.lastLine > 0 && lineNo > this.lastLine + 1) this.add('--');
    this.lastLine = lineNo;
    const sep = isMatch ? ':' : '-';
    const shown = displayText(text);
    this.add(this.q.lineNumbers ? `${this.path}${sep}${lineNo}${sep}${shown}` : `${this.path}${sep}${shown}`);
  }
}

export class GrepCollector {
  /** Paths the engine could not read (permissions, vanished). */
  unreadable = 0;
  /** Paths left out because a deny or ask rule covers reading them. */
  readonly excluded = new Set<string>();
  /** Engine-specific notes (the fallback's size caps). */
  readonly notes: string[] = [];

  private readonly counts: { path: string; count: number }[] = [];
  /** Content mode: retained files, sorted by path. */
  private readonly files: FileLines[] = [];
  private retainedLines = 0;
  private fileCount = 0;
  private contentLines = 0;

  constructor(readonly q: GrepQuery) {}

  private get context(): boolean {
    return this.q.before > 0 || this.q.after > 0;
  }

  /** files_with_matches / count: one file with `count` matching lines (> 0). */
  addCount(path: string, count: number): void {
    if (count > 0) this.counts.push({ path, count });
  }

  beginFile(path: string): FileLines {
    return new FileLines(path, this.q);
  }

  finishFile(file: FileLines): void {
    if (file.total === 0) return;
    this.fileCount++;
    this.contentLines += file.total;
    // Insert in path order.
    let lo = 0;
    let hi = this.files.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (comparePaths(this.files[mid]!.path, file.path) < 0) lo = mid + 1;
      else hi = mid;
    }
    this.files.splice(lo, 0, file);
    this.retainedLines += file.total;
    // Drop the last file while the files before it already fill the output.
    while (this.files.length > 1) {
      const last = this.files[this.files.length - 1]!;
      const before = this.retainedLines - last.total + (this.context ? this.files.length - 2 : 0);
      if (before < this.q.limit) break;
      this.files.pop();
      this.retainedLines -= last.total;
    }
  }

  render(): string {
    let lines: string[];
    let total: number;
    if (this.q.mode === 'content') {
      total = this.contentLines + (this.context && this.fileCount > 0 ? this.fileCount - 1 : 0);
      lines = [];
      for (const f of this.files) {
        if (lines.length >= this.q.limit) break;
        if (this.context && lines.length > 0) lines.push('--');
        for (const l of f.lines) {
          if (lines.length >= this.q.limit + 1) break;
          lines.push(l);
        }
      }
      lines = lines.slice(0, this.q.limit);
    } else {
      const sorted = [...this.counts].sort((a, b) => comparePaths(a.path, b.path));
      total = sorted.length;
      lines = sorted.slice(0, this.q.limit).map((e) => (this.q.mode === 'count' ? `${e.path}:${e.count}` : e.path));
    }
    if (total === 0) lines.push('No matches found.');
    if (total > lines.length && total > 0) {
      lines.push(
        this.q.headLimited
          ? `[head_limit ${this.q.limit}: ${total - this.q.limit} more line(s) not shown (${total} in all)]`
          : `[output stopped at ${this.q.limit} of ${total} lines; narrow the search or set head_limit]`,
      );
    }
    if (this.unreadable > 0) lines.push(`[${this.unreadable} path(s) could not be read]`);
    if (this.excluded.size > 0) lines.push(`[${this.excluded.size} path(s) left out: a permission rule covers reading them]`);
    lines.push(...this.notes);
    return lines.join('\n');
  }
}
