// An effect never comes before its record: with a store that commits without waiting, a call
// that may change something runs only once the turn's records so far have committed; a record
// that failed leaves a call that did not run; a cancelled turn stops waiting at once; a
// read-only call does not wait.
import { Type } from '@sinclair/typebox';
import { afterEach, describe, expect, it } from 'vitest';
import { execOne } from '../../src/pipeline/exec-one.js';
import { buildTool, textOutput } from '../../src/tools/tool.js';
import { pipelineHarness, type PipelineHarness } from '../helpers/pipeline.js';

let h: PipelineHarness;
afterEach(async () => h?.cleanup());

let runs: string[] = [];
const writes = buildTool<Record<string, never>>({
  name: 'Writes',
  description: 'changes something',
  inputSchema: Type.Object({}),
  requiresApproval: () => false,
  checkPermissions: async () => ({ behavior: 'allow' }),
  call: async () => {
    runs.push('Writes');
    return textOutput('wrote');
  },
});
const reads = buildTool<Record<string, never>>({
  name: 'Reads',
  description: 'changes nothing',
  inputSchema: Type.Object({}),
  isReadOnly: () => true,
  requiresApproval: () => false,
  call: async () => {
    runs.push('Reads');
    return textOutput('read');
  },
});

function deferred(): { promise: Promise<void>; resolve(): void; reject(e: Error): void } {
  let resolve!: () => void;
  let reject!: (e: Error) => void;
  const promise = new Promise<void>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
}

const tick = () => new Promise((r) => setTimeout(r, 20));

describe('a call and its record', () => {
  it('a call that may change something runs once its record committed, not before', async () => {
    runs = [];
    h = await pipelineHarness([writes]);
    const record = deferred();
    h.env.recorded = () => record.promise;
    const done = execOne({ id: 'c1', name: 'Writes', input: {} }, h.env);
    await tick();
    expect(runs).toEqual([]);
    record.resolve();
    expect((await done).result.is_error).toBe(false);
    expect(runs).toEqual(['Writes']);
  });

  it('a record that failed leaves a call that did not run, said in its result', async () => {
    runs = [];
    h = await pipelineHarness([writes]);
    h.env.recorded = () => Promise.reject(new Error('the database refused'));
    const { result } = await execOne({ id: 'c1', name: 'Writes', input: {} }, h.env);
    expect(result.is_error).toBe(true);
    expect(JSON.stringify(result.content)).toContain('Writes was not run: the record of the call could not be stored (the database refused)');
    expect(runs).toEqual([]);
  });

  it('a turn cancelled while the record is on its way stops waiting at once; the call never runs', async () => {
    runs = [];
    h = await pipelineHarness([writes]);
    const record = deferred();
    h.env.recorded = () => record.promise;
    const done = execOne({ id: 'c1', name: 'Writes', input: {} }, h.env);
    await tick();
    h.controller.abort(new Error('cancelled by the client'));
    const { result } = await done;
    expect(result.is_error).toBe(true);
    record.resolve();
    await tick();
    expect(runs).toEqual([]);
  });

  it('a read-only call does not wait', async () => {
    runs = [];
    h = await pipelineHarness([reads]);
    h.env.recorded = () => new Promise<void>(() => undefined);
    const { result } = await execOne({ id: 'c1', name: 'Reads', input: {} }, h.env);
    expect(result.is_error).toBe(false);
    expect(runs).toEqual(['Reads']);
  });
});
