// How records sit in SQLite rows: each resource is a JSON document in a `data` column, with the
// columns queries need beside it. A session's hooks, model key and model configuration have
// columns of their own, so they never travel inside the session document the API shows; so
// has its todo list, which changes often and is served by its own route.
import type { SessionRecord } from './store.js';

/**
 * Seals the columns that hold secrets (hooks, the model key, MCP servers' env and headers, the
 * session's secrets) when encryption at rest is on (evidence/encryption.ts); `place` binds a
 * sealed value to its column and session.
 */
export interface ColumnSealer {
  seal(tenant: string, place: string, plain: string): string;
  open(tenant: string, place: string, stored: string): string;
  /** A transaction rolled back: data keys it made are not stored, so none kept in memory is trusted. */
  rolledBack?(): void;
}

/** A row that holds a JSON document. */
export type Row = { data: string };

/** The columns a session is read from, in the order `sessionRecordOf` expects them. */
export const SESSION_COLUMNS = 'data, hooks, model_api_key, model, todos, mcp_servers, secrets, client_tools';

type SessionRow = { data: string; hooks: string | null; model_api_key: string | null; model: string | null; todos: string | null; mcp_servers: string | null; secrets?: string | null; client_tools?: string | null };

/** The values of the sessions columns (id, created_at, status, closed_at, data, hooks, model_api_key, model, todos, mcp_servers, tenant, secrets, client_tools). */
export function sessionRowOf(record: SessionRecord, sealer?: ColumnSealer): unknown[] {
  const s = record.session;
  const tenant = s.tenant ?? 'default';
  const secret = (column: string, plain: string | null) => (plain !== null && sealer ? sealer.seal(tenant, `${column}:${s.id}`, plain) : plain);
  return [
    s.id,
    s.created_at,
    s.status,
    s.closed_at,
    // The policy a session shows is its tenant's as it is now: filled in when read, never stored.
    JSON.stringify({ ...s, policy: undefined }),
    secret('hooks', record.hooks ? JSON.stringify(record.hooks) : null),
    secret('model_api_key', record.modelApiKey),
    record.model ? JSON.stringify(record.model) : null,
    record.todos ? JSON.stringify(record.todos) : null,
    secret('mcp_servers', record.mcpServers ? JSON.stringify(record.mcpServers) : null),
    tenant,
    secret('secrets', record.secrets && Object.keys(record.secrets).length > 0 ? JSON.stringify(record.secrets) : null),
    record.clientTools && record.clientTools.length > 0 ? JSON.stringify(record.clientTools) : null,
  ];
}

export function sessionRecordOf(row: SessionRow | undefined, sealer?: ColumnSealer): SessionRecord | undefined {
  if (!row) return undefined;
  // Sessions stored before checkpoints existed read as sessions that take them.
  const session = { checkpoints: true, forked_from: null, secret_names: [], budget: null, usage: { input_tokens: 0, output_tokens: 0, cost_usd: 0, model_calls: 0 }, compaction: { auto: true, threshold: 0.8 }, ...JSON.parse(row.data) };
  const tenant = (session.tenant as string | undefined) ?? 'default';
  const secret = (column: string, stored: string | null | undefined) => (stored && sealer ? sealer.open(tenant, `${column}:${session.id as string}`, stored) : (stored ?? null));
  const hooks = secret('hooks', row.hooks);
  const mcpServers = secret('mcp_servers', row.mcp_servers);
  const secrets = secret('secrets', row.secrets);
  return {
    session,
    hooks: hooks ? JSON.parse(hooks) : null,
    modelApiKey: secret('model_api_key', row.model_api_key),
    model: row.model ? JSON.parse(row.model) : null,
    todos: row.todos ? JSON.parse(row.todos) : null,
    mcpServers: mcpServers ? JSON.parse(mcpServers) : null,
    secrets: secrets ? JSON.parse(secrets) : null,
    clientTools: row.client_tools ? JSON.parse(row.client_tools) : null,
  };
}

/** The documents of rows read in order. */
export function documentsOf<T>(rows: unknown[]): T[] {
  return (rows as Row[]).map((r) => JSON.parse(r.data) as T);
}
