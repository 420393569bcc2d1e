// The store behind the Memory tool's `/memories`: a directory of small text files, private to a
// session or shared by the sessions that name one store. Virtual paths are checked lexically
// (never normalised: a `..` is refused, not resolved) and mapped onto the store directory. Reads
// and atomic writes go through the path sandbox (a Workspace opened on the store); every other
// step reaches entries through directory descriptors opened with O_NOFOLLOW one component at a
// time, so a symlink, FIFO, device or socket planted in the store is never followed or opened:
// listings leave such entries out, and delete and rename act on the link itself. Mutating
// commands of one store are serialised within the process, so a read-modify-write (str_replace,
// insert) never loses another session's write, and the store's limits are checked against a
// consistent view before anything is written.
import { createHash } from 'node:crypto';
import type { Dirent, Stats } from 'node:fs';
import fs from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { Confinement, DIR_FLAGS, procFd, type Anchor } from '../../sandbox/path-confine.js';
import { fileKind, refusalFromErrno } from '../../sandbox/path-refusal.js';
import { PathRefusal, Workspace } from '../../sandbox/paths.js';
import { ToolRefusal } from '../../tools/tool.js';

/** The virtual directory the model sees the store as. */
export const MEMORY_ROOT = '/memories';
/** Largest text of one memory file, in UTF-8 bytes. */
export const MAX_MEMORY_FILE_BYTES = 256 * 1024;
/** Largest total size of the regular files of one store, in bytes. */
export const MAX_MEMORY_STORE_BYTES = 8 * 1024 * 1024;
/** Most regular files one store holds. */
export const MAX_MEMORY_FILES = 1000;
/** Most components a path below `/memories` has (`/memories/a/b.md` has 2). */
export const MAX_MEMORY_DEPTH = 16;
/** Longest virtual path, in characters. */
export const MAX_MEMORY_PATH_CHARS = 1024;
/** Longest name of one path component, in bytes. */
export const MAX_MEMORY_NAME_BYTES = 255;
/** How many levels below the viewed directory a `view` lists. */
export const MEMORY_VIEW_LEVELS = 2;
/** Most entries one walk of the store visits: a store filled from outside cannot make a walk unbounded. */
export const MAX_MEMORY_WALK_ENTRIES = 50_000;
/** Lines shown before and after an edit in its confirmation. */
const SNIPPET_CONTEXT_LINES = 4;

export interface MemoryLimits {
  fileBytes: number;
  storeBytes: number;
  files: number;
  depth: number;
}

export const MEMORY_LIMITS: Readonly<MemoryLimits> = {
  fileBytes: MAX_MEMORY_FILE_BYTES,
  storeBytes: MAX_MEMORY_STORE_BYTES,
  files: MAX_MEMORY_FILES,
  depth: MAX_MEMORY_DEPTH,
};

export interface MemoryFileInfo {
  /** `/memories/…` */
  path: string;
  bytes: number;
  /** SHA-256 (hex) of the file's bytes. */
  sha256: string;
  /** ISO 8601 modification time. */
  modified_at: string;
}

/** A virtual path that passed the lexical checks. */
export interface MemoryPath {
  /** Canonical spelling: `/memories` or `/memories/a/b` (no trailing slash). */
  virtual: string;
  /** Components below `/memories`. */
  parts: string[];
  /** Written with a trailing `/`: it names a directory. */
  dirMarker: boolean;
}

/** The path sandbox on the store and the descriptor confinement the other steps use. */
interface Store {
  ws: Workspace;
  c: Confinement;
  /** Real path of the store directory. */
  root: string;
}

type Entry =
  | { kind: 'missing' }
  | { kind: 'dir' }
  | { kind: 'file'; st: Stats }
  | { kind: 'link'; st: Stats }
  | { kind: 'other'; st: Stats };

interface TreeNode {
  name: string;
  virtual: string;
  dir: boolean;
  /** A file's size; a directory's: the total of the regular files below it. */
  bytes: number;
  files: number;
  children: TreeNode[];
}

/** A component that does not exist: still a refusal the model sees, but callers may treat it as "absent". */
class MissingRefusal extends PathRefusal {}

const LINKS_RULE = 'is a symlink; the memory store never follows links';

function shorten(p: string): string {
  return p.length > 64 ? `${p.slice(0, 64)}…` : p;
}

/**
 * Checks a path the model gave lexically and maps it to components below `/memories`. Refused:
 * anything not `/memories` or below it, relative paths, `.`/`..`/empty components anywhere, NUL
 * bytes, backslashes, over-long names and paths, and paths deeper than `depth`. One trailing `/`
 * is accepted and marks a directory.
 */
