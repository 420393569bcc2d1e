// Opening the SQLite file: the schema as numbered migrations, the pragmas that make a commit
// durable, and the checks that refuse a database this server cannot use. Schema changes are
// migrations applied at start-up inside a transaction each (PRAGMA user_version records the
// last one applied), so every later read and write can assume the current schema.
import { KEY_TABLES } from './keys.js';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';

/** The database cannot be used: start-up stops with this message (path and cause). */
export class StoreOpenError extends Error {
  constructor(
    readonly file: string,
    cause: string,
  ) {
    super(`cannot use the database ${file}: ${cause}`);
    this.name = 'StoreOpenError';
  }
}

const MIGRATIONS: readonly string[] = [
  // 1: the initial schema.
  `
  CREATE TABLE sessions (
    id TEXT PRIMARY KEY,
    created_at TEXT NOT NULL,
    status TEXT NOT NULL,
    closed_at TEXT,
    data TEXT NOT NULL,
    hooks TEXT,
    model_api_key TEXT
  );
  CREATE INDEX sessions_by_created ON sessions (created_at DESC, id DESC);
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
  ) WITHOUT ROWID;
  CREATE TABLE permissions (
    session_id TEXT NOT NULL,
    id TEXT NOT NULL,
    ord INTEGER NOT NULL,
    status TEXT NOT NULL,
    data TEXT NOT NULL,
    PRIMARY KEY (session_id, id)
  );
  CREATE INDEX permissions_by_order ON permissions (session_id, ord);
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
    seq INTEGER NOT NULL,
    type TEXT NOT NULL,
    turn_id TEXT,
    data TEXT NOT NULL,
    PRIMARY KEY (session_id, seq)
  ) WITHOUT ROWID;
  CREATE INDEX events_by_turn ON events (session_id, turn_id, type);
  CREATE TABLE decisions (
    session_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    turn_id TEXT NOT NULL,
    tool_use_id TEXT NOT NULL,
    data TEXT NOT NULL,
    PRIMARY KEY (session_id, seq)
  ) WITHOUT ROWID;
  `,
  // 2: a session's model configuration (without its key, which has its own column).
  `ALTER TABLE sessions ADD COLUMN model TEXT;`,
  // 3: questions a call asks a person (AskUser), and a session's todo list.
  `
  CREATE TABLE questions (
    session_id TEXT NOT NULL,
    id TEXT NOT NULL,
    ord INTEGER NOT NULL,
    status TEXT NOT NULL,
    data TEXT NOT NULL,
    PRIMARY KEY (session_id, id)
  );
  CREATE INDEX questions_by_order ON questions (session_id, ord);
  ALTER TABLE sessions ADD COLUMN todos TEXT;
  `,
  // 4: a session's own MCP servers, with their env and header values (secrets: not in `data`).
  `ALTER TABLE sessions ADD COLUMN mcp_servers TEXT;`,
  // 5: the tenant a session belongs to (sessions of earlier versions: the default tenant), each
  // tenant's sessions newest first, and (id, tenant) so a lookup of another tenant's session is
  // decided in the index, never reading the row: it costs what a missing one costs.
  `
  ALTER TABLE sessions ADD COLUMN tenant TEXT NOT NULL DEFAULT 'default';
  CREATE INDEX sessions_by_tenant ON sessions (tenant, created_at DESC, id DESC);
  CREATE UNIQUE INDEX sessions_by_id_tenant ON sessions (id, tenant);
  `,
  // Only restart recovery looks events up by turn, and only tool.started: every other event's
  // insert no longer writes an index page too.
  `
  DROP INDEX events_by_turn;
  CREATE INDEX events_started_by_turn ON events (session_id, turn_id) WHERE type = 'tool.started';
  `,
  // 7: Idempotency-Key answers (idempotency.ts), per tenant: the request's fingerprint, the
  // attempt holding the key (`token`, of the process `boot`), what its work made (`value`,
  // written in the work's transaction) and the answer sent (`response`).
  `
  CREATE TABLE idempotency_keys (
    tenant TEXT NOT NULL,
    key TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    token TEXT NOT NULL,
    boot TEXT NOT NULL,
    expires_ms INTEGER NOT NULL,
    value TEXT,
    response TEXT,
    finished INTEGER NOT NULL,
    PRIMARY KEY (tenant, key)
  );
  CREATE INDEX idempotency_keys_by_expiry ON idempotency_keys (expires_ms);
  `,
  // 8: a session's own secrets for its processes (values: never in `data`).
  `ALTER TABLE sessions ADD COLUMN secrets TEXT;`,
  // 9: what each tenant's model calls cost per UTC day, in nano-dollars (max_usd_per_day).
  `CREATE TABLE tenant_spend (tenant TEXT NOT NULL, day TEXT NOT NULL, nano_usd INTEGER NOT NULL, PRIMARY KEY (tenant, day));`,
  // 10: what waits for a person, found without reading every request ever made (GET /v1/pending,
  // the pending count of each listed session).
  `
  CREATE INDEX permissions_pending ON permissions (session_id) WHERE status = 'pending';
  CREATE INDEX questions_pending ON questions (session_id) WHERE status = 'pending';
  `,
  // 11: each tenant's log (GET /v1/events): an entry per event of its sessions, in commit order
  // (one writer: the order of the AUTOINCREMENT id), made by the events insert itself.
  `
  CREATE TABLE tenant_events (gid INTEGER PRIMARY KEY AUTOINCREMENT, tenant TEXT NOT NULL, session_id TEXT NOT NULL, seq INTEGER NOT NULL);
  CREATE INDEX tenant_events_by_tenant ON tenant_events (tenant, gid);
  CREATE INDEX tenant_events_by_session ON tenant_events (session_id);
  CREATE TRIGGER events_to_tenant AFTER INSERT ON events BEGIN
    INSERT INTO tenant_events (tenant, session_id, seq) SELECT tenant, NEW.session_id, NEW.seq FROM sessions WHERE id = NEW.session_id;
  END;
  `,
  // 12: the evidence chain's signing keys and signed heads, and the tenants' wrapped data keys (keys.ts).
  KEY_TABLES,
  // 13: calls of tools the client runs, waiting for (or answered by) the client; and a session's
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
  // 14: a client's answer, kept with its request until the call's result is stored (and after).
  `ALTER TABLE client_tool_requests ADD COLUMN answer TEXT;`,
];

