// Makes the runner of one turn: the pipeline environment of the session's runtime (its
// registry, hooks, rules in force, the broker for asks, spill files, the audit trail), and for
// a prompt turn the model loop's parts. A turn resumed after a restart gets the requests an
// earlier process left pending, to wait on again when its calls ask about the same input.
import { CommitWatch, runInCommitWatch } from '../store/commit-watch.js';
import type { Config } from '../config.js';
import type { ClientToolRequest, PermissionRequest, Question, Turn } from '../contract/schemas.js';
import { DomainError } from '../errors.js';
import type { InteractionBroker } from '../interaction/broker.js';
import { clientToolKind, permissionKind, questionKind, type ApprovalAnswer, type ApprovalRequest } from '../interaction/kinds.js';
import type { HookInput } from '../hooks/registry.js';
import type { Message } from '../model/provider.js';
import { inputDigest } from '../pipeline/exec-one.js';
import type { InputValidator } from '../pipeline/validate.js';
import type { OutputFiles } from '../store/outputs.js';
import type { StoredClientToolAnswer } from '../store/store.js';
import type { TraceContext } from '../trace/context.js';
import { loadInstructions, systemPrompt } from './instructions.js';
import { openSkillFolder } from './skills.js';
import { PromptTurnRunner } from './prompt-turn.js';
import type { PromptTurnDeps } from './prompt-deps.js';
import { sessionCompactor, sessionModelParts, type ModelCallObserver, type ModelPartsDeps } from './model-parts.js';
import { conversationOf } from './compaction.js';
import { BUDGET_TOOL } from './budget-gate.js';
import type { SessionRuntime } from './runtime.js';
import { TurnRunner, type TurnRunnerDeps } from './turn.js';

export interface RunnerDeps extends ModelPartsDeps {
  config: Config;
  validator: InputValidator;
  outputs: OutputFiles;
  broker: InteractionBroker;
}

export type { ModelCallObserver };

/** Requests an earlier process left pending, by tool_use id. */
export interface Resumable {
  permissions: Map<string, PermissionRequest>;
  questions: Map<string, Question>;
  clientTools: Map<string, ClientToolRequest>;
  /** Client-tool requests the client answered whose call's result was not stored: the call takes the stored answer. */
  answeredClientTools: Map<string, { request: ClientToolRequest; answer: StoredClientToolAnswer }>;
}

export const nothingToResume = (): Resumable => ({ permissions: new Map(), questions: new Map(), clientTools: new Map(), answeredClientTools: new Map() });

/**
 * The runner of a turn. `resumable` holds the permission requests, questions and client-tool
 * requests an earlier process left pending, by tool_use id: when the call asks again about the
 * same input (the same questions, the same client tool and input), it waits on that request
 * instead of opening a new one. `trace`: the trace its
 * outbound requests belong to (default: the one of the work making it, the request that posted it).
 */
