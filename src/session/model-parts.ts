// A session's model parts, made once and kept on its runtime: the provider objects (their
// connections are reused), what its calls cost (spending.ts), and its compactor — for prompt
// turns and for a compaction asked for between turns.
import { DomainError } from '../errors.js';
import { createProvider, type ResolvedModel } from '../model/index.js';
import { contextWindow } from '../model/prices.js';
import type { ModelProvider } from '../model/provider.js';
import { Compactor } from './compactor.js';
import type { Logger } from 'pino';
import type { EventLog } from '../events/log.js';
import type { Clock, IdFactory } from '../ids.js';
import type { ProviderOptions } from '../model/index.js';
import type { PriceTable } from '../model/prices.js';
import type { Usage } from '../model/provider.js';
import type { EgressPolicy } from '../sandbox/egress.js';
import type { SpendLedger } from '../store/spend.js';
import type { Store } from '../store/store.js';
import type { HookAudit } from './lifecycle.js';
import type { SessionRuntime } from './runtime.js';
import { Spending } from './spending.js';

/** A model call's usage and cost (null: no known price), by tenant and model (metrics). */
export type ModelCallObserver = (call: { tenant: string; provider: string; model: string; priced: boolean; usage: Usage; costUsd: number | null }) => void;

/** What the model parts are made with (the runner's deps have all of it). */
export interface ModelPartsDeps {
  store: Store;
  events: EventLog;
  clock: Clock;
  newId: IdFactory;
  logger: Logger;
  audit: HookAudit;
  egress: EgressPolicy;
  /** Retry and timeout settings for model providers (tests shorten them). */
  modelOptions?: Omit<ProviderOptions, 'egress'>;
  prices: PriceTable;
  spend: SpendLedger;
  onModelCall?: ModelCallObserver;
}

export interface SessionModelParts {
  model: ResolvedModel;
  providers: { main: ModelProvider; subagent: ModelProvider };
  spending: Spending;
}

export function sessionModelParts(rt: SessionRuntime, deps: ModelPartsDeps): SessionModelParts {
  const model = rt.model;
  if (!model) throw new DomainError('invalid', `session ${rt.id} has no model`);
  const observe = deps.modelOptions?.onEgress;
  const options = {
    egress: deps.egress,
    ...(deps.modelOptions ?? {}),
    // A refused model request is said in the log, with the session and the turn it was for.
    onEgress: (outcome: 'allowed' | 'refused' | 'error', detail?: string) => {
      observe?.(outcome, detail);
      if (outcome === 'refused') deps.logger.warn({ session_id: rt.id, turn_id: rt.activeTurn?.id, egress: 'model', reason: detail }, 'egress refused');
    },
    // The session's and the server's secrets out of whatever the provider answers.
    redactor: rt.redactor,
  };
  const providers = (rt.providers ??= { main: createProvider(model, options), subagent: createProvider(model, options, 'subagent') });
  const tenant = rt.settings.session.tenant;
  const spending = (rt.spending ??= new Spending({
    prices: deps.prices,
    ledger: deps.spend,
    now: deps.clock,
    provider: model.provider,
    model: model.model,
    maxTokens: model.maxTokens,
    session: () => rt.settings.session,
    tenantLimitUsd: () => rt.settings.policy()?.source.max_usd_per_day ?? null,
    updateSession: (change) => rt.settings.update(change),
    ...(deps.onModelCall ? { onCall: (usage, costUsd) => deps.onModelCall!({ tenant, provider: model.provider, model: model.model, priced: spending.price !== null, usage, costUsd }) } : {}),
  }));
  return { model, providers, spending };
}

/** The model's context window: the session's `model.context_window`, else the known model's own. */
export function windowOf(model: ResolvedModel): number | null {
  return model.contextWindow ?? contextWindow(model.provider, model.model);
}

/** A compactor of the session's conversation, its hooks run for `turnId` (null: between turns). */
export function sessionCompactor(rt: SessionRuntime, deps: ModelPartsDeps, turnId: string | null): Compactor {
  const { model, providers, spending } = sessionModelParts(rt, deps);
  return new Compactor({
    sessionId: rt.id,
    provider: providers.main,
    maxTokens: model.maxTokens,
    contextWindow: windowOf(model),
    spending,
    hooks: rt.hooks,
    hookBase: () => {
      const s = rt.settings.session;
      return { session_id: rt.id, ...(turnId ? { turn_id: turnId } : {}), cwd: s.workspace, permission_mode: s.permission_mode };
    },
    onHookRun: (r) => deps.audit.recordRun(rt.id, r, turnId ?? undefined),
    events: deps.events,
    store: deps.store,
    clock: deps.clock,
    newId: deps.newId,
  });
}
