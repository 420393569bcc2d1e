// Command hooks: `/bin/bash -c <command>` inside the process sandbox, in the session workspace,
// without network unless the hook says `network: true`,
// with the event's JSON on stdin. Exit 0: stdout, if any, is a JSON object whose fields are
// honoured; exit 2: the call is blocked with stderr as the reason; any other exit code or
// invalid JSON: a reported, non-blocking error. Killed by its timeout: a failure (fail-closed
// in PreToolUse). Output is bounded; the whole process tree dies with the hook.
import { HookNonBlockingError, type HookCallback, type HookOutput } from './registry.js';
import type { SessionSandbox } from '../sandbox/session-sandbox.js';
import { parsePeerJson } from '../json-depth.js';

/** Most of stdout / stderr kept from one hook run. */
export const HOOK_OUTPUT_LIMIT = 256 * 1024;

export function commandHook(command: string, sandbox: SessionSandbox | undefined, network = false): HookCallback {
  return async (input, signal) => {
    if (!sandbox) throw new Error('command hooks run only inside a session');
    // No network unless the hook asked for it; then under the session's scope, in the name of the call it runs for.
    const call = input as { tool_use_id?: unknown; turn_id?: unknown };
    const child = await sandbox.spawn({
      argv: ['/bin/bash', '-c', command],
      stdin: true,
      network,
      ...(network
        ? { origin: { toolUseId: typeof call.tool_use_id === 'string' ? call.tool_use_id : null, turnId: typeof call.turn_id === 'string' ? call.turn_id : null, kind: 'hook' as const } }
        : {}),
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => {
      if (stdout.length < HOOK_OUTPUT_LIMIT) stdout += d.toString('utf8');
    });
    child.stderr.on('data', (d: Buffer) => {
      if (stderr.length < HOOK_OUTPUT_LIMIT) stderr += d.toString('utf8');
    });
    const onAbort = () => child.kill();
    if (signal.aborted) onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    child.stdin?.on('error', () => undefined); // a hook that does not read its input
    child.stdin?.end(JSON.stringify(input));
    const exit = await child.exited.finally(() => signal.removeEventListener('abort', onAbort));
    const why = stderr.trim().slice(0, 2000);
    if (exit.error !== undefined) throw new Error(`could not start: ${exit.error}`);
    if (exit.limit) throw new Error(`stopped: ${exit.limit}`);
    if (exit.signal !== null || exit.code === null) throw new Error(`killed by ${exit.signal ?? 'a signal'}`);
    if (exit.code === 2) return { decision: 'deny', reason: why || 'blocked by the hook (exit status 2)' };
    if (exit.code !== 0) throw new HookNonBlockingError(`exited with status ${exit.code}${why ? `: ${why}` : ''}`);
    const text = stdout.trim();
    if (text === '') return;
    try {
      return parseHookJson(parsePeerJson(text));
    } catch (err) {
      throw new HookNonBlockingError(`printed output that is not a JSON object (${(err as Error).message})`);
    }
  };
}

const DECISIONS: Record<string, HookOutput['decision']> = { allow: 'allow', approve: 'allow', deny: 'deny', block: 'deny', ask: 'ask' };

/**
 * The fields a hook may print, flat or inside `hookSpecificOutput` (the shape agents' hook
 * scripts already use): `decision` / `permissionDecision` (allow | deny | ask; `block` and
 * `approve` are accepted), `reason` / `permissionDecisionReason`, `updatedInput`,
 * `additionalContext`, `continue` + `stopReason`, `updatedOutput` (PostToolUse).
 */
export function parseHookJson(value: unknown): HookOutput {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new Error('expected an object');
  const top = value as Record<string, unknown>;
  const specific = (typeof top.hookSpecificOutput === 'object' && top.hookSpecificOutput !== null ? top.hookSpecificOutput : {}) as Record<string, unknown>;
  const pick = (k: string) => (specific[k] !== undefined ? specific[k] : top[k]);
  const out: HookOutput = {};
  const rawDecision = pick('permissionDecision') ?? pick('decision');
  if (rawDecision !== undefined) {
    const d = typeof rawDecision === 'string' ? DECISIONS[rawDecision] : undefined;
    if (!d) throw new Error(`unknown decision ${JSON.stringify(rawDecision)} (allow, deny or ask)`);
    out.decision = d;
  }
  const reason = pick('permissionDecisionReason') ?? pick('reason');
  if (typeof reason === 'string') out.reason = reason;
  const updatedInput = pick('updatedInput');
  if (updatedInput !== undefined) out.updatedInput = updatedInput;
  const context = pick('additionalContext');
  if (typeof context === 'string' && context !== '') out.additionalContext = context;
  if (top.continue === false) {
    out.continue = false;
    if (typeof top.stopReason === 'string') out.stopReason = top.stopReason;
  }
  const updatedOutput = pick('updatedOutput') ?? pick('updatedToolOutput');
  if (typeof updatedOutput === 'string') out.updatedOutput = updatedOutput;
  return out;
}
