// The PostgreSQL schema as numbered migrations, applied at start-up. Replicas starting together
// take a transaction-scoped advisory lock first, so one applies what is missing and the others
// find it applied; norma_schema records the last migration applied. A database migrated by a
// newer server is refused, never written.
import { KEY_TABLES } from './keys.js';
import { StoreOpenError } from './sqlite-schema.js';
import { PgError, type SyncPg } from './pg-sync.js';

const MIGRATIONS: readonly string[] = [
  // 1: the initial schema. Documents are JSON text beside the columns queries need (as in
  // SQLite); a session's active turn has a column of its own, the one field every turn changes.
  `
  CREATE TABLE sessions (
    id TEXT PRIMARY KEY,
    tenant TEXT NOT NULL,
    created_at TEXT NOT NULL,
    status TEXT NOT NULL,
    closed_at TEXT,
    active_turn_id TEXT,
    data TEXT NOT NULL,
    hooks TEXT,
    model_api_key TEXT,
    model TEXT,
    todos TEXT,
    mcp_servers TEXT
  );
  CREATE INDEX sessions_by_created ON sessions (created_at DESC, id DESC);
  CREATE INDEX sessions_by_tenant ON sessions (tenant, created_at DESC, id DESC);
  CREATE INDEX sessions_by_status ON sessions (status, closed_at);
  CREATE TABLE turns (
    session_id TEXT NOT NULL,
    id TEXT NOT NULL,
    ord INTEGER NOT NULL,
    head TEXT NOT NULL,
    tool_uses TEXT NOT NULL,
    PRIMARY KEY (session_id, id)
  );
  CREATE INDEX turns_by_order ON turns (session_id, ord);
  CREATE TABLE turn_results (
    session_id TEXT NOT NULL,
    turn_id TEXT NOT NULL,
    idx INTEGER NOT NULL,
    data TEXT NOT NULL,
    PRIMARY KEY (session_id, turn_id, idx)
  );
  CREATE TABLE permissions (
    session_id TEXT NOT NULL,
    id TEXT NOT NULL,
    ord INTEGER NOT NULL,
    status TEXT NOT NULL,
    data TEXT NOT NULL,
    PRIMARY KEY (session_id, id)
  );
  CREATE INDEX permissions_by_order ON permissions (session_id, ord);
  CREATE TABLE questions (
    session_id TEXT NOT NULL,
    id TEXT NOT NULL,
    ord INTEGER NOT NULL,
    status TEXT NOT NULL,
    data TEXT NOT NULL,
    PRIMARY KEY (session_id, id)
  );
  CREATE INDEX questions_by_order ON questions (session_id, ord);
  CREATE TABLE outputs (
    session_id TEXT NOT NULL,
    id TEXT NOT NULL,
    ord INTEGER NOT NULL,
    data TEXT NOT NULL,
    PRIMARY KEY (session_id, id)
  );
  CREATE INDEX outputs_by_order ON outputs (session_id, ord);
  CREATE TABLE events (
    session_id TEXT NOT NULL,
    seq BIGINT NOT NULL,
    type TEXT NOT NULL,
    turn_id TEXT,
    data TEXT NOT NULL,
    PRIMARY KEY (session_id, seq)
  );
  CREATE INDEX events_started_by_turn ON events (session_id, turn_id) WHERE type = 'tool.started';
  CREATE TABLE decisions (
    session_id TEXT NOT NULL,
    seq BIGINT NOT NULL,
    turn_id TEXT NOT NULL,
    tool_use_id TEXT NOT NULL,
    data TEXT NOT NULL,
    PRIMARY KEY (session_id, seq)
  );
  `,
  // 2: replicas. A node is alive while it holds the advisory lock (class "NORM", its lock_key)
  // that one connection of its process takes at start-up and keeps. A session's live runtime
  // belongs to its lease holder; a lease is taken over only while its holder is not alive, and
  // taking it raises its epoch. Only the holder appends a session's events (the insert checks it,
  // under a share lock on the lease row, so a takeover waits for a commit in flight). Every
  // committed event wakes the other replicas' streams: the trigger's notification is sent at
  // commit, never for a rolled-back one. Commands carry what a node asks a session's owner to do
  // (start a turn, answer a request); the owner writes the outcome, with the work when it can.
  `
  CREATE TABLE nodes (
    node_id TEXT PRIMARY KEY,
    lock_key SERIAL UNIQUE,
    started_at TIMESTAMPTZ NOT NULL,
    heartbeat_at TIMESTAMPTZ NOT NULL,
    stopped_at TIMESTAMPTZ
  );
  CREATE TABLE leases (
    session_id TEXT PRIMARY KEY,
    node_id TEXT NOT NULL,
    epoch INTEGER NOT NULL,
    acquired_at TIMESTAMPTZ NOT NULL
  );
  CREATE INDEX leases_by_node ON leases (node_id);
  CREATE FUNCTION norma_event_notify() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    PERFORM pg_notify('norma_events', NEW.session_id || ' ' || NEW.seq);
    RETURN NULL;
  END $$;
  CREATE TRIGGER events_notify AFTER INSERT ON events FOR EACH ROW EXECUTE FUNCTION norma_event_notify();
  CREATE TABLE commands (
    id BIGSERIAL PRIMARY KEY,
    session_id TEXT NOT NULL,
    kind TEXT NOT NULL,
    body TEXT NOT NULL,
    from_node TEXT NOT NULL,
    created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    outcome TEXT,
    done_at TIMESTAMPTZ
  );
  CREATE INDEX commands_open ON commands (session_id, id) WHERE outcome IS NULL;
  CREATE INDEX commands_done ON commands (done_at) WHERE outcome IS NOT NULL;
  `,
  // 3: what replicas share besides sessions: short-lived tokens (event tickets, console logins)
  // by their SHA-256, and the per-tenant request counters of requests_per_minute.
  `
  CREATE TABLE tokens (
    kind TEXT NOT NULL,
    digest TEXT NOT NULL,
    grp TEXT NOT NULL,
    data TEXT NOT NULL,
    created_ms BIGINT NOT NULL,
    expires_ms BIGINT NOT NULL,
    PRIMARY KEY (kind, digest)
  );
  CREATE INDEX tokens_by_group ON tokens (kind, grp, created_ms);
  CREATE INDEX tokens_by_expiry ON tokens (kind, expires_ms);
  CREATE TABLE rate_windows (
    key TEXT PRIMARY KEY,
    started_ms BIGINT NOT NULL,
    count BIGINT NOT NULL
  );
  `,
  // 4: what keeps one server's guarantees across replicas. A command has a state: its owner
  // takes a pending one (pending → taken) before running it, and the node that sent it abandons a
  // pending one (pending → abandoned) before answering that it was not done; whichever comes
  // first decides, so a command answered "not done" never runs. A command nobody took by its
  // expiry is not taken at all (its sender may not have been able to abandon it); its token, the
  // sender's, finds it when the insert's reply was lost. Idempotency-Key answers
  // (idempotency.ts), per tenant: the attempt holding a key (`token`, of node `holder`'s process
  // `boot`, claimed at `created_at`), what its work made (`value`, in the work's transaction) and
  // the answer sent (`response`).
  `
  ALTER TABLE commands ADD COLUMN state TEXT NOT NULL DEFAULT 'pending';
  ALTER TABLE commands ADD COLUMN taken_by TEXT;
  ALTER TABLE commands ADD COLUMN expires_at TIMESTAMPTZ;
  ALTER TABLE commands ADD COLUMN token TEXT;
  UPDATE commands SET state = 'done' WHERE outcome IS NOT NULL;
  CREATE UNIQUE INDEX commands_by_token ON commands (token) WHERE token IS NOT NULL;
  CREATE TABLE idempotency_keys (
    tenant TEXT NOT NULL,
    key TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    token TEXT NOT NULL,
    holder TEXT NOT NULL,
    boot TEXT NOT NULL,
    created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    expires_ms BIGINT NOT NULL,
    value TEXT,
    response TEXT,
    finished BOOLEAN NOT NULL DEFAULT false,
    PRIMARY KEY (tenant, key)
  );
  CREATE INDEX idempotency_keys_by_expiry ON idempotency_keys (expires_ms);
  `,
  // A session's own secrets for its processes (values: never in `data`).
  `ALTER TABLE sessions ADD COLUMN secrets TEXT;`,
  // What each tenant's model calls cost per UTC day, in nano-dollars (max_usd_per_day), every replica's.
  `CREATE TABLE tenant_spend (tenant TEXT NOT NULL, day TEXT NOT NULL, nano_usd BIGINT NOT NULL, PRIMARY KEY (tenant, day));`,
  // What waits for a person, found without reading every request ever made (GET /v1/pending,
  // the pending count of each listed session).
  `
  CREATE INDEX permissions_pending ON permissions (session_id) WHERE status = 'pending';
  CREATE INDEX questions_pending ON questions (session_id) WHERE status = 'pending';
  `,
  // Each tenant's log (GET /v1/events), made by the events insert itself. Replicas commit in any
  // order, so an entry is ordered by its transaction id and read only once every transaction that
  // could still add an earlier one has ended (below the snapshot's xmin): a reader never passes an
  // entry that commits later.
  `
  CREATE TABLE tenant_events (
    gid BIGSERIAL,
    xid xid8 NOT NULL DEFAULT pg_current_xact_id(),
    tenant TEXT NOT NULL,
    session_id TEXT NOT NULL,
    seq BIGINT NOT NULL,
    PRIMARY KEY (tenant, xid, gid)
  );
  CREATE INDEX tenant_events_by_session ON tenant_events (session_id);
  CREATE FUNCTION norma_event_tenant() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    INSERT INTO tenant_events (tenant, session_id, seq) SELECT tenant, NEW.session_id, NEW.seq FROM sessions WHERE id = NEW.session_id;
    RETURN NULL;
  END $$;
  CREATE TRIGGER events_tenant AFTER INSERT ON events FOR EACH ROW EXECUTE FUNCTION norma_event_tenant();
  `,
  // The evidence chain's signing keys and signed heads, and the tenants' wrapped data keys (keys.ts).
  KEY_TABLES,
  // Calls of tools the client runs, waiting for (or answered by) the client; and a session's
  // client tools, whole (the session document names them only).
  `
  CREATE TABLE client_tool_requests (
    session_id TEXT NOT NULL,
    id TEXT NOT NULL,
    ord INTEGER NOT NULL,
    status TEXT NOT NULL,
    data TEXT NOT NULL,
    PRIMARY KEY (session_id, id)
  );
  CREATE INDEX client_tool_requests_by_order ON client_tool_requests (session_id, ord);
  ALTER TABLE sessions ADD COLUMN client_tools TEXT;
  `,
  // A client's answer, kept with its request until the call's result is stored (and after).
  `ALTER TABLE client_tool_requests ADD COLUMN answer TEXT;`,
];

