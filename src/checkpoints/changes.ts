// What changed between two recorded states of a workspace: per path, added, modified or deleted,
// whether it is binary, the contents' names and the lines added and deleted; and the same as a
// unified diff (git's extended headers for new and deleted files, modes and links; binary files
// named, not dumped). A rename is a deletion and an addition. A link is compared by its target; a
// change of permission bits alone is a modification with no lines.
import type { Entry, FileEntry, LinkEntry } from './scan.js';
import { counts, diffLines, hunks, linesOf, type Op } from './line-diff.js';

export interface FileChange {
  path: string;
  status: 'added' | 'modified' | 'deleted';
  binary: boolean;
  before_sha256?: string;
  after_sha256?: string;
  additions: number;
  deletions: number;
}

/** Reads a content by name (the object store's get). */
export type ContentOf = (sha256: string) => Promise<Buffer>;

type Leaf = FileEntry | LinkEntry;

const isLeaf = (e: Entry): e is Leaf => e.kind !== 'dir';

/** Binary: a NUL in its first 8,000 bytes, or not UTF-8. */
export function isBinary(bytes: Buffer): boolean {
  if (bytes.subarray(0, 8000).includes(0)) return true;
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return false;
  } catch {
    return true;
  }
}

const same = (a: Leaf, b: Leaf): boolean =>
  a.kind === b.kind && (a.kind === 'link' ? a.target === (b as LinkEntry).target : a.sha256 === (b as FileEntry).sha256 && a.mode === (b as FileEntry).mode);

/** The leaves that differ between `before` and `after`, by path. */
function pairs(before: readonly Entry[], after: readonly Entry[]): { path: string; a?: Leaf; b?: Leaf }[] {
  // What a walk took whole from the last one is the very same entry: only the others can differ.
  const inBefore = new Set(before);
  const inAfter = new Set(after);
  const a = new Map(before.filter((e): e is Leaf => isLeaf(e) && !inAfter.has(e)).map((e) => [e.path, e]));
  const b = new Map(after.filter((e): e is Leaf => isLeaf(e) && !inBefore.has(e)).map((e) => [e.path, e]));
  const paths = [...new Set([...a.keys(), ...b.keys()])].sort();
  return paths.flatMap((p) => {
    const x = a.get(p);
    const y = b.get(p);
    return x && y && same(x, y) ? [] : [{ path: p, ...(x ? { a: x } : {}), ...(y ? { b: y } : {}) }];
  });
}

interface Side {
  text: string | null;
  binary: boolean;
  sha256?: string;
}

async function side(e: Leaf | undefined, contentOf: ContentOf): Promise<Side> {
  if (!e) return { text: '', binary: false };
  if (e.kind === 'link') return { text: e.target, binary: false };
  const bytes = await contentOf(e.sha256);
  return isBinary(bytes) ? { text: null, binary: true, sha256: e.sha256 } : { text: bytes.toString('utf8'), binary: false, sha256: e.sha256 };
}

function changeOf(pathName: string, a: Leaf | undefined, b: Leaf | undefined, x: Side, y: Side, ops: Op[] | null): FileChange {
  const { additions, deletions } = ops ? counts(ops) : { additions: 0, deletions: 0 };
  return {
    path: pathName,
    status: !a ? 'added' : !b ? 'deleted' : 'modified',
    binary: x.binary || y.binary,
    ...(x.sha256 ? { before_sha256: x.sha256 } : {}),
    ...(y.sha256 ? { after_sha256: y.sha256 } : {}),
    additions,
    deletions,
  };
}

/** The changes between two recorded states, sorted by path. */
export async function changesBetween(before: readonly Entry[], after: readonly Entry[], contentOf: ContentOf): Promise<FileChange[]> {
  const out: FileChange[] = [];
  for (const { path: p, a, b } of pairs(before, after)) {
    const [x, y] = await Promise.all([side(a, contentOf), side(b, contentOf)]);
    const ops = x.text !== null && y.text !== null ? diffLines(tokens(x.text), tokens(y.text)) : null;
    out.push(changeOf(p, a, b, x, y, ops));
  }
  return out;
}

const modeOf = (e: Leaf): string => (e.kind === 'link' ? '120000' : (e.mode & 0o111) !== 0 ? '100755' : '100644');

/** The same changes as a unified diff, git's style. */
export async function unifiedDiff(before: readonly Entry[], after: readonly Entry[], contentOf: ContentOf): Promise<string> {
  const out: string[] = [];
  for (const { path: p, a, b } of pairs(before, after)) {
    const [x, y] = await Promise.all([side(a, contentOf), side(b, contentOf)]);
    out.push(`diff --git a/${p} b/${p}\n`);
    if (!a) out.push(`new file mode ${modeOf(b!)}\n`);
    else if (!b) out.push(`deleted file mode ${modeOf(a)}\n`);
    else if (modeOf(a) !== modeOf(b)) out.push(`old mode ${modeOf(a)}\nnew mode ${modeOf(b)}\n`);
    if (x.binary || y.binary) {
      out.push(`Binary files ${a ? `a/${p}` : '/dev/null'} and ${b ? `b/${p}` : '/dev/null'} differ\n`);
      continue;
    }
    const body = hunks(diffLines(tokens(x.text!), tokens(y.text!)));
    if (body === '') continue;
    out.push(`--- ${a ? `a/${p}` : '/dev/null'}\n+++ ${b ? `b/${p}` : '/dev/null'}\n`, marked(body));
  }
  return out.join('');
}

/** Text has no NUL (that is binary), so this marks a last line without its newline unambiguously. */
const NO_NEWLINE = '\u0000';

/** The lines of a text for diffing: a last line without its newline differs from the same line with one. */
function tokens(text: string): string[] {
  const lines = linesOf(text);
  if (text !== '' && !text.endsWith('\n')) lines[lines.length - 1] += NO_NEWLINE;
  return lines;
}

/** Hunks with the marked line shown as diff shows it. */
function marked(body: string): string {
  return body.replaceAll(`${NO_NEWLINE}\n`, '\n\\ No newline at end of file\n');
}
