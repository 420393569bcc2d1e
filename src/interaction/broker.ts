// The one broker for every pause (SPEC §4, API.md "Permissions", "Questions", client tools). A
// call that needs a person (or the client) gets a stored request and an announcing event; it waits
// until a client answers, the timeout answers for it, a rule decides it, or the turn stops. Each outcome is stored with
// its event in one transaction, and the waiting call learns it only after that commit — so
// what the answer changes (remembered rules) is in force before the call goes on.
// The broker talks to a turn only through PauseHost: it knows no runner, store layout or kind
// beyond the kind table (kinds.ts).
import type { EventLog } from '../events/log.js';
import type { Clock, IdFactory } from '../ids.js';
import type { PermissionRequest } from '../contract/schemas.js';
import type { Store } from '../store/store.js';
import { DomainError, notFound } from '../errors.js';
import type { ClientToolRequest, Question } from '../contract/schemas.js';
import {
  clientToolKind,
  permissionKind,
  questionKind,
  ruleSettlement,
  type ApprovalAnswer,
  type ApprovalRequest,
  type ClientToolAnswer,
  type ClientToolCall,
  type PauseKind,
  type PauseRecord,
  type QuestionAnswer,
  type QuestionAsk,
  type Reevaluate,
  type Settlement,
} from './kinds.js';
import { TurnStop } from './stop.js';

/** The turn a pause belongs to, as the broker sees it. */
export interface PauseHost {
  readonly turnId: string;
  /** The request now waits (its id goes in the turn's `pending`). */
  addPending(id: string, kind: PauseKind<PauseRecord, unknown, unknown>['name']): void;
  /** The request was resolved. */
  removePending(id: string): void;
}

export interface PauseOptions<R, A> {
  /** Null: no timeout. Counted from the request's creation, across restarts. */
  timeoutS: number | null;
  /** The turn's signal: its abort resolves the request as the stop says. */
  signal: AbortSignal;
  /** Asked again when the session's rules or mode change; a settlement resolves the request. */
  reevaluate?: () => Promise<Settlement<R, A> | null>;
  /** Whether what the request's preview showed changed since (asked when a client answers). */
  stale?: () => boolean;
}

export interface BrokerDeps {
  store: Store;
  events: EventLog;
  clock: Clock;
  newId: IdFactory;
}

interface Waiter {
  kind: PauseKind<PauseRecord, unknown, unknown>;
  sessionId: string;
  host: PauseHost;
  reevaluate: (() => Promise<Settlement<PauseRecord, unknown> | null>) | undefined;
  stale: (() => boolean) | undefined;
  resolve: (answer: unknown) => void;
  cleanup: () => void;
  /** False while a resumed turn's call has not come back to its ask yet (see `expect`). */
  attached: boolean;
}

export class InteractionBroker {
  private readonly waiters = new Map<string, Waiter>();
  /** Answers given to expected requests before their call came back to ask (see `expect`). */
  private readonly parked = new Map<string, unknown>();

  constructor(private readonly deps: BrokerDeps) {}

  /**
   * After a restart: a stored pending request whose call will ask again once its resumed turn
   * reaches it. It can be answered (or time out, or be cancelled) from now on; the answer waits
   * for the call, which takes it up with `wait({ earlier })`.
   */
  expect<R extends PauseRecord, A, Resp>(kind: PauseKind<R, A, Resp>, sessionId: string, host: PauseHost, record: R, opts: Omit<PauseOptions<R, A>, 'reevaluate'>): void {
    host.addPending(record.id, kind.name);
    this.listen(kind, sessionId, host, record, opts, (answer) => this.parked.set(record.id, answer), false);
  }

  /**
   * Stores a new request (or, after a restart, takes up `earlier`, a request an earlier process
   * opened for the same call and input) and waits for its outcome.
   */
  wait<R extends PauseRecord, A, Resp>(
    kind: PauseKind<R, A, Resp>,
    sessionId: string,
    host: PauseHost,
    request: { fresh: Omit<R, 'id' | 'session_id' | 'turn_id' | 'status' | 'created_at'> } | { earlier: R },
    opts: PauseOptions<R, A>,
  ): Promise<A> {
    const { store, events, clock, newId } = this.deps;
    const record =
      'earlier' in request
        ? request.earlier
        : ({
            id: newId(kind.idPrefix),
            session_id: sessionId,
            turn_id: host.turnId,
            ...request.fresh,
            status: 'pending',
            created_at: clock().toISOString(),
          } as unknown as R);
    if ('earlier' in request) {
      const parked = this.parked.get(record.id);
      if (parked !== undefined || this.parked.has(record.id)) {
        this.parked.delete(record.id);
        return Promise.resolve(parked as A);
      }
      const expected = this.waiters.get(record.id);
      if (expected && !expected.attached) {
        // The call is back: it takes the expected request over, with its timer and stop.
        return new Promise<A>((resolve) => {
          expected.resolve = resolve as (a: unknown) => void;
          expected.reevaluate = opts.reevaluate as Waiter['reevaluate'];
          expected.stale = opts.stale;
          expected.attached = true;
        });
      }
      host.addPending(record.id, kind.name);
    } else {
      store.transaction(() => {
        kind.put(store, record);
        host.addPending(record.id, kind.name);
        events.emit(sessionId, kind.requested(record));
      });
    }
    return new Promise<A>((resolve) => this.listen(kind, sessionId, host, record, opts, resolve as (a: unknown) => void, true));
  }