export function newTurnRunner(rt: SessionRuntime, turn: Turn, resumable: Resumable, deps: RunnerDeps, trace?: TraceContext): TurnRunner {
  const sessionId = rt.id;
  const { settings } = rt;
  const runnerDeps: TurnRunnerDeps = {
    ...(trace ? { trace } : {}),
    store: deps.store,
    events: deps.events,
    clock: deps.clock,
    logger: deps.logger,
    checkpoints: rt.checkpoints,
    env: {
      sessionId,
      registry: rt.registry,
      validator: deps.validator,
      hooks: rt.hooks,
      onHookRun: (r, call) => deps.audit.recordRun(sessionId, r, turn.id, call),
      workspace: rt.workspace,
      capChars: settings.session.output_cap_chars,
      spill: (p) => deps.outputs.begin({ sessionId, turnId: turn.id, ...p }),
      permissionContext: () => settings.permission(),
      isUnlocked: (name) => rt.isUnlocked(name),
      awaitApproval: async (request, signal, reevaluate) => {
        const decided = await beforeAsking(rt, turn.id, request, signal, deps);
        if (decided) return decided;
        // A `Budget` request is the same question by its id (one per scope and model call): its estimate may differ after a restart.
        const earlier = takeEarlier(resumable.permissions, request.toolUseId, (p) => p.tool === BUDGET_TOOL || inputDigest(p.input) === inputDigest(request.input));
        // What the call would do, made only for a request stored now (a person will see it).
        const shown = !earlier && request.makePreview ? await request.makePreview() : null;
        if (shown) request = { ...request, preview: shown.preview, ...(shown.stale ? { stale: shown.stale } : {}) };
        return deps.broker.askPermission(sessionId, runner, request, {
          timeoutS: settings.session.permission_timeout_s,
          signal,
          ...(reevaluate ? { reevaluate } : {}),
          ...(earlier ? { earlier } : {}),
        });
      },
      applyEffects: async (effects, call) => {
        // In force for the turn's next step once committed: a store that commits without waiting
        // (PostgreSQL) answers a moment later, and the turn waits for that answer.
        const watch = new CommitWatch();
        runInCommitWatch(watch, () => settings.applyEffects(effects, deps.clock().toISOString(), { turnId: turn.id, toolUseId: call.id }));
        const failure = await watch.settled();
        if (failure !== undefined) throw failure;
        // A used skill's folder becomes readable by the file tools (a workspace skill's already is).
        for (const e of effects) if (e.kind === 'use_skill') openSkillFolder(rt.workspace, rt.skills, e.skill, rt.operatorSkillDirs);
      },
    },
    askQuestions: (host, ask, signal) => {
      notify(rt, turn.id, 'question', `A call asks a person ${ask.questions.length === 1 ? 'a question' : `${ask.questions.length} questions`}: ${ask.questions[0]?.question ?? ''}`, deps, ask.toolUseId);
      const earlier = takeEarlier(resumable.questions, ask.toolUseId, (q) => inputDigest(q.questions) === inputDigest(ask.questions));
      return deps.broker.askQuestion(sessionId, host, ask, {
        timeoutS: settings.session.question_timeout_s,
        signal,
        ...(earlier ? { earlier } : {}),
      });
    },
    askClient: (host, call, signal) => {
      // Answered before the restart: the client is not asked again, and its answer is not lost.
      const answered = takeEarlier(resumable.answeredClientTools, call.toolUseId, (a) => a.request.name === call.name && inputDigest(a.request.input) === inputDigest(call.input));
      if (answered) return Promise.resolve({ outcome: 'answered' as const, content: answered.answer.content, isError: answered.answer.is_error, requestId: answered.request.id });
      const earlier = takeEarlier(resumable.clientTools, call.toolUseId, (r) => r.name === call.name && inputDigest(r.input) === inputDigest(call.input));
      return deps.broker.askClient(sessionId, host, call, {
        timeoutS: settings.session.question_timeout_s,
        signal,
        ...(earlier ? { earlier } : {}),
      });
    },
    onFinished: (r) => {
      if (rt.activeTurn === r) rt.activeTurn = null;
      try {
        settings.setActiveTurn(null, r.id);
      } catch (err) {
        // The next start-up reconciles the stored pointer with the turn's state.
        deps.logger.error({ err, session_id: sessionId, turn_id: r.id }, 'could not record the end of the turn');
      }
      // A request an earlier process left that no call came back to is not waited for any more.
      for (const earlier of resumable.permissions.values()) deps.broker.abandon(permissionKind, earlier, 'after the restart the call no longer asked about this input');
      for (const earlier of resumable.questions.values()) deps.broker.abandon(questionKind, earlier, 'after the restart the call no longer asked these questions');
      for (const earlier of resumable.clientTools.values()) deps.broker.abandon(clientToolKind, earlier, 'after the restart the call no longer asked the client for this input');
      resumable.permissions.clear();
      resumable.questions.clear();
      resumable.clientTools.clear();
      resumable.answeredClientTools.clear();
    },
  };
  const runner: TurnRunner =
    turn.kind === 'prompt' ? new PromptTurnRunner(turn, runnerDeps, promptDeps(rt, turn, deps)) : new TurnRunner(turn, runnerDeps);
  // Requests left pending can be answered at once, before their calls come back to ask.
  for (const earlier of resumable.permissions.values()) {
    deps.broker.expect(permissionKind, sessionId, runner, earlier, { timeoutS: settings.session.permission_timeout_s, signal: runner.signal });
  }
  for (const earlier of resumable.questions.values()) {
    deps.broker.expect(questionKind, sessionId, runner, earlier, { timeoutS: settings.session.question_timeout_s, signal: runner.signal });
  }
  for (const earlier of resumable.clientTools.values()) {
    deps.broker.expect(clientToolKind, sessionId, runner, earlier, { timeoutS: settings.session.question_timeout_s, signal: runner.signal });
  }
  return runner;
}

/** The request an earlier process left for this call, when the call asks the same again (it is taken: used once). */
function takeEarlier<R>(left: Map<string, R>, toolUseId: string, same: (earlier: R) => boolean): R | undefined {
  const earlier = left.get(toolUseId);
  if (earlier === undefined || !same(earlier)) return undefined;
  left.delete(toolUseId);
  return earlier;
}

