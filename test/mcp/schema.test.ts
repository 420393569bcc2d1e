import { describe, it, expect, vi } from 'vitest';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { McpSchemaCompiler, MAX_SCHEMA_BYTES, type CompiledSchema } from '../../src/mcp/schema.js';

const DRAFT7 = 'http://json-schema.org/draft-07/schema#';
const DRAFT2019 = 'https://json-schema.org/draft/2019-09/schema';
const DRAFT2020 = 'https://json-schema.org/draft/2020-12/schema';

function ok(c: CompiledSchema): (input: unknown) => string[] {
  if (!c.ok) throw new Error(`expected the schema to compile, got: ${c.problem}`);
  return c.validate;
}
function problem(c: CompiledSchema): string {
  if (c.ok) throw new Error('expected the schema to be refused');
  return c.problem;
}

describe('McpSchemaCompiler: dialects', () => {
  it('2020-12 is the default: prefixItems is enforced', () => {
    const validate = ok(
      new McpSchemaCompiler().compile({
        type: 'object',
        properties: { pair: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }], items: false } },
      }),
    );
    expect(validate({ pair: ['a', 1] })).toEqual([]);
    expect(validate({ pair: [1, 'a'] })).toEqual(['input.pair.0: must be string', 'input.pair.1: must be number']);
    expect(validate({ pair: ['a', 1, 'extra'] })).toHaveLength(1);
  });

  it('2020-12 named explicitly behaves as the default', () => {
    const validate = ok(
      new McpSchemaCompiler().compile({
        $schema: DRAFT2020,
        type: 'object',
        properties: { pair: { type: 'array', prefixItems: [{ type: 'string' }] } },
      }),
    );
    expect(validate({ pair: ['a'] })).toEqual([]);
    expect(validate({ pair: [3] })).toEqual(['input.pair.0: must be string']);
  });

  it('2020-12 refuses the draft-07 array form of `items` (it breaks the meta-schema)', () => {
    const p = problem(
      new McpSchemaCompiler().compile({
        type: 'object',
        properties: { pair: { type: 'array', items: [{ type: 'string' }, { type: 'number' }] } },
      }),
    );
    expect(p).toMatch(/^the input schema does not compile: schema is invalid: data\/properties\/pair\/items must be object,boolean/);
  });

  it('draft-07: the array form of `items` with additionalItems is enforced', () => {
    const validate = ok(
      new McpSchemaCompiler().compile({
        $schema: DRAFT7,
        type: 'object',
        properties: { pair: { type: 'array', items: [{ type: 'string' }, { type: 'number' }], additionalItems: false } },
      }),
    );
    expect(validate({ pair: ['a', 1] })).toEqual([]);
    expect(validate({ pair: [1, 1] })).toEqual(['input.pair.0: must be string']);
    expect(validate({ pair: ['a', 1, 2] })).toEqual(['input.pair: must NOT have more than 2 items']);
  });

  it('draft-06 is validated as draft-07', () => {
    const validate = ok(
      new McpSchemaCompiler().compile({
        $schema: 'http://json-schema.org/draft-06/schema#',
        type: 'object',
        properties: { pair: { type: 'array', items: [{ type: 'string' }] } },
      }),
    );
    expect(validate({ pair: [1] })).toEqual(['input.pair.0: must be string']);
  });

  it('draft-07 does not know 2019-09 keywords (unevaluatedProperties is an ignored annotation there)', () => {
    const schema = {
      type: 'object',
      allOf: [{ properties: { a: { type: 'string' } } }],
      unevaluatedProperties: false,
    };
    const v7 = ok(new McpSchemaCompiler().compile({ $schema: DRAFT7, ...schema }));
    expect(v7({ a: 'x', b: 1 })).toEqual([]);
    const v2019 = ok(new McpSchemaCompiler().compile({ $schema: DRAFT2019, ...schema }));
    expect(v2019({ a: 'x' })).toEqual([]);
    expect(v2019({ a: 'x', b: 1 })).toEqual(['input: must NOT have unevaluated properties']);
  });

  it('2019-09: dependentRequired and the array form of items are enforced', () => {
    const validate = ok(
      new McpSchemaCompiler().compile({
        $schema: DRAFT2019,
        type: 'object',
        properties: { card: { type: 'string' }, cvv: { type: 'string' }, pair: { type: 'array', items: [{ type: 'integer' }] } },
        dependentRequired: { card: ['cvv'] },
      }),
    );
    expect(validate({ card: '4111', cvv: '123' })).toEqual([]);
    expect(validate({ card: '4111' })).toEqual(['input: must have property cvv when property card is present']);
    expect(validate({ pair: ['x'] })).toEqual(['input.pair.0: must be integer']);
  });
});

