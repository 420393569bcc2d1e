// The contents of memory files: reads, digests and atomic writes through the path sandbox (a
// Workspace opened on the store), with its refusals reported under the virtual path, and the
// checks of a write against the file size, store size and file count limits before anything is
// written.
import { createHash } from 'node:crypto';
import path from 'node:path';
import { fileKind } from '../../sandbox/path-refusal.js';
import { PathRefusal } from '../../sandbox/paths.js';
import { ToolRefusal } from '../../tools/tool.js';
import { MAX_MEMORY_WALK_ENTRIES, limitText, type MemoryLimits } from './limits.js';
import { MEMORY_ROOT, type MemoryPath } from './memory-path.js';
import { LINKS_RULE, openDir, readTree, totals, type Entry, type Store } from './walk.js';

export interface MemoryFileInfo {
  /** `/memories/…` */
  path: string;
  bytes: number;
  /** SHA-256 (hex) of the file's bytes. */
  sha256: string;
  /** ISO 8601 modification time. */
  modified_at: string;
}

/** Refuses writing over anything but a regular file (or, when `mayCreate`, nothing). */
export function requireWritable(virtual: string, entry: Entry, mayCreate: boolean): void {
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

/** A file's text through the path sandbox; files over the size limit (`fileBytes`) are refused, not read. */
export async function readText(s: Store, mp: MemoryPath, entry: Entry, fileBytes: number): Promise<string> {
  requireWritable(mp.virtual, entry, false);
  const file = await sandboxed(mp.virtual, () => s.ws.openForRead(path.join(s.root, ...mp.parts)));
  try {
    const tooBig = () =>
      new ToolRefusal(`${mp.virtual} is larger than a memory file may be (${limitText(fileBytes)}); it cannot be viewed or edited. Delete it or replace it with create.`);
    if (file.size > fileBytes) throw tooBig();
    // One byte more than the limit is asked for, so a file that grew since its stat is caught.
    const buf = Buffer.allocUnsafe(fileBytes + 1);
    let filled = 0;
    for (;;) {
      const { bytesRead } = await file.handle.read(buf, filled, buf.length - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
      if (filled > fileBytes) throw tooBig();
    }
    return buf.subarray(0, filled).toString('utf8');
  } finally {
    await file.handle.close().catch(() => undefined);
  }
}

/** Writes through the path sandbox: atomic, parents made inside the store, links and special files refused. */
export async function write(s: Store, mp: MemoryPath, text: string): Promise<void> {
  await sandboxed(mp.virtual, () => s.ws.writeFileAtomic(path.join(s.root, ...mp.parts), text));
}

export async function digest(s: Store, virtual: string): Promise<MemoryFileInfo> {
  const parts = virtual.slice(MEMORY_ROOT.length + 1).split('/');
  const file = await sandboxed(virtual, () => s.ws.openForRead(path.join(s.root, ...parts)));
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
async function sandboxed<T>(virtual: string, fn: () => Promise<T>): Promise<T> {
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

// ────────────────────────────────────────────────────────────────────────────────────────────
// Limits

/** The UTF-8 size of a file's new text; refused when it is over `fileBytes`. */
export function checkFileSize(virtual: string, text: string, fileBytes: number): number {
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > fileBytes) {
    throw new ToolRefusal(`${virtual}: the file would be ${bytes} bytes; a memory file may be at most ${limitText(fileBytes)}. Nothing was written.`);
  }
  return bytes;
}

/** Refuses a write that would take the store past its total size or file count. */
export async function checkStore(s: Store, virtual: string, addedBytes: number, addedFiles: number, limits: Readonly<MemoryLimits>): Promise<void> {
  const root = await openDir(s, MEMORY_ROOT, [], false);
  let usage: { bytes: number; files: number };
  try {
    usage = totals(await readTree(s, root, MEMORY_ROOT, 0, limits.depth, { left: MAX_MEMORY_WALK_ENTRIES }));
  } finally {
    await root.handle.close().catch(() => undefined);
  }
  if (addedFiles > 0 && usage.files + addedFiles > limits.files) {
    throw new ToolRefusal(
      `${virtual}: the memory store already holds ${usage.files} files; it may hold at most ${limits.files}. Delete or merge memory files first. Nothing was written.`,
    );
  }
  if (addedBytes > 0 && usage.bytes + addedBytes > limits.storeBytes) {
    throw new ToolRefusal(
      `${virtual}: the memory store would hold ${usage.bytes + addedBytes} bytes; it may hold at most ${limitText(limits.storeBytes)}. ` +
        'Delete or shorten memory files first. Nothing was written.',
    );
  }
}
