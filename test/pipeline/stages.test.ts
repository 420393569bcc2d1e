// What each stage learns about a call it learns once: a distinct input is validated once and its
// rule subject computed once per evaluation round — again only after a pause for a person, when
// the files behind a subject may have changed.
import { Type } from '@sinclair/typebox';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { parseRule, type ParsedRule } from '../../src/permission/rules.js';
import { execOne } from '../../src/pipeline/exec-one.js';
import { buildTool, textOutput } from '../../src/tools/tool.js';
import { pipelineHarness, type PipelineHarness } from '../helpers/pipeline.js';

let subjects: string[] = [];
let checks = 0;

/** A mutating tool whose subject is the file named by `path` (realpath'd in a real tool). */
const put = buildTool<{ path: string }>({
  name: 'Put',
  description: 'writes',
  inputSchema: Type.Object({ path: Type.String({ pattern: '^[a-z./]+$' }) }, { additionalProperties: false }),
  checkPermissions: async () => {
    checks++;
    return { behavior: 'passthrough' };
  },
  permissionSubject: (input) => {
    subjects.push(input.path);
    return { kind: 'none' };
  },
  call: async (input) => textOutput(`put ${input.path}`),
});

let h: PipelineHarness;
afterEach(async () => {
  await h?.cleanup();
  subjects = [];
  checks = 0;
});

describe('one call, each thing learnt once', () => {
  it('an allowed call computes its subject and check once, for the rules and both hooks', async () => {
    h = await pipelineHarness([put]);
    h.setRules({ allow: ['Put'] });
    h.hooks.register({ name: 'pre', event: 'PreToolUse', callback: async () => ({}) });
    h.hooks.register({ name: 'post', event: 'PostToolUse', callback: async () => ({}) });
    const validate = vi.spyOn(h.env.validator, 'validate');
    const { result } = await execOne({ id: 'c1', name: 'Put', input: { path: 'a.txt' } }, h.env);
    expect(result.is_error).toBe(false);
    expect(subjects).toEqual(['a.txt']);
    expect(checks).toBe(1);
    expect(validate).toHaveBeenCalledTimes(1);
  });

  it('a validation the turn already made is not made again', async () => {
    h = await pipelineHarness([put]);
    h.setRules({ allow: ['Put'] });
    const validate = vi.spyOn(h.env.validator, 'validate');
    const input = { path: 'a.txt' };
    const { result } = await execOne({ id: 'c1', name: 'Put', input, validation: { ok: true, value: input } }, h.env);
    expect(result.is_error).toBe(false);
    expect(validate).not.toHaveBeenCalled();
  });

  it('after a person approves, the subject is computed once more (the files may have changed meanwhile), not per hook', async () => {
    h = await pipelineHarness([put]);
    h.hooks.register({ name: 'pre', event: 'PreToolUse', callback: async () => ({}) });
    h.hooks.register({ name: 'post', event: 'PostToolUse', callback: async () => ({}) });
    h.answers.push({ behavior: 'allow', by: 'client' });
    const { result } = await execOne({ id: 'c1', name: 'Put', input: { path: 'a.txt' } }, h.env);
    expect(result.is_error).toBe(false);
    expect(h.asked).toHaveLength(1);
    expect(subjects).toEqual(['a.txt', 'a.txt']);
  });

  it('an approval that rewrites the input validates and judges the new input once', async () => {
    h = await pipelineHarness([put]);
    h.answers.push({ behavior: 'allow', by: 'client', updatedInput: { path: 'b.txt' } });
    const validate = vi.spyOn(h.env.validator, 'validate');
    const { result } = await execOne({ id: 'c1', name: 'Put', input: { path: 'a.txt' } }, h.env);
    // b.txt was approved, so the evaluation after the approval allows it without a second ask.
    expect((result.content[0] as { text: string }).text).toBe('put b.txt');
    expect(validate.mock.calls.map((c) => c[1])).toEqual([{ path: 'a.txt' }, { path: 'b.txt' }]);
    expect(subjects).toEqual(['a.txt', 'b.txt']);
  });

  it('an invalid rewrite is refused with the validation problem, and nothing runs', async () => {
    h = await pipelineHarness([put]);
    h.answers.push({ behavior: 'allow', by: 'client', updatedInput: { path: 'NOT VALID' } });
    const { result } = await execOne({ id: 'c1', name: 'Put', input: { path: 'a.txt' } }, h.env);
    expect(result.is_error).toBe(true);
    expect((result.content[0] as { text: string }).text).toMatch(/^Invalid updated_input \(from the approval\) for Put: input\.path/);
    expect(h.started).toHaveLength(0);
  });
});

/** A read-only tool named Read (so path rules apply to it) whose subject is the path it names. */
const peek = buildTool<{ path: string }>({
  name: 'Read',
  description: 'reads',
  inputSchema: Type.Object({ path: Type.String({ pattern: '^[a-z./]+$' }) }, { additionalProperties: false }),
  isReadOnly: () => true,
  isConcurrencySafe: () => true,
  permissionSubject: (input) => {
    subjects.push(input.path);
    return { kind: 'paths', access: 'read', paths: [{ lexical: `/ws/${input.path}`, real: `/ws/${input.path}` }] } as never;
  },
  call: async (input) => textOutput(`read ${input.path}`),
});

function rule(text: string): ParsedRule {
  const r = parseRule(text);
  if (!r.ok) throw new Error(r.error);
  return r.rule;
}

describe('a read-only call\'s rule subject', () => {
  it('is not computed when no rule or hook condition has a specifier to match it against (it could not change the decision)', async () => {
    h = await pipelineHarness([peek]);
    h.setRules({ allow: ['Read'], deny: ['Write'] });
    h.hooks.register({ name: 'pre', event: 'PreToolUse', callback: async () => ({}) });
    const { result } = await execOne({ id: 'c1', name: 'Read', input: { path: 'a.txt' } }, h.env);
    expect(result.is_error).toBe(false);
    expect(subjects).toEqual([]);
  });

  it('is computed, and decides, as soon as a rule has one', async () => {
    h = await pipelineHarness([peek]);
    h.setRules({ deny: ['Read(/ws/secret.txt)'] });
    const denied = await execOne({ id: 'c1', name: 'Read', input: { path: 'secret.txt' } }, h.env);
    expect(denied.result.is_error).toBe(true);
    expect(JSON.stringify(denied.result.content)).toMatch(/denied by rule/);
    const allowed = await execOne({ id: 'c2', name: 'Read', input: { path: 'other.txt' } }, h.env);
    expect(allowed.result.is_error).toBe(false);
    expect(subjects).toEqual(['secret.txt', 'other.txt']);
  });

  it('is computed for a hook with an `if` condition, which it decides', async () => {
    h = await pipelineHarness([peek]);
    const seen: string[] = [];
    h.hooks.register({
      name: 'pre',
      event: 'PreToolUse',
      if: rule('Read(/ws/a.txt)'),
      callback: async (input) => {
        seen.push(String((input.tool_input as { path: string }).path));
        return {};
      },
    });
    await execOne({ id: 'c1', name: 'Read', input: { path: 'a.txt' } }, h.env);
    await execOne({ id: 'c2', name: 'Read', input: { path: 'b.txt' } }, h.env);
    expect(seen).toEqual(['a.txt']);
    expect(subjects).toEqual(['a.txt', 'b.txt']);
  });
});
