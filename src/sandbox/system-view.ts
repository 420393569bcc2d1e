// What of the host's system directories a sandbox sees. The programs and libraries commands need
// are mounted read-only; anything in them that an unprivileged user could not read (/etc/shadow,
// /etc/ssl/private, a database's pg_hba.conf, …) is masked: an empty file over a file, an empty
// read-only directory over a directory. The list comes from one walk with find(1) in a child
// process (the event loop never walks /usr), made when the sandbox is first needed and again at
// each retention sweep, so a file made unreadable in between is not on it.
// The masks are defence in depth, not what protects such files from a root server's commands:
// those run as an unprivileged user (sandbox-user.ts), so the kernel refuses them every root-only
// file, one made after the last walk too. The masks still hide what that user may not read from
// listings, and they are all there is for a server that runs as an ordinary user (its commands
// run as it, and may read what it may).
import fs from 'node:fs';
import { loadExeca } from './execa.js';

/** Top-level directories offered to sandboxes, when they exist. */
export const SYSTEM_DIRS = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32', '/etc', '/opt'];

export interface SystemMount {
  /** `bind`: the directory itself; `symlink`: a merged-/usr link such as /bin → usr/bin. */
  kind: 'bind' | 'symlink';
  path: string;
  /** The link's target, for symlinks. */
  target?: string;
}

export interface Mask {
  kind: 'file' | 'dir';
  path: string;
}

export interface SystemView {
  mounts: SystemMount[];
  masks: Mask[];
  /** When the masks were made (ISO time). */
  scannedAt: string;
}

/** The top-level system directories and links of this host. */
export function systemMounts(dirs: readonly string[] = SYSTEM_DIRS): SystemMount[] {
  const out: SystemMount[] = [];
  for (const dir of dirs) {
    let st: fs.Stats;
    try {
      st = fs.lstatSync(dir);
    } catch {
      continue;
    }
    if (st.isSymbolicLink()) {
      const target = fs.readlinkSync(dir);
      // Only links that stay among the offered directories are reproduced (usrmerge: /bin → usr/bin).
      const resolved = target.startsWith('/') ? target : `/${target}`;
      if (dirs.some((d) => resolved === d || resolved.startsWith(`${d}/`))) out.push({ kind: 'symlink', path: dir, target });
      continue;
    }
    if (st.isDirectory()) out.push({ kind: 'bind', path: dir });
  }
  return out;
}

/**
 * Entries below `roots` that are not world-readable (files) or not world-searchable and
 * readable (directories; their contents are not walked). Symbolic links are left alone: what
 * they point to is judged where it lies.
 */
export async function findUnreadable(roots: readonly string[], findPath = 'find'): Promise<Mask[]> {
  if (roots.length === 0) return [];
  const { execa } = await loadExeca();
  const result = await execa(
    findPath,
    [
      ...roots,
      '(', '-type', 'd', '!', '-perm', '-o=rx', '-printf', 'd %p\\0', '-prune', ')',
      '-o', '(', '!', '-type', 'd', '!', '-type', 'l', '!', '-perm', '-o=r', '-printf', 'f %p\\0', ')',
    ],
    { env: { LC_ALL: 'C' }, extendEnv: false, reject: false, stripFinalNewline: false, maxBuffer: 64 * 1024 * 1024, timeout: 300_000 },
  );
  if (result.exitCode !== 0 && result.stdout === '') {
    throw new Error(`find could not list the system directories: ${String(result.stderr).trim().slice(0, 300) || `exit ${result.exitCode}`}`);
  }
  const masks: Mask[] = [];
  for (const rec of String(result.stdout).split('\0')) {
    if (rec.length < 3) continue;
    masks.push({ kind: rec[0] === 'd' ? 'dir' : 'file', path: rec.slice(2) });
  }
  return masks;
}

export async function scanSystemView(dirs: readonly string[] = SYSTEM_DIRS, now: () => Date = () => new Date()): Promise<SystemView> {
  const mounts = systemMounts(dirs);
  const masks = await findUnreadable(mounts.filter((m) => m.kind === 'bind').map((m) => m.path));
  return { mounts, masks, scannedAt: now().toISOString() };
}