describe('McpSchemaCompiler: validation messages', () => {
  const compiler = new McpSchemaCompiler();
  const validate = ok(
    compiler.compile({
      type: 'object',
      properties: {
        path: { type: 'string' },
        mode: { enum: ['read', 'write', 1] },
        when: { type: 'string', format: 'date-time' },
        email: { type: 'string', format: 'email' },
        site: { type: 'string', format: 'uri' },
        nested: { type: 'object', properties: { depth: { type: 'integer', minimum: 0 } } },
      },
      required: ['path'],
      additionalProperties: false,
    }),
  );

  it('accepts a valid input', () => {
    expect(validate({ path: 'a', mode: 'read', when: '2024-05-01T10:00:00Z', email: 'a@b.example', site: 'https://example.com/x', nested: { depth: 2 } })).toEqual([]);
  });

  it('missing required property', () => {
    expect(validate({})).toEqual(['input: missing required property "path"']);
  });

  it('additionalProperties: false names the unknown property', () => {
    expect(validate({ path: 'a', extra: true })).toEqual(['input: unknown property "extra" is not allowed']);
  });

  it('enum lists the allowed values as JSON', () => {
    expect(validate({ path: 'a', mode: 'delete' })).toEqual(['input.mode: must be one of "read", "write", 1']);
  });

  it('formats are checked (ajv-formats is installed)', () => {
    expect(validate({ path: 'a', when: 'yesterday', email: 'nope', site: 'not a uri' })).toEqual([
      'input.when: must match format "date-time"',
      'input.email: must match format "email"',
      'input.site: must match format "uri"',
    ]);
  });

  it('reports all errors, nested paths with dots, and does not coerce types', () => {
    expect(validate({ path: 5, nested: { depth: -1 } })).toEqual(['input.path: must be string', 'input.nested.depth: must be >= 0']);
    expect(validate({ path: 'a', nested: { depth: '3' } })).toEqual(['input.nested.depth: must be integer']);
  });

  it('does not fill defaults into the input', () => {
    const v = ok(compiler.compile({ type: 'object', properties: { n: { type: 'number', default: 3 } } }));
    const input: Record<string, unknown> = {};
    expect(v(input)).toEqual([]);
    expect(input).toEqual({});
  });
});