export const PG_SCHEMA_VERSION = MIGRATIONS.length;

/** The class half of the two-integer advisory locks nodes hold for their liveness ("NORM"). */
export const NODE_LOCK_CLASS = 0x4e4f524d;
/** The class half of the transaction locks that order a tenant's limited changes ("NTEN"). */
export const TENANT_LOCK_CLASS = 0x4e54454e;

/** The SQL for "the node named by <expr> holds its liveness lock now". */
export const liveNode = (nodeExpr: string) => `EXISTS (
  SELECT 1 FROM nodes n JOIN pg_locks k ON k.locktype = 'advisory' AND k.classid = ${NODE_LOCK_CLASS}::oid AND k.objid = n.lock_key::oid
    AND k.objsubid = 2 AND k.granted AND k.database = (SELECT oid FROM pg_database WHERE datname = current_database())
  WHERE n.node_id = ${nodeExpr})`;

/**
 * "This node may write the session": it holds the session's lease (read FOR SHARE, so a takeover
 * waits for the transaction and the writes after it are refused), or the session has no lease.
 * `$s` and `$n` are the statement's parameters of the session id and this node's id.
 */
export function fence(s: string, n: string): string {
  return `(EXISTS (SELECT 1 FROM leases WHERE session_id = ${s}::text AND node_id = ${n}::text FOR SHARE) OR NOT EXISTS (SELECT 1 FROM leases WHERE session_id = ${s}::text))`;
}


