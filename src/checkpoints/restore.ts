// Putting a workspace back to a recorded state, or only some of its paths. A plan compares the
// state wanted with the state found: leaves (files, links) to write, leaves and directories to
// remove, directories to make. Applying it never follows a link at a component that leads
// outside the workspace (path-confine.ts opens every parent inside the previous verified
// descriptor) and never writes through an existing file: each file and link is made under a
// temporary name in its directory and renamed over the name, so each path is either as it was or
// as wanted, never half-written. Applying the same plan again after a crash halfway converges on
// the same tree (every step is "make this path be that"), which is what a journal replays.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { CREATE_FLAGS, Confinement, procFd } from '../sandbox/path-confine.js';
import { ownerForCreated } from '../sandbox/ownership.js';
import type { DirEntry, Entry } from './scan.js';

export interface RestorePlan {
  /** Files and links to write, in path order. */
  write: Exclude<Entry, DirEntry>[];
  /** Files and links to remove (what the wanted state does not have), deepest first. */
  remove: string[];
  /** Directories to make, shallowest first. */
  mkdir: DirEntry[];
  /** Directories to remove, deepest first (empty once the removals ran). */
  rmdir: string[];
}

const depth = (p: string) => p.split('/').length;
const deepestFirst = (a: string, b: string) => depth(b) - depth(a) || (a < b ? -1 : 1);

/** What to do to turn `current` into `wanted`, for the paths `selected` takes (all by default). */
export function planRestore(wanted: readonly Entry[], current: readonly Entry[], selected: (p: string) => boolean = () => true): RestorePlan {
  const want = new Map(wanted.filter((e) => selected(e.path)).map((e) => [e.path, e]));
  const have = new Map(current.filter((e) => selected(e.path)).map((e) => [e.path, e]));
  const plan: RestorePlan = { write: [], remove: [], mkdir: [], rmdir: [] };
  for (const [p, h] of have) {
    const w = want.get(p);
    if (h.kind === 'dir') {
      if (!w || w.kind !== 'dir') plan.rmdir.push(p);
    } else if (!w || w.kind === 'dir') plan.remove.push(p);
  }
  for (const [p, w] of want) {
    const h = have.get(p);
    if (w.kind === 'dir') {
      if (!h || h.kind !== 'dir') plan.mkdir.push(w);
      continue;
    }
    const unchanged = h && h.kind === w.kind && (w.kind === 'link' ? (h as typeof w).target === w.target : (h as typeof w).sha256 === w.sha256 && (h as typeof w).mode === w.mode);
    if (!unchanged) plan.write.push(w);
  }
  plan.remove.sort(deepestFirst);
  plan.rmdir.sort(deepestFirst);
  plan.mkdir.sort((a, b) => depth(a.path) - depth(b.path) || (a.path < b.path ? -1 : 1));
  plan.write.sort((a, b) => (a.path < b.path ? -1 : 1));
  return plan;
}

/** Applies a plan below `root`; `contentOf` gives a file's bytes by name. */
export async function applyRestore(root: string, plan: RestorePlan, contentOf: (sha256: string) => Promise<Buffer>): Promise<void> {
  const real = await fs.realpath(root);
  const c = new Confinement([real], await procFd());
  const owner = await ownerForCreated(real);
  const parentOf = async (p: string, create: boolean) => c.openDir(p, path.join(real, path.dirname(p)), create);
  const gone = async (p: string, rmdir: boolean) => {
    let dir;
    try {
      dir = await parentOf(p, false);
    } catch {
      return; // its parent is gone already
    }
    try {
      const at = c.at(dir, path.basename(p));
      const st = await fs.lstat(at).catch(() => null);
      if (!st) return;
      if (st.isDirectory()) {
        if (rmdir) await fs.rmdir(at);
      } else await fs.unlink(at);
    } finally {
      await dir.handle.close().catch(() => undefined);
    }
  };
  for (const p of plan.remove) await gone(p, false);
  for (const p of plan.rmdir) await gone(p, true);
  for (const d of plan.mkdir) {
    const dir = await parentOf(d.path, true);
    try {
      const at = c.at(dir, path.basename(d.path));
      const st = await fs.lstat(at).catch(() => null);
      if (st && !st.isDirectory()) await fs.unlink(at);
      if (!st || !st.isDirectory()) {
        await fs.mkdir(at, { mode: 0o700 });
        if (owner) await fs.lchown(at, owner.uid, owner.gid);
      }
      await fs.chmod(at, d.mode & 0o7777);
    } finally {
      await dir.handle.close().catch(() => undefined);
    }
  }
  for (const e of plan.write) {
    const dir = await parentOf(e.path, true);
    try {
      const name = path.basename(e.path);
      const tmp = c.at(dir, `.${name.slice(0, 40)}.${randomBytes(6).toString('hex')}.rewind`);
      if (e.kind === 'link') {
        await fs.symlink(e.target, tmp);
        if (owner) await fs.lchown(tmp, owner.uid, owner.gid);
      } else {
        const bytes = await contentOf(e.sha256);
        const handle = await fs.open(tmp, CREATE_FLAGS, 0o600);
        try {
          if (owner) await handle.chown(owner.uid, owner.gid);
          await handle.writeFile(bytes);
          await handle.chmod(e.mode & 0o777); // never set-id bits
          await handle.sync();
        } finally {
          await handle.close();
        }
      }
      const at = c.at(dir, name);
      const st = await fs.lstat(at).catch(() => null);
      // A directory in the way (the plan removes what it held): it goes first.
      if (st?.isDirectory()) await fs.rmdir(at);
      try {
        await fs.rename(tmp, at);
      } catch (err) {
        await fs.unlink(tmp).catch(() => undefined);
        throw err;
      }
    } finally {
      await dir.handle.close().catch(() => undefined);
    }
  }
}
