// What /readyz and the start-up log say when a program the process sandbox needs is missing or
// cannot work here: what is missing, what that disables, and what to install or check.
import fs from 'node:fs';

/** What an unusable process sandbox takes away. */
export const WITHOUT_SANDBOX = 'shell tools (Bash, background tasks, PTY shells), command hooks and stdio MCP servers are not available';

export const BWRAP_MISSING = `bubblewrap (bwrap) not found on PATH: ${WITHOUT_SANDBOX}; install Debian's bubblewrap package (apt-get install bubblewrap)`;

export const SOCAT_MISSING = "socat not found: sessions cannot have sandbox_network; install Debian's socat package (apt-get install socat)";

/** Reads a file under /proc/sys (its trimmed content), or null when the kernel has no such setting. */
export type SysctlReader = (name: string) => string | null;

export const readSysctl: SysctlReader = (name) => {
  try {
    return fs.readFileSync(`/proc/sys/${name.replaceAll('.', '/')}`, 'utf8').trim();
  } catch {
    return null;
  }
};

/** The kernel settings that stop unprivileged user namespaces, each with the value that stops them. */
const BLOCKING_SYSCTLS: readonly { name: string; blocks: (v: string) => boolean }[] = [
  { name: 'kernel.unprivileged_userns_clone', blocks: (v) => v === '0' },
  { name: 'user.max_user_namespaces', blocks: (v) => v === '0' },
  { name: 'kernel.apparmor_restrict_unprivileged_userns', blocks: (v) => v === '1' },
];

const USERNS_CHECKS =
  'check that unprivileged user namespaces are allowed: kernel.unprivileged_userns_clone=1 (Debian kernels that have it), ' +
  'user.max_user_namespaces above 0, and on Ubuntu 24.04 and later kernel.apparmor_restrict_unprivileged_userns=0 or an AppArmor ' +
  'profile that allows bwrap `userns`; in a container, a seccomp profile that allows creating namespaces (Docker\'s default ' +
  'refuses it: seccomp=unconfined or a custom profile, see docker-compose.yml) and an AppArmor profile that allows mounts (apparmor=unconfined)';

const PROC_CHECKS =
  'a new /proc cannot be mounted over a /proc with masked paths: in a container, run it with systempaths=unconfined ' +
  '(Docker; Podman: unmask=ALL), see docker-compose.yml';

/**
 * What to check when bwrap itself failed (its own message on stderr, not the probe's): user
 * namespaces, the container's profiles, and /proc. Settings of this host that block user
 * namespaces are named with their values.
 */
export function bwrapFailureHint(message: string, read: SysctlReader = readSysctl): string {
  const found = BLOCKING_SYSCTLS.flatMap(({ name, blocks }) => {
    const v = read(name);
    return v !== null && blocks(v) ? [`${name}=${v}`] : [];
  });
  const parts = [`bubblewrap cannot create its sandbox here; ${USERNS_CHECKS}`];
  if (/\bproc\b/i.test(message)) parts.push(PROC_CHECKS);
  if (found.length > 0) parts.push(`this host has ${found.join(', ')}`);
  return parts.join('; ');
}