/** What a prompt turn's model loop needs: the provider, the earlier conversation, the tools, the hooks. */
function promptDeps(rt: SessionRuntime, turn: Turn, deps: RunnerDeps): PromptTurnDeps {
  if (!rt.model) throw new DomainError('invalid', `session ${rt.id} has no model for prompt turn ${turn.id}`);
  const { model, providers, spending } = sessionModelParts(rt, deps);
  let history: Message[] | undefined;
  return {
    spending,
    compactor: sessionCompactor(rt, deps, turn.id),
    compaction: () => rt.settings.session.compaction,
    notify: (type, message) => notify(rt, turn.id, type, message, deps),
    raiseSessionBudget: (unit, limit) =>
      void rt.settings.update(
        (s) => {
          s.budget = { ...s.budget, [unit === 'usd' ? 'max_usd' : 'max_tokens']: limit };
        },
        { announce: true },
      ),
    provider: providers.main,
    subagentProvider: providers.subagent,
    model,
    system: async () => {
      const loaded = await loadInstructions(rt.workspace);
      const same = JSON.stringify(loaded.files) === JSON.stringify(rt.settings.session.instructions);
      const fresh = loaded.problems.filter((p) => !rt.settings.session.warnings.includes(p));
      if (!same || fresh.length > 0) {
        rt.settings.update(
          (s) => {
            s.instructions = loaded.files;
            s.warnings = [...s.warnings, ...fresh];
          },
          { announce: true },
        );
      }
      return systemPrompt(rt.settings.session.system_prompt, loaded.text);
    },
    history: () => {
      if (!history) {
        const all = deps.store.listTurns(rt.id);
        const at = all.findIndex((t) => t.id === turn.id);
        history = conversationOf((at >= 0 ? all.slice(0, at) : all).filter((t) => t.kind === 'prompt' && t.rewound_at === undefined));
      }
      return history;
    },
    tools: () => rt.registry.exposed().map((t) => ({ name: t.name, description: t.description, input_schema: t.input_schema as Record<string, unknown> })),
    hooks: rt.hooks,
    hookBase: () => {
      const s = rt.settings.session;
      return { session_id: rt.id, turn_id: turn.id, cwd: s.workspace, permission_mode: s.permission_mode };
    },
    onHookRun: (r, toolUseId) => deps.audit.recordRun(rt.id, r, turn.id, toolUseId),
  };
}

/**
 * Before a person is asked: PermissionRequest hooks may allow or deny in their place (a hook that
 * fails or says nothing leaves the ask to a person); otherwise Notification hooks are told, and
 * the ask goes on without waiting for them.
 */
async function beforeAsking(rt: SessionRuntime, turnId: string, request: ApprovalRequest, signal: AbortSignal, deps: RunnerDeps): Promise<ApprovalAnswer | null> {
  // The tenant's daily budget is the operator's: no hook answers for it (only a policy raising it does).
  const operators = request.tool === BUDGET_TOOL && (request.input as { scope?: string }).scope === 'tenant';
  if (rt.hooks.has('PermissionRequest') && !operators) {
    const s = rt.settings.session;
    const hooks = await rt.hooks.run(
      'PermissionRequest',
      {
        hook_event_name: 'PermissionRequest',
        session_id: rt.id,
        turn_id: turnId,
        cwd: s.workspace,
        permission_mode: rt.settings.permission().mode,
        tool_name: request.tool,
        tool_input: request.input,
        tool_use_id: request.toolUseId,
        reason: request.reason,
        permission_suggestions: request.suggestions,
      },
      { stopOnBlock: false, collectBlock: true, signal, onRun: (r) => deps.audit.recordRun(rt.id, r, turnId, request.toolUseId) },
    );
    if (hooks.blocked) return { behavior: 'deny', by: 'rule', verdict: { behavior: 'deny', reason: `PermissionRequest hook ${hooks.blocked.hook} denied it: ${hooks.blocked.reason}`, decidedBy: 'hook', rules: [] } };
    if (hooks.decision?.behavior === 'allow') return { behavior: 'allow', by: 'rule', verdict: { behavior: 'allow', reason: `PermissionRequest hook ${hooks.decision.hook} allowed it: ${hooks.decision.reason}`, decidedBy: 'hook', rules: [] } };
  }
  notify(rt, turnId, 'permission_prompt', `${request.tool} needs a person's permission: ${request.reason}`, deps, request.toolUseId);
  return null;
}

/** Notification hooks, told that a person is needed (or a budget is near); nothing waits for them. */
export function notify(rt: SessionRuntime, turnId: string, type: NonNullable<HookInput['notification_type']>, message: string, deps: Pick<RunnerDeps, 'audit'>, toolUseId?: string): void {
  if (!rt.hooks.has('Notification')) return;
  const s = rt.settings.session;
  void rt.hooks
    .run(
      'Notification',
      { hook_event_name: 'Notification', session_id: rt.id, turn_id: turnId, cwd: s.workspace, permission_mode: s.permission_mode, notification_type: type, message },
      { stopOnBlock: false, onRun: (r) => deps.audit.recordRun(rt.id, r, turnId, toolUseId) },
    )
    .catch(() => undefined);
}