export function parseMemoryPath(p: string, depth: number = MAX_MEMORY_DEPTH): MemoryPath {
  if (typeof p !== 'string' || p.length === 0) throw new PathRefusal('""', `empty path; memory paths start with ${MEMORY_ROOT}`);
  if (p.includes('\0')) throw new PathRefusal(JSON.stringify(shorten(p)), 'contains a NUL byte');
  if (p.length > MAX_MEMORY_PATH_CHARS) throw new PathRefusal(shorten(p), `path longer than ${MAX_MEMORY_PATH_CHARS} characters`);
  if (p.includes('\\')) throw new PathRefusal(p, 'contains a backslash; memory paths separate names with "/"');
  if (!p.startsWith('/')) throw new PathRefusal(p, `relative path; memory paths are absolute and start with ${MEMORY_ROOT}`);
  const dirMarker = p.length > 1 && p.endsWith('/');
  const trimmed = dirMarker ? p.slice(0, -1) : p;
  // Every component is judged as written, before the prefix: `/x/../memories` is refused for
  // its `..`, not accepted because it would normalise to `/memories`.
  const all = trimmed.split('/').slice(1);
  if (all.includes('..')) throw new PathRefusal(p, `has a ".." component; memory paths cannot leave ${MEMORY_ROOT}`);
  if (all.includes('.')) throw new PathRefusal(p, 'has a "." component; write the path without it');
  if (trimmed !== MEMORY_ROOT && !trimmed.startsWith(`${MEMORY_ROOT}/`)) {
    throw new PathRefusal(p, `outside the memory store; memory paths are ${MEMORY_ROOT} or start with ${MEMORY_ROOT}/`);
  }
  const parts = trimmed === MEMORY_ROOT ? [] : trimmed.slice(MEMORY_ROOT.length + 1).split('/');
  if (parts.includes('')) throw new PathRefusal(p, 'has an empty path component ("//")');
  if (parts.some((c) => Buffer.byteLength(c, 'utf8') > MAX_MEMORY_NAME_BYTES)) {
    throw new PathRefusal(shorten(p), `has a name longer than ${MAX_MEMORY_NAME_BYTES} bytes`);
  }
  if (parts.length > depth) throw new PathRefusal(shorten(p), `is ${parts.length} levels deep; memory paths may be at most ${depth} levels below ${MEMORY_ROOT}`);
  return { virtual: parts.length === 0 ? MEMORY_ROOT : `${MEMORY_ROOT}/${parts.join('/')}`, parts, dirMarker };
}

// ────────────────────────────────────────────────────────────────────────────────────────────
// Serialisation: one promise chain per store directory (its real path), shared by every
// MemoryFiles of the process, because a named store is used by several sessions at once.

const chains = new Map<string, Promise<unknown>>();

async function serialised<T>(key: string, fn: () => Promise<T>): Promise<T> {
  const previous = chains.get(key) ?? Promise.resolve();
  const run = previous.then(fn, fn);
  const tail = run.then(
    () => undefined,
    () => undefined,
  );
  chains.set(key, tail);
  try {
    return await run;
  } finally {
    // The map holds only stores with work queued; the last one out removes the entry.
    if (chains.get(key) === tail) chains.delete(key);
  }
}

// ────────────────────────────────────────────────────────────────────────────────────────────
// Text helpers

/** The lines of a text: a final newline ends the last line rather than starting an empty one. */
function splitLines(text: string): string[] {
  if (text === '') return [];
  return (text.endsWith('\n') ? text.slice(0, -1) : text).split('\n');
}

/** `cat -n` style: the number right-aligned in 6 columns, a tab, the line. */
function numbered(lines: readonly string[], firstLineNo: number): string {
  return lines.map((l, i) => `${String(firstLineNo + i).padStart(6, ' ')}\t${l}`).join('\n');
}

function countNewlines(s: string): number {
  let n = 0;
  for (let i = s.indexOf('\n'); i !== -1; i = s.indexOf('\n', i + 1)) n++;
  return n;
}

/** Sizes as `du -h` shows them: `512B`, `1.5K`, `2.0M`. */
export function humanSize(bytes: number): string {
  if (bytes < 1024) return `${bytes}B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)}K`;
  return `${(bytes / (1024 * 1024)).toFixed(1)}M`;
}

