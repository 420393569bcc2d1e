// Schema violations in words a client can act on, each pointing at the value it is about.
//
// Ajv reports a failed `oneOf`/`anyOf` as the errors of every alternative plus "must match a
// schema": for `{"behavior":"maybe"}` that is one "must be equal to constant" per alternative.
// Here such a failure is explained by the alternative the request meant — the one it misses
// least (a wrong tag or type misses most, a missing or unknown property less, a wrong value deep
// inside least) — or, when no alternative stands out, by what each alternative needs.
// `required` and `additionalProperties` point at the property itself (`/tools/0/name`), not at
// the object holding it.
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { TSchema } from '@sinclair/typebox';
import type { FastifySchemaCompiler, FastifySchemaValidationError } from 'fastify';

const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv) => Ajv;

/**
 * How requests are validated: every error at once (a client fixes all in one go), each with its
 * schema and data (`verbose`, for the explanations below), unknown properties refused rather
 * than dropped, documented defaults filled in, and `oneOf`s with a `discriminator` chosen by it.
 */
export const REQUEST_AJV_OPTIONS = {
  allErrors: true,
  // The schemas are the server's own (TypeBox-built, linted in the document, all compiled by a
  // test): checking them against the meta-schema at every start only cost start-up time.
  validateSchema: false,
  verbose: true,
  strict: false,
  removeAdditional: false,
  useDefaults: true,
  discriminator: true,
} as const;

type FastifyValidator = ((...args: unknown[]) => boolean) & { errors?: FastifySchemaValidationError[] | null; schemaEnv?: unknown };

/**
 * The request validators. A body is taken as sent: `{"name": 5}` where a string belongs is a 400,
 * not the string "5". Query strings and path parameters are text, so they are converted to the
 * schema's types (`?limit=5`, and a single value where a list is expected).
 *
 * Each route's validator is compiled when the route first needs it, or by `warm()` after the
 * server listens: compiling every route's schemas up front was most of the start-up time.
 */
export class RequestValidators {
  private readonly body: Ajv;
  private readonly text: Ajv;
  private readonly pending: (() => void)[] = [];

  constructor(shared: readonly TSchema[]) {
    this.body = new Ajv({ ...REQUEST_AJV_OPTIONS, coerceTypes: false });
    this.text = new Ajv({ ...REQUEST_AJV_OPTIONS, coerceTypes: 'array' });
    for (const ajv of [this.body, this.text]) {
      addFormats(ajv);
      for (const s of shared) ajv.addSchema(s as AnySchema);
    }
  }

  /** Fastify's validatorCompiler. */
  readonly compiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) => {
    const ajv = httpPart === 'body' ? this.body : this.text;
    let fn: ValidateFunction | undefined;
    const compile = (): ValidateFunction => (fn ??= ajv.compile(schema as AnySchema));
    const validate: FastifyValidator = (...args: unknown[]) => {
      const f = compile();
      const ok = (f as unknown as (...a: unknown[]) => boolean)(...args);
      validate.errors = f.errors as FastifySchemaValidationError[] | null | undefined;
      return ok;
    };
    // Fastify passes the parent object (so a root value can be replaced) to validators that have one.
    validate.schemaEnv = true;
    this.pending.push(() => void compile());
    return validate as ReturnType<FastifySchemaCompiler<unknown>>;
  };

  /** Compiles every validator now; a schema that does not compile throws. Returns how many there are. */
  compileAll(): number {
    const jobs = this.pending.splice(0);
    for (const job of jobs) job();
    this.compiledCount += jobs.length;
    return this.compiledCount;
  }

  private compiledCount = 0;

  /** Compiles the validators no request has needed yet, one per turn of the event loop. */
  warm(): void {
    const job = this.pending.shift();
    if (!job) return;
    this.compiledCount++;
    job();
    setImmediate(() => this.warm()).unref();
  }
}

export interface ValidationIssue {
  /** JSON pointer to the offending value within the body, query or params. */
  path: string;
  message: string;
}

type AnySchema = Record<string, unknown>;

/** Explains validation errors; `shared` are the registered schemas `$ref`s point to. */
export class ValidationExplainer {
  private ajvInstance: Ajv | undefined;
  private readonly compiled = new WeakMap<object, ValidateFunction>();

