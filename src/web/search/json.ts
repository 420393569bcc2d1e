// Reading a JSON backend's 2xx answer: it must be JSON, must not report an error, and must match the
// backend's TypeBox schema, so a backend that changes its answer fails with a message saying what
// was wrong instead of returning nothing or garbage.
import { KindGuard, Type, type Static, type TSchema } from '@sinclair/typebox';
import { Value, ValuePointer } from '@sinclair/typebox/value';
import { jsonErrorText } from './error-text.js';
import { collapse, httpUrl, MAX_DETAIL_CHARS, stripTags, truncate } from './text.js';
import type { ParseContext, SearchResult } from './types.js';
import { parsePeerJson } from '../../json-depth.js';

/** A text field of a result: absent or null reads as ''. */
export const Text = Type.Optional(Type.Union([Type.String(), Type.Null()]));

/** A 2xx body reporting an error instead of results: `error` set without a `results` list, or Brave's ErrorResponse. */
const ErrorReport = Type.Union([
  Type.Object({ type: Type.Literal('ErrorResponse') }),
  Type.Object({
    error: Type.Union([Type.String(), Type.Number(), Type.Boolean(), Type.Object({}), Type.Array(Type.Unknown())]),
    results: Type.Optional(Type.Not(Type.Array(Type.Unknown()))),
  }),
]);

/** The body as `schema`'s type; a SearchError (through ctx.fail) when it is not JSON, reports an error, or does not match. */
export function readJson<S extends TSchema>(body: string, schema: S, ctx: ParseContext): Static<S> {
  let json: unknown;
  try {
    json = parsePeerJson(body);
  } catch {
    throw ctx.fail(`the response is not JSON: ${truncate(collapse(stripTags(ctx.redact(body))), MAX_DETAIL_CHARS) || '(empty body)'}`);
  }
  if (Value.Check(ErrorReport, json)) throw ctx.fail(`${ctx.display} reported an error: ${collapse(jsonErrorText(json)) || 'no details'}`);
  if (!Value.Check(schema, json)) throw ctx.fail(`unexpected response: ${schemaProblem(schema, json)}`);
  return json;
}

/** What is wrong with `value` against `schema`: the first mismatch, named by its place in the body. */
export function schemaProblem(schema: TSchema, value: unknown): string {
  const first = Value.Errors(schema, value).First();
  if (first === undefined) return 'no problem';
  if (first.path === '') return truncate(JSON.stringify(value) ?? '', 80);
  const segments = first.path.split('/').slice(1).map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  const name = segments.reduce((out, s) => (/^\d+$/.test(s) ? `${out}[${s}]` : out === '' ? s : `${out}.${s}`), '');
  if (KindGuard.IsArray(first.schema) && !Array.isArray(first.value)) {
    const parent: unknown = ValuePointer.Get(value, first.path.replace(/\/[^/]*$/, ''));
    const keys = typeof parent === 'object' && parent !== null ? Object.keys(parent).slice(0, 10) : [];
    return `no \`${name}\` list (keys: ${keys.length === 0 ? 'none' : keys.join(', ')})`;
  }
  return `\`${name}\` is ${kindOf(first.value)}, expected ${expected(first.schema)}`;
}

function kindOf(v: unknown): string {
  if (v === undefined) return 'missing';
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'object') return 'an object';
  return `a ${typeof v}`;
}

function expected(schema: TSchema): string {
  if (KindGuard.IsUnion(schema)) return schema.anyOf.map(expected).join(' or ');
  if (KindGuard.IsString(schema)) return 'a string';
  if (KindGuard.IsNumber(schema) || KindGuard.IsInteger(schema)) return 'a number';
  if (KindGuard.IsBoolean(schema)) return 'a boolean';
  if (KindGuard.IsNull(schema)) return 'null';
  if (KindGuard.IsArray(schema)) return 'a list';
  if (KindGuard.IsObject(schema)) return 'an object';
  if (KindGuard.IsLiteral(schema)) return JSON.stringify(schema.const);
  return 'another value';
}

/** The results with an http(s) URL (normalised); a result without a title shows its URL instead. */
export function usable(results: SearchResult[]): SearchResult[] {
  const out: SearchResult[] = [];
  for (const r of results) {
    const url = httpUrl(r.url.trim());
    if (url === null) continue;
    out.push({ title: r.title || url, url, snippet: r.snippet });
  }
  return out;
}