export const SCHEMA_VERSION = MIGRATIONS.length;

/** Opens (creating if needed) and migrates the database; StoreOpenError when it cannot be used. */
export function openDatabase(file: string): Database.Database {
  let db: Database.Database;
  try {
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    // The database holds every session's record: readable by the server's user only. SQLite makes
    // its -wal file with the database's mode, so that one is too.
    fs.closeSync(fs.openSync(file, fs.constants.O_RDWR | fs.constants.O_CREAT | fs.constants.O_NOFOLLOW, 0o600));
    if ((fs.statSync(file).mode & 0o077) !== 0) fs.chmodSync(file, 0o600);
    db = new Database(file);
  } catch (err) {
    throw new StoreOpenError(file, messageOf(err));
  }
  try {
    // One server per database: the file stays locked while it is open, so a second server on the
    // same data directory stops at start-up instead of writing beside the first (each keeps
    // per-session counters in memory). It also spares every commit the lock calls of shared
    // mode, and the WAL index lives in memory (no -shm file). Set before WAL is entered.
    db.pragma('busy_timeout = 5000');
    db.pragma('locking_mode = EXCLUSIVE');
    db.pragma('journal_mode = WAL');
    // WAL + NORMAL: a committed transaction survives a process crash (SIGKILL included); only
    // an operating-system crash or power loss can lose the last ones, never corrupt the file.
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = OFF');
    db.exec('BEGIN EXCLUSIVE; COMMIT');
    const check = db.pragma('quick_check', { simple: true });
    if (check !== 'ok') throw new Error(`integrity check failed: ${String(check)}`);
    migrate(db);
  } catch (err) {
    try {
      db.close();
    } catch {
      // already unusable
    }
    const busy = (err as { code?: string }).code === 'SQLITE_BUSY';
    throw new StoreOpenError(file, busy ? 'another process has it open (is another server running on this data directory?)' : messageOf(err));
  }
  return db;
}

function migrate(db: Database.Database): void {
  const version = db.pragma('user_version', { simple: true }) as number;
  if (version > MIGRATIONS.length) {
    throw new Error(`schema version ${version} is newer than this server understands (${MIGRATIONS.length}); upgrade the server`);
  }
  for (let v = version; v < MIGRATIONS.length; v++) {
    db.transaction(() => {
      db.exec(MIGRATIONS[v]!);
      db.pragma(`user_version = ${v + 1}`);
    })();
  }
}

function messageOf(err: unknown): string {
  if (err instanceof Error) {
    const code = (err as { code?: string }).code;
    return code && !err.message.includes(code) ? `${err.message} (${code})` : err.message;
  }
  return String(err);
}
