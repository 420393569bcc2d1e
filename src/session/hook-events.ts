// Hook events of the prompt loop. Stop and PostToolBatch are waited for and may change what
// happens next; PermissionDenied (any denial of a call, of a connection or of a model call past a
// budget) and StopFailure (a prompt turn that failed) only tell: nothing waits for them and what
// they return changes nothing. Every run is audited like any hook's.
import type { ToolResult } from '../contract/schemas.js';
import type { HookRunResult } from '../hooks/registry.js';
import type { ModelResponse, TextBlock, ToolUseBlock } from '../model/provider.js';
import type { DecisionNote, PipelineEnv } from '../pipeline/exec-one.js';
import type { PromptTurnDeps } from './prompt-deps.js';

type LoopHooks = Pick<PromptTurnDeps, 'hooks' | 'hookBase' | 'onHookRun'>;

/** Stop hooks: a block keeps the model going with the reason; `continue: false` ends the turn now. */
export async function stopHooks(
  p: LoopHooks,
  response: ModelResponse,
  active: boolean,
  signal: AbortSignal,
): Promise<{ kind: 'done' } | { kind: 'hard' } | { kind: 'continue'; reason: string }> {
  const text = response.content
    .filter((b): b is TextBlock => b.type === 'text')
    .map((b) => b.text)
    .join('\n');
  const hooks = await p.hooks.run(
    'Stop',
    { ...p.hookBase(), hook_event_name: 'Stop', stop_hook_active: active, last_assistant_message: text },
    { stopOnBlock: false, collectBlock: true, signal, onRun: p.onHookRun },
  );
  if (hooks.stop) return { kind: 'hard' };
  if (hooks.blocked) return { kind: 'continue', reason: hooks.blocked.reason };
  return { kind: 'done' };
}

/** PostToolBatch hooks after every call of one model response has its result; null when there are none. */
export async function postToolBatchHooks(p: LoopHooks, uses: readonly ToolUseBlock[], results: ReadonlyMap<string, ToolResult>, signal: AbortSignal): Promise<HookRunResult | null> {
  if (!p.hooks.has('PostToolBatch')) return null;
  const calls = uses.map((u) => ({ tool_use_id: u.id, tool_name: u.name, is_error: results.get(u.id)?.is_error ?? true }));
  return p.hooks.run('PostToolBatch', { ...p.hookBase(), hook_event_name: 'PostToolBatch', tool_calls: calls }, { stopOnBlock: false, signal, onRun: p.onHookRun });
}

type Env = Pick<PipelineEnv, 'hooks' | 'onHookRun' | 'workspace' | 'sessionId'>;

/** PermissionDenied hooks, told of a denial recorded in turn `turnId`. */
export function permissionDenied(env: Env, turnId: string, note: DecisionNote): void {
  if (!env.hooks.has('PermissionDenied')) return;
  void env.hooks
    .run(
      'PermissionDenied',
      {
        hook_event_name: 'PermissionDenied',
        session_id: env.sessionId,
        turn_id: turnId,
        cwd: env.workspace.root,
        permission_mode: note.mode,
        tool_name: note.tool,
        tool_use_id: note.tool_use_id,
        reason: note.reason,
        decided_by: note.decided_by,
      },
      { stopOnBlock: false, onRun: (r) => env.onHookRun?.(r, note.tool_use_id) },
    )
    .catch(() => undefined);
}

/** StopFailure hooks, told that turn `turnId` failed (its signal has fired: they run on their own timeouts). */
export function stopFailure(env: Env, turnId: string, mode: string, error: { code: string; message: string }): void {
  if (!env.hooks.has('StopFailure')) return;
  void env.hooks
    .run(
      'StopFailure',
      { hook_event_name: 'StopFailure', session_id: env.sessionId, turn_id: turnId, cwd: env.workspace.root, permission_mode: mode, error: error.message, error_code: error.code },
      { stopOnBlock: false, onRun: (r) => env.onHookRun?.(r) },
    )
    .catch(() => undefined);
}
