// Where a session's server-side state lives under NORMA_DATA_DIR, besides the store: the one
// place that knows these paths, so creation, tools and retention agree on them.
import path from 'node:path';
import type { Session } from '../contract/schemas.js';

import { DEFAULT_TENANT } from '../contract/tenant.js';

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