describe('McpSchemaCompiler: refusals', () => {
  const compiler = new McpSchemaCompiler();

  it.each([
    ['an array', []],
    ['a string', 'object'],
    ['null', null],
    ['a number', 42],
    ['undefined', undefined],
  ])('refuses %s as not a JSON Schema object', (_name, schema) => {
    expect(problem(compiler.compile(schema))).toBe('the input schema is not a JSON Schema object');
  });

  it.each([
    ['type: banana', { type: 'banana' }],
    ['type: string', { type: 'string' }],
    ['no type', { properties: { a: { type: 'string' } } }],
    ['type as an array', { type: ['object', 'null'] }],
  ])('refuses a schema that does not describe an object (%s)', (_name, schema) => {
    expect(problem(compiler.compile(schema))).toBe('the input schema must describe an object (`"type": "object"`)');
  });

  it("refuses a nested `type: 'banana'` as not compiling", () => {
    const p = problem(compiler.compile({ type: 'object', properties: { a: { type: 'banana' } } }));
    expect(p).toMatch(/^the input schema does not compile: schema is invalid: data\/properties\/a\/type must be equal to one of the allowed values/);
  });

  it.each(['http://json-schema.org/draft-04/schema#', 'https://example.com/my-dialect', ''])('refuses an unknown $schema %j', (dialect) => {
    expect(problem(compiler.compile({ $schema: dialect, type: 'object' }))).toBe(
      `the input schema's dialect ${JSON.stringify(dialect)} is not one this server validates (2020-12, 2019-09, draft-07)`,
    );
  });

  it('refuses a schema whose JSON text is over MAX_SCHEMA_BYTES, and takes one at the limit', () => {
    expect(MAX_SCHEMA_BYTES).toBe(256 * 1024);
    const base = JSON.stringify({ type: 'object', description: '' }).length;
    const atLimit = { type: 'object', description: 'x'.repeat(MAX_SCHEMA_BYTES - base) };
    expect(JSON.stringify(atLimit).length).toBe(MAX_SCHEMA_BYTES);
    expect(compiler.compile(atLimit).ok).toBe(true);
    const over = { type: 'object', description: 'x'.repeat(MAX_SCHEMA_BYTES - base + 1) };
    expect(problem(compiler.compile(over))).toBe(`the input schema is ${MAX_SCHEMA_BYTES + 1} bytes; at most ${MAX_SCHEMA_BYTES} are taken`);
  });

  it('refuses a value that is not JSON (circular, BigInt)', () => {
    const cyclic: Record<string, unknown> = { type: 'object' };
    cyclic.self = cyclic;
    expect(problem(compiler.compile(cyclic))).toBe('the input schema is not JSON');
    expect(problem(compiler.compile({ type: 'object', n: 10n }))).toBe('the input schema is not JSON');
  });

  it('a refusal is a result, never a throw, and other schemas still compile afterwards', () => {
    expect(() => compiler.compile({ type: 'object', properties: { a: { $ref: '#/nowhere' } } })).not.toThrow();
    expect(compiler.compile({ type: 'object', properties: { a: { $ref: '#/nowhere' } } }).ok).toBe(false);
    expect(compiler.compile({ type: 'object', properties: { a: { type: 'string' } } }).ok).toBe(true);
  });
});

/** The prototype every ajv dialect class inherits `compile` from. */
const ajvCore = Object.getPrototypeOf(Ajv2020.prototype) as { compile: (schema: unknown) => unknown };

