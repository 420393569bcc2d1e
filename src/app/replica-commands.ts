// Commands between replicas (replicas.ts): a node without a session's runtime stores a command,
// the session's owner runs it and writes its outcome, the sender answers with that outcome.
//
// An answer that says "not done" must stay true. A command is pending until one of two
// conditional writes decides it: the owner takes it (it runs), or the sender abandons it (the
// sender answers 503 and the command never runs; ClusterNode says how). The sender abandons when
// its wait runs out, when its server stops, and when it lost the insert's reply; when the owner
// was first, the sender waits for the real outcome instead, however long that takes (taken over
// with the session, should its owner die). A command whose work commits in one transaction
// (owner.ts COMMITTED_CALLS) is taken in that transaction, together with its outcome and what an
// Idempotency-Key keeps of it: an owner that dies before the commit leaves it pending, to be run
// by whichever node runs the session next. The other commands are taken first, then run; the
// ones a node took and never answered are read-only or idempotent (cancel, close), and the next
// owner runs them again.
import { CommitWatch, runInCommitWatch } from '../store/commit-watch.js';
import { randomUUID } from 'node:crypto';
import type { ClusterNode } from '../cluster/node.js';
import { DomainError } from '../errors.js';
import type { KeptWork } from '../store/idempotency.js';
import type { PostgresStore } from '../store/pg-store.js';
import {
  COMMITTED_CALLS,
  OWNER_CALLS,
  callInCommit,
  outcomeOf,
  scopeFromWire,
  scopeToWire,
  valueOf,
  type Application,
  type OwnerCallName,
  type Outcome,
  type ScopeWire,
} from './owner.js';
import type { Parts } from './parts.js';
import type { Scope } from './scope.js';

type CommandBody = { scope: ScopeWire; args: unknown[]; kept?: KeptWork };

interface Waiting {
  token: string;
  resolve: (o: Outcome) => void;
}

/** How often a sender looks at its command (besides the notification), and whether the owner died. */
const POLL_MS = 500;
/** How long past a command's expiry a sender that cannot reach the database waits before it may say "not done". */
const EXPIRY_GRACE_MS = 5_000;

/** The command was abandoned by its sender, expired, or taken by another node: it does not run here. */
class CommandGone extends Error {}

const notDone = (message: string): Outcome => ({ ok: false, error: { kind: 'unavailable', message, problems: [], location: 'body' } });

export class ReplicaCommands {
  private readonly waiting = new Map<number, Waiting>();
  private readonly running = new Set<number>();
  private stopped = false;

  constructor(
    private readonly o: {
      node: ClusterNode;
      app: Application;
      parts: Parts;
      store: PostgresStore;
      commandTimeoutMs: number;
      /** Takes the session over when its owner is not alive (and recovers it here). */
      takeOverIfDead(sessionId: string): Promise<void>;
    },
  ) {}

  // ── the sender ──────────────────────────────────────────────────────────────────────────

  /** Asks the session's owner to run the call; answers with its outcome. */
  async send(scope: Scope, name: OwnerCallName, sessionId: string, args: unknown[], kept?: KeptWork): Promise<never> {
    const body: CommandBody = { scope: scopeToWire(scope), args, ...(kept ? { kept } : {}) };
    const waitsItself = name === 'turns.wait' ? Number(args[1]) * 1000 : 0;
    const ttlMs = this.o.commandTimeoutMs + waitsItself;
    const token = randomUUID();
    let id: number;
    try {
      id = await this.o.node.sendCommand(sessionId, name, body, ttlMs, token);
    } catch (err) {
      this.o.parts.deps.logger.warn({ err, session_id: sessionId, command: name }, 'could not store a command for the session\'s owner');
      id = await this.afterLostInsert(token, sessionId, name, ttlMs);
    }
    return valueOf(await this.outcomeOf(id, token, sessionId, Date.now() + ttlMs)) as never;
  }

  /**
   * The insert failed, or only its reply was lost: the command is abandoned by its token (or its
   * place taken, so a late insert fails), or found taken and waited for. Without the database, the
   * command's expiry passing is what makes "not done" true.
   */
  private async afterLostInsert(token: string, sessionId: string, name: string, ttlMs: number): Promise<number> {
    const giveUpAt = Date.now() + ttlMs + EXPIRY_GRACE_MS;
    const message = `the request could not be handed to the node that runs session ${sessionId}; nothing was done, try again`;
    for (;;) {
      const found = await this.o.node.abandonCommand(token, JSON.stringify(notDone(message)), { sessionId, kind: name }).catch(() => undefined);
      if (found === null || found?.state === 'abandoned' || (found === undefined && Date.now() > giveUpAt)) throw new DomainError('unavailable', message);
      if (found) return found.id;
      await new Promise((r) => setTimeout(r, POLL_MS).unref());
    }
  }

