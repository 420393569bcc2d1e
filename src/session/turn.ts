// A turn's state machine: running ⇄ awaiting_permission | awaiting_input → completed | failed | cancelled.
// The runner owns the invariant that every tool_use gets exactly one tool_result, whatever
// happens: the first result recorded for an id wins, and any exit path fills the rest.
import { setMaxListeners } from 'node:events';
import type { Logger } from 'pino';
import { PAUSED_STATUSES, type Decision, type ToolResult, type ToolUse, type Turn, type TurnStatus } from '../contract/schemas.js';
import type { EventLog } from '../events/log.js';
import type { Clock } from '../ids.js';
import { chained } from '../evidence/chain.js';
import { partitionCalls } from '../pipeline/batch.js';
import { errorResult, execOne, type DecisionNote, type PipelineEnv, type ToolCall } from '../pipeline/exec-one.js';
import type { Store } from '../store/store.js';
import type { SubagentTask, ToolOutput } from '../tools/tool.js';
import type { PauseHost } from '../interaction/broker.js';
import type { ApprovalAnswer, ApprovalRequest, ClientToolAnswer, ClientToolCall, PauseKind, PauseRecord, QuestionAnswer, QuestionAsk, Reevaluate } from '../interaction/kinds.js';
import { currentTrace, newTrace, runInTrace, type TraceContext } from '../trace/context.js';
import type { SessionCheckpoints } from '../checkpoints/session.js';
import type { CallChanges } from '../contract/checkpoint.js';

type PauseKindName = PauseKind<PauseRecord, unknown, unknown>['name'];
import { stopPrefix, TurnStop } from '../interaction/stop.js';
import { permissionDenied } from './hook-events.js';
import { callCheckpoints, turnStartCheckpoint } from './turn-checkpoints.js';
import { SettleWaiters } from './settle.js';

export { TurnStop };

const FINAL: ReadonlySet<TurnStatus> = new Set(['completed', 'failed', 'cancelled', 'interrupted']);

export interface TurnRunnerDeps {
  store: Store;
  events: EventLog;
  clock: Clock;
  logger: Logger;
  /** The pipeline environment minus what the runner supplies itself. */
  env: Omit<PipelineEnv, 'signal' | 'turnId' | 'onStarted' | 'onProgress' | 'onRefusal' | 'recordDecision' | 'writeDecisions'>;
  /**
   * The trace the turn's outbound requests belong to (model calls, http hooks, web tools, MCP):
   * default the trace of the work that makes the runner — the request that posted the turn.
   */
  trace?: TraceContext;
  onFinished: (runner: TurnRunner) => void;
  /** Asks a person the questions of one call of this turn (AskUser) and waits for the outcome. */
  askQuestions(host: TurnRunner, ask: QuestionAsk, signal: AbortSignal): Promise<QuestionAnswer>;
  /** Hands one call of this turn to the client (a client tool) and waits for its answer. */
  askClient(host: TurnRunner, call: ClientToolCall, signal: AbortSignal): Promise<ClientToolAnswer>;
  /** The session's checkpoints (absent or null: it takes none). */
  checkpoints?: SessionCheckpoints | null;
}

export class TurnRunner implements PauseHost {
  protected readonly controller = new AbortController();
  protected readonly results = new Map<string, ToolResult>();
  /** Pending requests by id, with their kind (a permission request or a question). */
  private readonly pending = new Map<string, PauseKindName>();
  /** Who waits for the turn to settle (waitQuiet, waitSettled, waitStored). */
  private readonly settle = new SettleWaiters();
  private finished!: Promise<void>;

