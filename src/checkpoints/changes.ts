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

/**
 * The order a walk lists entries in: by name within a directory, depth first — so at the first
 * character two paths differ, a `/` (the end of a shorter name) sorts before anything else.
 */
export function walkOrder(x: string, y: string): number {
  const n = Math.min(x.length, y.length);
  for (let i = 0; i < n; i++) {
    const a = x.charCodeAt(i);
    const b = y.charCodeAt(i);
    if (a !== b) return (a === 0x2f ? -1 : a) - (b === 0x2f ? -1 : b);
  }
  return x.length - y.length;
}

type Pair = { path: string; a?: Leaf; b?: Leaf };

/**
 * The leaves that differ between `before` and `after`, sorted by path. Both lists are in walk
 * order, so one merge finds them; what a walk took whole from the last one is the very same
 * entry object, passed over without a look. Lists out of order (never made by a walk) are
 * compared by a map of paths instead.
 */
function pairs(before: readonly Entry[], after: readonly Entry[]): Pair[] {
  const out: Pair[] = [];
  let i = 0;
  let j = 0;
  let last = '';
  const ordered = (p: string): boolean => {
    const ok = last === '' || walkOrder(last, p) <= 0;
    last = p;
    return ok;
  };
  while (i < before.length || j < after.length) {
    const x = before[i];
    const y = after[j];
    if (x !== undefined && x === y) {
      i++;
      j++;
      continue;
    }
    const order = x === undefined ? 1 : y === undefined ? -1 : walkOrder(x.path, y.path);
    if (!ordered(order <= 0 ? x!.path : y!.path)) return pairsByPath(before, after);
    if (order < 0) {
      if (isLeaf(x!)) out.push({ path: x!.path, a: x! });
      i++;
    } else if (order > 0) {
      if (isLeaf(y!)) out.push({ path: y!.path, b: y! });
      j++;
    } else {
      const a = isLeaf(x!) ? x! : undefined;
      const b = isLeaf(y!) ? y! : undefined;
      if ((a || b) && !(a && b && same(a, b))) out.push({ path: x!.path, ...(a ? { a } : {}), ...(b ? { b } : {}) });
      i++;
      j++;
    }
  }
  return out.sort((p, q) => (p.path < q.path ? -1 : p.path > q.path ? 1 : 0));
}

function pairsByPath(before: readonly Entry[], after: readonly Entry[]): Pair[] {
  const a = new Map(before.filter(isLeaf).map((e) => [e.path, e]));
  const b = new Map(after.filter(isLeaf).map((e) => [e.path, e]));
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

/** The changes between two recorded states, sorted by path (the first `limit` of them), and how many there are. */
export async function changesCounted(before: readonly Entry[], after: readonly Entry[], contentOf: ContentOf, limit = Infinity): Promise<{ files: FileChange[]; total: number }> {
  const all = pairs(before, after);
  const files: FileChange[] = [];
  for (const { path: p, a, b } of all.slice(0, limit)) {
    const [x, y] = await Promise.all([side(a, contentOf), side(b, contentOf)]);
    const ops = x.text !== null && y.text !== null ? diffLines(tokens(x.text), tokens(y.text)) : null;
    files.push(changeOf(p, a, b, x, y, ops));
  }
  return { files, total: all.length };
}

/** The changes between two recorded states, sorted by path (the first `limit` of them). */
export async function changesBetween(before: readonly Entry[], after: readonly Entry[], contentOf: ContentOf, limit = Infinity): Promise<FileChange[]> {
  return (await changesCounted(before, after, contentOf, limit)).files;
}

const modeOf = (e: Leaf): string => (e.kind === 'link' ? '120000' : (e.mode & 0o111) !== 0 ? '100755' : '100644');

/**
 * A path as git writes it in a diff's headers: with a control character, a quote, a backslash or
 * a byte past ASCII, the whole name in double quotes with C escapes (octal for the bytes), so a
 * file name can never end a header line or forge another.
 */
export function diffName(prefix: string, p: string): string {
  const name = `${prefix}${p}`;
  if (!/[\x00-\x1f\x7f"\\\u0080-\uffff]/.test(name)) return name;
  const escapes: Record<string, string> = { '"': '\\"', '\\': '\\\\', '\n': '\\n', '\t': '\\t', '\r': '\\r', '\b': '\\b', '\f': '\\f', '\v': '\\v', '\x07': '\\a' };
  let out = '';
  for (const byte of Buffer.from(name, 'utf8')) {
    const ch = String.fromCharCode(byte);
    if (escapes[ch]) out += escapes[ch];
    else if (byte < 0x20 || byte >= 0x7f) out += `\\${byte.toString(8).padStart(3, '0')}`;
    else out += ch;
  }
  return `"${out}"`;
}

/** Past this much text a unified diff stops, and says how many files it left out. */
export const MAX_DIFF_CHARS = 16 * 1024 * 1024;

/** The same changes as a unified diff, git's style. */
export async function unifiedDiff(before: readonly Entry[], after: readonly Entry[], contentOf: ContentOf, maxChars = MAX_DIFF_CHARS): Promise<string> {
  const out: string[] = [];
  let size = 0;
  const all = pairs(before, after);
  for (const [i, { path: p, a, b }] of all.entries()) {
    if (size > maxChars) {
      out.push(`# the diff stops here at ${maxChars} characters: ${all.length - i} more changed file(s) not shown (GET …/changes lists them all)\n`);
      break;
    }
    const [x, y] = await Promise.all([side(a, contentOf), side(b, contentOf)]);
    const from = a ? diffName('a/', p) : '/dev/null';
    const to = b ? diffName('b/', p) : '/dev/null';
    const start = out.length;
    out.push(`diff --git ${diffName('a/', p)} ${diffName('b/', p)}\n`);
    if (!a) out.push(`new file mode ${modeOf(b!)}\n`);
    else if (!b) out.push(`deleted file mode ${modeOf(a)}\n`);
    else if (modeOf(a) !== modeOf(b)) out.push(`old mode ${modeOf(a)}\nnew mode ${modeOf(b)}\n`);
    if (x.binary || y.binary) out.push(`Binary files ${from} and ${to} differ\n`);
    else {
      const body = hunks(diffLines(tokens(x.text!), tokens(y.text!)));
      if (body !== '') out.push(`--- ${from}\n+++ ${to}\n`, marked(body));
    }
    for (let k = start; k < out.length; k++) size += out[k]!.length;
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
