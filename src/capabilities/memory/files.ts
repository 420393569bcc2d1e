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
// This module holds MemoryFiles and its commands, and re-exports the public names of the
// modules it is built on (paths, limits, file contents, listings).
import fs from 'node:fs/promises';
import path from 'node:path';
import { refusalFromErrno } from '../../sandbox/path-refusal.js';
import { PathRefusal } from '../../sandbox/paths.js';
import { ToolRefusal } from '../../tools/tool.js';
import { checkFileSize, checkStore, digest, readText, requireWritable, write, type MemoryFileInfo } from './content.js';
import { MAX_MEMORY_WALK_ENTRIES, MEMORY_LIMITS, type MemoryLimits } from './limits.js';
import { MEMORY_ROOT, parseMemoryPath, requireFileName, type MemoryPath } from './memory-path.js';
import { countNewlines, numbered, renderListing, snippetAround, splitLines } from './render.js';
import { entryAt, lstatOrNull, openAnchored, openDir, openDirOrMissing, openStore, readTree, removeTree, serialised, treeHeight, type Store, type TreeNode } from './walk.js';

export type { MemoryFileInfo } from './content.js';
export { MAX_MEMORY_FILE_BYTES, MAX_MEMORY_FILES, MAX_MEMORY_STORE_BYTES, MAX_MEMORY_WALK_ENTRIES, MEMORY_LIMITS, humanSize, type MemoryLimits } from './limits.js';
export { MAX_MEMORY_DEPTH, MAX_MEMORY_NAME_BYTES, MAX_MEMORY_PATH_CHARS, MEMORY_ROOT, parseMemoryPath, type MemoryPath } from './memory-path.js';
export { MEMORY_VIEW_LEVELS } from './render.js';

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
      return renderListing(mp.virtual, []);
    }
    const entry = await entryAt(s, mp);
    if (entry.kind === 'dir') {
      if (range) throw new ToolRefusal(`${mp.virtual} is a directory; view_range applies to files only.`);
      const dir = await openDir(s, mp.virtual, mp.parts, false);
      try {
        return renderListing(mp.virtual, await readTree(s, dir, mp.virtual, mp.parts.length, this.limits.depth, { left: MAX_MEMORY_WALK_ENTRIES }));
      } finally {
        await dir.handle.close().catch(() => undefined);
      }
    }
    const text = await readText(s, mp, entry, this.limits.fileBytes);
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
    requireFileName(mp);
    const bytes = checkFileSize(mp.virtual, fileText, this.limits.fileBytes);
    const s = await this.store(true);
    return serialised(s.root, async () => {
      const entry = await entryAt(s, mp);
      requireWritable(mp.virtual, entry, true);
      const previous = entry.kind === 'file' ? entry.st.size : null;
      await checkStore(s, mp.virtual, bytes - (previous ?? 0), previous === null ? 1 : 0, this.limits);
      await write(s, mp, fileText);
      return previous === null ? `File created successfully at: ${mp.virtual}` : `File created successfully at: ${mp.virtual} (it replaced the previous content)`;
    });
  }

  /** Replaces the one occurrence of `oldStr`. */
  async strReplace(p: string, oldStr: string, newStr: string): Promise<string> {
    const mp = this.parse(p);
    requireFileName(mp);
    if (oldStr.length === 0) throw new ToolRefusal('No replacement was performed: old_str is empty.');
    const s = await this.existingStore(mp);
    return serialised(s.root, async () => {
      const entry = await entryAt(s, mp);
      requireWritable(mp.virtual, entry, false);
      const text = await readText(s, mp, entry, this.limits.fileBytes);
      const { next, index } = replacedOnce(mp.virtual, text, oldStr, newStr);
      const bytes = checkFileSize(mp.virtual, next, this.limits.fileBytes);
      await checkStore(s, mp.virtual, bytes - Buffer.byteLength(text, 'utf8'), 0, this.limits);
      await write(s, mp, next);
      const firstLine = countNewlines(text.slice(0, index));
      return `The memory file has been edited. Here is ${mp.virtual} around the change:\n${snippetAround(mp.virtual, next, firstLine, firstLine + countNewlines(newStr))}`;
    });
  }

  /** Inserts `insertText` after line `line` (0: at the top). */
  async insert(p: string, line: number, insertText: string): Promise<string> {
    const mp = this.parse(p);
    requireFileName(mp);
    const s = await this.existingStore(mp);
    return serialised(s.root, async () => {
      const entry = await entryAt(s, mp);
      requireWritable(mp.virtual, entry, false);
      const text = await readText(s, mp, entry, this.limits.fileBytes);
      const { next, added } = inserted(mp.virtual, text, line, insertText);
      const bytes = checkFileSize(mp.virtual, next, this.limits.fileBytes);
      await checkStore(s, mp.virtual, bytes - Buffer.byteLength(text, 'utf8'), 0, this.limits);
      await write(s, mp, next);
      return `The file ${mp.virtual} has been edited. Here is ${mp.virtual} around the insertion:\n${snippetAround(mp.virtual, next, line, line + added.length - 1)}`;
    });
  }

  /** A file's text now, or null when there is no such file (what a preview diffs against). */
  async current(p: string): Promise<{ virtual: string; text: string | null }> {
    const mp = this.parse(p);
    requireFileName(mp);
    const s = await this.store(false);
    if (!s) return { virtual: mp.virtual, text: null };
    return serialised(s.root, async () => {
      const entry = await entryAt(s, mp);
      if (entry.kind !== 'file') return { virtual: mp.virtual, text: null };
      return { virtual: mp.virtual, text: await readText(s, mp, entry, this.limits.fileBytes) };
    });
  }

  /** Deletes a file, a directory with everything below it, or a link (never what it points to). */
  async delete(p: string): Promise<string> {
    const mp = this.parse(p);
    if (mp.parts.length === 0) throw new ToolRefusal(`${MEMORY_ROOT} itself cannot be deleted; delete the files and directories inside it.`);
    const s = await this.existingStore(mp);
    return serialised(s.root, async () => {
      const name = mp.parts[mp.parts.length - 1]!;
      const parent = await openDirOrMissing(s, mp.virtual, mp.parts.slice(0, -1));
      try {
        const target = s.c.at(parent, name);
        const st = await lstatOrNull(mp.virtual, target);
        if (st === null) throw new PathRefusal(mp.virtual, 'does not exist');
        if (mp.dirMarker && !st.isDirectory()) throw new PathRefusal(mp.virtual, 'is not a directory');
        if (st.isDirectory()) await removeTree(s, parent, name, mp.virtual, { left: MAX_MEMORY_WALK_ENTRIES });
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
      const oldParent = await openDirOrMissing(s, from.virtual, from.parts.slice(0, -1));
      try {
        const oldName = from.parts[from.parts.length - 1]!;
        const st = await lstatOrNull(from.virtual, s.c.at(oldParent, oldName));
        if (st === null) throw new PathRefusal(from.virtual, 'does not exist');
        if (from.dirMarker && !st.isDirectory()) throw new PathRefusal(from.virtual, 'is not a directory');
        if ((await entryAt(s, to)).kind !== 'missing') throw new ToolRefusal(`The destination ${to.virtual} already exists; nothing was renamed.`);
        if (st.isDirectory()) {
          // What is moved keeps its inner levels: the deepest of them must stay within the limit.
          const dir = await openAnchored(s, from.virtual, s.c.at(oldParent, oldName), from.virtual);
          let height: number;
          try {
            height = treeHeight(await readTree(s, dir, from.virtual, from.parts.length, this.limits.depth, { left: MAX_MEMORY_WALK_ENTRIES }));
          } finally {
            await dir.handle.close().catch(() => undefined);
          }
          if (to.parts.length + height > this.limits.depth) {
            throw new ToolRefusal(
              `${to.virtual}: moving ${from.virtual} there would put entries ${to.parts.length + height} levels deep; memory paths may be at most ${this.limits.depth} levels below ${MEMORY_ROOT}. Nothing was renamed.`,
            );
          }
        }
        const newParent = await openDir(s, to.virtual, to.parts.slice(0, -1), true);
        try {
          const target = s.c.at(newParent, to.parts[to.parts.length - 1]!);
          // Checked again through the descriptor the rename uses.
          if ((await lstatOrNull(to.virtual, target)) !== null) throw new ToolRefusal(`The destination ${to.virtual} already exists; nothing was renamed.`);
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
      const root = await openDir(s, MEMORY_ROOT, [], false);
      let tree: TreeNode[];
      try {
        tree = await readTree(s, root, MEMORY_ROOT, 0, this.limits.depth, { left: MAX_MEMORY_WALK_ENTRIES });
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
        const info = await digest(s, virtual).catch((err: unknown) => {
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
      return s !== null && (await entryAt(s, mp)).kind === 'dir';
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
    this.opened ??= openStore(this.dir);
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
}

/** `text` with the one occurrence of `oldStr` replaced (a refusal when there is none or several). */
export function replacedOnce(virtual: string, text: string, oldStr: string, newStr: string): { next: string; index: number } {
  if (oldStr.length === 0) throw new ToolRefusal('No replacement was performed: old_str is empty.');
  const at: number[] = [];
  // Overlapping occurrences count too: either could be the one meant.
  for (let i = text.indexOf(oldStr); i !== -1; i = text.indexOf(oldStr, i + 1)) at.push(i);
  if (at.length === 0) throw new ToolRefusal(`No replacement was performed: old_str did not appear verbatim in ${virtual}.`);
  if (at.length > 1) {
    const lines = [...new Set(at.map((i) => countNewlines(text.slice(0, i)) + 1))];
    throw new ToolRefusal(
      `No replacement was performed: old_str occurs ${at.length} times in ${virtual}, in line${lines.length === 1 ? '' : 's'} ${lines.join(', ')}. ` +
        'Include more of the surrounding text so that it is unique.',
    );
  }
  const index = at[0]!;
  return { next: text.slice(0, index) + newStr + text.slice(index + oldStr.length), index };
}

/** `text` with `insertText` after line `line` (0: at the top); a refusal for a line out of range. */
export function inserted(virtual: string, text: string, line: number, insertText: string): { next: string; added: string[] } {
  const lines = splitLines(text);
  if (!Number.isInteger(line) || line < 0 || line > lines.length) {
    throw new ToolRefusal(`Invalid insert_line ${line}: it must be within [0, ${lines.length}], the lines of ${virtual} (0 inserts at the top).`);
  }
  const added = splitLines(insertText);
  if (added.length === 0) added.push('');
  const endsWithNewline = text === '' ? insertText.endsWith('\n') : text.endsWith('\n');
  return { next: [...lines.slice(0, line), ...added, ...lines.slice(line)].join('\n') + (endsWithNewline ? '\n' : ''), added };
}
