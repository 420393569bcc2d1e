// How a checkpoint's state of the workspace is stored: a full manifest (every entry, in walk
// order, and what was not captured), or a delta against a full one — the entries that differ from
// it and the paths gone since. A call that changes one file of a large tree then stores a few
// hundred bytes, not the whole list again, and writing it costs what changed (the entries a walk
// took whole are the very objects the base holds, passed over without a look). A delta always
// names a full manifest, never another delta, so reading one costs two objects at most; past a
// bound on its size the next manifest is full again and becomes the base.
import { walkOrder } from './changes.js';
import type { Manifest } from './log.js';
import type { Entry, NotCaptured, Scan } from './scan.js';

/** A delta may hold this many entries and paths, or an eighth of its base's entries if more. */
const DELTA_MIN_BOUND = 256;
/** A tree smaller than this is always stored whole: a delta would save nothing worth having. */
const DELTA_MIN_BASE = 512;

export interface StoredDelta {
  base: string;
  set: Entry[];
  gone: string[];
  notCaptured: NotCaptured[];
}

const entryJson = new WeakMap<Entry, string>();
function json(e: Entry): string {
  let j = entryJson.get(e);
  if (j === undefined) entryJson.set(e, (j = JSON.stringify(e)));
  return j;
}

const sameEntry = (a: Entry, b: Entry): boolean => a === b || json(a) === json(b);

/** The full manifest of a scan. */
export function fullJson(scan: Pick<Scan, 'entries' | 'notCaptured'>): string {
  return `{"entries":[${scan.entries.map(json).join(',')}],"notCaptured":${JSON.stringify(scan.notCaptured)}}`;
}

/**
 * The delta from `base` (a full manifest named `baseName`) to `scan`, or null when a full
 * manifest is the better record: a small tree, a delta past its bound, lists out of walk order.
 */
export function deltaJson(baseName: string, base: readonly Entry[], scan: Pick<Scan, 'entries' | 'notCaptured'>): string | null {
  if (base.length < DELTA_MIN_BASE) return null;
  const bound = Math.max(DELTA_MIN_BOUND, base.length >> 3);
  if (scan.notCaptured.length > bound) return null;
  const after = scan.entries;
  const set: Entry[] = [];
  const gone: string[] = [];
  let i = 0;
  let j = 0;
  let last: string | undefined;
  while (i < base.length || j < after.length) {
    const x = base[i];
    const y = after[j];
    if (x !== undefined && x === y) {
      i++;
      j++;
      continue;
    }
    const order = x === undefined ? 1 : y === undefined ? -1 : walkOrder(x.path, y.path);
    // Both lists must be in walk order for one merge to be right: a step back means they are not.
    const at = order <= 0 ? x!.path : y!.path;
    if (last !== undefined && walkOrder(last, at) > 0) return null;
    last = at;
    if (order < 0) {
      gone.push(x!.path);
      i++;
    } else if (order > 0) {
      set.push(y!);
      j++;
    } else {
      if (!sameEntry(x!, y!)) set.push(y!);
      i++;
      j++;
    }
    if (set.length + gone.length > bound) return null;
  }
  return `{"base":"${baseName}","set":[${set.map(json).join(',')}],"gone":${JSON.stringify(gone)},"notCaptured":${JSON.stringify(scan.notCaptured)}}`;
}

/** A stored manifest, parsed: a full one, or a delta to be applied to its base. */
export function parseManifest(bytes: Buffer): Manifest | StoredDelta {
  return JSON.parse(bytes.toString('utf8')) as Manifest | StoredDelta;
}

export const isDelta = (m: Manifest | StoredDelta): m is StoredDelta => 'base' in m;

/** A delta applied to its base (a full manifest): the entries, still in walk order. */
export function applyDelta(base: Manifest, delta: StoredDelta): Manifest {
  const gone = new Set(delta.gone);
  const set = delta.set;
  const entries: Entry[] = [];
  let j = 0;
  for (const e of base.entries) {
    while (j < set.length && walkOrder(set[j]!.path, e.path) < 0) entries.push(set[j++]!);
    if (j < set.length && set[j]!.path === e.path) entries.push(set[j++]!);
    else if (!gone.has(e.path)) entries.push(e);
  }
  while (j < set.length) entries.push(set[j++]!);
  return { entries, notCaptured: delta.notCaptured };
}