  /** Calls between tool.started and their result. */
  private readonly running = new Set<string>();
  /** Running calls that only wait for a person (AskUser) or the client (a client tool): no work of theirs is under way. */
  private readonly asking = new Set<string>();
  /** The trace everything the turn does runs in, also after a pause an answer ended. */
  readonly trace: TraceContext;
  /**
   * Permission decisions made since this turn last wrote: each is stored in the same transaction
   * as the turn's next write (its call's tool.started, its result, a pause), and before a hook or
   * a person is told of the call — one commit for a call's decision and its start, not two.
   */
  private heldDecisions: Omit<Decision, 'seq'>[] = [];
  /** The final state has committed: the store holds exactly `turn`. */
  private finalStored = false;
  /** Abandoned: it writes nothing any more (see abandon). */
  private dropped = false;
  /** What calls changed in the workspace, by tool_use_id, until their tool.completed carries it. */
  private readonly callChanges = new Map<string, CallChanges>();

  constructor(
    readonly turn: Turn,
    protected readonly deps: TurnRunnerDeps,
  ) {
    this.trace = deps.trace ?? currentTrace() ?? newTrace();
    // Every call of a parallel group (up to 256) listens to the turn's signal.
    setMaxListeners(0, this.controller.signal);
    // A resumed turn keeps what it already has: results, and the requests it waits for.
    for (const r of turn.results) this.results.set(r.tool_use_id, r);
    for (const p of turn.pending) this.pending.set(p, p.startsWith('q_') ? 'question' : p.startsWith('ct_') ? 'client_tool' : 'permission');
  }

  /** How many calls are running right now (started, no result yet, not just waiting for a person). */
  get runningCalls(): number {
    let n = 0;
    for (const id of this.running) if (!this.asking.has(id)) n++;
    return n;
  }

  get id(): string {
    return this.turn.id;
  }

  get turnId(): string {
    return this.turn.id;
  }

  /** Runs a subagent for the call `parentId` (prompt turns only: a direct turn has no model). */
  readonly subagents: ((parentId: string, task: SubagentTask) => Promise<ToolOutput>) | null = null;

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** A call of this turn asks a person (AskUser): the turn pauses on the question until it is resolved. */
  askQuestions(ask: QuestionAsk): Promise<QuestionAnswer> {
    return this.waitingOn(ask.toolUseId, () => this.deps.askQuestions(this, ask, this.controller.signal));
  }

  /** A call of this turn is the client's to run (a client tool): the turn pauses on its request until it is resolved. */
  askClient(call: ClientToolCall): Promise<ClientToolAnswer> {
    return this.waitingOn(call.toolUseId, () => this.deps.askClient(this, call, this.controller.signal));
  }

  /** A call that only waits for an answer from outside does no work meanwhile (runningCalls leaves it out). */
  private async waitingOn<T>(toolUseId: string, wait: () => Promise<T>): Promise<T> {
    this.asking.add(toolUseId);
    try {
      return await wait();
    } finally {
      this.asking.delete(toolUseId);
    }
  }

  isFinal(): boolean {
    return FINAL.has(this.turn.status);
  }

  /** Whether the turn's final state has committed (the store then holds what `turn` says). */
  get stored(): boolean {
    return this.finalStored;
  }

  /** Resolves when the turn reaches a final status. */
  whenFinished(): Promise<void> {
    return this.finished;
  }

  /** Emits turn.started (the caller puts it in the transaction that stores the turn). */
  announce(): void {
    this.deps.events.emit(this.turn.session_id, {
      type: 'turn.started',
      turn_id: this.turn.id,
      kind: this.turn.kind,
      tool_uses: this.turn.tool_uses,
      ...(this.turn.prompt ? { prompt: this.turn.prompt } : {}),
    });
  }

  start(): void {
    // The whole promise chain of the turn runs in its trace: a call that resumes after an answer
    // continues where it awaited (in the turn's trace), not in the answering request's.
    this.finished = runInTrace(this.trace, () => this.run());
  }

  /** After a restart: announces the paused turn as live again, then runs its unfinished calls. */
  resume(): void {
    this.deps.events.emit(this.turn.session_id, { type: 'turn.resumed', turn_id: this.turn.id, pending: [...this.pending.keys()] });
    this.start();
  }

  /** A permission decision about a call of this turn, stored with its next write (heldDecisions); a denial tells PermissionDenied hooks. */
  recordDecision(note: DecisionNote): void {
    this.heldDecisions.push({ session_id: this.turn.session_id, turn_id: this.turn.id, ...note, created_at: this.deps.clock().toISOString() });
    if (note.behavior === 'deny') permissionDenied(this.deps.env, this.turn.id, note);
  }

