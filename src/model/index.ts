// Which model a session talks to, and the provider object for it. A session's `model` wins over
// the server default (NORMA_MODEL_*). The operator's API key is only ever sent to the operator's
// endpoint: a session that names its own base URL must bring its own key. A base URL the session
// supplied passes the egress guard on every call; the operator's is trusted.
import type { Config } from '../config.js';
import type { ModelConfig, ModelConfigInput } from '../contract/schemas.js';
import type { EgressPolicy } from '../sandbox/egress.js';
import { AnthropicProvider } from './anthropic.js';
import { OpenAIProvider } from './openai.js';
import type { EgressObserver } from './http.js';
import type { Redactor } from '../redact.js';
import type { ModelProvider, ModelRequest, ProviderTimeouts, RetryPolicy, ThinkingOptions } from './provider.js';
import { ScriptedProvider, type ScriptReply } from './scripted.js';

export const DEFAULT_MAX_TOKENS = 8192;
export const DEFAULT_MAX_TURNS = 50;

const PUBLIC_ENDPOINT = { anthropic: 'https://api.anthropic.com', openai: 'https://api.openai.com/v1' } as const;

export interface ResolvedModel {
  provider: 'anthropic' | 'openai' | 'scripted';
  model: string;
  baseUrl: string | undefined;
  apiKey: string | undefined;
  maxTokens: number;
  maxTurns: number;
  /** Extended thinking the session asked for; the scripted provider ignores it. */
  thinking: ThinkingOptions | undefined;
  /** The model's context window in tokens, when the session gave one (else known models' own). */
  contextWindow: number | undefined;
  script: ScriptReply[] | undefined;
  subagentScript: ScriptReply[] | undefined;
  source: 'session' | 'server';
  /** The base URL is the operator's (or the public default reached with the operator's key). */
  trustedEndpoint: boolean;
}

export type ModelResolution = { ok: true; model: ResolvedModel | null } | { ok: false; problems: string[] };

/** The session's model from its `model` (with its key, kept apart) and the server default. */
export function resolveModel(input: ModelConfigInput | undefined, apiKey: string | null | undefined, server: Config['model']): ModelResolution {
  if (input === undefined) {
    if (!server.provider || !server.model) return { ok: true, model: null };
    return {
      ok: true,
      model: {
        provider: server.provider,
        model: server.model,
        baseUrl: server.baseUrl,
        apiKey: server.apiKey,
        maxTokens: DEFAULT_MAX_TOKENS,
        maxTurns: DEFAULT_MAX_TURNS,
        thinking: undefined,
        contextWindow: undefined,
        script: server.script,
        subagentScript: undefined,
        source: 'server',
        trustedEndpoint: true,
      },
    };
  }
  const problems: string[] = [];
  const sameAsServer = server.provider === input.provider && (input.base_url === undefined || sameUrl(input.base_url, server.baseUrl));
  const baseUrl = input.base_url ?? (sameAsServer ? server.baseUrl : undefined);
  const key = apiKey ?? input.api_key ?? (sameAsServer ? server.apiKey : undefined);
  let script = input.script;
  if (input.provider === 'scripted') {
    if (input.base_url !== undefined) problems.push('model.base_url: the scripted provider makes no network calls');
    if (input.api_key !== undefined) problems.push('model.api_key: the scripted provider takes no key');
    script ??= sameAsServer ? server.script : undefined;
    if (!script) problems.push('model.script: the scripted provider needs `script` (a list of replies) or NORMA_MODEL_SCRIPT on the server');
  } else {
    if (input.script !== undefined || input.subagent_script !== undefined) {
      problems.push(`model.script: only the scripted provider plays a script, not ${input.provider}`);
    }
    if (baseUrl !== undefined) {
      let url: URL | undefined;
      try {
        url = new URL(baseUrl);
      } catch {
        url = undefined;
      }
      if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) problems.push(`model.base_url: must be an http(s) URL, got ${JSON.stringify(baseUrl)}`);
      else if (url.username || url.password) problems.push('model.base_url: must not carry credentials (use api_key)');
    } else if (key === undefined) {
      problems.push(`model.api_key: required for ${input.provider} at ${PUBLIC_ENDPOINT[input.provider]} (give api_key, or base_url for a local server without a key)`);
    }
  }
  if (problems.length > 0) return { ok: false, problems };
  return {
    ok: true,
    model: {
      provider: input.provider,
      model: input.model,
      baseUrl,
      apiKey: key,
      maxTokens: input.max_tokens ?? DEFAULT_MAX_TOKENS,
      maxTurns: input.max_turns ?? DEFAULT_MAX_TURNS,
      thinking: input.thinking ? thinkingOptions(input.thinking) : undefined,
      contextWindow: input.context_window,
      script,
      subagentScript: input.subagent_script,
      source: 'session',
      trustedEndpoint: input.base_url === undefined && sameAsServer,
    },
  };
}

