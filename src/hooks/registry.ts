// In-process hooks (SPEC §5). Callbacks run in registration order; in PreToolUse the first
// block stops the chain and the last non-empty input rewrite wins. Each callback has a
// timeout, and an exception or timeout is contained: reported, and for PreToolUse treated
// as a block (fail-closed), never a crash.
import type { HookEventName } from '../contract/schemas.js';
import { inputDigest } from '../digest.js';
import { firstLenientMatch, type ParsedRule } from '../permission/rules.js';
import type { RuleSubject } from '../permission/subject.js';
import { UntrustedRegex } from '../bounded/regex.js';
import { Busy, Overrun, seconds } from '../bounded/worker.js';

export type { SessionHooks } from '../contract/hooks.js';

export interface HookInput {
  hook_event_name: HookEventName;
  session_id: string;
  turn_id?: string;
  cwd: string;
  permission_mode: string;
  tool_name?: string;
  tool_input?: unknown;
  tool_use_id?: string;
  tool_response?: unknown;
  error?: string;
  reason?: string;
  /** UserPromptSubmit: the prompt's text. */
  prompt?: string;
  /** Stop: whether the model is already continuing because a Stop hook blocked an earlier stop. */
  stop_hook_active?: boolean;
  /** Stop: the text of the model's final message. */
  last_assistant_message?: string;
  /** SubagentStart: the subagent's id, its type and its task. */
  agent_id?: string;
  agent_type?: string;
  /** PreCompact, PostCompact: what started the compaction. */
  trigger?: 'manual' | 'auto';
  /** PreCompact: the instructions given with POST …/compact (null: none). */
  custom_instructions?: string | null;
  /** PostCompact: the summary (null: old tool results were left out, nothing was summarised), and the tokens before and after. */
  compact_summary?: string | null;
  tokens_before?: number;
  tokens_after?: number;
  /** PermissionRequest: the rules a person could choose to remember. */
  permission_suggestions?: string[];
  /** PermissionDenied: what decided the denial (`rule`, `mode`, `person`, `timeout`, `hook`, `policy`, …). */
  decided_by?: string;
  /** Notification: what a person is needed for, in words, and its kind. */
  message?: string;
  notification_type?: 'permission_prompt' | 'question' | 'budget_near';
  /** StopFailure: the turn's error code (`error` holds its message). */
  error_code?: string;
  /** PostToolBatch: the calls of one model response, as they ended. */
  tool_calls?: { tool_use_id: string; tool_name: string; is_error: boolean }[];
}

export interface HookOutput {
  /** Stop the call with `reason` (PreToolUse; the same as `decision: "deny"`). */
  block?: boolean;
  reason?: string;
  /** PreToolUse: deny stops the call, ask puts it before a person, allow changes nothing. */
  decision?: 'allow' | 'deny' | 'ask';
  /** PreToolUse: run with this input instead (validated and evaluated again). */
  updatedInput?: unknown;
  /** Context for the model: appended to the call's tool_result. */
  additionalContext?: string;
  /** `false` stops the turn after this point, with `stopReason`. */
  continue?: boolean;
  stopReason?: string;
  /** PostToolUse: the text the model sees instead of the tool's output (the spill file stays). */
  updatedOutput?: string;
}

/** A hook that reports a problem but does not block (a command hook's exit code other than 0 or 2, invalid JSON). */
export class HookNonBlockingError extends Error {}

/** Why hooks were stopped from outside other than the turn's cancellation (e.g. a lifecycle bound). */
export class HookStop extends Error {}

export type HookCallback = (input: HookInput, signal: AbortSignal) => HookOutput | void | Promise<HookOutput | void>;

export interface HookRegistration {
  event: HookEventName;
  /** `*`/absent = every tool; `A|B` = exact names; otherwise an anchored regular expression. */
  matcher?: string;
  /** Runs only for calls this permission rule matches (e.g. `Bash(git push *)`). */
  if?: ParsedRule;
  callback: HookCallback;
  name?: string;
  timeoutMs?: number;
  /** `in-process` (operator code), `command`, `http`. */
  kind?: 'in-process' | 'command' | 'http';
  /** A failing PreToolUse hook blocks the call unless this is set (fail-closed by default). */
  failOpen?: boolean;
}

export interface HookFailure {
  hook: string;
  error: string;
}

