import { describe, it, expect } from 'vitest';
import { Type } from '@sinclair/typebox';
import { ToolRegistry } from '../../src/tools/registry.js';
import { buildTool, textOutput, type CoreTool, type ToolContext, type ToolDefinition } from '../../src/tools/tool.js';

const ctx = {} as ToolContext; // buildTool's defaults never look at the context
const schema = Type.Object({ x: Type.String() });
const INPUTS: unknown[] = [{}, { x: 'a' }, null, 'raw'];

function tool(name: string, extra: Partial<ToolDefinition<unknown>> = {}): CoreTool {
  return buildTool<unknown>({ name, description: `${name} description`, inputSchema: schema, call: async () => textOutput(name), ...extra });
}

describe('buildTool', () => {
  it('fills security metadata fail-closed', async () => {
    const t = tool('Bare');
    for (const input of INPUTS) {
      expect(t.isReadOnly(input)).toBe(false);
      expect(t.isConcurrencySafe(input)).toBe(false);
      expect(t.requiresApproval(input)).toBe(true);
      expect(await t.checkPermissions(input, ctx)).toEqual({ behavior: 'passthrough' });
    }
    expect(t.deferred).toBe(false);
    expect(t.isFileEdit).toBe(false);
    expect('parseRawInput' in t).toBe(false);
  });

  it('fills prompt with the description when left out, and keeps name and schema', () => {
    const t = tool('Bare');
    expect(t.name).toBe('Bare');
    expect(t.description).toBe('Bare description');
    expect(t.prompt).toBe('Bare description');
    expect(t.inputSchema).toBe(schema);
    expect(tool('P', { prompt: 'Use P like this.' }).prompt).toBe('Use P like this.');
  });

  it('uses what a tool declares, passing the input through', async () => {
    const seen: unknown[] = [];
    const t = buildTool<{ x: string }>({
      name: 'Decl',
      description: 'd',
      inputSchema: schema,
      deferred: true,
      isFileEdit: true,
      isReadOnly: (i) => (seen.push(i), i.x === 'ro'),
      isConcurrencySafe: (i) => i.x === 'ro',
      requiresApproval: (i) => i.x !== 'ro',
      checkPermissions: async (i) => ({ behavior: 'allow', reason: `ok ${i.x}` }),
      call: async (i) => textOutput(`called ${i.x}`),
    });
    expect(t.deferred).toBe(true);
    expect(t.isFileEdit).toBe(true);
    expect(t.isReadOnly({ x: 'ro' })).toBe(true);
    expect(t.isReadOnly({ x: 'rw' })).toBe(false);
    expect(seen).toEqual([{ x: 'ro' }, { x: 'rw' }]);
    expect(t.isConcurrencySafe({ x: 'ro' })).toBe(true);
    expect(t.isConcurrencySafe({ x: 'rw' })).toBe(false);
    expect(t.requiresApproval({ x: 'ro' })).toBe(false);
    expect(t.requiresApproval({ x: 'rw' })).toBe(true);
    expect(await t.checkPermissions({ x: 'q' }, ctx)).toEqual({ behavior: 'allow', reason: 'ok q' });
    expect(await t.call({ x: 'q' }, ctx)).toEqual({ content: [{ type: 'text', text: 'called q' }] });
  });

  it('keeps a RawInput parser', () => {
    const parse = (raw: unknown) => ({ ok: true as const, value: raw });
    const t = tool('Raw', { parseRawInput: parse });
    expect(t.parseRawInput).toBe(parse);
  });

  it('textOutput marks errors only when asked', () => {
    expect(textOutput('a')).toEqual({ content: [{ type: 'text', text: 'a' }] });
    expect('isError' in textOutput('a')).toBe(false);
    expect(textOutput('b', true)).toEqual({ content: [{ type: 'text', text: 'b' }], isError: true });
  });
});

describe('ToolRegistry', () => {
  it('looks tools up by exact name', () => {
    const r = new ToolRegistry();
    const a = tool('Read');
    r.register(a);
    expect(r.lookup('Read')).toBe(a);
    expect(r.lookup('read')).toBeUndefined();
    expect(r.lookup('Write')).toBeUndefined();
  });

  it('a duplicate name replaces the earlier tool', () => {
    const r = new ToolRegistry();
    const first = tool('Read', { description: 'first' });
    const second = tool('Read', { description: 'second' });
    r.register(tool('LS'));
    r.register(first);
    r.register(tool('Glob'));
    r.register(second);
    expect(r.lookup('Read')).toBe(second);
    expect(r.names()).toEqual(['LS', 'Glob', 'Read']);
    expect(r.exposed().filter((t) => t.name === 'Read')).toEqual([{ name: 'Read', description: 'second', input_schema: schema }]);
    expect(r.exposed()).toHaveLength(3);
  });

  it('exposed() omits deferred tools while lookup() still finds them', () => {
    const r = new ToolRegistry();
    const hidden = tool('mcp__srv__secret', { deferred: true });
    r.register(tool('Read'));
    r.register(hidden);
    r.register(tool('Write'));
    expect(r.exposed().map((t) => t.name)).toEqual(['Read', 'Write']);
    expect(r.lookup('mcp__srv__secret')).toBe(hidden);
    expect(r.names()).toContain('mcp__srv__secret');
  });

  it('a deferred replacement hides a previously exposed name, and vice versa', () => {
    const r = new ToolRegistry();
    r.register(tool('X'));
    r.register(tool('X', { deferred: true }));
    expect(r.exposed()).toEqual([]);
    expect(r.lookup('X')?.deferred).toBe(true);
    r.register(tool('X'));
    expect(r.exposed().map((t) => t.name)).toEqual(['X']);
  });

  it('exposed() has exactly {name, description, input_schema}, with the model-facing prompt as description', () => {
    const r = new ToolRegistry();
    const s2 = Type.Object({ path: Type.String() }, { additionalProperties: false });
    r.register(tool('A'));
    r.register(buildTool({ name: 'B', description: 'short', prompt: 'Long model-facing usage text.', inputSchema: s2, call: async () => textOutput('') }));
    const exposed = r.exposed();
    expect(exposed).toEqual([
      { name: 'A', description: 'A description', input_schema: schema },
      { name: 'B', description: 'Long model-facing usage text.', input_schema: s2 },
    ]);
    for (const e of exposed) expect(Object.keys(e).sort()).toEqual(['description', 'input_schema', 'name']);
  });

  it('an empty registry exposes nothing', () => {
    const r = new ToolRegistry();
    expect(r.exposed()).toEqual([]);
    expect(r.names()).toEqual([]);
    expect(r.lookup('anything')).toBeUndefined();
  });
});