  /** Registers the waiter of a request: its timeout (counted from creation, across restarts) and the turn's stop. */
  private listen<R extends PauseRecord, A, Resp>(
    kind: PauseKind<R, A, Resp>,
    sessionId: string,
    host: PauseHost,
    record: R,
    opts: PauseOptions<R, A>,
    resolve: (answer: unknown) => void,
    attached: boolean,
  ): void {
    const { timeoutS, signal } = opts;
    const remainingMs = timeoutS === null ? null : Math.max(0, timeoutS * 1000 - (this.deps.clock().getTime() - Date.parse(record.created_at)));
    let timer: NodeJS.Timeout | undefined;
    const onAbort = () => {
      const stop = signal.reason instanceof TurnStop ? signal.reason : undefined;
      const by = stop?.by === 'session_closed' || stop?.by === 'shutdown' ? 'session_closed' : 'cancel';
      this.settle(sessionId, record.id, kind.onStop(by, stop?.message ?? 'the turn was cancelled', record.id));
    };
    const cleanup = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
    };
    this.waiters.set(record.id, {
      kind: kind as unknown as PauseKind<PauseRecord, unknown, unknown>,
      sessionId,
      host,
      reevaluate: opts.reevaluate as Waiter['reevaluate'],
      stale: opts.stale,
      resolve,
      cleanup,
      attached,
    });
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    if (timeoutS !== null && remainingMs !== null) {
      timer = setTimeout(() => this.settle(sessionId, record.id, kind.onTimeout(timeoutS, record.id)), remainingMs);
      timer.unref();
    }
  }

  /** A permission ask of one call (the pipeline's `awaitApproval`). */
  askPermission(
    sessionId: string,
    host: PauseHost,
    request: ApprovalRequest,
    opts: { timeoutS: number | null; signal: AbortSignal; reevaluate?: Reevaluate; earlier?: PermissionRequest },
  ): Promise<ApprovalAnswer> {
    const again = opts.reevaluate;
    return this.wait(
      permissionKind,
      sessionId,
      host,
      opts.earlier
        ? { earlier: opts.earlier }
        : {
            fresh: {
              tool_use_id: request.toolUseId,
              tool: request.tool,
              input: request.input,
              reason: request.reason,
              ...(request.preview ? { preview: request.preview } : {}),
              suggestions: request.suggestions,
            },
          },
      {
        timeoutS: opts.timeoutS,
        signal: opts.signal,
        ...(request.stale ? { stale: request.stale } : {}),
        ...(again
          ? {
              reevaluate: async () => {
                const verdict = await again();
                return verdict ? ruleSettlement(verdict, '') : null;
              },
            }
          : {}),
      },
    );
  }

  /** Questions of one call (AskUser); `earlier`: the same call's question an earlier process opened. */
  askQuestion(sessionId: string, host: PauseHost, ask: QuestionAsk, opts: { timeoutS: number | null; signal: AbortSignal; earlier?: Question }): Promise<QuestionAnswer> {
    return this.wait(
      questionKind,
      sessionId,
      host,
      opts.earlier ? { earlier: opts.earlier } : { fresh: { tool_use_id: ask.toolUseId, questions: ask.questions } },
      { timeoutS: opts.timeoutS, signal: opts.signal },
    );
  }

  /** A call of a client tool, waiting for the client's answer; `earlier`: the same call's request an earlier process opened. */
  askClient(sessionId: string, host: PauseHost, call: ClientToolCall, opts: { timeoutS: number | null; signal: AbortSignal; earlier?: ClientToolRequest }): Promise<ClientToolAnswer> {
    return this.wait(
      clientToolKind,
      sessionId,
      host,
      opts.earlier ? { earlier: opts.earlier } : { fresh: { tool_use_id: call.toolUseId, name: call.name, input: call.input } },
      { timeoutS: opts.timeoutS, signal: opts.signal },
    );
  }

  /**
   * A client's answer; unknown ids are 404, resolved requests (or ones no call waits on) 409.
   * `alongside` runs in the transaction that stores the answer (remembered rules go there), so
   * the waiting call, which resumes only after the commit, sees its effects.
   */
  answer<R extends PauseRecord, A, Resp>(
    kind: PauseKind<R, A, Resp>,
    sessionId: string,
    id: string,
    response: Resp,
    alongside?: (resolved: R) => void,
    /** The name of the key that answered (kept with the record for audit). */
    answeredBy?: string | null,
  ): R {
    const record = kind.get(this.deps.store, sessionId, id);
    if (!record) throw notFound(`${kind.name} request`, id);
    if (record.status !== 'pending') throw new DomainError('conflict', `${kind.name} request ${id} is already resolved (${record.status})`);
    if (!this.waiters.has(id)) throw new DomainError('conflict', `${kind.name} request ${id} has no waiting call`);
    const settlement = kind.onAnswer(response, id);
    if (answeredBy) settlement.update = { ...settlement.update, answered_by: answeredBy };
    const preview = (record as { preview?: object }).preview;
    if (preview && this.isStale(id)) settlement.update = { ...settlement.update, preview: { ...preview, stale: true } } as typeof settlement.update;
    return this.settle(sessionId, id, settlement, alongside as ((resolved: PauseRecord) => void) | undefined) as R;
  }

  /**
   * The session's rules or mode changed: every request of the session that can be decided
   * without a person is asked again, and one now decided is resolved by that verdict.
   */
  async reevaluatePending(sessionId: string): Promise<void> {
    const waiting = [...this.waiters.entries()].filter(([, w]) => w.sessionId === sessionId && w.attached && w.reevaluate);
    await Promise.all(
      waiting.map(async ([id, w]) => {
        let settlement;
        try {
          settlement = await w.reevaluate!();
        } catch {
          return; // it keeps waiting for a person; the call's own evaluation reports errors
        }
        if (!settlement) return;
        const answer = settlement.answer as { permissionId?: string };
        this.settle(sessionId, id, { update: settlement.update, answer: { ...answer, permissionId: id } });
      }),
    );
  }

  /** Whether the target a waiting request's preview showed has changed since (false when unknown). */
  private isStale(id: string): boolean {
    try {
      return this.waiters.get(id)?.stale?.() === true;
    } catch {
      return false;
    }
  }

  /** Requests waiting for an answer now (a resumed turn's expected ones included), by kind. */
  pendingCounts(): { permission: number; question: number; client_tool: number } {
    const counts = { permission: 0, question: 0, client_tool: 0 };
    for (const w of this.waiters.values()) counts[w.kind.name]++;
    return counts;
  }

  /** Stops waiting on every request without resolving it (shutdown: they stay pending in the store). */
  /**
   * Forgets one session's waiting calls without resolving their requests (another node runs the
   * session now: the requests stay pending in the store for it to answer).
   */
  detachSession(sessionId: string): void {
    for (const [id, w] of this.waiters) {
      if (w.sessionId !== sessionId) continue;
      w.cleanup();
      this.waiters.delete(id);
      this.parked.delete(id);
    }
  }

  detachAll(): void {
    for (const w of this.waiters.values()) w.cleanup();
    this.waiters.clear();
    this.parked.clear();
  }

  /** Resolves a stored pending request nobody waits on any more (after a restart). */
  abandon<R extends PauseRecord>(kind: PauseKind<R, unknown, unknown>, record: R, why: string): void {
    this.parked.delete(record.id);
    const current = kind.get(this.deps.store, record.session_id, record.id);
    const waiter = this.waiters.get(record.id);
    if (!current || current.status !== 'pending' || waiter?.attached) return;
    if (waiter) {
      waiter.cleanup();
      this.waiters.delete(record.id);
      waiter.host.removePending(record.id);
    }
    const resolved = { ...current, ...kind.onAbandon(why), resolved_at: this.deps.clock().toISOString() } as R;
    this.deps.store.transaction(() => {
      kind.put(this.deps.store, resolved);
      this.deps.events.emit(record.session_id, kind.resolved(resolved));
    });
  }

  /** A stored request no call can take up again (a connection that waited when the server stopped): refused. */
  refuseLeft(record: PermissionRequest, why: string): void {
    const current = permissionKind.get(this.deps.store, record.session_id, record.id);
    if (!current || current.status !== 'pending') return;
    const resolved: PermissionRequest = { ...current, status: 'denied', resolved_by: 'restart', message: why, resolved_at: this.deps.clock().toISOString() };
    this.deps.store.transaction(() => {
      permissionKind.put(this.deps.store, resolved);
      this.deps.events.emit(record.session_id, permissionKind.resolved(resolved));
    });
  }

  private settle(sessionId: string, id: string, s: Settlement<PauseRecord, unknown>, alongside?: (resolved: PauseRecord) => void): PauseRecord {
    const waiter = this.waiters.get(id);
    const kind = waiter?.kind;
    const current = kind?.get(this.deps.store, sessionId, id);
    if (!waiter || !kind || !current || current.status !== 'pending') return current!;
    const resolved = { ...current, ...s.update, resolved_at: this.deps.clock().toISOString() } as PauseRecord;
    this.deps.store.transaction(() => {
      kind.put(this.deps.store, resolved);
      waiter.host.removePending(id);
      this.deps.events.emit(sessionId, kind.resolved(resolved));
      // No longer waiting once this commits (before what `alongside` triggers after the commit,
      // such as re-evaluating the session's other requests); a failed write leaves it waiting.
      this.deps.store.afterCommit(() => {
        this.waiters.delete(id);
        waiter.cleanup();
      });
      alongside?.(resolved);
    });
    waiter.resolve(s.answer);
    return resolved;
  }
}
