// Several replicas on one PostgreSQL database (NORMA_STORE=postgres). Each active session runs on
// one node, its lease holder. Any node serves any request: reads come from the database, event
// streams wake on notifications (EventLog.wake), and a use case that needs the session's runtime
// (owner.ts) runs on the holder — here when this node holds it, else as a command the holder
// carries out and answers through the database. A lease whose holder is not alive is taken over:
// at start-up (this node's own and the dead nodes'), every `checkMs`, and at once when a request
// needs the session. Taking over is restart recovery for that session: paused turns wait again
// for their answers, running ones are interrupted.
import type { ClusterNode, ClusterSignal, Lease } from '../cluster/node.js';
import type { EventLog } from '../events/log.js';
import type { PostgresStore } from '../store/pg-store.js';
import {
  ATOMIC_CALLS,
  OWNER_CALLS,
  outcomeOf,
  scopeFromWire,
  scopeToWire,
  valueOf,
  type Application,
  type OwnerCallName,
  type OwnerRouter,
  type Outcome,
  type ScopeWire,
} from './owner.js';
import type { Parts } from './parts.js';
import { INTERNAL, type Scope } from './scope.js';

export interface ReplicaOptions {
  /** How often dead nodes' sessions are looked for (and this node's leases checked). */
  checkMs?: number;
  /** How long a request waits for the owner's answer to a command (besides what the call itself waits). */
  commandTimeoutMs?: number;
  /** How long start-up waits for an earlier process of the same node id to let its lock go (default 15 s). */
  nodeLockWaitMs?: number;
}

interface Waiting {
  resolve: (o: Outcome) => void;
}

type CommandBody = { scope: ScopeWire; args: unknown[] };

export class Replicas implements OwnerRouter {
  private readonly taking = new Map<string, Promise<boolean>>();
  private readonly waiting = new Map<number, Waiting>();
  private readonly running = new Set<number>();
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
    parts.tenantCounts = {
      activeSessions: (tenant) => store.countSessions(tenant),
      unfinishedTurns: (tenant) => store.countSessions(tenant, true),
    };
    this.commandTimeoutMs = options.commandTimeoutMs ?? 30_000;
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
    await this.runCommands(claimed);
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
      await this.runCommands(this.parts.runtimes.ids());
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
        await this.runCommands([lease.sessionId]);
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

  // ── routing ─────────────────────────────────────────────────────────────────────────────

