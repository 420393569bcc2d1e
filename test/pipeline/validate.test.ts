import { describe, it, expect } from 'vitest';
import { Type, type TSchema } from '@sinclair/typebox';
import { InputValidator } from '../../src/pipeline/validate.js';
import { buildTool, textOutput, type CoreTool, type RawInputParse } from '../../src/tools/tool.js';

const call = async () => textOutput('ok');
const toolWith = (inputSchema: TSchema, extra: { parseRawInput?: (raw: unknown) => RawInputParse } = {}): CoreTool =>
  buildTool({ name: 'T', description: 'test tool', inputSchema, call, ...extra });

const Schema = Type.Object(
  {
    mode: Type.Union([Type.Literal('fast'), Type.Literal('slow')]),
    count: Type.Optional(Type.Integer({ minimum: 1, maximum: 10 })),
    id: Type.Optional(Type.String({ pattern: '^[a-z]+$' })),
    name: Type.Optional(Type.String({ minLength: 3 })),
    url: Type.Optional(Type.String({ format: 'uri' })),
    at: Type.Optional(Type.String({ format: 'date-time' })),
    a: Type.Optional(
      Type.Object(
        { b: Type.Integer(), c: Type.Optional(Type.Object({ d: Type.String() })) },
        { additionalProperties: false },
      ),
    ),
    tags: Type.Optional(Type.Array(Type.String({ minLength: 1 }))),
  },
  { additionalProperties: false },
);
const tool = toolWith(Schema);
// One validator for the tables: also exercises reuse of the compiled schema across calls.
const shared = new InputValidator();

describe('InputValidator: valid input', () => {
  const valid: unknown[] = [
    { mode: 'fast' },
    { mode: 'slow', count: 1 },
    { mode: 'slow', count: 10 },
    { mode: 'fast', id: 'abc', name: 'abc' },
    { mode: 'fast', url: 'https://example.com/a?b=c', at: '2024-01-02T03:04:05Z' },
    { mode: 'fast', at: '2024-01-02T03:04:05.123+02:00' },
    { mode: 'fast', a: { b: 1, c: { d: 'x' } }, tags: ['x', 'y'] },
  ];
  it.each(valid)('accepts %j and returns the input itself', (input) => {
    const r = shared.validate(tool, input);
    expect(r.ok).toBe(true);
    if (r.ok) expect(r.value).toBe(input);
  });
});

describe('InputValidator: invalid input', () => {
  const cases: { name: string; input: unknown; errors: (string | RegExp)[] }[] = [
    { name: 'enum (union of literals)', input: { mode: 'medium' }, errors: [/^input\.mode: .*"fast"/, /^input\.mode: .*"slow"/] },
    { name: 'enum is case-sensitive', input: { mode: 'FAST' }, errors: [/^input\.mode: /] },
    { name: 'integer below minimum', input: { mode: 'fast', count: 0 }, errors: ['input.count: must be >= 1'] },
    { name: 'integer above maximum', input: { mode: 'fast', count: 11 }, errors: ['input.count: must be <= 10'] },
    { name: 'not an integer', input: { mode: 'fast', count: 1.5 }, errors: ['input.count: must be integer'] },
    { name: 'no type coercion of numeric strings', input: { mode: 'fast', count: '5' }, errors: ['input.count: must be integer'] },
    { name: 'string pattern', input: { mode: 'fast', id: 'A1' }, errors: [/^input\.id: must match pattern/] },
    { name: 'minLength', input: { mode: 'fast', name: 'ab' }, errors: [/^input\.name: must NOT have fewer than 3 characters/] },
    { name: 'format uri', input: { mode: 'fast', url: 'not a uri' }, errors: ['input.url: must match format "uri"'] },
    { name: 'format date-time', input: { mode: 'fast', at: 'yesterday' }, errors: ['input.at: must match format "date-time"'] },
    { name: 'format date-time rejects a date only', input: { mode: 'fast', at: '2024-01-02' }, errors: ['input.at: must match format "date-time"'] },
    { name: 'additionalProperties:false names the unknown property', input: { mode: 'fast', zz: 1 }, errors: ['input: unknown property "zz" is not allowed'] },
    { name: 'required names the missing property', input: {}, errors: ['input: missing required property "mode"'] },
    { name: 'nested type error path', input: { mode: 'fast', a: { b: 'x' } }, errors: ['input.a.b: must be integer'] },
    { name: 'nested required path', input: { mode: 'fast', a: {} }, errors: ['input.a: missing required property "b"'] },
    { name: 'deeply nested required path', input: { mode: 'fast', a: { b: 1, c: {} } }, errors: ['input.a.c: missing required property "d"'] },
    { name: 'nested unknown property', input: { mode: 'fast', a: { b: 1, evil: true } }, errors: ['input.a: unknown property "evil" is not allowed'] },
    { name: 'array item path', input: { mode: 'fast', tags: ['ok', ''] }, errors: [/^input\.tags\.1: must NOT have fewer than 1 characters/] },
    { name: 'non-object input', input: 'hello', errors: ['input: must be object'] },
    { name: 'null input', input: null, errors: ['input: must be object'] },
    { name: 'array input', input: [], errors: ['input: must be object'] },
  ];

  it.each(cases)('$name', ({ input, errors }) => {
    const r = shared.validate(tool, input);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    for (const e of errors) {
      if (typeof e === 'string') expect(r.errors).toContain(e);
      else expect(r.errors.some((x) => e.test(x)), `${e} in ${JSON.stringify(r.errors)}`).toBe(true);
    }
  });

  it('reports several errors together', () => {
    const r = shared.validate(tool, { count: 99, id: 'NO', url: 'nope', extra: 1, a: { b: 'x' } });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.errors).toEqual(
      expect.arrayContaining([
        'input: missing required property "mode"',
        'input: unknown property "extra" is not allowed',
        'input.count: must be <= 10',
        'input.url: must match format "uri"',
        'input.a.b: must be integer',
      ]),
    );
    expect(r.errors.some((e) => e.startsWith('input.id: must match pattern'))).toBe(true);
    expect(r.errors.length).toBeGreaterThanOrEqual(6);
  });

  it('does not insert schema defaults into the input', () => {
    const v = new InputValidator();
    const t = toolWith(Type.Object({ n: Type.Optional(Type.Integer({ default: 5 })) }));
    const input = {};
    const r = v.validate(t, input);
    expect(r).toEqual({ ok: true, value: {} });
    expect(input).toEqual({});
  });
});

