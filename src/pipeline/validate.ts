// Full JSON Schema validation of tool inputs (SPEC §9.1): enum, bounds, pattern,
// additionalProperties and formats, from schemas compiled once per schema (every session's
// instance of a tool shares its spec's schema).
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { ToolSpec } from '../tools/tool.js';

// ajv-formats is CommonJS; its default export arrives wrapped under ESM interop.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv) => Ajv;

/** `refusal`: the input could not be judged in time; the call's error says so instead of listing problems. */
export type Validation = { ok: true; value: unknown } | { ok: false; errors: string[]; refusal?: string };

export class InputValidator {
  private readonly ajv: Ajv;
  /** By schema: every session's instance of a tool shares its spec's schema, compiled once. */
  private readonly compiled = new WeakMap<object, ValidateFunction>();
  /** By tool object, so a call finds its function without touching the schema. */
  private readonly byTool = new WeakMap<ToolSpec, ValidateFunction>();

  constructor() {
    // strict: a schema keyword Ajv does not know is a programming error, not something to skip.
    this.ajv = new Ajv({ allErrors: true, strict: true, strictTypes: false, coerceTypes: false, useDefaults: false });
    addFormats(this.ajv);
    // TypeBox adds these annotation keywords; they do not constrain values.
    this.ajv.addKeyword({ keyword: 'kind' });
    this.ajv.addKeyword({ keyword: 'modifier' });
  }

  /** Compiles a tool's schema now, so a broken schema fails at start-up rather than on a call. */
  prepare(tool: ToolSpec): void {
    this.functionFor(tool);
  }

  private functionFor(tool: ToolSpec): ValidateFunction | undefined {
    if (tool.parseRawInput || tool.parseRawInputAsync) return undefined;
    const known = this.byTool.get(tool);
    if (known) return known;
    const schemaObject = tool.inputSchema;
    let fn = this.compiled.get(schemaObject);
    if (!fn) {
      // Compiled without its top-level $id: Ajv registers ids globally, and two tools may
      // carry schemas with the same id (e.g. the same MCP tool in two sessions).
      const { $id: _id, ...schema } = schemaObject;
      fn = this.ajv.compile(schema);
      this.compiled.set(schemaObject, fn);
    }
    this.byTool.set(tool, fn);
    return fn;
  }

  /**
   * What the pipeline calls: a tool whose input is judged off the event loop (an MCP tool) is
   * awaited; every other tool is validated here, at once.
   */
  async check(tool: ToolSpec, input: unknown, signal?: AbortSignal): Promise<Validation> {
    if (!tool.parseRawInputAsync) return this.validate(tool, input);
    const parsed = await tool.parseRawInputAsync(input, signal);
    return parsed.ok ? { ok: true, value: parsed.value } : { ok: false, errors: parsed.errors, ...(parsed.refusal !== undefined ? { refusal: parsed.refusal } : {}) };
  }

  /** Validates on the event loop: for the server's own tools, whose schemas are ours (`check` for any tool). */
  validate(tool: ToolSpec, input: unknown): Validation {
    if (tool.parseRawInputAsync) throw new Error(`${tool.name}'s input is checked off the event loop: use InputValidator.check`);
    if (tool.parseRawInput) {
      const parsed = tool.parseRawInput(input);
      return parsed.ok ? { ok: true, value: parsed.value } : { ok: false, errors: parsed.errors, ...(parsed.refusal !== undefined ? { refusal: parsed.refusal } : {}) };
    }
    const fn = this.functionFor(tool)!;
    if (!fn(input)) return { ok: false, errors: describeErrors(fn.errors ?? []) };
    const problems = tool.checkInput?.(input) ?? [];
    return problems.length === 0 ? { ok: true, value: input } : { ok: false, errors: problems };
  }
}

/** One message per problem: a union of constants reads "must be one of …", not one line per branch. */
function describeErrors(errors: ErrorObject[]): string[] {
  const out: string[] = [];
  const folded = new Set<string>();
  for (const union of errors.filter((e) => e.keyword === 'anyOf')) {
    const branches = errors.filter((e) => e.instancePath === union.instancePath && e.keyword !== 'anyOf');
    if (branches.length === 0 || !branches.every((e) => e.keyword === 'const')) continue;
    const allowed = branches.map((e) => JSON.stringify((e.params as { allowedValue: unknown }).allowedValue));
    out.push(`${where(union)}: must be one of ${allowed.join(', ')}`);
    folded.add(union.instancePath);
  }
  for (const e of errors) {
    if (folded.has(e.instancePath) && (e.keyword === 'anyOf' || e.keyword === 'const')) continue;
    out.push(describeError(e));
  }
  return out;
}

function where(e: ErrorObject): string {
  return e.instancePath === '' ? 'input' : `input${e.instancePath.replace(/\//g, '.')}`;
}

function describeError(e: ErrorObject): string {
  const at = where(e);
  switch (e.keyword) {
    case 'required':
      return `${at}: missing required property "${(e.params as { missingProperty: string }).missingProperty}"`;
    case 'additionalProperties':
      return `${at}: unknown property "${(e.params as { additionalProperty: string }).additionalProperty}" is not allowed`;
    case 'enum':
      return `${at}: must be one of ${(e.params as { allowedValues: unknown[] }).allowedValues.map((v) => JSON.stringify(v)).join(', ')}`;
    case 'const':
      return `${at}: must be ${JSON.stringify((e.params as { allowedValue: unknown }).allowedValue)}`;
    default:
      return `${at}: ${e.message ?? e.keyword}`;
  }
}
