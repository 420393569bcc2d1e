// This replica as PostgreSQL sees it: ownership, liveness and wake-ups come from the database,
// not from a protocol of our own. A node is alive while it holds its advisory lock, which one
// dedicated connection takes at start-up and keeps: when the process dies its connection closes
// and the lock goes with it (a lost machine's connection is found dead by TCP keepalives, set
// short on that connection). A session's lease names the node that runs it; another node takes
// a lease over only while its holder is not alive, in one UPDATE that checks so, raising the
// lease's epoch. The same connection LISTENs: committed events, commands for a session's owner,
// and commands answered.
import type pg from 'pg';
import { NODE_LOCK_CLASS as LOCK_CLASS, liveNode as LIVE } from '../store/pg-schema.js';

export type ClusterSignal =
  | { channel: 'event'; sessionId: string; seq: number }
  | { channel: 'command'; sessionId: string }
  | { channel: 'done'; commandId: number }
  /** The listening connection was lost and made again: notifications may have been missed. */
  | { channel: 'reconnected' };

export interface Lease {
  sessionId: string;
  nodeId: string;
  epoch: number;
}

export interface NodeOptions {
  url: string;
  nodeId: string;
  /** How long start-up waits for an earlier process of the same node id to let its lock go. */
  lockWaitMs?: number;
  onSignal: (s: ClusterSignal) => void;
  /** The liveness lock was lost and could not be taken again: this node must stop acting as an owner. */
  onLost: (why: string) => void;
  log: { warn(o: object, m: string): void; info(o: object, m: string): void };
}

export class ClusterNode {
  private listener: pg.Client | null = null;
  private closed = false;
  private lockKey = 0;

  private constructor(
    private readonly pg: typeof import('pg').default,
    readonly pool: pg.Pool,
    private readonly o: NodeOptions,
  ) {}

  /** Registers the node, takes its liveness lock and starts listening; fails when another live process is this node. */
  static async join(o: NodeOptions): Promise<ClusterNode> {
    const pgLib = (await import('pg')).default;
    pgLib.types.setTypeParser(20, (v) => Number(v));
    const pool = new pgLib.Pool({ connectionString: o.url, max: 4, application_name: `norma ${o.nodeId} cluster`.slice(0, 63), idleTimeoutMillis: 30_000 });
    pool.on('error', () => undefined);
    const node = new ClusterNode(pgLib, pool, o);
    try {
      await node.connect(true);
    } catch (err) {
      await pool.end().catch(() => undefined);
      throw err;
    }
    return node;
  }

  get nodeId(): string {
    return this.o.nodeId;
  }

  private async connect(first: boolean): Promise<void> {
    const client = new this.pg.Client({ connectionString: this.o.url, keepAlive: true, keepAliveInitialDelayMillis: 5_000, application_name: `norma ${this.o.nodeId} liveness`.slice(0, 63) });
    await client.connect();
    try {
      // The server side finds a vanished peer within ~11 s too, and lets its lock go.
      await client.query('SET tcp_keepalives_idle = 5; SET tcp_keepalives_interval = 2; SET tcp_keepalives_count = 3');
      const row = (
        await client.query(
          `INSERT INTO nodes (node_id, started_at, heartbeat_at) VALUES ($1, now(), now())
           ON CONFLICT (node_id) DO UPDATE SET node_id = EXCLUDED.node_id RETURNING lock_key`,
          [this.o.nodeId],
        )
      ).rows[0] as { lock_key: number };
      this.lockKey = row.lock_key;
      const deadline = Date.now() + (this.o.lockWaitMs ?? 15_000);
      for (;;) {
        const got = (await client.query('SELECT pg_try_advisory_lock($1, $2) AS ok', [LOCK_CLASS, this.lockKey])).rows[0] as { ok: boolean };
        if (got.ok) break;
        if (Date.now() >= deadline) {
          throw new Error(
            `another server is running as node ${JSON.stringify(this.o.nodeId)} on this database (it holds the node's lock); give each replica its own NORMA_NODE_ID`,
          );
        }
        await new Promise((r) => setTimeout(r, 250));
      }
      await client.query(`UPDATE nodes SET started_at = CASE WHEN $2 THEN now() ELSE started_at END, heartbeat_at = now(), stopped_at = NULL WHERE node_id = $1`, [
        this.o.nodeId,
        first,
      ]);
      client.on('notification', (n) => this.notified(n));
      client.on('error', (err) => this.lostConnection(client, err));
      client.on('end', () => this.lostConnection(client, new Error('the connection ended')));
      await client.query('LISTEN norma_events; LISTEN norma_commands; LISTEN norma_done');
      this.listener = client;
    } catch (err) {
      await client.end().catch(() => undefined);
      throw err;
    }
  }

