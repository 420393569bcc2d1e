// Verified descriptor walks of a memory store. Every entry is reached through directory
// descriptors opened with O_DIRECTORY|O_NOFOLLOW one component at a time and checked to be
// inside the store, so a symlink, FIFO, device or socket planted in the store is never followed
// or opened: trees leave such entries out, and removal unlinks a link as a link. Also the
// per-store lock that serialises the mutating commands of one store within the process.
import type { Dirent, Stats } from 'node:fs';
import fs from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { Confinement, DIR_FLAGS, procFd, type Anchor } from '../../sandbox/path-confine.js';
import { refusalFromErrno } from '../../sandbox/path-refusal.js';
import { PathRefusal, Workspace } from '../../sandbox/paths.js';
import { ToolRefusal } from '../../tools/tool.js';
import { MAX_MEMORY_WALK_ENTRIES } from './limits.js';
import { MEMORY_ROOT, type MemoryPath } from './memory-path.js';

/** The path sandbox on the store and the descriptor confinement the other steps use. */
export interface Store {
  ws: Workspace;
  c: Confinement;
  /** Real path of the store directory. */
  root: string;
}

export type Entry =
  | { kind: 'missing' }
  | { kind: 'dir' }
  | { kind: 'file'; st: Stats }
  | { kind: 'link'; st: Stats }
  | { kind: 'other'; st: Stats };

export interface TreeNode {
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

export const LINKS_RULE = 'is a symlink; the memory store never follows links';

/** Opens the path sandbox and the descriptor confinement on an existing store directory. */
export async function openStore(dir: string): Promise<Store> {
  const ws = await Workspace.open(dir);
  return { ws, c: new Confinement([ws.root], await procFd()), root: ws.root };
}

// ────────────────────────────────────────────────────────────────────────────────────────────
// Serialisation: one promise chain per store directory (its real path), shared by every
// MemoryFiles of the process, because a named store is used by several sessions at once.

const chains = new Map<string, Promise<unknown>>();

export async function serialised<T>(key: string, fn: () => Promise<T>): Promise<T> {
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
// Entries

/** What a path names, looked at without following links (its parents must be real directories). */
export async function entryAt(s: Store, mp: MemoryPath): Promise<Entry> {
  if (mp.parts.length === 0) return { kind: 'dir' };
  let parent: Anchor;
  try {
    parent = await openDir(s, mp.virtual, mp.parts.slice(0, -1), false);
  } catch (err) {
    if (err instanceof MissingRefusal) return { kind: 'missing' };
    throw err;
  }
  try {
    const st = await lstatOrNull(mp.virtual, s.c.at(parent, mp.parts[mp.parts.length - 1]!));
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

export async function lstatOrNull(virtual: string, target: string): Promise<Stats | null> {
  try {
    return await fs.lstat(target);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw refusalFromErrno(virtual, err);
  }
}

// ────────────────────────────────────────────────────────────────────────────────────────────
// Descriptor walks

/**
 * Opens the directory `parts` names, one component at a time, each looked up in the previous
 * verified descriptor with O_DIRECTORY|O_NOFOLLOW: a component that is a link (to anywhere)
 * or not a directory is refused, and a swap after a check cannot redirect the walk. With
 * `create`, missing components are made through the same descriptors.
 */
export async function openDir(s: Store, virtual: string, parts: readonly string[], create: boolean): Promise<Anchor> {
  let cur = await openAnchored(s, virtual, s.root, MEMORY_ROOT);
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
      const next = await openAnchored(s, virtual, child, shown, path.join(cur.real, part));
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
export async function openDirOrMissing(s: Store, virtual: string, parts: readonly string[]): Promise<Anchor> {
  try {
    return await openDir(s, virtual, parts, false);
  } catch (err) {
    if (err instanceof MissingRefusal) throw new PathRefusal(virtual, 'does not exist');
    throw err;
  }
}

/** Opens one directory (never through a link) and verifies its descriptor is inside the store. */
export async function openAnchored(s: Store, virtual: string, target: string, shown: string, real: string = target): Promise<Anchor> {
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

function byName(a: Dirent, b: Dirent): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

async function readEntries(s: Store, dir: Anchor, virtual: string, budget: { left: number }): Promise<Dirent[]> {
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
 * devices and sockets are left out. Directories deeper than the depth limit (`depth`) are not
 * entered (nothing the tool writes is there).
 */
export async function readTree(s: Store, dir: Anchor, virtual: string, level: number, depth: number, budget: { left: number }): Promise<TreeNode[]> {
  const out: TreeNode[] = [];
  for (const e of await readEntries(s, dir, virtual, budget)) {
    const child = `${virtual}/${e.name}`;
    const target = s.c.at(dir, e.name);
    if (e.isFile()) {
      const st = await fs.lstat(target).catch(() => null);
      if (st?.isFile()) out.push({ name: e.name, virtual: child, dir: false, bytes: st.size, files: 1, children: [] });
    } else if (e.isDirectory()) {
      let sub: Anchor;
      try {
        sub = await openAnchored(s, child, target, child, path.join(dir.real, e.name));
      } catch (err) {
        // Gone or swapped for something else since it was listed: not part of the store now.
        if (err instanceof PathRefusal) continue;
        throw err;
      }
      try {
        const children = level + 1 < depth ? await readTree(s, sub, child, level + 1, depth, budget) : [];
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
export async function removeTree(s: Store, parent: Anchor, name: string, virtual: string, budget: { left: number }): Promise<void> {
  const target = s.c.at(parent, name);
  const dir = await openAnchored(s, virtual, target, virtual, path.join(parent.real, name));
  try {
    for (const e of await readEntries(s, dir, virtual, budget)) {
      const child = s.c.at(dir, e.name);
      const st = await lstatOrNull(virtual, child);
      if (st === null) continue;
      if (st.isDirectory()) await removeTree(s, dir, e.name, `${virtual}/${e.name}`, budget);
      else {
        await fs.unlink(child).catch((err: NodeJS.ErrnoException) => (err.code === 'ENOENT' ? undefined : Promise.reject(refusalFromErrno(virtual, err))));
      }
    }
  } finally {
    await dir.handle.close().catch(() => undefined);
  }
  await fs.rmdir(target).catch((err: unknown) => Promise.reject(refusalFromErrno(virtual, err)));
}

export function totals(nodes: readonly TreeNode[]): { bytes: number; files: number } {
  let bytes = 0;
  let files = 0;
  for (const n of nodes) {
    bytes += n.bytes;
    files += n.files;
  }
  return { bytes, files };
}

/** How many levels an entry's contents reach below it (0 for an empty directory). */
export function treeHeight(nodes: readonly TreeNode[]): number {
  let h = 0;
  for (const n of nodes) h = Math.max(h, 1 + (n.dir ? treeHeight(n.children) : 0));
  return h;
}