/** A limit as the refusal names it: `256 KiB (262144 bytes)`. */
function limitText(bytes: number): string {
  if (bytes >= 1024 * 1024 && bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB (${bytes} bytes)`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KiB (${bytes} bytes)`;
  return `${bytes} bytes`;
}

function snippetAround(virtual: string, text: string, firstChanged: number, lastChanged: number): string {
  const lines = splitLines(text);
  if (lines.length === 0) return `${virtual} is now empty.`;
  const from = Math.max(0, Math.min(firstChanged, lines.length - 1) - SNIPPET_CONTEXT_LINES);
  const to = Math.min(lines.length, lastChanged + SNIPPET_CONTEXT_LINES + 1);
  return numbered(lines.slice(from, to), from + 1);
}

function byName(a: Dirent, b: Dirent): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

// ────────────────────────────────────────────────────────────────────────────────────────────

export class MemoryFiles {
  readonly dir: string;
  readonly limits: Readonly<MemoryLimits>;
  private opened: Promise<Store> | null = null;

  constructor(dir: string, opts: { limits?: Partial<MemoryLimits> } = {}) {
    this.dir = path.resolve(dir);
    this.limits = { ...MEMORY_LIMITS, ...(opts.limits ?? {}) };
  }

  parse(p: string): MemoryPath {
    return parseMemoryPath(p, this.limits.depth);
  }

  // ── Commands ────────────────────────────────────────────────────────────────────────────

  /** A directory's listing (2 levels, sizes, hidden entries left out) or a file's numbered lines. */
  async view(p: string, range?: readonly [number, number]): Promise<string> {
    const mp = this.parse(p);
    const s = await this.store(false);
    if (s === null) {
      if (mp.parts.length > 0) throw new PathRefusal(mp.virtual, 'does not exist');
      if (range) throw new ToolRefusal(`${mp.virtual} is a directory; view_range applies to files only.`);
      return this.renderListing(mp.virtual, []);
    }
    const entry = await this.entry(s, mp);
    if (entry.kind === 'dir') {
      if (range) throw new ToolRefusal(`${mp.virtual} is a directory; view_range applies to files only.`);
      const dir = await this.openDir(s, mp.virtual, mp.parts, false);
      try {
        return this.renderListing(mp.virtual, await this.readTree(s, dir, mp.virtual, mp.parts.length, { left: MAX_MEMORY_WALK_ENTRIES }));
      } finally {
        await dir.handle.close().catch(() => undefined);
      }
    }
    const text = await this.readText(s, mp, entry);
    const lines = splitLines(text);
    if (lines.length === 0) return `${mp.virtual} is empty.`;
    let first = 1;
    let last = lines.length;
    if (range) {
      const [start, end] = range;
      if (!Number.isInteger(start) || !Number.isInteger(end) || start < 1 || (end !== -1 && end < start)) {
        throw new ToolRefusal(`Invalid view_range [${start}, ${end}]: the start must be at least 1 and the end -1 (to the end of the file) or at least the start.`);
      }
      if (start > lines.length) {
        throw new ToolRefusal(`Invalid view_range [${start}, ${end}]: ${mp.virtual} has ${lines.length} line${lines.length === 1 ? '' : 's'}.`);
      }
      first = start;
      last = end === -1 ? lines.length : Math.min(end, lines.length);
    }
    return `Here's the content of ${mp.virtual} with line numbers:\n${numbered(lines.slice(first - 1, last), first)}`;
  }

  /** Creates or replaces a file; parent directories are created. */
  async create(p: string, fileText: string): Promise<string> {
    const mp = this.parse(p);
    this.requireFileName(mp);
    const bytes = this.checkFileSize(mp.virtual, fileText);
    const s = await this.store(true);
    return serialised(s.root, async () => {
      const entry = await this.entry(s, mp);
      this.requireWritable(mp.virtual, entry, true);
      const previous = entry.kind === 'file' ? entry.st.size : null;
      await this.checkStore(s, mp.virtual, bytes - (previous ?? 0), previous === null ? 1 : 0);
      await this.write(s, mp, fileText);
      return previous === null ? `File created successfully at: ${mp.virtual}` : `File created successfully at: ${mp.virtual} (it replaced the previous content)`;
    });
  }

  /** Replaces the one occurrence of `oldStr`. */
  async strReplace(p: string, oldStr: string, newStr: string): Promise<string> {
    const mp = this.parse(p);
    this.requireFileName(mp);
    if (oldStr.length === 0) throw new ToolRefusal('No replacement was performed: old_str is empty.');
    const s = await this.existingStore(mp);
    return serialised(s.root, async () => {
      const entry = await this.entry(s, mp);
      this.requireWritable(mp.virtual, entry, false);
      const text = await this.readText(s, mp, entry);
      const at: number[] = [];
      // Overlapping occurrences count too: either could be the one meant.
      for (let i = text.indexOf(oldStr); i !== -1; i = text.indexOf(oldStr, i + 1)) at.push(i);
      if (at.length === 0) throw new ToolRefusal(`No replacement was performed: old_str did not appear verbatim in ${mp.virtual}.`);
      if (at.length > 1) {
        const lines = [...new Set(at.map((i) => countNewlines(text.slice(0, i)) + 1))];
        throw new ToolRefusal(
          `No replacement was performed: old_str occurs ${at.length} times in ${mp.virtual}, in line${lines.length === 1 ? '' : 's'} ${lines.join(', ')}. ` +
            'Include more of the surrounding text so that it is unique.',
        );
      }
      const index = at[0]!;
      const next = text.slice(0, index) + newStr + text.slice(index + oldStr.length);
      const bytes = this.checkFileSize(mp.virtual, next);
      await this.checkStore(s, mp.virtual, bytes - Buffer.byteLength(text, 'utf8'), 0);
      await this.write(s, mp, next);
      const firstLine = countNewlines(text.slice(0, index));
      return `The memory file has been edited. Here is ${mp.virtual} around the change:\n${snippetAround(mp.virtual, next, firstLine, firstLine + countNewlines(newStr))}`;
    });
  }

  /** Inserts `insertText` after line `line` (0: at the top). */
  async insert(p: string, line: number, insertText: string): Promise<string> {
    const mp = this.parse(p);
    this.requireFileName(mp);
    const s = await this.existingStore(mp);
    return serialised(s.root, async () => {
      const entry = await this.entry(s, mp);
      this.requireWritable(mp.virtual, entry, false);
      const text = await this.readText(s, mp, entry);
      const lines = splitLines(text);
      if (!Number.isInteger(line) || line < 0 || line > lines.length) {
        throw new ToolRefusal(`Invalid insert_line ${line}: it must be within [0, ${lines.length}], the lines of ${mp.virtual} (0 inserts at the top).`);
      }
      const added = splitLines(insertText);
      if (added.length === 0) added.push('');
      const endsWithNewline = text === '' ? insertText.endsWith('\n') : text.endsWith('\n');
      const next = [...lines.slice(0, line), ...added, ...lines.slice(line)].join('\n') + (endsWithNewline ? '\n' : '');
      const bytes = this.checkFileSize(mp.virtual, next);
      await this.checkStore(s, mp.virtual, bytes - Buffer.byteLength(text, 'utf8'), 0);
      await this.write(s, mp, next);
      return `The file ${mp.virtual} has been edited. Here is ${mp.virtual} around the insertion:\n${snippetAround(mp.virtual, next, line, line + added.length - 1)}`;
    });
  }

  /** Deletes a file, a directory with everything below it, or a link (never what it points to). */
  async delete(p: string): Promise<string> {
    const mp = this.parse(p);
    if (mp.parts.length === 0) throw new ToolRefusal(`${MEMORY_ROOT} itself cannot be deleted; delete the files and directories inside it.`);
    const s = await this.existingStore(mp);
    return serialised(s.root, async () => {
      const name = mp.parts[mp.parts.length - 1]!;
      const parent = await this.openDirOrMissing(s, mp.virtual, mp.parts.slice(0, -1));
      try {
        const target = s.c.at(parent, name);
        const st = await this.lstatOrNull(mp.virtual, target);
        if (st === null) throw new PathRefusal(mp.virtual, 'does not exist');
        if (mp.dirMarker && !st.isDirectory()) throw new PathRefusal(mp.virtual, 'is not a directory');
        if (st.isDirectory()) await this.removeTree(s, parent, name, mp.virtual, { left: MAX_MEMORY_WALK_ENTRIES });
        else await fs.unlink(target).catch((err: unknown) => Promise.reject(refusalFromErrno(mp.virtual, err)));
      } finally {
        await parent.handle.close().catch(() => undefined);
      }
      return `Successfully deleted ${mp.virtual}`;
    });
  }

  /** Renames or moves a file or directory (a link is moved as a link); refused when `newPath` exists. */
  async rename(oldPath: string, newPath: string): Promise<string> {
    const from = this.parse(oldPath);
    const to = this.parse(newPath);
    if (from.parts.length === 0) throw new ToolRefusal(`${MEMORY_ROOT} itself cannot be renamed.`);
    if (to.parts.length === 0) throw new ToolRefusal(`The destination ${MEMORY_ROOT} already exists.`);
    if (to.virtual.startsWith(`${from.virtual}/`)) throw new ToolRefusal(`${from.virtual} cannot be moved into itself (${to.virtual}).`);
    const s = await this.existingStore(from);
    return serialised(s.root, async () => {
      const oldParent = await this.openDirOrMissing(s, from.virtual, from.parts.slice(0, -1));
      try {
        const oldName = from.parts[from.parts.length - 1]!;
        const st = await this.lstatOrNull(from.virtual, s.c.at(oldParent, oldName));
        if (st === null) throw new PathRefusal(from.virtual, 'does not exist');
        if (from.dirMarker && !st.isDirectory()) throw new PathRefusal(from.virtual, 'is not a directory');
        if ((await this.entry(s, to)).kind !== 'missing') throw new ToolRefusal(`The destination ${to.virtual} already exists; nothing was renamed.`);
        if (st.isDirectory()) {
          // What is moved keeps its inner levels: the deepest of them must stay within the limit.
          const dir = await this.openAnchored(s, from.virtual, s.c.at(oldParent, oldName), from.virtual);
          let height: number;
          try {
            height = treeHeight(await this.readTree(s, dir, from.virtual, from.parts.length, { left: MAX_MEMORY_WALK_ENTRIES }));
          } finally {
            await dir.handle.close().catch(() => undefined);
          }
          if (to.parts.length + height > this.limits.depth) {
            throw new ToolRefusal(
              `${to.virtual}: moving ${from.virtual} there would put entries ${to.parts.length + height} levels deep; memory paths may be at most ${this.limits.depth} levels below ${MEMORY_ROOT}. Nothing was renamed.`,
            );
          }
        }
        const newParent = await this.openDir(s, to.virtual, to.parts.slice(0, -1), true);
        try {
          const target = s.c.at(newParent, to.parts[to.parts.length - 1]!);
          // Checked again through the descriptor the rename uses.
          if ((await this.lstatOrNull(to.virtual, target)) !== null) throw new ToolRefusal(`The destination ${to.virtual} already exists; nothing was renamed.`);
          await fs.rename(s.c.at(oldParent, oldName), target).catch((err: unknown) => Promise.reject(refusalFromErrno(from.virtual, err)));
        } finally {
          await newParent.handle.close().catch(() => undefined);
        }
      } finally {
        await oldParent.handle.close().catch(() => undefined);
      }
      return `Successfully renamed ${from.virtual} to ${to.virtual}`;
    });
  }

  /** Every regular file of the store (hidden ones too), sorted by path, with its digest. */
  async list(): Promise<MemoryFileInfo[]> {
    const s = await this.store(false);
    if (s === null) return [];
    return serialised(s.root, async () => {
      const root = await this.openDir(s, MEMORY_ROOT, [], false);
      let tree: TreeNode[];
      try {
        tree = await this.readTree(s, root, MEMORY_ROOT, 0, { left: MAX_MEMORY_WALK_ENTRIES });
      } finally {
        await root.handle.close().catch(() => undefined);
      }
      const files: string[] = [];
      const collect = (nodes: TreeNode[]) => {
        for (const n of nodes) {
          if (n.dir) collect(n.children);
          else files.push(n.virtual);
        }
      };
      collect(tree);
      files.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
      const out: MemoryFileInfo[] = [];
      for (const virtual of files) {
        const info = await this.digest(s, virtual).catch((err: unknown) => {
          // Gone or replaced by something that is not a regular file since the walk: not listed.
          if (err instanceof PathRefusal) return null;
          throw err;
        });
        if (info) out.push(info);
      }
      return out;
    });
  }

  /** Whether a path names an existing directory of the store (for rule subjects); false for anything unusable. */
  async isDirectory(p: string): Promise<boolean> {
    try {
      const mp = this.parse(p);
      if (mp.parts.length === 0) return true;
      const s = await this.store(false);
      return s !== null && (await this.entry(s, mp)).kind === 'dir';
    } catch {
      return false;
    }
  }

  // ── The store directory ─────────────────────────────────────────────────────────────────

  /** The store, opened once; null when it does not exist yet and `create` is false. */
  private store(create: true): Promise<Store>;
  private store(create: false): Promise<Store | null>;
  private async store(create: boolean): Promise<Store | null> {
    if (create) {
      // Made on first write, private to the server's user.
      await fs.mkdir(this.dir, { recursive: true, mode: 0o700 });
    } else if (this.opened === null) {
      const st = await fs.stat(this.dir).catch((err: NodeJS.ErrnoException) => (err.code === 'ENOENT' ? null : Promise.reject(err)));
      if (st === null) return null;
    }
    this.opened ??= (async () => {
      const ws = await Workspace.open(this.dir);
      return { ws, c: new Confinement([ws.root], await procFd()), root: ws.root };
    })();
    try {
      return await this.opened;
    } catch (err) {
      this.opened = null;
      throw err;
    }
  }

  /** The store for a command on an existing path: a missing store has none. */
  private async existingStore(mp: MemoryPath): Promise<Store> {
    const s = await this.store(false);
    if (s === null) throw new PathRefusal(mp.virtual, 'does not exist');
    return s;
  }

  // ── Limits ──────────────────────────────────────────────────────────────────────────────

  private checkFileSize(virtual: string, text: string): number {
    const bytes = Buffer.byteLength(text, 'utf8');
    if (bytes > this.limits.fileBytes) {
      throw new ToolRefusal(
        `${virtual}: the file would be ${bytes} bytes; a memory file may be at most ${limitText(this.limits.fileBytes)}. Nothing was written.`,
      );
    }
    return bytes;
  }

  /** Refuses a write that would take the store past its total size or file count. */
  private async checkStore(s: Store, virtual: string, addedBytes: number, addedFiles: number): Promise<void> {
    const root = await this.openDir(s, MEMORY_ROOT, [], false);
    let usage: { bytes: number; files: number };
    try {
      usage = totals(await this.readTree(s, root, MEMORY_ROOT, 0, { left: MAX_MEMORY_WALK_ENTRIES }));
    } finally {
      await root.handle.close().catch(() => undefined);
    }
    if (addedFiles > 0 && usage.files + addedFiles > this.limits.files) {
      throw new ToolRefusal(
        `${virtual}: the memory store already holds ${usage.files} files; it may hold at most ${this.limits.files}. Delete or merge memory files first. Nothing was written.`,
      );
    }
    if (addedBytes > 0 && usage.bytes + addedBytes > this.limits.storeBytes) {
      throw new ToolRefusal(
        `${virtual}: the memory store would hold ${usage.bytes + addedBytes} bytes; it may hold at most ${limitText(this.limits.storeBytes)}. ` +
          'Delete or shorten memory files first. Nothing was written.',
      );
    }
  }

  // ── Entries ─────────────────────────────────────────────────────────────────────────────

  private requireFileName(mp: MemoryPath): void {
    if (mp.parts.length === 0) throw new PathRefusal(mp.virtual, 'is the memory store directory; name a file inside it');
    if (mp.dirMarker) throw new PathRefusal(`${mp.virtual}/`, 'names a directory, not a file');
  }

  /** What a path names, looked at without following links (its parents must be real directories). */
  private async entry(s: Store, mp: MemoryPath): Promise<Entry> {
    if (mp.parts.length === 0) return { kind: 'dir' };
    let parent: Anchor;
    try {
      parent = await this.openDir(s, mp.virtual, mp.parts.slice(0, -1), false);
    } catch (err) {
      if (err instanceof MissingRefusal) return { kind: 'missing' };
      throw err;
    }
    try {
      const st = await this.lstatOrNull(mp.virtual, s.c.at(parent, mp.parts[mp.parts.length - 1]!));
      if (st === null) return { kind: 'missing' };
      if (st.isDirectory()) return { kind: 'dir' };
      if (mp.dirMarker) throw new PathRefusal(mp.virtual, 'is not a directory');
      if (st.isFile()) return { kind: 'file', st };
      if (st.isSymbolicLink()) return { kind: 'link', st };
      return { kind: 'other', st };
    } finally {
      await parent.handle.close().catch(() => undefined);
    }
  }

  /** Refuses writing over anything but a regular file (or, when `mayCreate`, nothing). */
  private requireWritable(virtual: string, entry: Entry, mayCreate: boolean): void {
    switch (entry.kind) {
      case 'file':
        return;
      case 'missing':
        if (mayCreate) return;
        throw new PathRefusal(virtual, 'does not exist');
      case 'dir':
        throw new PathRefusal(virtual, 'is a directory');
      case 'link':
        throw new PathRefusal(virtual, LINKS_RULE);
      case 'other':
        throw new PathRefusal(virtual, `is not a regular file (${fileKind(entry.st)})`);
    }
  }

  private async lstatOrNull(virtual: string, target: string): Promise<Stats | null> {
    try {
      return await fs.lstat(target);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw refusalFromErrno(virtual, err);
    }
  }

  /** A file's text through the path sandbox; files over the size limit are refused, not read. */
  private async readText(s: Store, mp: MemoryPath, entry: Entry): Promise<string> {
    this.requireWritable(mp.virtual, entry, false);
    const file = await this.sandboxed(mp.virtual, () => s.ws.openForRead(path.join(s.root, ...mp.parts)));
    try {
      const tooBig = () =>
        new ToolRefusal(`${mp.virtual} is larger than a memory file may be (${limitText(this.limits.fileBytes)}); it cannot be viewed or edited. Delete it or replace it with create.`);
      if (file.size > this.limits.fileBytes) throw tooBig();
      // One byte more than the limit is asked for, so a file that grew since its stat is caught.
      const buf = Buffer.allocUnsafe(this.limits.fileBytes + 1);
      let filled = 0;
      for (;;) {
        const { bytesRead } = await file.handle.read(buf, filled, buf.length - filled, filled);
        if (bytesRead === 0) break;
        filled += bytesRead;
        if (filled > this.limits.fileBytes) throw tooBig();
      }
      return buf.subarray(0, filled).toString('utf8');
    } finally {
      await file.handle.close().catch(() => undefined);
    }
  }

  /** Writes through the path sandbox: atomic, parents made inside the store, links and special files refused. */
  private async write(s: Store, mp: MemoryPath, text: string): Promise<void> {
    await this.sandboxed(mp.virtual, () => s.ws.writeFileAtomic(path.join(s.root, ...mp.parts), text));
  }

  private async digest(s: Store, virtual: string): Promise<MemoryFileInfo> {
    const parts = virtual.slice(MEMORY_ROOT.length + 1).split('/');
    const file = await this.sandboxed(virtual, () => s.ws.openForRead(path.join(s.root, ...parts)));
    try {
      const hash = createHash('sha256');
      let bytes = 0;
      const buf = Buffer.allocUnsafe(64 * 1024);
      for (;;) {
        const { bytesRead } = await file.handle.read(buf, 0, buf.length, bytes);
        if (bytesRead === 0) break;
        hash.update(buf.subarray(0, bytesRead));
        bytes += bytesRead;
      }
      // Rounded to the millisecond as fs.Stats#mtime is, so the time matches what a stat of the file shows.
      return { path: virtual, bytes, sha256: hash.digest('hex'), modified_at: new Date(Math.round(file.mtimeMs)).toISOString() };
    } finally {
      await file.handle.close().catch(() => undefined);
    }
  }

  /** Runs a path-sandbox call on a store path, reporting its refusals under the virtual path (never the server's). */
  private async sandboxed<T>(virtual: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      if (err instanceof PathRefusal) {
        const rule = err.rule.startsWith('is a symlink') ? LINKS_RULE : err.rule.replace(/the workspace( directory)?/g, 'the memory store');
        throw new PathRefusal(virtual, rule);
      }
      throw err;
    }
  }

  // ── Descriptor walks ────────────────────────────────────────────────────────────────────

  /**
   * Opens the directory `parts` names, one component at a time, each looked up in the previous
   * verified descriptor with O_DIRECTORY|O_NOFOLLOW: a component that is a link (to anywhere)
   * or not a directory is refused, and a swap after a check cannot redirect the walk. With
   * `create`, missing components are made through the same descriptors.
   */
  private async openDir(s: Store, virtual: string, parts: readonly string[], create: boolean): Promise<Anchor> {
    let cur = await this.openAnchored(s, virtual, s.root, MEMORY_ROOT);
    try {
      let shown = MEMORY_ROOT;
      for (const part of parts) {
        shown += `/${part}`;
        const child = s.c.at(cur, part);
        if (create) {
          try {
            await fs.mkdir(child);
          } catch (err) {
            if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw refusalFromErrno(virtual, err);
          }
        }
        const next = await this.openAnchored(s, virtual, child, shown, path.join(cur.real, part));
        await cur.handle.close().catch(() => undefined);
        cur = next;
      }
      return cur;
    } catch (err) {
      await cur.handle.close().catch(() => undefined);
      throw err;
    }
  }

  /** `openDir` for the parent of an entry that must exist: a missing parent is reported as the entry missing. */
  private async openDirOrMissing(s: Store, virtual: string, parts: readonly string[]): Promise<Anchor> {
    try {
      return await this.openDir(s, virtual, parts, false);
    } catch (err) {
      if (err instanceof MissingRefusal) throw new PathRefusal(virtual, 'does not exist');
      throw err;
    }
  }

  /** Opens one directory (never through a link) and verifies its descriptor is inside the store. */
  private async openAnchored(s: Store, virtual: string, target: string, shown: string, real: string = target): Promise<Anchor> {
    const where = shown === virtual ? '' : `${shown} `;
    let handle: FileHandle;
    try {
      handle = await fs.open(target, DIR_FLAGS);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') throw new MissingRefusal(virtual, `${where}does not exist`);
      if (code === 'ENOTDIR' || code === 'ELOOP') {
        const st = await fs.lstat(target).catch(() => null);
        if (st?.isSymbolicLink()) throw new PathRefusal(virtual, `${where}${LINKS_RULE}`);
        throw new PathRefusal(virtual, `${where}is not a directory`);
      }
      throw refusalFromErrno(virtual, err);
    }
    try {
      const opened = await s.c.verifyDescriptor(virtual, handle);
      return { handle, real: opened ?? real };
    } catch (err) {
      await handle.close().catch(() => undefined);
      throw err instanceof PathRefusal ? new PathRefusal(virtual, err.rule.replace(/the workspace/g, 'the memory store')) : err;
    }
  }

  private async readEntries(s: Store, dir: Anchor, virtual: string, budget: { left: number }): Promise<Dirent[]> {
    let entries: Dirent[];
    try {
      entries = await fs.readdir(s.c.anchored ? `/proc/self/fd/${dir.handle.fd}` : dir.real, { withFileTypes: true });
    } catch (err) {
      throw refusalFromErrno(virtual, err);
    }
    budget.left -= entries.length;
    if (budget.left < 0) throw new ToolRefusal(`The memory store has more than ${MAX_MEMORY_WALK_ENTRIES} entries; it is too large to be walked.`);
    return entries.sort(byName);
  }

  /**
   * The regular files and directories below an open directory, sorted by name; links, FIFOs,
   * devices and sockets are left out. Directories deeper than the depth limit are not entered
   * (nothing the tool writes is there).
   */
  private async readTree(s: Store, dir: Anchor, virtual: string, level: number, budget: { left: number }): Promise<TreeNode[]> {
    const out: TreeNode[] = [];
    for (const e of await this.readEntries(s, dir, virtual, budget)) {
      const child = `${virtual}/${e.name}`;
      const target = s.c.at(dir, e.name);
      if (e.isFile()) {
        const st = await fs.lstat(target).catch(() => null);
        if (st?.isFile()) out.push({ name: e.name, virtual: child, dir: false, bytes: st.size, files: 1, children: [] });
      } else if (e.isDirectory()) {
        let sub: Anchor;
        try {
          sub = await this.openAnchored(s, child, target, child, path.join(dir.real, e.name));
        } catch (err) {
          // Gone or swapped for something else since it was listed: not part of the store now.
          if (err instanceof PathRefusal) continue;
          throw err;
        }
        try {
          const children = level + 1 < this.limits.depth ? await this.readTree(s, sub, child, level + 1, budget) : [];
          const t = totals(children);
          out.push({ name: e.name, virtual: child, dir: true, bytes: t.bytes, files: t.files, children });
        } finally {
          await sub.handle.close().catch(() => undefined);
        }
      }
    }
    return out;
  }

  /** Removes a directory and everything below it, each entry unlinked through its parent's descriptor (links as links). */
  private async removeTree(s: Store, parent: Anchor, name: string, virtual: string, budget: { left: number }): Promise<void> {
    const target = s.c.at(parent, name);
    const dir = await this.openAnchored(s, virtual, target, virtual, path.join(parent.real, name));
    try {
      for (const e of await this.readEntries(s, dir, virtual, budget)) {
        const child = s.c.at(dir, e.name);
        const st = await this.lstatOrNull(virtual, child);
        if (st === null) continue;
        if (st.isDirectory()) await this.removeTree(s, dir, e.name, `${virtual}/${e.name}`, budget);
        else {
          await fs.unlink(child).catch((err: NodeJS.ErrnoException) => (err.code === 'ENOENT' ? undefined : Promise.reject(refusalFromErrno(virtual, err))));
        }
      }
    } finally {
      await dir.handle.close().catch(() => undefined);
    }
    await fs.rmdir(target).catch((err: unknown) => Promise.reject(refusalFromErrno(virtual, err)));
  }

  private renderListing(virtual: string, tree: TreeNode[]): string {
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
}

function totals(nodes: readonly TreeNode[]): { bytes: number; files: number } {
  let bytes = 0;
  let files = 0;
  for (const n of nodes) {
    bytes += n.bytes;
    files += n.files;
  }
  return { bytes, files };
}

/** How many levels an entry's contents reach below it (0 for an empty directory). */
function treeHeight(nodes: readonly TreeNode[]): number {
  let h = 0;
  for (const n of nodes) h = Math.max(h, 1 + (n.dir ? treeHeight(n.children) : 0));
  return h;
}
