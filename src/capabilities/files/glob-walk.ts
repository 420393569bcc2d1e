// A confined, parallel directory walk shared by Glob and the Grep fallback.
//
// The start directory is listed through Workspace.readDirectory; each directory below it by
// Workspace.listRealDirectory (one verified open by real path). Symlinks are never followed:
// the walk only descends into entries the listing reports as directories, and a directory
// that is no longer exactly `parent/name` when it is opened (swapped meanwhile) is not entered.
import type { Dirent } from 'node:fs';
import path from 'node:path';
import type { Workspace } from '../../sandbox/paths.js';

export interface WalkDir<S> {
  /** Real absolute path of the directory. */
  abs: string;
  /** How the directory is shown: relative to the workspace ('.' for its root). */
  rel: string;
  /** Caller state carried down (e.g. how much of a pattern is matched so far). */
  state: S;
}

export interface WalkStats {
  /** Directories below the start that could not be listed (permissions, vanished, swapped). */
  unreadableDirs: number;
  /** The walk stopped early because the signal was aborted. */
  aborted: boolean;
}

export interface WalkOptions {
  signal: AbortSignal;
  /** Directories listed at the same time. */
  concurrency?: number;
  /** The start directory's entries, when the caller has already listed it. */
  startEntries?: Dirent[];
}

/** Joins a display path and an entry name. */
export function childRel(parentRel: string, name: string): string {
  return parentRel === '.' ? name : parentRel.endsWith('/') ? parentRel + name : `${parentRel}/${name}`;
}

/**
 * Walks from `start` (which must be a real directory path inside the workspace). `visit` gets
 * each listed directory and returns the subdirectories to descend into. An error listing the
 * start directory is thrown; errors below it are counted in `unreadableDirs`.
 */
export async function walkTree<S>(
  ws: Workspace,
  start: WalkDir<S>,
  visit: (dir: WalkDir<S>, entries: Dirent[]) => Promise<WalkDir<S>[]> | WalkDir<S>[],
  opts: WalkOptions,
): Promise<WalkStats> {
  const stats: WalkStats = { unreadableDirs: 0, aborted: false };
  const concurrency = Math.max(1, opts.concurrency ?? 8);

  const list = async (dir: WalkDir<S>, isStart: boolean): Promise<Dirent[] | null> => {
    if (isStart) {
      const listing = await ws.readDirectory(dir.abs);
      if (listing.real !== dir.abs) throw new Error(`${dir.rel} changed while it was being listed`);
      return listing.entries;
    }
    try {
      // Below the start, each directory is opened once by its real path and verified on the
      // descriptor (a symlink swapped in is refused, never followed).
      return await ws.listRealDirectory(dir.abs);
    } catch {
      stats.unreadableDirs++;
      return null;
    }
  };

  const first = opts.startEntries ?? (await list(start, true));
  const stack: WalkDir<S>[] = first ? await visit(start, first) : [];

  await new Promise<void>((resolve, reject) => {
    let active = 0;
    let failed = false;
    const pump = (): void => {
      if (failed) return;
      if (opts.signal.aborted) {
        stats.aborted = true;
        stack.length = 0;
      }
      while (active < concurrency && stack.length > 0) {
        const dir = stack.pop()!;
        active++;
        list(dir, false)
          .then((entries) => (entries ? visit(dir, entries) : []))
          .then(
            (subdirs) => {
              active--;
              for (const d of subdirs) stack.push(d);
              pump();
            },
            (err: unknown) => {
              failed = true;
              reject(err);
            },
          );
      }
      if (active === 0 && stack.length === 0) resolve();
    };
    pump();
  });
  if (opts.signal.aborted) stats.aborted = true;
  return stats;
}

/** The child directory record for an entry of `dir`. */
export function childDir<S>(dir: WalkDir<S>, name: string, state: S): WalkDir<S> {
  return { abs: path.join(dir.abs, name), rel: childRel(dir.rel, name), state };
}

/** Runs `fn` over `items` with at most `limit` in flight; results keep their order. */
export async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}
