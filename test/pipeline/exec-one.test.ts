// execOne, stage by stage (SPEC §2), including rewrites that must not widen (SPEC §9.2).
import { Type } from '@sinclair/typebox';
import { afterEach, describe, expect, it } from 'vitest';
import { execOne } from '../../src/pipeline/exec-one.js';
import { fileSubject } from '../../src/capabilities/files/subject-paths.js';
import { buildTool, textOutput, type CoreTool } from '../../src/tools/tool.js';
import { pipelineHarness, type PipelineHarness } from '../helpers/pipeline.js';

const calls: { tool: string; input: unknown }[] = [];

const echo = buildTool<{ text: string }>({
  name: 'Echo',
  description: 'echoes',
  inputSchema: Type.Object({ text: Type.String({ maxLength: 50 }) }, { additionalProperties: false }),
  isReadOnly: () => true,
  isConcurrencySafe: () => true,
  requiresApproval: () => false,
  call: async (input) => {
    calls.push({ tool: 'Echo', input });
    return textOutput(input.text);
  },
});

const store = buildTool<{ key: string; value?: number }>({
  name: 'Store',
  description: 'mutates',
  inputSchema: Type.Object(
    { key: Type.String({ pattern: '^[a-z]+$' }), value: Type.Optional(Type.Integer({ minimum: 0, maximum: 10 })) },
    { additionalProperties: false },
  ),
  call: async (input) => {
    calls.push({ tool: 'Store', input });
    return textOutput(`stored ${input.key}`);
  },
});

const boom = buildTool<Record<string, never>>({
  name: 'Boom',
  description: 'throws',
  inputSchema: Type.Object({}, { additionalProperties: false }),
  isReadOnly: () => true,
  call: async () => {
    throw new Error('kaboom');
  },
});

const big = buildTool<{ n: number }>({
  name: 'Big',
  description: 'large output',
  inputSchema: Type.Object({ n: Type.Integer({ minimum: 0 }) }),
  isReadOnly: () => true,
  call: async (input) => textOutput('x'.repeat(input.n)),
});

/** A file-edit tool whose `key` is the path it changes: `Edit(<glob>)` rules apply to it. */
const editKey = buildTool<{ key: string }>({
  name: 'Edit',
  description: 'edits the file named by key',
  inputSchema: Type.Object({ key: Type.String({ pattern: '^[a-z]+$' }) }, { additionalProperties: false }),
  isFileEdit: true,
  permissionSubject: (input, ctx) => fileSubject(ctx, 'edit', input.key, false),
  call: async (input) => {
    calls.push({ tool: 'Edit', input });
    return textOutput(`edited ${input.key}`);
  },
});
const withEdit = () => [echo, store, boom, big, editKey];

let h: PipelineHarness;
async function harness(tools: CoreTool[] = [echo, store, boom, big], opts = {}) {
  h = await pipelineHarness(tools, opts);
  return h;
}
afterEach(async () => {
  calls.length = 0;
  await h?.cleanup();
});

const text = (r: { content: ({ type: string; text?: string })[] }) => r.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');