/** One hook run, for the audit trail and the `hook.completed` / `hook.failed` events. */
export interface HookRunRecord {
  hook: string;
  kind: 'in-process' | 'command' | 'http';
  event: HookEventName;
  duration_ms: number;
  outcome: 'ok' | 'blocked' | 'error' | 'failed';
  decision?: 'allow' | 'deny' | 'ask';
  /** SHA-256 of the canonical JSON of the input the hook asked to run with. */
  rewrite_digest?: string;
  error?: string;
}

export interface HookRunResult {
  blocked?: { hook: string; reason: string };
  /** The strongest decision any hook gave (deny beats ask beats allow), with its reason. */
  decision?: { behavior: 'allow' | 'ask'; hook: string; reason: string };
  updatedInput?: unknown;
  additionalContext: string[];
  stop?: { hook: string; reason: string };
  updatedOutput?: string;
  failures: HookFailure[];
}

export interface RunOptions {
  /** PreToolUse: the first block ends the chain, and a failing hook blocks (unless failOpen). */
  stopOnBlock: boolean;
  /** What `if` rules are matched against. */
  subject?: RuleSubject;
  root?: string;
  /** Called after each hook with its record. */
  onRun?: (record: HookRunRecord) => void;
  /** The turn's signal: a cancelled turn stops its running hook (a command hook's processes die). */
  signal?: AbortSignal;
  /** Stop, UserPromptSubmit without stopOnBlock: note the first block in `blocked` but let the chain go on. */
  collectBlock?: boolean;
}

export const DEFAULT_HOOK_TIMEOUT_MS = 60_000;

/** Tool names one regular-expression matcher remembers its answer for. */
const MATCHER_MEMORY = 1024;

/**
 * Compiles a matcher; a bad regular expression throws a SyntaxError naming it. A regular
 * expression is written by a session's or tenant's client and tool names can be long (an MCP
 * server names its tools): it is matched off the event loop with a deadline (src/bounded/regex.ts),
 * once per tool name; a match that passes the deadline rejects, and the hook counts as failed.
 */
export function compileMatcher(matcher: string | undefined): (toolName: string) => boolean | Promise<boolean> {
  if (matcher === undefined || matcher === '' || matcher === '*') return () => true;
  if (/^[A-Za-z0-9_|-]+$/.test(matcher)) {
    const names = new Set(matcher.split('|'));
    return (name) => names.has(name);
  }
  const re = new UntrustedRegex(`^(?:${matcher})$`);
  const known = new Map<string, Promise<boolean>>();
  return (name) => {
    let answer = known.get(name);
    if (answer) return answer;
    answer = re.test(name).catch((err: unknown) => {
      // A full queue is nobody's verdict on this name: asked again next time.
      if (err instanceof Busy) known.delete(name);
      throw err instanceof Overrun ? new Error(`its matcher ${JSON.stringify(matcher)} took longer than ${seconds(err.deadlineMs)} to match ${name}`) : err;
    });
    if (known.size < MATCHER_MEMORY) known.set(name, answer);
    return answer;
  };
}

interface CompiledHook extends HookRegistration {
  matches: (toolName: string) => boolean | Promise<boolean>;
  label: string;
}

export class HookRegistry {
  private readonly hooks: CompiledHook[] = [];

  register(reg: HookRegistration): void {
    this.hooks.push({
      ...reg,
      matches: compileMatcher(reg.matcher),
      label: reg.name ?? `${reg.event}#${this.hooks.length + 1}`,
    });
  }

  /** A registry with this one's hooks first, then `more` (operator hooks before session hooks). */
  with(more: readonly HookRegistration[]): HookRegistry {
    const r = new HookRegistry();
    for (const h of this.hooks) r.hooks.push(h);
    for (const h of more) r.register(h);
    return r;
  }

  has(event: HookEventName): boolean {
    return this.hooks.some((h) => h.event === event);
  }

  /** Whether a hook of one of `events` has an `if` condition (matched against the call's rule subject). */
  conditional(events: readonly HookEventName[]): boolean {
    return this.hooks.some((h) => h.if !== undefined && events.includes(h.event));
  }