describe('McpSchemaCompiler: $id and caching', () => {
  it('the same root $id in two different schemas does not clash; each enforces its own rules', () => {
    const compiler = new McpSchemaCompiler();
    const a = ok(compiler.compile({ $id: 'https://tools.example/input', type: 'object', properties: { v: { type: 'string' } }, required: ['v'] }));
    const b = ok(compiler.compile({ $id: 'https://tools.example/input', type: 'object', properties: { v: { type: 'number' } }, required: ['v'] }));
    expect(a({ v: 'x' })).toEqual([]);
    expect(a({ v: 1 })).toEqual(['input.v: must be string']);
    expect(b({ v: 1 })).toEqual([]);
    expect(b({ v: 'x' })).toEqual(['input.v: must be number']);
  });

  it('the same nested $id in two different schemas does not clash either', () => {
    const compiler = new McpSchemaCompiler();
    const a = ok(compiler.compile({ type: 'object', properties: { v: { $id: 'https://tools.example/v', type: 'string' } } }));
    const b = ok(compiler.compile({ type: 'object', properties: { v: { $id: 'https://tools.example/v', type: 'number' } } }));
    expect(a({ v: 1 })).toEqual(['input.v: must be string']);
    expect(b({ v: 'x' })).toEqual(['input.v: must be number']);
  });

  it('a $ref to a nested $id resolves within its own schema, not to another schema with the same $id', () => {
    const compiler = new McpSchemaCompiler();
    const a = ok(compiler.compile({ type: 'object', properties: { v: { $id: 'https://tools.example/v', type: 'string' }, w: { $ref: 'https://tools.example/v' } } }));
    const b = ok(compiler.compile({ type: 'object', $defs: { n: { $id: 'https://tools.example/v', type: 'number' } }, properties: { w: { $ref: 'https://tools.example/v' } } }));
    expect(a({ w: 1 })).toEqual(['input.w: must be string']);
    expect(b({ w: 'x' })).toEqual(['input.w: must be number']);
    // A schema that refers to that $id without defining it does not borrow it from the others.
    expect(problem(compiler.compile({ type: 'object', properties: { w: { $ref: 'https://tools.example/v' } } }))).toBe(
      "the input schema does not compile: can't resolve reference https://tools.example/v from id #",
    );
  });

  it('$id across two compiler instances does not clash', () => {
    const schema = { $id: 'https://tools.example/shared', type: 'object', properties: { v: { type: 'string' } } };
    expect(new McpSchemaCompiler().compile(schema).ok).toBe(true);
    expect(new McpSchemaCompiler().compile(schema).ok).toBe(true);
  });

  it('a local $ref into $defs still resolves with the root $id removed', () => {
    const v = ok(
      new McpSchemaCompiler().compile({
        $id: 'https://tools.example/refs',
        type: 'object',
        properties: { q: { $ref: '#/$defs/s' } },
        $defs: { s: { type: 'string' } },
      }),
    );
    expect(v({ q: 'x' })).toEqual([]);
    expect(v({ q: 1 })).toEqual(['input.q: must be string']);
  });

  it('the same schema text compiles once: the same result object, one ajv compile', () => {
    const compile = vi.spyOn(ajvCore, 'compile');
    const compiler = new McpSchemaCompiler();
    const schema = { type: 'object', properties: { a: { type: 'string' } } };
    const first = compiler.compile(schema);
    const second = compiler.compile(JSON.parse(JSON.stringify(schema)));
    expect(second).toBe(first);
    expect(compile).toHaveBeenCalledTimes(1);
    // A different text (even the same schema with keys in another order) is compiled anew.
    const third = compiler.compile({ properties: { a: { type: 'string' } }, type: 'object' });
    expect(third).not.toBe(first);
    expect(compile).toHaveBeenCalledTimes(2);
  });

  it('a refusal is cached too (the broken schema is not recompiled)', () => {
    const compile = vi.spyOn(ajvCore, 'compile');
    const compiler = new McpSchemaCompiler();
    const broken = { type: 'object', properties: { a: { type: 'banana' } } };
    const first = compiler.compile(broken);
    expect(first.ok).toBe(false);
    expect(compiler.compile(broken)).toBe(first);
    expect(compile).toHaveBeenCalledTimes(1);
  });

  it('the cache is per compiler instance', () => {
    const schema = { type: 'object', properties: { a: { type: 'string' } } };
    expect(new McpSchemaCompiler().compile(schema)).not.toBe(new McpSchemaCompiler().compile(schema));
  });
});

describe('McpSchemaCompiler: ids, sizes and memory', () => {
  it('a schema may refer to itself by its own $id', () => {
    const validate = ok(
      new McpSchemaCompiler().compile({
        $id: 'https://example.com/tool',
        type: 'object',
        properties: { q: { $ref: 'https://example.com/tool#/$defs/s' } },
        $defs: { s: { type: 'string' } },
      }),
    );
    expect(validate({ q: 'x' })).toEqual([]);
    expect(validate({ q: 1 })).toEqual(['input.q: must be string']);
  });

  it('the size limit counts UTF-8 bytes, not characters', () => {
    const chars = Math.floor(MAX_SCHEMA_BYTES / 3) + 10; // three bytes each: over the limit in bytes only
    expect(problem(new McpSchemaCompiler().compile({ type: 'object', description: '日'.repeat(chars) }))).toMatch(/^the input schema is \d+ bytes; at most/);
  });

  it('a schema that leaves the cache is released by ajv too: memory stays bounded', () => {
    const c = new McpSchemaCompiler();
    for (let i = 0; i < 5000; i++) ok(c.compile({ type: 'object', properties: { [`p${i}`]: { type: 'string' } } }));
    const ajvCache = (c as unknown as { dialects: { draft2020: { _cache: Map<unknown, unknown> } } }).dialects.draft2020._cache;
    expect(ajvCache.size).toBeLessThanOrEqual(4096 + 16);
  });

  it('a schema that does not compile names each problem once', () => {
    const p = problem(new McpSchemaCompiler().compile({ type: 'object', properties: { p: { type: 'array', items: [{ type: 'string' }, { type: 'number' }] } } }));
    const parts = p.replace(/^the input schema does not compile: /, '').split(', ');
    expect(new Set(parts).size).toBe(parts.length);
  });
});