  /** Asks a person about something a call of this turn does (a connection of its process), as its own asks are. */
  approve(request: ApprovalRequest, signal: AbortSignal, reevaluate?: Reevaluate): Promise<ApprovalAnswer> {
    return this.deps.env.awaitApproval(request, signal, reevaluate);
  }

  /** Stores the decisions held so far, in the transaction running now or in one of their own. */
  writeDecisions(): void {
    if (this.heldDecisions.length === 0 || this.dropped) return;
    const { store } = this.deps;
    store.transaction(() => {
      const held = this.heldDecisions;
      this.heldDecisions = [];
      // Refused by the store (a full disk): they stay held for the next write. Once written, a
      // transaction around this one that then fails loses them with the rest of its writes.
      try {
        for (const d of held) store.appendDecision(chained({ seq: store.lastDecisionSeq(d.session_id) + 1, ...d } as Decision, store.lastDecisionHash(d.session_id)));
      } catch (err) {
        this.heldDecisions = [...held, ...this.heldDecisions];
        throw err;
      }
    });
  }

  /** One transaction of this turn: the held decisions first, then `fn`'s writes. */
  protected write<T>(fn: () => T): T {
    if (this.dropped) throw new TurnStop('the turn was abandoned here; another runner carries the session on', 'shutdown');
    return this.deps.store.transaction(() => {
      this.writeDecisions();
      return fn();
    });
  }

  protected env(): PipelineEnv {
    return {
      ...this.deps.env,
      turnId: this.turn.id,
      signal: this.controller.signal,
      recordDecision: (note) => this.recordDecision(note),
      writeDecisions: () => this.writeDecisions(),
      onStarted: (call, input) => {
        this.running.add(call.id);
        this.write(() =>
          this.deps.events.emit(this.turn.session_id, {
            type: 'tool.started',
            turn_id: this.turn.id,
            tool_use_id: call.id,
            tool: call.name,
            input,
          }),
        );
      },
      ...(this.deps.store.whenCommitted ? { recorded: () => this.deps.store.whenCommitted!(this.turn.session_id) } : {}),
      onProgress: (call, chunk) =>
        this.deps.events.emit(this.turn.session_id, {
          type: 'tool.progress',
          turn_id: this.turn.id,
          tool_use_id: call.id,
          chunk,
        }),
      ...(this.deps.checkpoints ? { checkpoint: callCheckpoints(this.turn, this.deps.logger, this.callChanges, this.deps.checkpoints) } : {}),
      onRefusal: (call, tool, refusal) =>
        this.deps.logger.warn(
          { session_id: this.turn.session_id, turn_id: this.turn.id, tool_use_id: call.id, tool, refused: refusal.what, reason: refusal.why },
          'sandbox refused',
        ),
    };
  }

  /** Validates the call once (execOne reuses it) and says whether it may run alongside others. */
  private async parallelSafe(call: ToolCall): Promise<boolean> {
    const { registry, validator } = this.deps.env;
    const tool = registry.lookup(call.name);
    // A call that will fail before running has no effect and cannot conflict.
    if (!tool) return true;
    // An MCP tool's input is checked off the event loop (its schema is the server's): awaited.
    const v = await validator.check(tool, call.input, this.controller.signal);
    call.validation = v;
    if (!v.ok) return true;
    return tool.isReadOnly(v.value) && tool.isConcurrencySafe(v.value);
  }

  /** The turn's work: a direct turn runs its calls; a prompt turn overrides this with the model loop. */
  protected async body(): Promise<void> {
    await this.runCalls(this.turn.tool_uses, { withLast: () => this.finish('completed') });
    if (!this.isFinal()) this.finish('completed');
  }