  private notified(n: pg.Notification): void {
    const payload = n.payload ?? '';
    if (n.channel === 'norma_events') {
      const at = payload.lastIndexOf(' ');
      this.o.onSignal({ channel: 'event', sessionId: payload.slice(0, at), seq: Number(payload.slice(at + 1)) });
    } else if (n.channel === 'norma_commands') this.o.onSignal({ channel: 'command', sessionId: payload });
    else if (n.channel === 'norma_done') this.o.onSignal({ channel: 'done', commandId: Number(payload) });
  }

  private lostConnection(client: pg.Client, err: Error): void {
    if (this.closed || this.listener !== client) return;
    this.listener = null;
    client.end().catch(() => undefined);
    this.o.log.warn({ err }, 'the liveness connection to the database was lost; taking the node lock again');
    void this.reconnect(err);
  }

  private async reconnect(cause: Error): Promise<void> {
    // The lock went with the connection: until it is held again another node may take this
    // node's leases (the store's fencing refuses this node's writes to those from then on).
    for (let attempt = 0; attempt < 20 && !this.closed; attempt++) {
      await new Promise((r) => setTimeout(r, Math.min(2_000, 100 * 2 ** attempt)));
      try {
        await this.connect(false);
        this.o.onSignal({ channel: 'reconnected' });
        return;
      } catch (err) {
        cause = err as Error;
      }
    }
    if (!this.closed) this.o.onLost(cause.message);
  }

  // ── leases ──────────────────────────────────────────────────────────────────────────────

  /** Names of the nodes alive now (holding their lock). */
  async liveNodes(): Promise<string[]> {
    const rows = (await this.pool.query(`SELECT node_id FROM nodes o WHERE ${LIVE('o.node_id')} ORDER BY node_id`)).rows as { node_id: string }[];
    return rows.map((r) => r.node_id);
  }

  /** Who runs the session, and whether it is alive; null for a session that is not active. */
  async holder(sessionId: string): Promise<(Lease & { alive: boolean }) | null> {
    const row = (
      await this.pool.query(
        `SELECT l.node_id, l.epoch, ${LIVE('l.node_id')} AS alive FROM sessions s JOIN leases l ON l.session_id = s.id WHERE s.id = $1 AND s.status = 'active'`,
        [sessionId],
      )
    ).rows[0] as { node_id: string; epoch: number; alive: boolean } | undefined;
    return row ? { sessionId, nodeId: row.node_id, epoch: row.epoch, alive: row.alive } : null;
  }

  /** Active sessions whose lease holder is not alive (this node's own included, after a restart). */
  async orphans(): Promise<Lease[]> {
    const rows = (
      await this.pool.query(
        `SELECT l.session_id, l.node_id, l.epoch FROM leases l JOIN sessions s ON s.id = l.session_id
         WHERE s.status = 'active' AND (l.node_id = $1 OR NOT ${LIVE('l.node_id')}) ORDER BY s.created_at, s.id`,
        [this.o.nodeId],
      )
    ).rows as { session_id: string; node_id: string; epoch: number }[];
    return rows.map((r) => ({ sessionId: r.session_id, nodeId: r.node_id, epoch: r.epoch }));
  }