  /**
   * Runs the hooks of one event in registration order. With `stopOnBlock` (PreToolUse) the
   * first block ends the chain; a failing hook then counts as a block (fail-closed) unless it
   * is fail-open. A non-blocking error is reported and the chain goes on.
   */
  async run(event: HookEventName, eventInput: HookInput, opts: RunOptions): Promise<HookRunResult> {
    const input: HookInput = { ...eventInput, hook_event_name: event };
    const result: HookRunResult = { failures: [], additionalContext: [] };
    for (const hook of this.hooks) {
      if (hook.event !== event) continue;
      const started = performance.now();
      const base = { hook: hook.label, kind: hook.kind ?? 'in-process', event } as const;
      const done = (r: Omit<HookRunRecord, 'hook' | 'kind' | 'event' | 'duration_ms'>) =>
        opts.onRun?.({ ...base, duration_ms: Math.round(performance.now() - started), ...r });
      let output: HookOutput | void;
      try {
        // A matcher that cannot be decided in time fails like the hook would (fail-closed for PreToolUse).
        if (input.tool_name !== undefined && !(await hook.matches(input.tool_name))) continue;
        if (hook.if && input.tool_name !== undefined) {
          const ctx = { toolName: input.tool_name, subject: opts.subject ?? { kind: 'none' as const }, root: opts.root ?? '/' };
          if (!firstLenientMatch([hook.if], 'ask', ctx)) continue;
        }
        if (opts.signal?.aborted) break;
        output = await runWithTimeout(hook, input, opts.signal);
      } catch (err) {
        const error = err instanceof Error ? err.message : String(err);
        result.failures.push({ hook: hook.label, error });
        if (err instanceof HookNonBlockingError) {
          done({ outcome: 'error', error });
          continue;
        }
        done({ outcome: 'failed', error });
        if (opts.stopOnBlock && !hook.failOpen) {
          result.blocked = { hook: hook.label, reason: `hook ${hook.label} failed (${error}); the call is blocked` };
          return result;
        }
        continue;
      }
      const o = output ?? {};
      const decision = o.block ? 'deny' : o.decision;
      const rewrite = o.updatedInput !== undefined && o.updatedInput !== null ? o.updatedInput : undefined;
      done({
        outcome: decision === 'deny' && (opts.stopOnBlock || opts.collectBlock) ? 'blocked' : 'ok',
        ...(decision ? { decision } : {}),
        ...(rewrite !== undefined ? { rewrite_digest: inputDigest(rewrite) } : {}),
      });
      if (rewrite !== undefined) result.updatedInput = rewrite;
      if (o.additionalContext) result.additionalContext.push(o.additionalContext);
      if (o.updatedOutput !== undefined) result.updatedOutput = o.updatedOutput;
      if (o.continue === false && !result.stop) result.stop = { hook: hook.label, reason: o.stopReason ?? o.reason ?? `stopped by hook ${hook.label}` };
      if (decision === 'deny' && opts.collectBlock && !result.blocked) result.blocked = { hook: hook.label, reason: o.reason ?? `blocked by hook ${hook.label}` };
      if (decision === 'deny' && opts.stopOnBlock) {
        result.blocked = { hook: hook.label, reason: o.reason ?? `blocked by hook ${hook.label}` };
        return result;
      }
      if (decision === 'ask' || (decision === 'allow' && !result.decision)) {
        if (result.decision?.behavior !== 'ask') {
          result.decision = { behavior: decision, hook: hook.label, reason: o.reason ?? `hook ${hook.label} ${decision === 'ask' ? 'asks for approval' : 'allows the call'}` };
        }
      }
    }
    return result;
  }
}

async function runWithTimeout(hook: CompiledHook, input: HookInput, outer?: AbortSignal): Promise<HookOutput | void> {
  const timeoutMs = hook.timeoutMs ?? DEFAULT_HOOK_TIMEOUT_MS;
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  let onOuter: (() => void) | undefined;
  const stopped = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(new Error(`timed out after ${timeoutMs} ms`));
    }, timeoutMs);
    onOuter = () => {
      controller.abort();
      reject(outer?.reason instanceof HookStop ? outer.reason : new Error('cancelled with the turn'));
    };
    outer?.addEventListener('abort', onOuter, { once: true });
  });
  try {
    // structuredClone: a hook cannot mutate the pipeline's copy of the input in place.
    return await Promise.race([Promise.resolve().then(() => hook.callback(structuredClone(input), controller.signal)), stopped]);
  } finally {
    clearTimeout(timer);
    if (onOuter) outer?.removeEventListener('abort', onOuter);
  }
}
