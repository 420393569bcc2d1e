// Several replicas on one PostgreSQL database (NORMA_STORE=postgres). Each active session runs on
// one node, its lease holder. Any node serves any request: reads come from the database, event
// streams wake on notifications (EventLog.wake), and a use case that needs the session's runtime
// (owner.ts) runs on the holder — here when this node holds it, else as a command the holder
// carries out and answers through the database (replica-commands.ts: a command answered "not
// done" never runs). A tenant's limits are counted under a per-tenant transaction lock, so they
// hold across replicas (limits.ts). A lease whose holder is not alive is taken over:
// at start-up (this node's own and the dead nodes'), every `checkMs`, and at once when a request
// needs the session. Taking over is restart recovery for that session: paused turns wait again
// for their answers, running ones are interrupted.
import type { ClusterNode, ClusterSignal, Lease } from '../cluster/node.js';
import type { EventLog } from '../events/log.js';
import type { KeptWork } from '../store/idempotency.js';
import type { PostgresStore } from '../store/pg-store.js';
import { OWNER_CALLS, callInCommit, type Application, type KeptCallName, type OwnerCallArgs, type OwnerCallName, type OwnerCallResult, type OwnerRouter } from './owner.js';
import type { Parts } from './parts.js';
import { ReplicaCommands } from './replica-commands.js';
import { waitElsewhere, type ElsewhereWait } from './replica-wait.js';
import { INTERNAL, type Scope } from './scope.js';

export interface ReplicaOptions {
  /** How often dead nodes' sessions are looked for (and this node's leases checked). */
  checkMs?: number;
  /** How long a request waits for the owner's answer to a command (besides what the call itself waits). */
  commandTimeoutMs?: number;
  /** How long start-up waits for an earlier process of the same node id to let its lock go (default 15 s). */
  nodeLockWaitMs?: number;
}

export class Replicas implements OwnerRouter {
  private readonly taking = new Map<string, Promise<boolean>>();
  private readonly commands: ReplicaCommands;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private ticking = false;
  private lastSweep = 0;
  private readonly checkMs: number;
  private readonly commandTimeoutMs: number;

  constructor(
    private readonly node: ClusterNode,
    private readonly app: Application,
    private readonly parts: Parts,
    private readonly store: PostgresStore,
    private readonly events: EventLog,
    options: ReplicaOptions = {},
  ) {
    this.checkMs = options.checkMs ?? 1_000;
    // A tenant's limits count every replica's sessions and turns, as the database has them.
    // Counted for a limit inside the transaction that adds to it, under the tenant's transaction
    // lock: exact however the tenant's requests are spread over replicas.
    parts.tenantCounts = {
      activeSessions: (tenant) => store.countSessions(tenant),
      held: (tenant, what) => store.countSessionsHeld(tenant, what === 'turns'),
    };
    this.commandTimeoutMs = options.commandTimeoutMs ?? 30_000;
    // A unit of work that did not commit: what this node holds of its sessions is dropped and
    // taken again from the database (see retake).
    store.onCommitFailed = (keys, err) => {
      for (const id of keys) this.retakeAfterFailedCommit(id, err);
    };
    store.onCallbackError = (err) => parts.deps.logger.error({ err }, 'delivering committed work failed');
    this.commands = new ReplicaCommands({
      node,
      app,
      parts,
      store,
      commandTimeoutMs: this.commandTimeoutMs,
      takeOverIfDead: (sessionId) => this.takeOverIfDead(sessionId),
    });
  }

  get nodeId(): string {
    return this.node.nodeId;
  }

