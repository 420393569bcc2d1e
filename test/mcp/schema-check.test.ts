// MCP input schemas are compiled and enforced in a worker thread with a deadline: hostile
// schemas (catastrophic patterns, patternProperties keys, unions that double at every level, a
// definition inlined at a thousand references) cost at most the deadline and never hold this
// process's event loop, and every schema is still enforced as written afterwards.
import { afterEach, describe, expect, it } from 'vitest';
import { McpSchemas, SCHEMA_CHECK_DEADLINE_MS, type CheckedSchema, type SchemaVerdict } from '../../src/mcp/schema-check.js';
import { watchLoop } from '../helpers/loop-stall.js';

/** This process's longest stall while a hostile check runs in the thread (start-up of the thread included). */
const STALL_BOUND_MS = 400;
/** What a check past its deadline may take beyond it on a busy two-core machine. */
const SLACK_MS = 3000;
/** Starting the replacement thread after an overrun (from source, under tsx, on a busy machine). */
const RESTART_MS = 1500;

const obj = (props: Record<string, unknown>, required: string[] = []) => ({ type: 'object', properties: props, required });
const HOSTILE = 'a'.repeat(40) + 'b';
const nested = (depth: number, leaf: unknown): unknown => {
  let v = leaf;
  for (let i = 0; i < depth; i++) v = [v];
  return v;
};
const UNION = {
  type: 'object',
  properties: { v: { $ref: '#/$defs/node' } },
  $defs: { node: { anyOf: [{ type: 'array', items: { $ref: '#/$defs/node' } }, { type: 'array', items: { $ref: '#/$defs/node' } }, { type: 'integer' }] } },
};
/** ajv inlines a definition without references at each reference: 40 s and gigabytes on the event loop. */
const INLINED = {
  type: 'object',
  properties: Object.fromEntries(Array.from({ length: 1000 }, (_, i) => [`p${i}`, { $ref: '#/$defs/a' }])),
  $defs: { a: obj(Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`k${i}`, { type: 'string', minLength: 1, maxLength: 9, pattern: '^x' }]))) },
};

let open: McpSchemas[] = [];
afterEach(async () => {
  await Promise.all(open.map((s) => s.close()));
  open = [];
});
function schemas(opts?: ConstructorParameters<typeof McpSchemas>[0]): McpSchemas {
  const s = new McpSchemas(opts);
  open.push(s);
  return s;
}

async function compiled(s: McpSchemas, schema: unknown): Promise<Extract<CheckedSchema, { ok: true }>> {
  const c = await s.compile(schema);
  if (!c.ok) throw new Error(`expected the schema to compile, got: ${c.problem}`);
  return c;
}

async function timed<T>(fn: () => Promise<T>): Promise<{ value: T; ms: number; stallMs: number }> {
  const watch = watchLoop();
  const t0 = performance.now();
  const value = await fn();
  const ms = performance.now() - t0;
  return { value, ms, stallMs: watch.stop() };
}

const unchecked = (v: SchemaVerdict) => (!v.ok && 'unchecked' in v ? v.unchecked : null);