  /**
   * Runs calls through the pipeline, grouped as SPEC §2 says; calls that already have a result are
   * skipped. `withLast`: what follows the calls (a direct turn's completion, a prompt turn's message of
   * results) is written in the transaction of the turn's last result, unless that call stops the
   * turn; it is not called when the last result comes some other way (a stop fills them).
   */
  protected async runCalls(toolUses: readonly ToolUse[], opts: { withLast?: () => void } = {}): Promise<void> {
    const env = this.env();
    const calls = await Promise.all(
      toolUses.map(async (tu) => {
        const call: ToolCall = { id: tu.id, name: tu.name, input: tu.input };
        return { call, parallelSafe: await this.parallelSafe(call) };
      }),
    );
    for (const group of partitionCalls(calls)) {
      if (this.isFinal()) return;
      await Promise.all(
        group.map(async ({ call }) => {
          if (this.results.has(call.id)) return; // answered before a restart
          const outcome = await execOne(call, env);
          const last = opts.withLast !== undefined && !outcome.stopTurn && !outcome.interrupt && this.results.size === this.turn.tool_uses.length - 1;
          this.recordResult(call, outcome.result, last ? opts.withLast : undefined);
          if (outcome.stopTurn) {
            this.stop(new TurnStop(`hook ${outcome.stopTurn.hook} stopped the turn: ${outcome.stopTurn.reason}`, 'interrupt'), 'cancelled', {
              code: 'stopped_by_hook',
              message: `A hook stopped the turn after ${call.name} (${call.id}): ${outcome.stopTurn.reason}`,
            });
          }
          if (outcome.interrupt) {
            this.stop(new TurnStop(`the user denied ${call.name} and interrupted the turn`, 'interrupt'), 'cancelled', {
              code: 'interrupted',
              message: `The user denied ${call.name} (${call.id}) and interrupted the turn.`,
            });
          }
        }),
      );
    }
  }

  private async run(): Promise<void> {
    try {
      await turnStartCheckpoint(this.turn, this.deps.checkpoints, this.deps.logger);
      await this.body();
    } catch (err) {
      // Abandoned: its end is not this runner's to record.
      if (this.dropped) return;
      this.deps.logger.error({ err, session_id: this.turn.session_id, turn_id: this.turn.id }, 'turn failed unexpectedly');
      try {
        this.stop(new TurnStop('the turn failed', 'cancel'), 'failed', {
          code: 'internal_error',
          message: 'The turn failed because of an internal error; unfinished calls were not run. See the server log.',
        });
      } catch (again) {
        // The store itself fails (a full disk): nothing more can be recorded now. Free the
        // session in this process; the stored turn is still open and the next start-up
        // answers its unfinished calls as interrupted.
        this.deps.logger.error({ err: again, session_id: this.turn.session_id, turn_id: this.turn.id }, 'could not record the failed turn');
        this.controller.abort(new TurnStop('the turn failed', 'cancel'));
        this.turn.status = 'failed';
        this.settle.notify();
        this.deps.onFinished(this);
      }
    }
  }

  /** `then`: more writes that commit with the result (the turn's completion). */
  protected recordResult(call: ToolCall, result: ToolResult, then?: () => void): void {
    if (this.results.has(call.id) || this.isFinal()) return;
    this.results.set(call.id, result);
    this.running.delete(call.id);
    this.turn.results = this.turn.tool_uses.flatMap((tu) => {
      const r = this.results.get(tu.id);
      return r ? [r] : [];
    });
    const changes = this.takeChanges(call.id);
    // The result and its event commit together.
    this.write(() => {
      this.persist();
      this.deps.events.emit(this.turn.session_id, {
        type: 'tool.completed',
        turn_id: this.turn.id,
        tool_use_id: call.id,
        tool: call.name,
        result,
        ...(changes ? { changes } : {}),
      });
      then?.();
    });
    this.settle.notify();
  }

  /** What the call changed, once (for its tool.completed). */
  protected takeChanges(toolUseId: string): CallChanges | undefined {
    const c = this.callChanges.get(toolUseId);
    this.callChanges.delete(toolUseId);
    return c;
  }

  addPending(id: string, kind: PauseKindName): void {
    this.pending.set(id, kind);
    this.syncPending();
  }

