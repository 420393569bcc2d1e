// The store settings of the configuration: which store (NORMA_STORE), PostgreSQL's URL
// (NORMA_DATABASE_URL, never echoed: it may hold a password) and this replica's name
// (NORMA_NODE_ID, the host name by default). Problems are added to `problems`, as config.ts does.
import os from 'node:os';

export interface StoreSettings {
  store: 'sqlite' | 'memory' | 'postgres';
  databaseUrl: string | undefined;
  nodeId: string;
}

export function readStoreSettings(get: (name: string) => string | undefined, problems: string[]): StoreSettings {
  const store = (get('NORMA_STORE') ?? 'sqlite') as StoreSettings['store'];
  if (store !== 'sqlite' && store !== 'memory' && store !== 'postgres') {
    problems.push(`NORMA_STORE must be "sqlite", "postgres" or "memory", got ${JSON.stringify(store)}`);
  }
  const databaseUrl = get('NORMA_DATABASE_URL');
  if (store === 'postgres' && databaseUrl === undefined) {
    problems.push('NORMA_STORE=postgres needs NORMA_DATABASE_URL (postgres://user:password@host:5432/database)');
  } else if (databaseUrl !== undefined && !/^postgres(ql)?:\/\/[^/\s]+/.test(databaseUrl)) {
    problems.push('NORMA_DATABASE_URL must be a postgres:// or postgresql:// URL (postgres://user:password@host:5432/database)');
  } else if (databaseUrl !== undefined && store !== 'postgres') {
    problems.push(`NORMA_DATABASE_URL is set but NORMA_STORE is ${JSON.stringify(store)}: set NORMA_STORE=postgres to use it`);
  }
  const nodeId = get('NORMA_NODE_ID') ?? (os.hostname().replace(/[^A-Za-z0-9._-]/g, '-').replace(/^[^A-Za-z0-9]+/, '').slice(0, 63) || 'node');
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/.test(nodeId)) {
    problems.push(`NORMA_NODE_ID must be 1-63 letters, digits, ".", "_" or "-" (starting with a letter or digit), got ${JSON.stringify(nodeId)}`);
  }
  return { store, databaseUrl, nodeId };
}
