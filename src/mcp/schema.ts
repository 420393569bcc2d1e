// Input schemas of MCP tools: JSON Schema from an untrusted party, compiled once per distinct
// schema with a validator for its dialect (2020-12 by default, as MCP says; draft-07 and 2019-09
// when `$schema` names them). A schema that is not JSON Schema, or that does not compile, is a
// problem of that tool alone, never a crash. `uniqueItems` is checked in linear time (ajv's own
// compares every pair of object items).
import { Ajv2019 } from 'ajv/dist/2019.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { LRUCache } from 'lru-cache';

const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv) => Ajv;

/** The largest input schema taken from a server (as JSON text). */
export const MAX_SCHEMA_BYTES = 256 * 1024;

export type CompiledSchema = { ok: true; validate: (input: unknown) => string[] } | { ok: false; problem: string };

type AnyAjv = Ajv | Ajv2019 | Ajv2020;

function make<T extends AnyAjv>(ajv: T): T {
  addFormats(ajv as unknown as Ajv);
  linearUniqueItems(ajv as unknown as Ajv);
  return ajv;
}

/** A value's JSON text with keys in order: equal values, equal texts (as JSON Schema's equality). */
function canonical(v: unknown): string {
  if (v === null || typeof v !== 'object') return JSON.stringify(v) ?? 'null';
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  const o = v as Record<string, unknown>;
  return `{${Object.keys(o).sort().map((k) => `${JSON.stringify(k)}:${canonical(o[k])}`).join(',')}}`;
}

/**
 * `uniqueItems` in linear time. Ajv compares every pair of object or array items (16,000 objects
 * are 128 million deep comparisons); here each item's canonical text goes into a map once.
 */
function linearUniqueItems(ajv: Ajv): void {
  ajv.removeKeyword('uniqueItems');
  const validate = (unique: boolean, data: unknown[]): boolean => {
    if (!unique) return true;
    const seen = new Map<string, number>();
    for (let i = 0; i < data.length; i++) {
      const key = canonical(data[i]);
      const j = seen.get(key);
      if (j !== undefined) {
        validate.errors = [{ keyword: 'uniqueItems', message: `must NOT have duplicate items (items ## ${j} and ${i} are identical)`, params: { i, j } }];
        return false;
      }
      seen.set(key, i);
    }
    return true;
  };
  validate.errors = [] as Partial<ErrorObject>[];
  ajv.addKeyword({ keyword: 'uniqueItems', type: 'array', schemaType: 'boolean', errors: true, validate });
}

// strict off: servers' carry annotation keywords of their own; validateSchema on: a
// schema that breaks its meta-schema is refused.
// addUsedSchema off: a schema's `$id` is not registered, so two servers' schemas with one id do not
// clash (and a schema may still refer to itself by its id). No logger: an unknown `format` is not
// enforced, which is the dialects' own rule, and not worth a line on the server's console.
const OPTIONS = { allErrors: true, strict: false, validateSchema: true, coerceTypes: false, useDefaults: false, addUsedSchema: false, logger: false } as const;

interface Entry {
  compiled: CompiledSchema;
  /** The validator and schema object ajv keeps the compiled function under, to release it with the entry. */
  owner?: { ajv: AnyAjv; schema: object };
}

export class McpSchemaCompiler {
  private readonly dialects = {
    draft7: make(new Ajv(OPTIONS)),
    draft2019: make(new Ajv2019(OPTIONS)),
    draft2020: make(new Ajv2020(OPTIONS)),
  };
  /**
   * By the schema's JSON text: the same server in many sessions compiles its schemas once. Ajv keeps
   * every compiled schema too; an entry that leaves this cache is removed there as well, so the
   * memory stays bounded however many distinct schemas servers send over time.
   */
  private readonly cache = new LRUCache<string, Entry>({
    max: 4096,
    dispose: (entry) => {
      if (entry.owner) (entry.owner.ajv as Ajv).removeSchema(entry.owner.schema);
    },
  });

  /** Compiles `schema`, kept under `key` (its JSON text unless the caller names it otherwise). */
  compile(schema: unknown, key?: string): CompiledSchema {
    let text = key;
    if (text === undefined) {
      try {
        text = JSON.stringify(schema) ?? '';
      } catch {
        return { ok: false, problem: 'the input schema is not JSON' };
      }
      const bytes = Buffer.byteLength(text);
      if (bytes > MAX_SCHEMA_BYTES) return { ok: false, problem: `the input schema is ${bytes} bytes; at most ${MAX_SCHEMA_BYTES} are taken` };
    }
    const known = this.cache.get(text);
    if (known) return known.compiled;
    const entry = this.compileNew(schema);
    this.cache.set(text, entry);
    return entry.compiled;
  }

  /** What was compiled under `key`, while it is kept. */
  known(key: string): CompiledSchema | undefined {
    return this.cache.get(key)?.compiled;
  }

  private compileNew(schema: unknown): Entry {
    const problem = (p: string): Entry => ({ compiled: { ok: false, problem: p } });
    if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return problem('the input schema is not a JSON Schema object');
    const s = schema as Record<string, unknown>;
    if (s.type !== 'object') return problem('the input schema must describe an object (`"type": "object"`)');
    const dialect = s.$schema;
    let ajv: AnyAjv = this.dialects.draft2020;
    if (typeof dialect === 'string') {
      if (/draft-07|draft-06/.test(dialect)) ajv = this.dialects.draft7;
      else if (dialect.includes('2019-09')) ajv = this.dialects.draft2019;
      else if (!dialect.includes('2020-12')) return problem(`the input schema's dialect ${JSON.stringify(dialect)} is not one this server validates (2020-12, 2019-09, draft-07)`);
    }
    // The dialect is chosen above; each validator checks against its own meta-schema.
    const { $schema: _dialect, ...body } = s;
    let fn: ValidateFunction;
    try {
      fn = (ajv as Ajv).compile(body);
    } catch (err) {
      (ajv as Ajv).removeSchema(body);
      const message = err instanceof Error ? [...new Set(err.message.split(', '))].join(', ') : String(err);
      return problem(`the input schema does not compile: ${message}`);
    }
    return {
      compiled: { ok: true, validate: (input) => (fn(input) ? [] : [...new Set((fn.errors ?? []).map(describe))]) },
      owner: { ajv, schema: body },
    };
  }
}

function describe(e: ErrorObject): string {
  const at = e.instancePath === '' ? 'input' : `input${e.instancePath.replace(/\//g, '.')}`;
  if (e.keyword === 'required') return `${at}: missing required property "${(e.params as { missingProperty: string }).missingProperty}"`;
  if (e.keyword === 'additionalProperties') return `${at}: unknown property "${(e.params as { additionalProperty: string }).additionalProperty}" is not allowed`;
  if (e.keyword === 'enum') return `${at}: must be one of ${(e.params as { allowedValues: unknown[] }).allowedValues.map((v) => JSON.stringify(v)).join(', ')}`;
  return `${at}: ${e.message ?? e.keyword}`;
}
