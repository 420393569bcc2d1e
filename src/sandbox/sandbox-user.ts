// Who a sandboxed process is to the kernel. bwrap's user namespace maps the user it is started as,
// so file access inside is decided for that user: started by a server running as root, every
// command could read any root-only file on its mounts — one made after start-up too (a renewed TLS
// key, an operator's new secret), which no list of masks made earlier can know. So a root server
// starts every sandbox as an unprivileged user (NORMA_SANDBOX_USER, default `nobody`): the launcher
// drops to it with setpriv (util-linux) after joining the command's cgroup and setting its rlimits
// — both need root — and before it becomes bwrap, with no supplementary group and no capability.
// Without such a user, or without setpriv, the sandbox is unusable: a root server never starts a
// sandboxed process as root. A server that is not root starts them as itself, as always.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';

export type SandboxIdentity =
  /** The server is not root: processes run as its own user (there is nothing to drop). */
  | { kind: 'server' }
  /** The server is root: every sandboxed process runs as this user and group. */
  | { kind: 'drop'; uid: number; gid: number; name: string; setpriv: string }
  /** The server is root and has no unprivileged user to use: no sandboxed process starts. */
  | { kind: 'unusable'; reason: string };

/** NORMA_SANDBOX_USER names something this server cannot use (start-up stops with this message). */
export class SandboxUserError extends Error {}

/** The user sandboxes of a root server run as when NORMA_SANDBOX_USER is not set. */
export const DEFAULT_SANDBOX_USER = 'nobody';

export const SETPRIV_MISSING =
  "setpriv not found: a server running as root starts its sandboxes as an unprivileged user through setpriv; install Debian's util-linux package (apt-get install util-linux)";

export interface UserEntry {
  name: string;
  uid: number;
  gid: number;
}

export interface AccountLookup {
  /** A user by name or by number. */
  user(key: string): UserEntry | null;
  /** A group's id, by name or by number. */
  group(key: string): { name: string; gid: number } | null;
}

const NUMBER = /^\d{1,10}$/;

/**
 * The accounts of this host through getent (so users from NSS sources count), or from /etc/passwd
 * and /etc/group where there is no getent.
 */
export function systemAccounts(): AccountLookup {
  const entry = (db: 'passwd' | 'group', key: string): string[] | null => {
    try {
      const out = execFileSync('getent', [db, key], { env: {}, encoding: 'utf8', timeout: 5000, stdio: ['ignore', 'pipe', 'ignore'] });
      const line = out.split('\n')[0];
      return line ? line.split(':') : null;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') return null; // getent: no such entry
    }
    try {
      const col = NUMBER.test(key) ? 2 : 0;
      for (const line of fs.readFileSync(`/etc/${db}`, 'utf8').split('\n')) {
        const f = line.split(':');
        if (f.length >= 3 && f[col] === key) return f;
      }
    } catch {
      // no such file
    }
    return null;
  };
  return {
    user: (key) => {
      const f = entry('passwd', key);
      return f && NUMBER.test(f[2] ?? '') && NUMBER.test(f[3] ?? '') ? { name: f[0]!, uid: Number(f[2]), gid: Number(f[3]) } : null;
    },
    group: (key) => {
      const f = entry('group', key);
      return f && NUMBER.test(f[2] ?? '') ? { name: f[0]!, gid: Number(f[2]) } : null;
    },
  };
}

/**
 * `user[:group]`, each a name or a number. A number that names no account is used as it is (its
 * group: the same number unless one is given).
 */
function resolveSpec(spec: string, lookup: AccountLookup): { uid: number; gid: number; name: string } | string {
  const [userPart, groupPart, more] = spec.split(':');
  if (!userPart || more !== undefined || groupPart === '') return `NORMA_SANDBOX_USER must be a user name or uid, optionally with :group or :gid, got ${JSON.stringify(spec)}`;
  const found = lookup.user(userPart);
  let uid: number;
  let gid: number;
  let name: string;
  if (found) ({ uid, gid, name } = found);
  else if (NUMBER.test(userPart)) [uid, gid, name] = [Number(userPart), Number(userPart), userPart];
  else return `NORMA_SANDBOX_USER=${spec}: there is no user ${JSON.stringify(userPart)} on this host`;
  if (groupPart !== undefined) {
    const group = lookup.group(groupPart);
    if (group) gid = group.gid;
    else if (NUMBER.test(groupPart)) gid = Number(groupPart);
    else return `NORMA_SANDBOX_USER=${spec}: there is no group ${JSON.stringify(groupPart)} on this host`;
  }
  return { uid, gid, name };
}

export interface IdentityOptions {
  /** NORMA_SANDBOX_USER, when set. */
  spec: string | undefined;
  /** The server's own uid. */
  serverUid: number;
  /** setpriv on the host, or null. */
  setpriv: string | null;
  lookup?: AccountLookup;
}

/**
 * Who sandboxed processes run as. Throws SandboxUserError when NORMA_SANDBOX_USER was set and
 * cannot be honoured (start-up refuses); when only the default is missing the sandbox is
 * unusable instead, said by its self-test.
 */
export function resolveSandboxIdentity(o: IdentityOptions): SandboxIdentity {
  const lookup = o.lookup ?? systemAccounts();
  if (o.serverUid !== 0) {
    if (o.spec === undefined) return { kind: 'server' };
    const r = resolveSpec(o.spec, lookup);
    if (typeof r === 'string') throw new SandboxUserError(r);
    if (r.uid === o.serverUid) return { kind: 'server' };
    throw new SandboxUserError(
      `NORMA_SANDBOX_USER=${o.spec}: only a server running as root starts its sandboxes as another user; this one runs as uid ${o.serverUid} and its sandboxes run as that user (unset NORMA_SANDBOX_USER)`,
    );
  }
  const r = resolveSpec(o.spec ?? DEFAULT_SANDBOX_USER, lookup);
  if (typeof r === 'string') {
    if (o.spec !== undefined) throw new SandboxUserError(r);
    return {
      kind: 'unusable',
      reason: `the server runs as root and this host has no user "${DEFAULT_SANDBOX_USER}" to run sandboxed processes as; set NORMA_SANDBOX_USER to an unprivileged user (a name, or uid:gid)`,
    };
  }
  if (r.uid === 0 || r.gid === 0) {
    throw new SandboxUserError(`NORMA_SANDBOX_USER=${o.spec ?? DEFAULT_SANDBOX_USER} is uid ${r.uid}, gid ${r.gid}: sandboxed processes must run as an unprivileged user and group, never root's`);
  }
  if (!o.setpriv) return { kind: 'unusable', reason: SETPRIV_MISSING };
  return { kind: 'drop', uid: r.uid, gid: r.gid, name: r.name, setpriv: o.setpriv };
}

/** How the identity is described (/readyz, the self-test). */
export function describeIdentity(id: SandboxIdentity): string {
  if (id.kind === 'drop') return `processes run as ${id.name} (uid ${id.uid}, gid ${id.gid})`;
  if (id.kind === 'server') return `processes run as the server's user (uid ${process.getuid?.() ?? '?'})`;
  return id.reason;
}

/**
 * The setpriv command line the launcher puts before bwrap: real, effective and saved ids of the
 * user, no supplementary group, no inheritable capability (the change of uid from root clears the
 * others). What runs after it cannot become root again: it holds no capability, and bwrap sets
 * no_new_privs before the command starts.
 */
export function setprivArgv(id: { setpriv: string; uid: number; gid: number }): string[] {
  return [id.setpriv, `--reuid=${id.uid}`, `--regid=${id.gid}`, '--clear-groups', '--inh-caps=-all', '--'];
}
