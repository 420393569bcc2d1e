// A tool whose input is judged off the event loop (an MCP tool: its server's schema decides how
// much work a check is) is awaited by the pipeline, for the call's input and for every rewrite. An
// input that could not be judged in time ends the call with the tool's own refusal text: nothing
// runs and nobody is asked.
import { Type } from '@sinclair/typebox';
import { afterEach, describe, expect, it } from 'vitest';
import { execOne } from '../../src/pipeline/exec-one.js';
import { InputValidator } from '../../src/pipeline/validate.js';
import { buildTool, textOutput, type RawInputParse } from '../../src/tools/tool.js';
import { pipelineHarness, type PipelineHarness } from '../helpers/pipeline.js';

let calls: unknown[] = [];
/** Valid: `{ s }` of lowercase letters; `slow` stands for an input whose check ran out of time. */
const judge = async (raw: unknown): Promise<RawInputParse> => {
  await new Promise((done) => setTimeout(done, 5));
  const s = (raw as { s?: unknown }).s;
  if (s === 'slow') return { ok: false, errors: ['took too long'], refusal: 'Checked: the input could not be checked in time; the call is refused.' };
  return typeof s === 'string' && /^[a-z]+$/.test(s) ? { ok: true, value: raw } : { ok: false, errors: ['input.s: must match pattern "^[a-z]+$"'] };
};
const remote = buildTool<{ s: string }>({
  name: 'Checked',
  description: 'a tool whose input is checked off the event loop',
  inputSchema: Type.Object({ s: Type.String() }),
  parseRawInputAsync: judge,
  call: async (input) => {
    calls.push(input);
    return textOutput(`ran ${input.s}`);
  },
});

let h: PipelineHarness;
afterEach(async () => {
  await h?.cleanup();
  calls = [];
});

describe('inputs judged off the event loop', () => {
  it('InputValidator.check awaits the tool\'s parser; validate refuses to judge it on the event loop', async () => {
    const v = new InputValidator();
    expect(await v.check(remote, { s: 'abc' })).toEqual({ ok: true, value: { s: 'abc' } });
    expect(await v.check(remote, { s: 'A' })).toEqual({ ok: false, errors: ['input.s: must match pattern "^[a-z]+$"'] });
    expect(await v.check(remote, { s: 'slow' })).toEqual({ ok: false, errors: ['took too long'], refusal: 'Checked: the input could not be checked in time; the call is refused.' });
    expect(() => v.validate(remote, { s: 'abc' })).toThrow(/checked off the event loop/);
    expect(() => v.prepare(remote)).not.toThrow();
  });

  it('a valid input runs; an invalid one gets the problems; one not judged in time gets the refusal, and nobody is asked', async () => {
    h = await pipelineHarness([remote]);
    h.setRules({ allow: ['Checked'] });
    const ok = await execOne({ id: 'c1', name: 'Checked', input: { s: 'abc' } }, h.env);
    expect(ok.result.is_error).toBe(false);
    const bad = await execOne({ id: 'c2', name: 'Checked', input: { s: 'A' } }, h.env);
    expect((bad.result.content[0] as { text: string }).text).toBe('Invalid input for Checked: input.s: must match pattern "^[a-z]+$". Fix the input and call again.');
    h.setRules({});
    const slow = await execOne({ id: 'c3', name: 'Checked', input: { s: 'slow' } }, h.env);
    expect(slow.result.is_error).toBe(true);
    expect((slow.result.content[0] as { text: string }).text).toBe('Checked: the input could not be checked in time; the call is refused.');
    expect(h.asked).toHaveLength(0);
    expect(calls).toEqual([{ s: 'abc' }]);
  });

  it('a rewrite from an approval is judged the same way', async () => {
    h = await pipelineHarness([remote]);
    h.answers.push({ behavior: 'allow', by: 'client', updatedInput: { s: 'slow' } });
    const { result } = await execOne({ id: 'c1', name: 'Checked', input: { s: 'abc' } }, h.env);
    expect((result.content[0] as { text: string }).text).toBe('Checked: the input could not be checked in time; the call is refused.');
    expect(calls).toEqual([]);
  });
});