describe('hostile input schemas are checked off the event loop, within a deadline', () => {
  it.each([
    ['a backtracking pattern', obj({ s: { type: 'string', pattern: '^(a|a)*$' } }, ['s']), { s: HOSTILE }, { s: 'aaaa' }, { s: 'ab' }, 'input.s: must match pattern "^(a|a)*$"'],
    ['a nested quantifier', obj({ s: { type: 'string', pattern: '^(a+)+$' } }, ['s']), { s: HOSTILE }, { s: 'aaa' }, { s: 'aab' }, 'input.s: must match pattern "^(a+)+$"'],
    ['a patternProperties key', { type: 'object', patternProperties: { '^(a|a)*$': { type: 'string' } } }, { [HOSTILE]: 'x' }, { aaa: 'x' }, { aaa: 1 }, 'input.aaa: must be string'],
    ['a union that doubles at every level', UNION, { v: nested(40, 'x') }, { v: [[1], [[2]]] }, { v: [['x']] }, 'input.v.0.0: must be integer'],
  ])('%s: the check ends unchecked within the deadline; the next check, on a fresh thread, still enforces the schema', async (what, schema, hostile, valid, invalid, message) => {
    const s = schemas();
    const c = await compiled(s, schema);
    const { value, ms, stallMs } = await timed(() => c.validate(hostile));
    console.info(`${what}: checked for ${Math.round(ms)} ms, longest event-loop stall ${Math.round(stallMs)} ms`);
    expect(unchecked(value)).toBe(`checking the input against the server's input schema took longer than ${SCHEMA_CHECK_DEADLINE_MS / 1000} s (a pattern or union in that schema backtracks on this input)`);
    expect(ms).toBeGreaterThanOrEqual(SCHEMA_CHECK_DEADLINE_MS - 50);
    expect(ms).toBeLessThan(SCHEMA_CHECK_DEADLINE_MS + SLACK_MS);
    expect(stallMs).toBeLessThan(STALL_BOUND_MS);
    // Enforcement goes on as written: a valid input passes, an invalid one gets ajv's message.
    expect(await c.validate(valid)).toEqual({ ok: true });
    const refused = await c.validate(invalid);
    expect(refused.ok).toBe(false);
    expect((refused as { errors: string[] }).errors).toContain(message);
  });

  it('a schema whose compilation takes too long is refused within the deadline, once: the next session gets the refusal at once', async () => {
    const s = schemas();
    // The thread is started first: its start-up is not the schema's time.
    await compiled(s, obj({ warm: { type: 'string' } }));
    const { value, ms, stallMs } = await timed(() => s.compile(INLINED));
    console.info(`compiling a definition inlined at 1,000 references: ${Math.round(ms)} ms, longest event-loop stall ${Math.round(stallMs)} ms`);
    expect(value).toEqual({ ok: false, problem: `the input schema took longer than ${SCHEMA_CHECK_DEADLINE_MS / 1000} s to compile` });
    expect(ms).toBeLessThan(SCHEMA_CHECK_DEADLINE_MS + SLACK_MS);
    expect(stallMs).toBeLessThan(STALL_BOUND_MS);
    const again = await timed(() => s.compile(JSON.parse(JSON.stringify(INLINED))));
    expect(again.value.ok).toBe(false);
    expect(again.ms).toBeLessThan(100);
    // Other schemas compile and validate on the fresh thread.
    const c = await compiled(s, obj({ n: { type: 'integer' } }, ['n']));
    expect(await c.validate({ n: 1 })).toEqual({ ok: true });
    expect(await c.validate({})).toEqual({ ok: false, errors: ['input: missing required property "n"'] });
  });

  it('many hostile checks at once: each costs one deadline, those past the queue are refused at once, and checks afterwards work', async () => {
    const deadlineMs = 500;
    const s = schemas({ deadlineMs, maxQueued: 4 });
    const c = await compiled(s, obj({ s: { type: 'string', pattern: '^(a|a)*$' } }, ['s']));
    const { value, ms, stallMs } = await timed(() => Promise.all(Array.from({ length: 10 }, () => c.validate({ s: HOSTILE }))));
    console.info(`10 hostile checks at once: ${Math.round(ms)} ms in all, longest event-loop stall ${Math.round(stallMs)} ms`);
    const reasons = value.map(unchecked);
    // One running and four queued pass their deadlines one after the other (each on a fresh thread); the other five are refused at once.
    expect(reasons.filter((r) => r?.includes('took longer than 500 ms'))).toHaveLength(5);
    expect(reasons.filter((r) => r?.startsWith('the server is busy checking other inputs against MCP schemas'))).toHaveLength(5);
    expect(ms).toBeLessThan(5 * (deadlineMs + RESTART_MS) + SLACK_MS);
    expect(stallMs).toBeLessThan(STALL_BOUND_MS);
    expect(await c.validate({ s: 'aaaa' })).toEqual({ ok: true });
    expect(await c.validate({ s: 'b' })).toEqual({ ok: false, errors: ['input.s: must match pattern "^(a|a)*$"'] });
  });

  it('a pattern that is fine runs to the end on a long input, within the deadline', async () => {
    const s = schemas();
    const c = await compiled(s, obj({ s: { type: 'string', pattern: '^[a-z]+$', maxLength: 2_000_000 } }, ['s']));
    const { value, ms } = await timed(() => c.validate({ s: 'a'.repeat(1_000_000) }));
    expect(value).toEqual({ ok: true });
    expect(ms).toBeLessThan(SCHEMA_CHECK_DEADLINE_MS);
    expect(await c.validate({ s: `${'a'.repeat(1_000_000)}B` })).toEqual({ ok: false, errors: ['input.s: must match pattern "^[a-z]+$"'] });
  });
});

