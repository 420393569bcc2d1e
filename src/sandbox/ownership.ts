// Ownership where a root server's sandboxes run as another user (sandbox-user.ts). That user must
// be able to write what the server makes for a session — its workspace, its home and /tmp — and
// bwrap, which runs as that user, must be able to reach every directory it mounts: bwrap resolves
// each source path itself, so every directory above one needs search permission for the user.
//   - What the server makes for a session's processes (workspace, home, /tmp, the proxy socket)
//     is handed to the sandbox user (`handOver`).
//   - The directories the server made on the way there (the data directory, `sandbox/`, the
//     workspace root, a tenant's root) get search permission for the sandbox's group and nothing
//     more (`openWay`): the group becomes the sandbox's, with `x` only, and only where the group
//     had no permission at all before (a directory the server made private). A directory an
//     operator gave a group of their own is left as it is, and said to be in the way.
//   - Files and directories the server's tools create inside a workspace (Write, Edit, the
//     directories leading to them) take the owner of the workspace root, so commands can go on
//     writing them; a file that is replaced keeps its owner (`ownerForCreated`).
import type { Stats } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';

/** The ids a sandboxed process has (supplementary groups are cleared, so only these count). */
export interface SandboxIds {
  uid: number;
  gid: number;
}

type Mode = Pick<Stats, 'uid' | 'gid' | 'mode'>;

/** Whether a process with these ids may search (pass through) a directory with these stats. */
export function maySearch(st: Mode, who: SandboxIds): boolean {
  if (who.uid === 0) return true;
  if (st.uid === who.uid) return (st.mode & 0o100) !== 0;
  if (st.gid === who.gid) return (st.mode & 0o010) !== 0;
  return (st.mode & 0o001) !== 0;
}

/**
 * The first directory above `target` (from /) the ids may not pass through, or null when every
 * one lets them: what keeps bwrap from reaching `target`.
 */
export async function blockedAt(target: string, who: SandboxIds): Promise<string | null> {
  let dir = path.resolve(target);
  const above: string[] = [];
  while (path.dirname(dir) !== dir) {
    dir = path.dirname(dir);
    above.unshift(dir);
  }
  for (const d of above) {
    const st = await fs.stat(d).catch(() => null);
    if (st === null || !maySearch(st, who)) return d;
  }
  return null;
}

/**
 * Search permission for the sandbox's group on `from` and every directory below it down to `dir`
 * (both included), where it is missing and the directory is the server's own with no group
 * permission (or already the sandbox's group). Nothing else changes; what stays in the way is
 * found by `blockedAt`.
 */
export async function openWay(dir: string, from: string, who: SandboxIds): Promise<void> {
  const top = path.resolve(from);
  const end = path.resolve(dir);
  const rel = path.relative(top, end);
  if (rel.startsWith('..') || path.isAbsolute(rel)) throw new Error(`internal: ${end} is not below ${top}`);
  const server = process.getuid?.();
  let d = top;
  for (const part of ['', ...rel.split(path.sep).filter(Boolean)]) {
    d = part ? path.join(d, part) : d;
    const st = await fs.lstat(d).catch(() => null);
    if (st === null || !st.isDirectory() || maySearch(st, who)) continue;
    if (st.uid !== server || ((st.mode & 0o070) !== 0 && st.gid !== who.gid)) continue;
    if (st.gid !== who.gid) await fs.lchown(d, st.uid, who.gid);
    await fs.chmod(d, (st.mode & 0o7777) | 0o010);
  }
}

/** Makes `p` the sandbox user's (never following a link: a link planted in its place is not handed over). */
export async function handOver(p: string, who: SandboxIds): Promise<void> {
  await fs.lchown(p, who.uid, who.gid);
}

/**
 * The owner a file or directory a tool just created below `root` must take (the root's, for a
 * server running as root), or null when it keeps the server's. Only root can give files away;
 * for any other server nothing changes.
 */
export async function ownerForCreated(root: string): Promise<SandboxIds | null> {
  if (process.getuid?.() !== 0) return null;
  const st = await fs.stat(root).catch(() => null);
  if (st === null || (st.uid === 0 && st.gid === process.getgid?.())) return null;
  return { uid: st.uid, gid: st.gid };
}
