// How the memory store's contents are shown to the model: a file's lines numbered as `cat -n`
// numbers them, the lines around an edit, and a directory listing with `du -h` sizes.
import { humanSize } from './limits.js';
import { totals, type TreeNode } from './walk.js';

/** How many levels below the viewed directory a `view` lists. */
export const MEMORY_VIEW_LEVELS = 2;
/** Lines shown before and after an edit in its confirmation. */
const SNIPPET_CONTEXT_LINES = 4;

/** The lines of a text: a final newline ends the last line rather than starting an empty one. */
export function splitLines(text: string): string[] {
  if (text === '') return [];
  return (text.endsWith('\n') ? text.slice(0, -1) : text).split('\n');
}

/** `cat -n` style: the number right-aligned in 6 columns, a tab, the line. */
export function numbered(lines: readonly string[], firstLineNo: number): string {
  return lines.map((l, i) => `${String(firstLineNo + i).padStart(6, ' ')}\t${l}`).join('\n');
}

export function countNewlines(s: string): number {
  let n = 0;
  for (let i = s.indexOf('\n'); i !== -1; i = s.indexOf('\n', i + 1)) n++;
  return n;
}

export function snippetAround(virtual: string, text: string, firstChanged: number, lastChanged: number): string {
  const lines = splitLines(text);
  if (lines.length === 0) return `${virtual} is now empty.`;
  const from = Math.max(0, Math.min(firstChanged, lines.length - 1) - SNIPPET_CONTEXT_LINES);
  const to = Math.min(lines.length, lastChanged + SNIPPET_CONTEXT_LINES + 1);
  return numbered(lines.slice(from, to), from + 1);
}

/** A directory's listing: its entries `MEMORY_VIEW_LEVELS` deep with their sizes, hidden entries left out. */
export function renderListing(virtual: string, tree: TreeNode[]): string {
  const lines = [`Here're the files and directories up to ${MEMORY_VIEW_LEVELS} levels deep in ${virtual}, excluding hidden items:`];
  lines.push(`${humanSize(totals(tree).bytes)}\t${virtual}`);
  const visit = (nodes: TreeNode[], level: number) => {
    for (const n of nodes) {
      if (n.name.startsWith('.')) continue;
      lines.push(`${humanSize(n.bytes)}\t${n.virtual}${n.dir ? '/' : ''}`);
      if (n.dir && level < MEMORY_VIEW_LEVELS) visit(n.children, level + 1);
    }
  };
  visit(tree, 1);
  return lines.join('\n');
}