  /** Takes this node's leases and the dead nodes' (recovering their sessions), then checks every `checkMs`. */
  async start(): Promise<{ sessions: number; resumed: number; interrupted: number }> {
    const claimed: string[] = [];
    for (const lease of await this.node.orphans()) {
      if ((await this.node.claim(lease)) !== null) {
        this.store.forget(lease.sessionId);
        claimed.push(lease.sessionId);
      }
    }
    const out = await this.app.recovery.recover(INTERNAL, claimed);
    await this.commands.run(claimed);
    this.schedule();
    return out;
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => void this.tick().finally(() => this.schedule()), this.checkMs);
    this.timer.unref();
  }

  /** One check: dead nodes' sessions are taken over; sessions this node lost are let go; commands missed are run. */
  async tick(): Promise<void> {
    if (this.ticking || this.stopped) return;
    this.ticking = true;
    try {
      const orphans = (await this.node.orphans()).filter((l) => l.nodeId !== this.nodeId);
      // In random order: nodes checking at the same moment take different sessions first.
      for (const lease of shuffle(orphans)) await this.takeOver(lease);
      await this.letGoOfLost();
      await this.commands.run(this.parts.runtimes.ids());
      // Answered commands are kept a while (a requester may read its answer late), then go.
      if (Date.now() - this.lastSweep > 60_000) {
        this.lastSweep = Date.now();
        await this.node.sweepCommands(10 * 60_000);
      }
      // A notification can be missed: streams of sessions run elsewhere read on now and then.
      for (const id of this.events.listened()) if (!this.parts.runtimes.has(id)) this.events.wake(id, Number.MAX_SAFE_INTEGER);
    } catch (err) {
      this.parts.deps.logger.warn({ err }, 'the replicas check failed; trying again');
    } finally {
      this.ticking = false;
    }
  }

  /** Takes the lease as read and recovers the session here; false when another node was first. */
  private takeOver(lease: Lease): Promise<boolean> {
    let run = this.taking.get(lease.sessionId);
    if (!run) {
      run = (async () => {
        const epoch = await this.node.claim(lease);
        if (epoch === null) return false;
        this.store.forget(lease.sessionId);
        const out = await this.app.recovery.recover(INTERNAL, [lease.sessionId]);
        this.parts.deps.logger.info({ session_id: lease.sessionId, from_node: lease.nodeId, epoch, ...out }, 'took over a session whose node is gone');
        await this.commands.run([lease.sessionId]);
        return true;
      })().finally(() => this.taking.delete(lease.sessionId));
      this.taking.set(lease.sessionId, run);
    }
    return run;
  }

  /** Sessions whose lease another node holds now (this node was cut off meanwhile) stop running here. */
  private async letGoOfLost(): Promise<void> {
    const local = this.parts.runtimes.ids();
    if (local.length === 0) return;
    const held = new Set(await this.node.held());
    for (const id of local) {
      if (held.has(id) || this.taking.has(id) || this.parts.closing.has(id)) continue;
      const holder = await this.node.holder(id);
      if (!holder || holder.nodeId === this.nodeId) continue;
      this.parts.deps.logger.error({ session_id: id, holder: holder.nodeId }, 'another node took this session over; it stops running here');
      await this.app.sessions.release(INTERNAL, id);
      this.store.forget(id);
    }
  }

  private readonly retaking = new Set<string>();

  /**
   * A unit of work of session `id` did not commit (the database refused it or could not be
   * reached): nothing of it is stored and none of its events were delivered, but the session's
   * runtime here had gone on as if it had. The runtime is let go at once (its turn stops without
   * recording anything; later units of the session, already sent, fail too), and the session is
   * recovered from what the database has, as a restart would: a turn that was running is
   * interrupted, a paused one waits again. While the database cannot be reached this is tried
   * again, less and less often; requests for the session meanwhile find its owner as usual.
   */
  private retakeAfterFailedCommit(id: string, err: unknown): void {
    if (this.retaking.has(id)) return;
    this.retaking.add(id);
    const wasHere = this.parts.runtimes.has(id);
    this.parts.deps.logger.error({ session_id: id, err }, 'work of this session did not commit; the session is taken again from the database');
    const release = this.app.sessions.release(INTERNAL, id);
    void (async () => {
      await release.catch(() => undefined);
      for (let attempt = 0; !this.stopped; attempt++) {
        try {
          this.store.recovered([id]);
          if (wasHere && (await this.node.holder(id))?.nodeId === this.nodeId) await this.app.recovery.recover(INTERNAL, [id]);
          return;
        } catch (e) {
          this.parts.deps.logger.warn({ session_id: id, err: e, attempt }, 'taking the session again failed; trying again');
          await new Promise((r) => setTimeout(r, Math.min(5_000, 100 * 2 ** attempt)).unref());
        }
      }
    })().finally(() => this.retaking.delete(id));
  }

  // ── routing ─────────────────────────────────────────────────────────────────────────────

  call<N extends OwnerCallName>(scope: Scope, name: N, sessionId: string, ...args: OwnerCallArgs<N>): Promise<OwnerCallResult<N>> {
    const f = OWNER_CALLS[name] as (a: Application, s: Scope, id: string, ...rest: unknown[]) => unknown;
    // A wait for a turn another node runs is done here, on the turn's events (replica-wait.ts).
    const remote =
      name === 'turns.wait'
        ? () => waitElsewhere(this.elsewhere, scope, sessionId, args[0] as string, args[1] as number)
        : () => this.commands.send(scope, name, sessionId, args);
    return this.route(sessionId, () => f(this.app, scope, sessionId, ...args), remote) as Promise<OwnerCallResult<N>>;
  }

  private get elsewhere(): ElsewhereWait {
    return {
      app: this.app,
      events: this.events,
      later: this.store.later,
      runsHere: (sessionId) => this.parts.runtimes.has(sessionId),
      takeOverIfDead: (sessionId) => this.takeOverIfDead(sessionId),
    };
  }

  private async takeOverIfDead(sessionId: string): Promise<void> {
    const holder = await this.node.holder(sessionId);
    if (holder && !holder.alive) await this.takeOver(holder);
  }

  callKept<N extends KeptCallName>(kept: KeptWork, scope: Scope, name: N, sessionId: string, ...args: OwnerCallArgs<N>): Promise<OwnerCallResult<N>> {
    return this.route(
      sessionId,
      () => callInCommit(this.app, this.parts.deps.store, name, scope, sessionId, args, (value) => this.parts.keys.settle(kept, value)),
      () => this.commands.send(scope, name, sessionId, args, kept),
    ) as Promise<OwnerCallResult<N>>;
  }

  /** Runs `local` when this node runs the session (taking it over from a dead owner first), else `remote`. */
  private async route(sessionId: string, local: () => unknown, remote: () => Promise<unknown>): Promise<unknown> {
    for (let attempt = 0; ; attempt++) {
      if (this.parts.runtimes.has(sessionId)) return local();
      const taking = this.taking.get(sessionId);
      if (taking) {
        await taking;
        continue;
      }
      const holder = await this.node.holder(sessionId);
      // Not active (closed, unknown, another tenant's): the use case answers as it does alone.
      if (!holder || holder.nodeId === this.nodeId) return local();
      if (!holder.alive) {
        if (!(await this.takeOver(holder)) && attempt < 3) continue;
        return local();
      }
      return remote();
    }
  }

  // ── signals ─────────────────────────────────────────────────────────────────────────────

  signal(s: ClusterSignal): void {
    if (this.stopped) return;
    switch (s.channel) {
      case 'event':
        this.events.wake(s.sessionId, s.seq);
        break;
      case 'command':
        if (this.parts.runtimes.has(s.sessionId)) void this.commands.run([s.sessionId]).catch(() => undefined);
        break;
      case 'done':
        this.commands.answered(s.commandId);
        break;
      case 'reconnected':
        // What was missed while the connection was down: every stream reads on, commands run, leases are checked.
        this.events.wakeAll();
        void this.tick();
        break;
    }
  }

  /** Stops running every session here without recording anything (this node lost its lock). */
  async releaseAll(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    for (const id of this.parts.runtimes.ids()) await this.app.sessions.release(INTERNAL, id).catch(() => undefined);
  }

  /**
   * No more checks, takeovers or commands run here; requests waiting for an owner's answer are
   * told the server stops when their command was not taken (it is abandoned), and keep waiting
   * for its outcome when it was.
   */
  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    this.commands.stop();
  }
}

function shuffle<T>(items: T[]): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
  return items;
}