describe('InputValidator: RawInput tools', () => {
  it('skip schema validation and report their parser errors', () => {
    const seen: unknown[] = [];
    const raw = toolWith(Type.Object({ never: Type.String() }, { additionalProperties: false }), {
      parseRawInput: (r) => {
        seen.push(r);
        return typeof r === 'string' && r.length > 0 ? { ok: true, value: { command: r } } : { ok: false, errors: ['command: must be a non-empty string', 'second problem'] };
      },
    });
    const v = new InputValidator();
    // Would fail the advertised schema, but the parser accepts it and its value is returned.
    expect(v.validate(raw, 'ls -la')).toEqual({ ok: true, value: { command: 'ls -la' } });
    // The parser's errors are reported as they are; no schema errors are added.
    expect(v.validate(raw, { never: 'x' })).toEqual({ ok: false, errors: ['command: must be a non-empty string', 'second problem'] });
    expect(seen).toEqual(['ls -la', { never: 'x' }]);
  });

  it('are not compiled by prepare (their advertised schema is never used centrally)', () => {
    const raw = toolWith(Type.String({ format: 'no-such-format' }), { parseRawInput: (r) => ({ ok: true, value: r }) });
    const v = new InputValidator();
    expect(() => v.prepare(raw)).not.toThrow();
    expect(v.validate(raw, 42)).toEqual({ ok: true, value: 42 });
  });
});

describe('InputValidator: compilation', () => {
  it('compiles each tool schema once, however often it is prepared or used', () => {
    let reads = 0;
    const base = toolWith(Schema);
    const counted: CoreTool = Object.defineProperty({ ...base }, 'inputSchema', {
      get: () => {
        reads++;
        return Schema;
      },
    });
    const v = new InputValidator();
    v.prepare(counted);
    v.prepare(counted);
    expect(reads).toBe(1);
    expect(v.validate(counted, { mode: 'fast' }).ok).toBe(true);
    expect(v.validate(counted, { mode: 'nope' }).ok).toBe(false);
    expect(reads).toBe(1);
  });

  it('prepare twice with a schema that has an $id is harmless', () => {
    const t = toolWith(Type.Object({ x: Type.String() }, { $id: 'PrepareTwice' }));
    const v = new InputValidator();
    v.prepare(t);
    expect(() => v.prepare(t)).not.toThrow();
    expect(v.validate(t, { x: 'y' }).ok).toBe(true);
    expect(v.validate(t, { x: 1 })).toEqual({ ok: false, errors: ['input.x: must be string'] });
  });

  it('a broken schema (unknown format) fails at prepare, not silently', () => {
    const v = new InputValidator();
    expect(() => v.prepare(toolWith(Type.Object({ s: Type.String({ format: 'no-such-format' }) })))).toThrow(/no-such-format/);
  });

  it('keeps validators of different tools apart', () => {
    const v = new InputValidator();
    const a = toolWith(Type.Object({ a: Type.String() }, { additionalProperties: false }));
    const b = toolWith(Type.Object({ b: Type.Integer() }, { additionalProperties: false }));
    expect(v.validate(a, { a: 'x' }).ok).toBe(true);
    expect(v.validate(b, { b: 1 }).ok).toBe(true);
    expect(v.validate(a, { b: 1 })).toEqual({ ok: false, errors: ['input: missing required property "a"', 'input: unknown property "b" is not allowed'] });
    expect(v.validate(b, { a: 'x' })).toEqual({ ok: false, errors: ['input: missing required property "b"', 'input: unknown property "a" is not allowed'] });
  });
});

describe('InputValidator: messages and ids', () => {
  it('reports a union of constants as one "must be one of" message', () => {
    const r = new InputValidator().validate(tool, { mode: 'medium' });
    expect(r).toEqual({ ok: false, errors: ['input.mode: must be one of "fast", "slow"'] });
  });

  it('compiles two tools whose schemas share an $id (no global id clash)', () => {
    const v = new InputValidator();
    const a = toolWith(Type.Object({ x: Type.String() }, { $id: 'Shared' }));
    const b = toolWith(Type.Object({ y: Type.Integer() }, { $id: 'Shared' }));
    v.prepare(a);
    expect(() => v.prepare(b)).not.toThrow();
    expect(v.validate(a, { x: 'ok' }).ok).toBe(true);
    expect(v.validate(b, { y: 1 }).ok).toBe(true);
    expect(v.validate(b, { y: 'no' }).ok).toBe(false);
  });
});