/** Brings the database to the current schema; StoreOpenError when it cannot be used. */
export function migratePg(db: SyncPg, where: string): void {
  try {
    db.request({
      begin: true,
      statements: [
        // One replica migrates at a time; the lock ends with the transaction.
        { sql: `SELECT pg_advisory_xact_lock(hashtext('norma.migrate'))` },
        { sql: 'CREATE TABLE IF NOT EXISTS norma_schema (version INTEGER NOT NULL)' },
      ],
    });
    const rows = db.query('SELECT version FROM norma_schema');
    const version = rows.length > 0 ? Number(rows[0]!.version) : 0;
    if (version > MIGRATIONS.length) {
      db.request({ statements: [], end: 'rollback' });
      throw new StoreOpenError(where, `schema version ${version} is newer than this server understands (${MIGRATIONS.length}); upgrade the server`);
    }
    const statements: { sql: string; simple?: boolean }[] = MIGRATIONS.slice(version).map((sql) => ({ sql, simple: true }));
    if (statements.length > 0) {
      statements.push({ sql: rows.length > 0 ? `UPDATE norma_schema SET version = ${MIGRATIONS.length}` : `INSERT INTO norma_schema (version) VALUES (${MIGRATIONS.length})` });
    }
    db.request({ statements, end: 'commit' });
  } catch (err) {
    if (err instanceof StoreOpenError) throw err;
    throw new StoreOpenError(where, err instanceof PgError ? `${err.message}${err.code ? ` (${err.code})` : ''}` : String(err));
  }
}