  async call<N extends OwnerCallName>(scope: Scope, name: N, sessionId: string, ...args: unknown[]): Promise<never> {
    const local = () => (OWNER_CALLS[name] as (a: Application, s: Scope, id: string, ...rest: unknown[]) => unknown)(this.app, scope, sessionId, ...args) as never;
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
      return this.remote(scope, name, sessionId, args);
    }
  }

  private async remote(scope: Scope, name: OwnerCallName, sessionId: string, args: unknown[]): Promise<never> {
    const body: CommandBody = { scope: scopeToWire(scope), args };
    const id = await this.node.sendCommand(sessionId, name, body);
    const waitsItself = name === 'turns.wait' ? Number(args[1]) * 1000 : 0;
    const deadline = Date.now() + this.commandTimeoutMs + waitsItself;
    const outcome = await new Promise<Outcome>((resolve) => {
      let done = false;
      const finish = (o: Outcome) => {
        if (done) return;
        done = true;
        clearInterval(poll);
        this.waiting.delete(id);
        resolve(o);
      };
      this.waiting.set(id, { resolve: finish });
      // The owner may have answered before this node was listening for it (the answer's
      // notification came on another connection before the insert's reply): look once now.
      void this.node.outcome(id).then((stored) => stored !== null && finish(JSON.parse(stored) as Outcome), () => undefined);
      // A notification can be missed (a reconnect): the outcome is looked at now and then too,
      // and meanwhile whether the owner died (then this node takes the session over, and runs the
      // command itself when it does).
      const poll = setInterval(() => {
        void (async () => {
          const stored = await this.node.outcome(id).catch(() => null);
          if (stored !== null) return finish(JSON.parse(stored) as Outcome);
          if (Date.now() > deadline) {
            return finish({
              ok: false,
              error: { kind: 'unavailable', message: `the node that runs session ${sessionId} did not answer in time; try again`, problems: [], location: 'body' },
            });
          }
          const holder = await this.node.holder(sessionId).catch(() => null);
          if (holder && !holder.alive) await this.takeOver(holder).catch(() => false);
        })();
      }, 500);
      poll.unref();
    });
    return valueOf(outcome) as never;
  }

  // ── signals ─────────────────────────────────────────────────────────────────────────────

  signal(s: ClusterSignal): void {
    if (this.stopped) return;
    switch (s.channel) {
      case 'event':
        this.events.wake(s.sessionId, s.seq);
        break;
      case 'command':
        if (this.parts.runtimes.has(s.sessionId)) void this.runCommands([s.sessionId]);
        break;
      case 'done': {
        const w = this.waiting.get(s.commandId);
        if (w) void this.node.outcome(s.commandId).then((o) => o !== null && w.resolve(JSON.parse(o) as Outcome));
        break;
      }
      case 'reconnected':
        // What was missed while the connection was down: every stream reads on, commands run, leases are checked.
        this.events.wakeAll();
        void this.tick();
        break;
    }
  }

  /** Runs the open commands of these sessions that this node runs. */
  private async runCommands(sessionIds: readonly string[]): Promise<void> {
    const mine = sessionIds.filter((id) => this.parts.runtimes.has(id));
    if (mine.length === 0) return;
    for (const c of await this.node.openCommands(mine)) {
      if (this.running.has(c.id) || !this.parts.runtimes.has(c.sessionId) || !(c.kind in OWNER_CALLS)) continue;
      this.running.add(c.id);
      void this.runCommand(c.id, c.sessionId, c.kind as OwnerCallName, c.body as CommandBody).finally(() => this.running.delete(c.id));
    }
  }

  private async runCommand(id: number, sessionId: string, name: OwnerCallName, body: CommandBody): Promise<void> {
    const scope = scopeFromWire(body.scope);
    const f = OWNER_CALLS[name] as (a: Application, s: Scope, sid: string, ...rest: unknown[]) => unknown;
    let outcome: Outcome;
    if (ATOMIC_CALLS.has(name)) {
      try {
        // The work and its answer commit together: a node that dies in between leaves neither.
        this.parts.deps.store.transaction(() => {
          const value = f(this.app, scope, sessionId, ...body.args);
          this.store.completeCommand(id, JSON.stringify({ ok: true, value } satisfies Outcome));
        });
        return;
      } catch (err) {
        outcome = outcomeOf(err);
      }
    } else {
      try {
        outcome = { ok: true, value: await f(this.app, scope, sessionId, ...body.args) };
      } catch (err) {
        outcome = outcomeOf(err);
      }
    }
    if (!outcome.ok && outcome.error.kind === 'unavailable') this.parts.deps.logger.warn({ session_id: sessionId, command: name }, 'a command for this session failed here');
    await this.node.completeCommand(id, JSON.stringify(outcome)).catch((err) => this.parts.deps.logger.warn({ err, command: id }, 'could not answer a command'));
  }

  /** Stops running every session here without recording anything (this node lost its lock). */
  async releaseAll(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    for (const id of this.parts.runtimes.ids()) await this.app.sessions.release(INTERNAL, id).catch(() => undefined);
  }

  /** No more checks or takeovers; requests waiting for an owner's answer are told the server stops. */
  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    for (const w of this.waiting.values()) {
      w.resolve({ ok: false, error: { kind: 'unavailable', message: 'the server is shutting down; try again', problems: [], location: 'body' } });
    }
    this.waiting.clear();
  }
}

function shuffle<T>(items: T[]): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
  return items;
}
