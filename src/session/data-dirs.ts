// Where a session's server-side state lives under NORMA_DATA_DIR, besides the store: the one
// place that knows these paths, so creation, tools and retention agree on them.
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Session } from '../contract/schemas.js';
import { DEFAULT_TENANT } from '../contract/tenant.js';
import { DomainError } from '../errors.js';
import { within } from '../sandbox/path-confine.js';

/**
 * The memory store of a session (the Memory tool's `/memories`): private to the session, or a
 * named store its tenant's sessions share (another tenant's store of the same name is another
 * directory). Names and tenants are schema-checked (`^[A-Za-z0-9_-]{1,64}$`).
 */
export function memoryDir(dataDir: string, session: Pick<Session, 'id' | 'memory_store' | 'tenant'>): string {
  return session.memory_store
    ? path.join(dataDir, 'memory', 'stores', session.tenant ?? DEFAULT_TENANT, session.memory_store)
    : path.join(dataDir, 'memory', 'sessions', session.id);
}

/** The directory under NORMA_WORKSPACE_ROOT reserved for the tenants other than the default one. */
export const TENANTS_DIR = 'tenants';

/**
 * Where a tenant's workspaces lie: the default tenant's directly under the root (as before
 * tenants existed), every other tenant's under `<root>/tenants/<tenant>`. No tenant may name a
 * workspace in another's tree: the default tenant's excludes `<root>/tenants`.
 */
export function tenantWorkspaceRoot(root: string, tenant: string): string {
  return tenant === DEFAULT_TENANT ? root : path.join(root, TENANTS_DIR, tenant);
}

/**
 * The tenant's workspace directory below the real workspace root `root`, made if missing, as a
 * real path. `tenants/` and `tenants/<tenant>` are made and checked one at a time and must be
 * directories, not links: a link there (to another tenant's directory, say) would hand this
 * tenant's sessions the workspaces behind it. Refused (503) rather than followed.
 */
export async function makeTenantWorkspaceRoot(root: string, tenant: string): Promise<string> {
  const dir = tenantWorkspaceRoot(root, tenant);
  if (dir === root) return root;
  let at = root;
  for (const part of [TENANTS_DIR, tenant]) {
    at = path.join(at, part);
    await fs.mkdir(at, { mode: 0o700 }).catch((err: NodeJS.ErrnoException) => (err.code === 'EEXIST' ? undefined : Promise.reject(err)));
    const st = await fs.lstat(at);
    if (!st.isDirectory()) {
      throw new DomainError('unavailable', `the tenant's workspace directory ${at} is ${st.isSymbolicLink() ? 'a symlink' : 'not a directory'}; the server does not follow it (the operator must make it a directory)`);
    }
  }
  const real = await fs.realpath(dir);
  if (real !== dir) throw new DomainError('unavailable', `the tenant's workspace directory ${dir} resolves to ${real}; the server does not follow links there`);
  return real;
}

/**
 * Why a session's workspace, by its real path now, is not in its tenant's part of the workspace
 * root (null when it is): the workspace, or a directory above it, was replaced by a link since
 * the session was created — after a restart it would otherwise be opened where the link leads.
 */
export async function workspaceOutsideTenant(workspaceRoot: string, tenant: string, realWorkspace: string): Promise<string | null> {
  let root: string;
  try {
    root = await fs.realpath(workspaceRoot);
  } catch (err) {
    return `the workspace root ${workspaceRoot} cannot be resolved: ${(err as Error).message}`;
  }
  const own = tenantWorkspaceRoot(root, tenant);
  const barred = tenant === DEFAULT_TENANT && within(realWorkspace, path.join(root, TENANTS_DIR));
  if (realWorkspace === own || !within(realWorkspace, own) || barred) {
    return `the workspace now resolves to ${realWorkspace}, which is not in the tenant's part of the workspace root (${own}): a link was put in its way, and it is not followed`;
  }
  return null;
}