describe('execOne stages', () => {
  it('lookup: an unknown tool is an error result that lists the available tools', async () => {
    await harness();
    const { result } = await execOne({ id: 't1', name: 'Nope', input: {} }, h.env);
    expect(result).toMatchObject({ type: 'tool_result', tool_use_id: 't1', is_error: true });
    expect(text(result)).toBe('Unknown tool "Nope". Available tools: Echo, Store, Boom, Big.');
  });

  it('validation: says which property is wrong and why; the tool never runs', async () => {
    await harness();
    const { result } = await execOne({ id: 't', name: 'Store', input: { key: 'ABC', value: 11, extra: true } }, h.env);
    expect(result.is_error).toBe(true);
    const msg = text(result);
    expect(msg).toContain('Invalid input for Store');
    expect(msg).toContain('input.key: must match pattern "^[a-z]+$"');
    expect(msg).toContain('input.value: must be <= 10');
    expect(msg).toContain('unknown property "extra" is not allowed');
    expect(calls).toEqual([]);
    expect(h.asked).toEqual([]);
  });

  it('permission deny: a deny rule stops the call before any ask', async () => {
    await harness();
    h.setRules({ deny: ['Store'] });
    const { result } = await execOne({ id: 't', name: 'Store', input: { key: 'a' } }, h.env);
    expect(text(result)).toBe('Permission denied: denied by rule "Store".');
    expect(calls).toEqual([]);
    expect(h.asked).toEqual([]);
  });

  it('permission ask → allow runs the call with the approved input', async () => {
    await harness();
    h.answers.push({ behavior: 'allow' });
    const out = await execOne({ id: 't', name: 'Store', input: { key: 'a' } }, h.env);
    expect(out.result.is_error).toBe(false);
    expect(h.asked).toHaveLength(1);
    expect(h.asked[0]).toMatchObject({ toolUseId: 't', tool: 'Store', input: { key: 'a' }, suggestions: ['Store'] });
    expect(calls).toEqual([{ tool: 'Store', input: { key: 'a' } }]);
  });

  it('permission ask → deny carries the message and the interrupt flag', async () => {
    await harness();
    h.answers.push({ behavior: 'deny', message: 'nope', interrupt: true });
    const out = await execOne({ id: 't', name: 'Store', input: { key: 'a' } }, h.env);
    expect(text(out.result)).toBe('Permission denied by the user: nope');
    expect(out.interrupt).toBe(true);
    expect(calls).toEqual([]);
  });

  it('an approval\'s updated_input is re-evaluated: a deny rule matching the rewrite still denies', async () => {
    await harness(withEdit());
    h.setRules({ deny: ['Edit(secret)'] });
    h.answers.push({ behavior: 'allow', updatedInput: { key: 'secret' } });
    const out = await execOne({ id: 't', name: 'Edit', input: { key: 'public' } }, h.env);
    expect(text(out.result)).toBe('Permission denied: denied by rule "Edit(secret)".');
    expect(calls).toEqual([]);
  });

  it('PreToolUse: the first block stops the chain; later hooks do not run', async () => {
    await harness();
    const ran: string[] = [];
    h.hooks.register({ event: 'PreToolUse', name: 'first', callback: () => void ran.push('first') });
    h.hooks.register({ event: 'PreToolUse', name: 'blocker', callback: () => (ran.push('blocker'), { block: true, reason: 'policy X' }) });
    h.hooks.register({ event: 'PreToolUse', name: 'never', callback: () => void ran.push('never') });
    const { result } = await execOne({ id: 't', name: 'Echo', input: { text: 'hi' } }, h.env);
    expect(text(result)).toBe('Blocked by PreToolUse hook: policy X');
    expect(ran).toEqual(['first', 'blocker']);
    expect(calls).toEqual([]);
  });

  it('PreToolUse: the last non-empty rewrite wins and is validated', async () => {
    await harness();
    h.hooks.register({ event: 'PreToolUse', callback: () => ({ updatedInput: { text: 'one' } }) });
    h.hooks.register({ event: 'PreToolUse', callback: () => ({}) });
    h.hooks.register({ event: 'PreToolUse', callback: () => ({ updatedInput: { text: 'two' } }) });
    const { result } = await execOne({ id: 't', name: 'Echo', input: { text: 'orig' } }, h.env);
    expect(text(result)).toBe('two');

    calls.length = 0;
    h.hooks.register({ event: 'PreToolUse', callback: () => ({ updatedInput: { text: 'x'.repeat(51) } }) });
    const bad = await execOne({ id: 'u', name: 'Echo', input: { text: 'orig' } }, h.env);
    expect(text(bad.result)).toContain('Invalid rewritten input (from a PreToolUse hook) for Echo: input.text: must NOT have more than 50 characters');
    expect(calls).toEqual([]);
  });

  it('a hook cannot widen an approval: a rewritten input is asked again, showing the rewrite', async () => {
    await harness(withEdit());
    h.hooks.register({ event: 'PreToolUse', matcher: 'Edit', callback: (i) => ({ updatedInput: { ...(i.tool_input as object), key: 'widened' } }) });
    h.answers.push({ behavior: 'allow' });
    h.answers.push({ behavior: 'deny', message: 'not that one' });
    const { result } = await execOne({ id: 't', name: 'Edit', input: { key: 'narrow' } }, h.env);
    expect(h.asked.map((a) => a.input)).toEqual([{ key: 'narrow' }, { key: 'widened' }]);
    expect(text(result)).toBe('Permission denied by the user: not that one');
    expect(calls).toEqual([]);
  });

  it('a hook rewrite into a denied input is denied, even in bypassPermissions mode', async () => {
    await harness(withEdit());
    h.setMode('bypassPermissions');
    h.setRules({ deny: ['Edit(root)'] });
    h.hooks.register({ event: 'PreToolUse', callback: () => ({ updatedInput: { key: 'root' } }) });
    const { result } = await execOne({ id: 't', name: 'Edit', input: { key: 'user' } }, h.env);
    expect(text(result)).toBe('Permission denied: denied by rule "Edit(root)".');
    expect(calls).toEqual([]);
  });

  it('a hook that throws or times out blocks the call (fail-closed) and names the hook', async () => {
    await harness();
    h.hooks.register({ event: 'PreToolUse', name: 'crashy', callback: () => { throw new Error('bug in hook'); } });
    const first = await execOne({ id: 't', name: 'Echo', input: { text: 'a' } }, h.env);
    expect(text(first.result)).toBe('Blocked by PreToolUse hook: hook crashy failed (bug in hook); the call is blocked');

    await h.cleanup();
    await harness();
    h.hooks.register({ event: 'PreToolUse', name: 'slow', timeoutMs: 20, callback: () => new Promise(() => undefined) });
    const second = await execOne({ id: 't', name: 'Echo', input: { text: 'a' } }, h.env);
    expect(text(second.result)).toBe('Blocked by PreToolUse hook: hook slow failed (timed out after 20 ms); the call is blocked');
    expect(calls).toEqual([]);
  });

  it('a tool exception becomes an error result and fires PostToolUseFailure (not PostToolUse)', async () => {
    await harness();
    const post: string[] = [];
    h.hooks.register({ event: 'PostToolUse', callback: (i) => void post.push(`post:${i.tool_name}`) });
    h.hooks.register({ event: 'PostToolUseFailure', callback: (i) => void post.push(`fail:${i.tool_name}:${i.error}`) });
    const { result } = await execOne({ id: 't', name: 'Boom', input: {} }, h.env);
    expect(result.is_error).toBe(true);
    expect(text(result)).toBe('Boom failed: kaboom');
    expect(post).toEqual(['fail:Boom:Boom failed: kaboom']);

    await execOne({ id: 'u', name: 'Echo', input: { text: 'ok' } }, h.env);
    expect(post).toEqual(['fail:Boom:Boom failed: kaboom', 'post:Echo']);
  });

  it('PostToolUse sees the capped tool_result, and the result carries structured truncation', async () => {
    await harness(undefined, { capChars: 100 });
    let seen: unknown;
    h.hooks.register({ event: 'PostToolUse', callback: (i) => void (seen = i.tool_response) });
    const { result } = await execOne({ id: 't', name: 'Big', input: { n: 250 } }, h.env);
    expect(result.truncation).toMatchObject({ block_index: 0, total_chars: 250, shown_chars: 100 });
    expect((result.content[0] as { text: string }).text).toBe('x'.repeat(100));
    expect(seen).toEqual(result);
  });

  it('cancellation while waiting for a person answers the call as cancelled', async () => {
    await harness();
    h.env.awaitApproval = (_req, signal) =>
      new Promise((resolve) => signal.addEventListener('abort', () => resolve({ behavior: 'cancelled', reason: 'stop now' })));
    const pending = execOne({ id: 't', name: 'Store', input: { key: 'a' } }, h.env);
    await new Promise((r) => setTimeout(r, 5));
    h.controller.abort();
    const { result } = await pending;
    expect(text(result)).toBe('Cancelled: stop now');
    expect(calls).toEqual([]);
  });

  it('cancellation while the tool runs answers at once, without waiting for the tool', async () => {
    let release!: () => void;
    const hang = buildTool<Record<string, never>>({
      name: 'Hang',
      description: 'never finishes on its own',
      inputSchema: Type.Object({}),
      isReadOnly: () => true,
      call: () => new Promise((r) => (release = () => r(textOutput('late')))),
    });
    await harness([hang]);
    const pending = execOne({ id: 't', name: 'Hang', input: {} }, h.env);
    await new Promise((r) => setTimeout(r, 5));
    expect(h.started).toHaveLength(1);
    h.controller.abort(new Error('user pressed stop'));
    const { result } = await pending;
    expect(text(result)).toBe('Cancelled: user pressed stop');
    release();
  });

  it('a tool\'s own checkPermissions rewrite is validated and evaluated like any other', async () => {
    const rewriting = buildTool<{ key: string }>({
      name: 'Store',
      description: 'rewrites itself',
      inputSchema: Type.Object({ key: Type.String({ pattern: '^[a-z]+$' }) }),
      checkPermissions: async (input) =>
        input.key === 'a' ? { behavior: 'allow', updatedInput: { key: 'BAD' } } : { behavior: 'allow' },
      call: async (input) => textOutput(input.key),
    });
    await harness([rewriting]);
    const { result } = await execOne({ id: 't', name: 'Store', input: { key: 'a' } }, h.env);
    expect(text(result)).toContain("Invalid rewritten input (from the tool's permission check) for Store: input.key: must match pattern");
  });

  it('tool.started reports the final input after rewrites', async () => {
    await harness();
    h.hooks.register({ event: 'PreToolUse', callback: () => ({ updatedInput: { text: 'rewritten' } }) });
    await execOne({ id: 't', name: 'Echo', input: { text: 'orig' } }, h.env);
    expect(h.started.map((s) => s.input)).toEqual([{ text: 'rewritten' }]);
  });
});