describe('McpSchemas: what the thread compiles is what ajv enforces', () => {
  it('uniqueItems stays linear and exact in the thread', async () => {
    const s = schemas();
    const c = await compiled(s, obj({ list: { type: 'array', uniqueItems: true, items: { type: 'object' } } }, ['list']));
    const list = Array.from({ length: 16_000 }, (_, i) => ({ i, same: { a: [1, 2] } }));
    const { value, ms } = await timed(() => c.validate({ list: [...list, { i: 7, same: { a: [1, 2] } }] }));
    expect(value).toEqual({ ok: false, errors: ['input.list: must NOT have duplicate items (items ## 7 and 16000 are identical)'] });
    expect(ms).toBeLessThan(SCHEMA_CHECK_DEADLINE_MS);
    expect(await c.validate({ list: [{ a: 1, b: [2] }, { b: [2], a: 1 }] })).toMatchObject({ ok: false });
    expect(await c.validate({ list: [{ a: 1 }, { a: 2 }] })).toEqual({ ok: true });
  });

  it('refusals are the compiler\'s, and refused schemas do not stop others', async () => {
    const s = schemas();
    expect(await s.compile({ type: 'string' })).toEqual({ ok: false, problem: 'the input schema must describe an object (`"type": "object"`)' });
    expect(await s.compile(undefined)).toEqual({ ok: false, problem: 'the input schema is not a JSON Schema object' });
    expect(await s.compile({ type: 'object', n: 10n })).toEqual({ ok: false, problem: 'the input schema is not JSON' });
    const banana = await s.compile({ type: 'object', properties: { a: { type: 'banana' } } });
    expect(banana.ok).toBe(false);
    expect((banana as { problem: string }).problem).toMatch(/^the input schema does not compile: schema is invalid/);
    const c = await compiled(s, { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', properties: { pair: { type: 'array', items: [{ type: 'string' }], additionalItems: false } } });
    expect(await c.validate({ pair: [1, 2] })).toEqual({ ok: false, errors: ['input.pair: must NOT have more than 1 items', 'input.pair.0: must be string'] });
  });

  it('a schema compiled before the thread was replaced is compiled again on the new thread when checked', async () => {
    const s = schemas();
    const fine = await compiled(s, obj({ n: { type: 'integer', minimum: 3 } }, ['n']));
    const hostile = await compiled(s, obj({ s: { type: 'string', pattern: '^(a+)+$' } }));
    expect(unchecked(await hostile.validate({ s: HOSTILE }))).toMatch(/took longer than/);
    expect(await fine.validate({ n: 2 })).toEqual({ ok: false, errors: ['input.n: must be >= 3'] });
    expect(await fine.validate({ n: 3 })).toEqual({ ok: true });
  });

  it('a check of a cancelled turn ends at once, unchecked', async () => {
    const s = schemas();
    const c = await compiled(s, obj({ s: { type: 'string', pattern: '^(a|a)*$' } }));
    const ahead = c.validate({ s: HOSTILE });
    const controller = new AbortController();
    const queued = c.validate({ s: 'aaa' }, controller.signal);
    controller.abort(new Error('cancelled'));
    expect(unchecked(await queued)).toBe('the check was cancelled with the turn');
    expect(unchecked(await ahead)).toMatch(/took longer than/);
  });
});
