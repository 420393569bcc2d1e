// What a tool's result may ask of the pipeline: effects (session changes, applied through the
// session's settings before the result is recorded) and a delegate call (run through every stage
// under the inner tool's name, its result the call's result).
import { Type } from '@sinclair/typebox';
import { afterEach, describe, expect, it } from 'vitest';
import { execOne } from '../../src/pipeline/exec-one.js';
import { buildTool, textOutput, type ToolEffect } from '../../src/tools/tool.js';
import { pipelineHarness, type PipelineHarness } from '../helpers/pipeline.js';

let h: PipelineHarness;
afterEach(async () => h?.cleanup());

const setsMode = buildTool<{ mode: 'plan' | 'default' }>({
  name: 'SetsMode',
  description: 'switches mode',
  inputSchema: Type.Object({ mode: Type.Union([Type.Literal('plan'), Type.Literal('default')]) }),
  requiresApproval: () => false,
  checkPermissions: async () => ({ behavior: 'allow' }),
  call: async (input) => ({ ...textOutput(`mode ${input.mode}`), effects: [{ kind: 'set_mode', mode: input.mode }] }),
});

const inner = buildTool<{ n: number }>({
  name: 'Inner',
  description: 'the tool a wrapper hands its call to',
  inputSchema: Type.Object({ n: Type.Integer({ maximum: 5 }) }, { additionalProperties: false }),
  call: async (input) => textOutput(`inner ${input.n}`),
});

const wrapper = buildTool<{ name: string; input: unknown }>({
  name: 'Wrapper',
  description: 'hands its call on',
  inputSchema: Type.Object({ name: Type.String(), input: Type.Unknown() }),
  isReadOnly: () => true,
  requiresApproval: () => false,
  call: async (input) => ({ content: [], delegate: { name: input.name, input: input.input } }),
});

describe('effects', () => {
  it('are applied through the session before the result is recorded', async () => {
    h = await pipelineHarness([setsMode]);
    const applied: ToolEffect[][] = [];
    h.env.applyEffects = (effects) => void applied.push([...effects]);
    const { result } = await execOne({ id: 'c1', name: 'SetsMode', input: { mode: 'plan' } }, h.env);
    expect(result.is_error).toBe(false);
    expect(applied).toEqual([[{ kind: 'set_mode', mode: 'plan' }]]);
  });

  it('of a call that reports an error are not applied', async () => {
    const failing = buildTool<Record<string, never>>({
      name: 'FailsWithEffects',
      description: 'reports an error and asks for a change',
      inputSchema: Type.Object({}),
      requiresApproval: () => false,
      checkPermissions: async () => ({ behavior: 'allow' }),
      call: async () => ({ ...textOutput('could not', true), effects: [{ kind: 'set_mode', mode: 'plan' }] }),
    });
    h = await pipelineHarness([failing]);
    const applied: ToolEffect[][] = [];
    h.env.applyEffects = (effects) => void applied.push([...effects]);
    const { result } = await execOne({ id: 'c1', name: 'FailsWithEffects', input: {} }, h.env);
    expect(result).toMatchObject({ is_error: true, content: [{ text: 'could not' }] });
    expect(applied).toEqual([]);
  });

  it('that cannot be applied fail the call with the reason, and nothing claims success', async () => {
    h = await pipelineHarness([setsMode]);
    h.env.applyEffects = () => {
      throw new Error('rules: "Bash(" is not a rule');
    };
    const { result } = await execOne({ id: 'c1', name: 'SetsMode', input: { mode: 'plan' } }, h.env);
    expect(result).toMatchObject({ is_error: true, content: [{ text: 'SetsMode: the changes the call asked for could not be applied: rules: "Bash(" is not a rule' }] });
  });

  it('in a session that cannot apply them fail the call', async () => {
    h = await pipelineHarness([setsMode]);
    const { result } = await execOne({ id: 'c1', name: 'SetsMode', input: { mode: 'plan' } }, h.env);
    expect(result.is_error).toBe(true);
  });
});

describe('delegate', () => {
  it('runs the inner call through its own validation, rules and ask, under its own name', async () => {
    h = await pipelineHarness([wrapper, inner]);
    h.answers.push({ behavior: 'allow', by: 'client' });
    const { result } = await execOne({ id: 'c1', name: 'Wrapper', input: { name: 'Inner', input: { n: 2 } } }, h.env);
    expect(result).toMatchObject({ tool_use_id: 'c1', is_error: false, content: [{ text: 'inner 2' }] });
    // Inner is not read-only: a person was asked, about Inner and its input.
    expect(h.asked.map((a) => [a.tool, a.input])).toEqual([['Inner', { n: 2 }]]);
    expect(h.decisions.map((d) => d.tool)).toEqual(['Wrapper', 'Inner', 'Inner', 'Inner']);
    // Announced once, as the call the model made.
    expect(h.started.map((s) => s.call.name)).toEqual(['Wrapper']);
  });

  it('an inner input that is not valid, or a denial, is the call\'s error result', async () => {
    h = await pipelineHarness([wrapper, inner]);
    h.setRules({ deny: ['Inner'] });
    const denied = await execOne({ id: 'c1', name: 'Wrapper', input: { name: 'Inner', input: { n: 2 } } }, h.env);
    expect((denied.result.content[0] as { text: string }).text).toBe('Permission denied: denied by rule "Inner".');
    const invalid = await execOne({ id: 'c2', name: 'Wrapper', input: { name: 'Inner', input: { n: 9 } } }, h.env);
    expect((invalid.result.content[0] as { text: string }).text).toMatch(/^Invalid input for Inner: input\.n/);
  });

  it('cannot hand on again: a wrapper wrapping itself is refused', async () => {
    h = await pipelineHarness([wrapper, inner]);
    const { result } = await execOne({ id: 'c1', name: 'Wrapper', input: { name: 'Wrapper', input: { name: 'Inner', input: { n: 1 } } } }, h.env);
    expect(result).toMatchObject({ is_error: true, content: [{ text: 'Wrapper: a delegated call cannot hand its call on again.' }] });
  });
});