  /**
   * Takes the lease as it was read, if its holder is still not alive (or is this node): one
   * statement, so of several nodes trying only one succeeds. Returns the new epoch, or null.
   */
  async claim(lease: Lease): Promise<number | null> {
    const row = (
      await this.pool.query(
        `UPDATE leases SET node_id = $1, epoch = epoch + 1, acquired_at = now()
         WHERE session_id = $2 AND node_id = $3 AND epoch = $4 AND ($3 = $1 OR NOT ${LIVE('$3')}) RETURNING epoch`,
        [this.o.nodeId, lease.sessionId, lease.nodeId, lease.epoch],
      )
    ).rows[0] as { epoch: number } | undefined;
    return row ? row.epoch : null;
  }

  /** The active sessions whose lease this node holds. */
  async held(): Promise<string[]> {
    const rows = (
      await this.pool.query(`SELECT l.session_id FROM leases l JOIN sessions s ON s.id = l.session_id WHERE l.node_id = $1 AND s.status = 'active'`, [this.o.nodeId])
    ).rows as { session_id: string }[];
    return rows.map((r) => r.session_id);
  }

  // ── commands ────────────────────────────────────────────────────────────────────────────
  //
  // A command is pending until its session's owner takes it (pending → taken, then done with its
  // outcome) or its sender abandons it (pending → abandoned, with the "not done" answer it gives):
  // each is one conditional UPDATE, so exactly one of them happens. A command with work that
  // commits in one transaction is taken in that transaction (the store's claimCommand), so an
  // owner that dies before committing leaves it pending; the others are taken here first.

  /**
   * Stores a command for the session's owner and wakes it; returns the command's id. Not taken
   * within `ttlMs` (the database's clock), it is never taken. `token` is the sender's own name for
   * it: it finds the command when the insert's reply was lost.
   */
  async sendCommand(sessionId: string, kind: string, body: unknown, ttlMs: number, token: string): Promise<number> {
    const row = (
      await this.pool.query(
        `WITH c AS (INSERT INTO commands (session_id, kind, body, from_node, token, expires_at) VALUES ($1, $2, $3, $4, $5, now() + ($6::bigint * interval '1 millisecond')) RETURNING id)
         SELECT id, pg_notify('norma_commands', $1) FROM c`,
        [sessionId, kind, JSON.stringify(body), this.o.nodeId, token, Math.max(0, Math.ceil(ttlMs))],
      )
    ).rows[0] as { id: number };
    return row.id;
  }

  /**
   * The sender gives up on its command: abandoned (with `outcome`, the answer it gives) if nobody
   * took it yet. With `place`, a command that is not there (its insert failed, or has not arrived
   * yet) is stored abandoned under the token, so a late insert of it fails. Returns what the
   * command is now, or null when there is none.
   */
  async abandonCommand(token: string, outcome: string, place?: { sessionId: string; kind: string }): Promise<{ id: number; state: string; outcome: string | null } | null> {
    type Row = { id: number; state: string; outcome: string | null };
    const abandoned = (
      await this.pool.query(`UPDATE commands SET state = 'abandoned', outcome = $2, done_at = now() WHERE token = $1 AND state = 'pending' RETURNING id, state, outcome`, [token, outcome])
    ).rows[0] as Row | undefined;
    if (abandoned) return abandoned;
    if (place) {
      const stored = (
        await this.pool.query(
          `INSERT INTO commands (session_id, kind, body, from_node, token, state, outcome, done_at) VALUES ($1, $2, 'null', $3, $4, 'abandoned', $5, now())
           ON CONFLICT (token) WHERE token IS NOT NULL DO NOTHING RETURNING id, state, outcome`,
          [place.sessionId, place.kind, this.o.nodeId, token, outcome],
        )
      ).rows[0] as Row | undefined;
      if (stored) return stored;
    }
    // Read by a statement of its own: the update may have waited for the owner's commit, which
    // a read in the same statement would not see.
    return ((await this.pool.query('SELECT id, state, outcome FROM commands WHERE token = $1', [token])).rows[0] as Row | undefined) ?? null;
  }