function thinkingOptions(t: NonNullable<ModelConfigInput['thinking']>): ThinkingOptions {
  return { ...(t.budget_tokens !== undefined ? { budgetTokens: t.budget_tokens } : {}), ...(t.effort !== undefined ? { effort: t.effort } : {}) };
}

/** What every model call of a session carries from its model config; spread into each ModelRequest. */
export function requestOptions(model: ResolvedModel): Pick<ModelRequest, 'thinking'> {
  return model.thinking ? { thinking: { ...model.thinking } } : {};
}

function sameUrl(a: string, b: string | undefined): boolean {
  return b !== undefined && a.replace(/\/+$/, '') === b.replace(/\/+$/, '');
}

/** What the API shows of a model: never the key. */
export function publicModel(m: ResolvedModel): ModelConfig {
  return {
    provider: m.provider,
    model: m.model,
    ...(m.baseUrl !== undefined ? { base_url: m.baseUrl } : {}),
    has_api_key: m.apiKey !== undefined,
    max_tokens: m.maxTokens,
    max_turns: m.maxTurns,
    ...(m.thinking
      ? {
          thinking: {
            ...(m.thinking.budgetTokens !== undefined ? { budget_tokens: m.thinking.budgetTokens } : {}),
            ...(m.thinking.effort !== undefined ? { effort: m.thinking.effort } : {}),
          },
        }
      : {}),
    ...(m.contextWindow !== undefined ? { context_window: m.contextWindow } : {}),
    source: m.source,
    ...(m.script ? { script_replies: m.script.length } : {}),
  };
}

export interface ProviderOptions {
  egress: EgressPolicy;
  retry?: RetryPolicy;
  timeouts?: ProviderTimeouts;
  /** Told how each HTTP attempt went (egress metrics and refusal logs). */
  onEgress?: EgressObserver;
  /** The session's and the server's secrets, out of every provider message (the model's key is added). */
  redactor?: Redactor;
}

/** The provider for a model; `subagent` (the Agent tool's conversations) plays the scripted provider's `subagent_script`. */
export function createProvider(m: ResolvedModel, opts: ProviderOptions, purpose: 'main' | 'subagent' = 'main'): ModelProvider {
  if (m.provider === 'scripted') return new ScriptedProvider(m.model, (purpose === 'subagent' ? m.subagentScript : m.script) ?? []);
  const common = {
    model: m.model,
    baseUrl: m.baseUrl,
    apiKey: m.apiKey,
    egress: m.trustedEndpoint ? null : opts.egress,
    ...(opts.retry ? { retry: opts.retry } : {}),
    ...(opts.timeouts ? { timeouts: opts.timeouts } : {}),
    ...(opts.onEgress ? { onEgress: opts.onEgress } : {}),
    ...(opts.redactor ? { redactor: opts.redactor } : {}),
  };
  return m.provider === 'anthropic' ? new AnthropicProvider(common) : new OpenAIProvider(common);
}