  /** The command's outcome: the owner's, or — only if it abandoned the command first — this node's "not done". */
  private outcomeOf(id: number, token: string, sessionId: string, deadline: number): Promise<Outcome> {
    return new Promise<Outcome>((resolve) => {
      let done = false;
      let taken = false;
      const finish = (o: Outcome) => {
        if (done) return;
        done = true;
        clearInterval(poll);
        this.waiting.delete(id);
        resolve(o);
      };
      this.waiting.set(id, { token, resolve: finish });
      let looking = false;
      const look = async () => {
        if (looking || done) return;
        looking = true;
        try {
          await lookOnce();
        } finally {
          looking = false;
        }
      };
      const lookOnce = async () => {
        const stored = await this.o.node.outcome(id).catch(() => null);
        if (stored !== null) return finish(JSON.parse(stored) as Outcome);
        if (!taken && Date.now() > deadline) {
          const refusal = notDone(`the node that runs session ${sessionId} did not take the request in time; nothing was done, try again`);
          const now = await this.o.node.abandonCommand(token, JSON.stringify(refusal)).catch(() => undefined);
          if (now?.outcome) return finish(JSON.parse(now.outcome) as Outcome);
          if (now?.state === 'taken') {
            // The owner runs it: the answer is its outcome, whenever it comes.
            taken = true;
            this.o.parts.deps.logger.warn({ session_id: sessionId, command: id }, 'the owner took a command late; waiting for its outcome');
          }
        }
        await this.o.takeOverIfDead(sessionId).catch(() => undefined);
      };
      // The owner may have answered before this node was listening for it (the answer's
      // notification came on another connection before the insert's reply): look once now. A
      // notification can be missed too (a reconnect): the outcome is looked at now and then.
      void look();
      const poll = setInterval(() => void look(), POLL_MS);
      poll.unref();
    });
  }

  /** The owner answered command `id` (its notification). */
  answered(id: number): void {
    const w = this.waiting.get(id);
    if (w) void this.o.node.outcome(id).then((o) => o !== null && w.resolve(JSON.parse(o) as Outcome), () => undefined);
  }

  /**
   * The server stops: each command nobody took yet is abandoned and its request told to try
   * again; one its owner took keeps its request waiting for the outcome (the server's drain ends
   * it by closing the connection, which claims nothing).
   */
  stop(): void {
    this.stopped = true;
    for (const [, w] of this.waiting) {
      const refusal = notDone('the server is shutting down; nothing was done, try again');
      void this.o.node
        .abandonCommand(w.token, JSON.stringify(refusal))
        .then((now) => now?.outcome && w.resolve(JSON.parse(now.outcome) as Outcome))
        .catch(() => undefined);
    }
  }

  // ── the owner ───────────────────────────────────────────────────────────────────────────

  /** Runs the open commands of these sessions that this node runs. */
  async run(sessionIds: readonly string[]): Promise<void> {
    const { parts } = this.o;
    const mine = sessionIds.filter((id) => parts.runtimes.has(id));
    if (mine.length === 0 || this.stopped) return;
    for (const c of await this.o.node.openCommands(mine)) {
      if (this.running.has(c.id) || !parts.runtimes.has(c.sessionId) || !(c.kind in OWNER_CALLS)) continue;
      const name = c.kind as OwnerCallName;
      // Taken and never answered (by the node that ran the session before, or by this node's
      // previous process): run again only what is safe to run again, which is everything that
      // is not taken with its work.
      if (c.takenBy !== null && COMMITTED_CALLS.has(name)) continue;
      this.running.add(c.id);
      void this.runOne(c.id, c.sessionId, name, c.body as CommandBody, c.takenBy).finally(() => this.running.delete(c.id));
    }
  }

  private async runOne(id: number, sessionId: string, name: OwnerCallName, body: CommandBody, takenBy: string | null): Promise<void> {
    const { app, parts, store, node } = this.o;
    const scope = scopeFromWire(body.scope);
    let outcome: Outcome;
    if (COMMITTED_CALLS.has(name)) {
      try {
        // Taken, done, answered and kept under its Idempotency-Key in one transaction.
        callInCommit(app, parts.deps.store, name, scope, sessionId, body.args, (value) => {
          if (!store.claimCommand(id)) throw new CommandGone();
          store.completeCommand(id, JSON.stringify({ ok: true, value } satisfies Outcome));
          if (body.kept) parts.keys.settle(body.kept, value);
        });
        return;
      } catch (err) {
        if (err instanceof CommandGone) return;
        // Refused, so nothing was done (the transaction rolled back): that is the answer.
        outcome = outcomeOf(err);
      }
    } else {
      if (!(await node.claimCommand(id, takenBy).catch(() => false))) return;
      const f = OWNER_CALLS[name] as (a: Application, s: Scope, sid: string, ...rest: unknown[]) => unknown;
      // Answered once what the call did has committed (a store that commits without waiting:
      // PostgreSQL), as a request's answer is: the sender may read it at once.
      const watch = new CommitWatch();
      try {
        outcome = { ok: true, value: await runInCommitWatch(watch, () => f(app, scope, sessionId, ...body.args)) };
      } catch (err) {
        outcome = outcomeOf(err);
      }
      const failure = await watch.settled();
      if (failure !== undefined) outcome = outcomeOf(failure);
    }
    if (!outcome.ok && outcome.error.kind === 'unavailable') parts.deps.logger.warn({ session_id: sessionId, command: name }, 'a command for this session failed here');
    await node.completeCommand(id, JSON.stringify(outcome)).catch((err) => parts.deps.logger.warn({ err, command: id }, 'could not answer a command'));
  }
}
