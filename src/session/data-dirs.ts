// Where a session's server-side state lives under NORMA_DATA_DIR, besides the store: the one
// place that knows these paths, so creation, tools and retention agree on them.
import path from 'node:path';
import type { Session } from '../contract/schemas.js';

/** Until sessions belong to tenants, every named store is the one tenant's. */
const TENANT = 'default';

/**
 * The memory store of a session (the Memory tool's `/memories`): private to the session, or a
 * named store its tenant's sessions share. Names are schema-checked (`^[A-Za-z0-9_-]{1,64}$`).
 */
export function memoryDir(dataDir: string, session: Pick<Session, 'id' | 'memory_store'>): string {
  return session.memory_store
    ? path.join(dataDir, 'memory', 'stores', TENANT, session.memory_store)
    : path.join(dataDir, 'memory', 'sessions', session.id);
}