  constructor(private readonly shared: readonly TSchema[]) {}

  /** Made when the first failed union is explained, not at start-up. */
  private get ajv(): Ajv {
    if (!this.ajvInstance) {
      // The body validator's options (an alternative is judged as the request was), but nothing is filled in.
      this.ajvInstance = new Ajv({ ...REQUEST_AJV_OPTIONS, coerceTypes: false, useDefaults: false });
      addFormats(this.ajvInstance);
      for (const s of this.shared) this.ajvInstance.addSchema(s as AnySchema);
    }
    return this.ajvInstance;
  }

  explain(errors: readonly ErrorObject[]): ValidationIssue[] {
    return this.issues(errors, '', 0);
  }

  private issues(errors: readonly ErrorObject[], prefix: string, depth: number): ValidationIssue[] {
    const out: ValidationIssue[] = [];
    // Outermost unions first: what lies inside one is explained again from its best alternative.
    const unions = errors
      .filter((e) => (e.keyword === 'oneOf' || e.keyword === 'anyOf') && Array.isArray(e.schema))
      .sort((a, b) => a.instancePath.length - b.instancePath.length);
    const handled = new Set<ErrorObject>();
    for (const u of unions) {
      if (handled.has(u)) continue;
      const inside = (e: ErrorObject) => e.instancePath === u.instancePath || e.instancePath.startsWith(`${u.instancePath}/`);
      for (const e of errors) if (inside(e)) handled.add(e);
      out.push(...this.union(u, prefix, depth));
    }
    for (const e of errors) {
      if (handled.has(e)) continue;
      out.push(this.issue(e, prefix));
    }
    return dedupe(out);
  }

  /** One failed union: the errors of the alternative meant, or what the alternatives need. */
  private union(u: ErrorObject, prefix: string, depth: number): ValidationIssue[] {
    const at = prefix + u.instancePath;
    if (u.keyword === 'oneOf' && (u.params as { passingSchemas?: unknown }).passingSchemas) {
      return [{ path: at, message: 'matches more than one of the allowed shapes; remove what makes it ambiguous' }];
    }
    const branches = (u.schema as AnySchema[]).map((b) => this.resolve(b));
    const judged = branches.map((b) => {
      const fn = this.compile(b);
      fn(structuredClone(u.data));
      const errs = fn.errors ?? [];
      return { branch: b, errors: errs, score: missScore(errs) };
    });
    const best = Math.min(...judged.map((j) => j.score));
    const closest = judged.filter((j) => j.score === best);
    if (closest.length === 1 && depth < 8) return this.issues(closest[0]!.errors, at, depth + 1);
    return [summary(at, closest.length > 0 ? closest : judged)];
  }

  private issue(e: ErrorObject, prefix: string): ValidationIssue {
    const at = prefix + e.instancePath;
    const p = e.params as Record<string, unknown>;
    switch (e.keyword) {
      case 'required':
        return { path: `${at}/${escape(String(p.missingProperty))}`, message: 'is required' };
      case 'additionalProperties':
        return { path: `${at}/${escape(String(p.additionalProperty))}`, message: 'is not a known property here' };
      case 'enum':
        return { path: at, message: `must be one of ${(p.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}` };
      case 'const':
        return { path: at, message: `must be ${JSON.stringify(p.allowedValue)}` };
      case 'discriminator': {
        const tag = String(p.tag);
        const values = this.tagValues(e.parentSchema as AnySchema | undefined, tag);
        const list = values.length > 0 ? `: one of ${values.map((v) => JSON.stringify(v)).join(', ')}` : '';
        return p.error === 'tag' && (e.data === null || typeof e.data !== 'object' || !(tag in (e.data as object)))
          ? { path: `${at}/${escape(tag)}`, message: `is required${list}` }
          : { path: `${at}/${escape(tag)}`, message: `must be${list.replace(/^:/, '') || ' a known value'}` };
      }
      case 'type':
        return { path: at, message: `must be ${describeType(p.type)}` };
      default:
        return { path: at, message: e.message ?? e.keyword };
    }
  }

