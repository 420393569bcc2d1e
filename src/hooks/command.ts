// Command hooks: `/bin/bash -c <command>` inside the process sandbox, in the session workspace,
// with the event's JSON on stdin. Exit 0: stdout, if any, is a JSON object whose fields are
// honoured; exit 2: the call is blocked with stderr as the reason; any other exit code or
// invalid JSON: a reported, non-blocking error. Killed by its timeout: a failure (fail-closed
// in PreToolUse). Output is bounded; the whole process tree dies with the hook.
import { HookNonBlockingError, type HookCallback, type HookOutput } from './registry.js';
import { killTree, spawnInSandbox, type SandboxPolicy } from '../sandbox/process.js';

/** Most of stdout / stderr kept from one hook run. */
export const HOOK_OUTPUT_LIMIT = 256 * 1024;

export function commandHook(command: string, sandbox: SandboxPolicy, workspace: string): HookCallback {
  return (input, signal) =>
    new Promise<HookOutput | void>((resolve, reject) => {
      const child = spawnInSandbox(sandbox, { argv: ['/bin/bash', '-c', command], workspace, stdin: true });
      let stdout = '';
      let stderr = '';
      const take = (into: 'out' | 'err') => (d: Buffer) => {
        if (into === 'out' && stdout.length < HOOK_OUTPUT_LIMIT) stdout += d.toString('utf8');
        if (into === 'err' && stderr.length < HOOK_OUTPUT_LIMIT) stderr += d.toString('utf8');
      };
      child.stdout?.on('data', take('out'));
      child.stderr?.on('data', take('err'));
      const onAbort = () => killTree(child);
      signal.addEventListener('abort', onAbort, { once: true });
      child.stdin?.on('error', () => undefined); // a hook that does not read its input
      child.stdin?.end(JSON.stringify(input));
      child.on('error', (err) => {
        signal.removeEventListener('abort', onAbort);
        reject(new Error(`could not start: ${err.message}`));
      });
      child.on('close', (code, sig) => {
        signal.removeEventListener('abort', onAbort);
        killTree(child); // anything it left running in the background
        const why = stderr.trim().slice(0, 2000);
        if (sig !== null || code === null) return reject(new Error(`killed by ${sig ?? 'a signal'}`));
        if (code === 2) return resolve({ decision: 'deny', reason: why || 'blocked by the hook (exit status 2)' });
        if (code !== 0) return reject(new HookNonBlockingError(`exited with status ${code}${why ? `: ${why}` : ''}`));
        const text = stdout.trim();
        if (text === '') return resolve();
        try {
          resolve(parseHookJson(JSON.parse(text)));
        } catch (err) {
          reject(new HookNonBlockingError(`printed output that is not a JSON object (${(err as Error).message})`));
        }
      });
    });
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