  /** The command's outcome, once its owner wrote one (or its sender abandoned it). */
  async outcome(commandId: number): Promise<string | null> {
    const row = (await this.pool.query('SELECT outcome FROM commands WHERE id = $1', [commandId])).rows[0] as { outcome: string | null } | undefined;
    return row?.outcome ?? null;
  }

  /**
   * Commands of these sessions not answered yet, oldest first: pending ones not expired, and
   * taken ones (by a node that ran the session before, or by this node's previous process).
   */
  async openCommands(sessionIds: readonly string[]): Promise<{ id: number; sessionId: string; kind: string; body: unknown; takenBy: string | null }[]> {
    if (sessionIds.length === 0) return [];
    const rows = (
      await this.pool.query(
        `SELECT id, session_id, kind, body, taken_by FROM commands WHERE outcome IS NULL AND session_id = ANY($1::text[])
           AND (state = 'taken' OR (state = 'pending' AND (expires_at IS NULL OR expires_at > clock_timestamp()))) ORDER BY id`,
        [sessionIds],
      )
    ).rows as { id: number; session_id: string; kind: string; body: string; taken_by: string | null }[];
    return rows.map((r) => ({ id: r.id, sessionId: r.session_id, kind: r.kind, body: JSON.parse(r.body), takenBy: r.taken_by }));
  }

  /**
   * Takes a command for this node before running it: a pending one (unless abandoned or expired
   * meanwhile), or with `from`, one that node took and never answered (it no longer runs the
   * session). False when it is not this node's to run.
   */
  async claimCommand(commandId: number, from: string | null = null): Promise<boolean> {
    const rows =
      from === null
        ? (
            await this.pool.query(
              `UPDATE commands SET state = 'taken', taken_by = $2 WHERE id = $1 AND state = 'pending' AND (expires_at IS NULL OR expires_at > clock_timestamp()) RETURNING id`,
              [commandId, this.o.nodeId],
            )
          ).rows
        : (await this.pool.query(`UPDATE commands SET taken_by = $2 WHERE id = $1 AND state = 'taken' AND outcome IS NULL AND taken_by = $3 RETURNING id`, [commandId, this.o.nodeId, from]))
            .rows;
    return rows.length > 0;
  }

  /**
   * Answers a command this node took, or a pending one it refused without doing anything (its
   * work rolled back); a command its sender abandoned meanwhile keeps the sender's answer.
   */
  async completeCommand(commandId: number, outcome: string): Promise<boolean> {
    const rows = (
      await this.pool.query(
        `WITH u AS (UPDATE commands SET outcome = $2, done_at = now(), state = 'done'
                    WHERE id = $1 AND outcome IS NULL AND (state = 'pending' OR (state = 'taken' AND taken_by = $3)) RETURNING id)
         SELECT pg_notify('norma_done', id::text) FROM u`,
        [commandId, outcome, this.o.nodeId],
      )
    ).rows;
    return rows.length > 0;
  }

  /** Removes answered commands older than `ms`. */
  async sweepCommands(ms: number): Promise<void> {
    await this.pool.query(
      `DELETE FROM commands WHERE (outcome IS NOT NULL AND done_at < now() - ($1::int * interval '1 millisecond'))
         OR (state = 'pending' AND expires_at < now() - ($1::int * interval '1 millisecond'))`,
      [ms],
    );
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const client = this.listener;
    this.listener = null;
    if (client) {
      await client.query('UPDATE nodes SET stopped_at = now() WHERE node_id = $1', [this.o.nodeId]).catch(() => undefined);
      await client.end().catch(() => undefined);
    }
    await this.pool.end().catch(() => undefined);
  }
}
