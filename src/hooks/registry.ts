// In-process hooks (SPEC §5). Callbacks run in registration order; in PreToolUse the first
// block stops the chain and the last non-empty input rewrite wins. Each callback has a
// timeout, and an exception or timeout is contained: reported, and for PreToolUse treated
// as a block (fail-closed), never a crash.
import type { Static } from '@sinclair/typebox';
import type { HookEventName, SessionHooksSchema } from '../contract/schemas.js';

export type SessionHooks = Static<typeof SessionHooksSchema>;

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
}

export interface HookOutput {
  /** PreToolUse: stop the call with this reason. */
  block?: boolean;
  reason?: string;
  /** PreToolUse: run with this input instead (validated and evaluated again). */
  updatedInput?: unknown;
}

export type HookCallback = (input: HookInput, signal: AbortSignal) => HookOutput | void | Promise<HookOutput | void>;

export interface HookRegistration {
  event: HookEventName;
  /** `*`/absent = every tool; `A|B` = exact names; otherwise an anchored regular expression. */
  matcher?: string;
  callback: HookCallback;
  name?: string;
  timeoutMs?: number;
}

export interface HookFailure {
  hook: string;
  error: string;
}

export interface HookRunResult {
  blocked?: { hook: string; reason: string };
  updatedInput?: unknown;
  failures: HookFailure[];
}

export const DEFAULT_HOOK_TIMEOUT_MS = 60_000;

export function compileMatcher(matcher: string | undefined): (toolName: string) => boolean {
  if (matcher === undefined || matcher === '' || matcher === '*') return () => true;
  if (/^[A-Za-z0-9_|-]+$/.test(matcher)) {
    const names = new Set(matcher.split('|'));
    return (name) => names.has(name);
  }
  const re = new RegExp(`^(?:${matcher})$`);
  return (name) => re.test(name);
}

interface CompiledHook extends HookRegistration {
  matches: (toolName: string) => boolean;
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

  has(event: HookEventName): boolean {
    return this.hooks.some((h) => h.event === event);
  }

  /**
   * Runs the hooks of one event in registration order. With `stopOnBlock` (PreToolUse) the
   * first block ends the chain; a failing hook then counts as a block (fail-closed).
   */
  async run(event: HookEventName, eventInput: HookInput, opts: { stopOnBlock: boolean }): Promise<HookRunResult> {
    const input: HookInput = { ...eventInput, hook_event_name: event };
    const result: HookRunResult = { failures: [] };
    for (const hook of this.hooks) {
      if (hook.event !== event) continue;
      if (input.tool_name !== undefined && !hook.matches(input.tool_name)) continue;
      let output: HookOutput | void;
      try {
        output = await runWithTimeout(hook, input);
      } catch (err) {
        const error = err instanceof Error ? err.message : String(err);
        result.failures.push({ hook: hook.label, error });
        if (opts.stopOnBlock) {
          result.blocked = { hook: hook.label, reason: `hook ${hook.label} failed (${error}); the call is blocked` };
          return result;
        }
        continue;
      }
      if (!output) continue;
      if (output.updatedInput !== undefined && output.updatedInput !== null) result.updatedInput = output.updatedInput;
      if (output.block && opts.stopOnBlock) {
        result.blocked = { hook: hook.label, reason: output.reason ?? `blocked by hook ${hook.label}` };
        return result;
      }
    }
    return result;
  }
}

async function runWithTimeout(hook: CompiledHook, input: HookInput): Promise<HookOutput | void> {
  const timeoutMs = hook.timeoutMs ?? DEFAULT_HOOK_TIMEOUT_MS;
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(new Error(`timed out after ${timeoutMs} ms`));
    }, timeoutMs);
  });
  try {
    // structuredClone: a hook cannot mutate the pipeline's copy of the input in place.
    return await Promise.race([Promise.resolve().then(() => hook.callback(structuredClone(input), controller.signal)), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
