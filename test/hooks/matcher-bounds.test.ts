// A hook's `matcher` is a regular expression a session's or tenant's client writes, matched
// against tool names an MCP server chooses (up to 128 characters): it is matched in a worker
// thread with a deadline, once per tool name. A matcher that backtracks fails its hook (a
// PreToolUse hook blocks the call, fail-closed) without holding the event loop.
import { describe, expect, it } from 'vitest';
import { REGEX_DEADLINE_MS } from '../../src/bounded/regex.js';
import { compileMatcher, HookRegistry, type HookInput } from '../../src/hooks/registry.js';
import { watchLoop } from '../helpers/loop-stall.js';

const STALL_BOUND_MS = 400;
const SLACK_MS = 3000;
// 30 characters: seconds of backtracking for (a|a)* on the event loop.
const LONG_NAME = `mcp__h__${'a'.repeat(30)}b`;
const input = (tool: string): HookInput => ({ hook_event_name: 'PreToolUse', session_id: 's', cwd: '/', permission_mode: 'default', tool_name: tool, tool_input: {}, tool_use_id: 't' });

async function timed<T>(fn: () => Promise<T>): Promise<{ value: T; ms: number; stallMs: number }> {
  const watch = watchLoop();
  const t0 = performance.now();
  const value = await fn();
  return { value, ms: performance.now() - t0, stallMs: watch.stop() };
}

describe('hook matchers are matched within a deadline', () => {
  it('a backtracking matcher blocks the PreToolUse call (fail-closed) within the deadline; the hook does not run', async () => {
    const hooks = new HookRegistry();
    let ran = 0;
    hooks.register({ name: 'guard', event: 'PreToolUse', matcher: 'mcp__h__(a|a)*', callback: () => void ran++ });
    // The matching thread is started first: its start-up is not the matcher's time.
    expect(await compileMatcher('mcp__.*')('mcp__x__y')).toBe(true);
    const { value, ms, stallMs } = await timed(() => hooks.run('PreToolUse', input(LONG_NAME), { stopOnBlock: true }));
    console.info(`a backtracking hook matcher: ${Math.round(ms)} ms, longest event-loop stall ${Math.round(stallMs)} ms`);
    expect(value.blocked?.hook).toBe('guard');
    expect(value.blocked?.reason).toBe(`hook guard failed (its matcher "mcp__h__(a|a)*" took longer than ${REGEX_DEADLINE_MS / 1000} s to match ${LONG_NAME}); the call is blocked`);
    expect(ran).toBe(0);
    expect(ms).toBeLessThan(REGEX_DEADLINE_MS + SLACK_MS);
    expect(stallMs).toBeLessThan(STALL_BOUND_MS);
    // The verdict is kept for that name: the next call is refused at once.
    const again = await timed(() => hooks.run('PreToolUse', input(LONG_NAME), { stopOnBlock: true }));
    expect(again.value.blocked?.hook).toBe('guard');
    expect(again.ms).toBeLessThan(200);
    // Other names are still matched, on a fresh thread.
    expect((await hooks.run('PreToolUse', input('mcp__h__aaaa'), { stopOnBlock: true })).blocked).toBeUndefined();
    expect(ran).toBe(1);
  });

  it('a fail-open hook with such a matcher is reported as failed and the call goes on', async () => {
    const hooks = new HookRegistry();
    const records: string[] = [];
    hooks.register({ name: 'soft', event: 'PostToolUse', matcher: 'mcp__h__(x+)+y', failOpen: true, callback: () => ({ additionalContext: 'ran' }) });
    const r = await hooks.run('PostToolUse', { ...input(`mcp__h__${'x'.repeat(30)}`), hook_event_name: 'PostToolUse' }, { stopOnBlock: false, onRun: (x) => records.push(`${x.outcome}: ${x.error}`) });
    expect(r.blocked).toBeUndefined();
    expect(r.additionalContext).toEqual([]);
    expect(r.failures).toEqual([{ hook: 'soft', error: `its matcher "mcp__h__(x+)+y" took longer than ${REGEX_DEADLINE_MS / 1000} s to match mcp__h__${'x'.repeat(30)}` }]);
    expect(records).toEqual([`failed: ${r.failures[0]!.error}`]);
  });

  it('ordinary matchers match as before: names, *, anchored regular expressions', async () => {
    expect(compileMatcher(undefined)('Bash')).toBe(true);
    expect(compileMatcher('*')('Bash')).toBe(true);
    expect(compileMatcher('Edit|Write')('Write')).toBe(true);
    expect(compileMatcher('Edit|Write')('WriteX')).toBe(false);
    const m = compileMatcher('mcp__.*__delete.*');
    expect(await m('mcp__gh__delete_repo')).toBe(true);
    expect(await m('mcp__gh__list')).toBe(false);
    expect(await m('xmcp__gh__delete')).toBe(false);
    expect(await compileMatcher('Bas')('Bash')).toBe(false);
    expect(await compileMatcher('(Read|Grep)')('Grep')).toBe(true);
    expect(() => compileMatcher('(')).toThrow(SyntaxError);
  });
});