  removePending(id: string): void {
    this.pending.delete(id);
    this.syncPending();
  }

  /** A pending permission request makes the turn `awaiting_permission`; only questions and client-tool requests, `awaiting_input`. */
  private syncPending(): void {
    if (this.isFinal()) return;
    this.turn.pending = [...this.pending.keys()];
    const kinds = new Set(this.pending.values());
    this.turn.status = kinds.has('permission') ? 'awaiting_permission' : kinds.size > 0 ? 'awaiting_input' : 'running';
    this.write(() => this.persist());
    this.settle.notify();
  }

  /**
   * Stops the turn now: the signal aborts (pending asks resolve as cancelled, running tools
   * are told to stop), every unfinished tool_use gets its error result, and the turn ends.
   */
  /**
   * Stops the turn's work in this process without recording anything: another node runs the
   * session now and answers for the turn (what its calls still try to write is refused).
   */
  abandon(reason: TurnStop): void {
    // Nothing more of it is written from here: another runner (another node, or this one after
    // taking the session again from the database) carries the session on.
    this.dropped = true;
    this.controller.abort(reason);
    // Who waits for its stored end stops waiting: it is not coming from here.
    this.settle.notify();
  }

  stop(reason: TurnStop, status: 'cancelled' | 'failed' | 'interrupted', error: { code: string; message: string }): void {
    if (this.isFinal()) return;
    this.write(() => {
      this.controller.abort(reason);
      for (const tu of this.turn.tool_uses) {
        if (!this.results.has(tu.id)) {
          this.recordResult({ id: tu.id, name: tu.name, input: tu.input }, errorResult(tu.id, `${stopPrefix(reason)}: ${reason.message}.`));
        }
      }
      this.turn.error = error;
      this.finish(status);
    });
  }

  /** Called just before the final state is stored (a prompt turn closes its transcript here). */
  protected beforeFinish(): void {}

  protected finish(status: 'completed' | 'failed' | 'cancelled' | 'interrupted'): void {
    this.beforeFinish();
    this.pending.clear();
    this.turn.pending = [];
    this.turn.status = status;
    this.turn.ended_at = this.deps.clock().toISOString();
    const type =
      status === 'completed' ? 'turn.completed' : status === 'failed' ? 'turn.failed' : status === 'interrupted' ? 'turn.interrupted' : 'turn.cancelled';
    // The final state, its event and the session's release of the turn commit together.
    this.write(() => {
      this.persist();
      this.deps.events.emit(this.turn.session_id, { type, turn: structuredClone(this.turn) });
      // The workspace as the turn left it, when it differs from the last checkpoint: queued now,
      // before anything a next turn records.
      this.deps.checkpoints?.takeIfChanged({ reason: 'turn_end', turnId: this.turn.id }).catch((err: unknown) => {
        this.deps.logger.warn({ err, session_id: this.turn.session_id, turn_id: this.turn.id }, 'no checkpoint at the end of the turn');
      });
      this.deps.onFinished(this);
      this.deps.store.afterCommit(() => {
        this.finalStored = true;
        // A store that commits without waiting answers later: who waits for the stored turn is told.
        this.settle.notify();
      });
    });
    this.settle.notify();
  }

  protected persist(): void {
    this.deps.store.putTurn(this.turn);
  }

  /** Resolves once no call of the turn is running and none is about to (final, or only waiting for people), or after `ms`. */
  waitQuiet(ms: number): Promise<void> {
    return this.settle.until(() => this.isFinal() || (PAUSED_STATUSES.has(this.turn.status) && this.runningCalls === 0), ms);
  }

  /** Resolves once the turn is final or waiting for a person, or after `ms`. */
  waitSettled(ms: number): Promise<void> {
    return this.settle.until(() => this.isFinal() || PAUSED_STATUSES.has(this.turn.status) || this.dropped, ms);
  }

  /** Resolves once the turn's final state has committed, or after `ms`. */
  waitStored(ms: number): Promise<void> {
    return this.settle.until(() => this.finalStored || this.controller.signal.aborted, ms);
  }
}