  private tagValues(parent: AnySchema | undefined, tag: string): unknown[] {
    const branches = (parent?.oneOf as AnySchema[] | undefined) ?? [];
    return branches.flatMap((b) => {
      const prop = ((this.resolve(b).properties as AnySchema | undefined)?.[tag] ?? {}) as AnySchema;
      return prop.const !== undefined ? [prop.const] : Array.isArray(prop.enum) ? prop.enum : [];
    });
  }

  /** A `$ref` to a registered schema (`Name#`) becomes that schema. */
  private resolve(schema: AnySchema): AnySchema {
    const ref = schema.$ref;
    if (typeof ref !== 'string') return schema;
    const id = ref.replace(/#$/, '');
    return (this.shared.find((s) => s.$id === id) as AnySchema | undefined) ?? schema;
  }

  private compile(schema: AnySchema): ValidateFunction {
    let fn = this.compiled.get(schema);
    if (!fn) {
      // A registered schema is validated by its id (its own `$id` must not be added twice).
      fn = typeof schema.$id === 'string' ? this.ajv.getSchema(schema.$id)! : this.ajv.compile(schema);
      this.compiled.set(schema, fn);
    }
    return fn;
  }
}

/** How badly a value misses an alternative: a wrong tag or type first, then the object's shape, then details. */
function missScore(errors: readonly ErrorObject[]): number {
  let score = 0;
  for (const e of errors) {
    const depth = e.instancePath === '' ? 0 : e.instancePath.split('/').length - 1;
    if (e.keyword === 'type' && depth === 0) score += 1000;
    else if ((e.keyword === 'const' || e.keyword === 'enum' || e.keyword === 'discriminator') && depth <= 1) score += 1000;
    else if ((e.keyword === 'required' || e.keyword === 'additionalProperties') && depth === 0) score += 10;
    else if (e.keyword === 'oneOf' || e.keyword === 'anyOf') score += 0;
    else score += 1;
  }
  return score;
}

function summary(at: string, alternatives: { branch: AnySchema; errors: readonly ErrorObject[] }[]): ValidationIssue {
  // Every alternative is a constant or a type: say which values or types are allowed.
  const consts = alternatives.flatMap(({ branch }) => (branch.const !== undefined ? [branch.const] : Array.isArray(branch.enum) ? branch.enum : []));
  if (consts.length > 0 && alternatives.every(({ branch }) => branch.const !== undefined || Array.isArray(branch.enum))) {
    return { path: at, message: `must be one of ${consts.map((v) => JSON.stringify(v)).join(', ')}` };
  }
  const parts = alternatives.map(({ branch }) => describeBranch(branch));
  return { path: at, message: `must be one of: ${parts.join('; or ')}` };
}

function describeBranch(b: AnySchema): string {
  const name = typeof b.$id === 'string' ? `${b.$id} ` : '';
  if (b.type === 'object' || b.properties) {
    const required = (b.required as string[] | undefined) ?? [];
    // A property spelled out as never allowed (`{"not": {}}`) is not an option.
    const props = Object.entries((b.properties as Record<string, AnySchema> | undefined) ?? {})
      .filter(([, s]) => !(s.not && typeof s.not === 'object' && Object.keys(s.not).length === 0))
      .map(([k]) => k);
    const optional = props.filter((p) => !required.includes(p));
    const need = required.length > 0 ? `with ${required.map((r) => `\`${r}\``).join(', ')}` : 'an object';
    const may = optional.length > 0 ? ` (optional: ${optional.map((r) => `\`${r}\``).join(', ')})` : '';
    const only = b.additionalProperties === false ? ', nothing else' : '';
    return `${name}${need}${may}${only}`.trim();
  }
  if (b.const !== undefined) return JSON.stringify(b.const);
  return `${name}${describeType(b.type ?? 'value')}`.trim();
}

function describeType(t: unknown): string {
  const types = Array.isArray(t) ? t : [t];
  const words = types.map((x) => (x === 'integer' ? 'an integer' : x === 'array' ? 'an array' : x === 'object' ? 'an object' : x === 'null' ? 'null' : `a ${String(x)}`));
  return words.join(' or ');
}

function escape(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

function dedupe(issues: ValidationIssue[]): ValidationIssue[] {
  const seen = new Set<string>();
  return issues.filter((i) => {
    const k = `${i.path}\u0000${i.message}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}
