// An HTTP client for tests that checks every response against the committed OpenAPI
// document: the operation must exist, the status must be declared, the content type must
// match, and the body must validate against the declared schema.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { ValidateFunction } from 'ajv';

const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv2020) => Ajv2020;

const docPath = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'openapi', 'openapi.json');
export const openApiDoc = JSON.parse(fs.readFileSync(docPath, 'utf8')) as {
  paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema: unknown }> }> }>>;
  components: { schemas: Record<string, unknown> };
};

const ajv = new Ajv2020({ strict: false, allErrors: true, discriminator: true });
addFormats(ajv);
// Ajv picks a discriminated alternative by its tag (fast for the event union) but takes no
// `mapping`: the validator gets a copy of the document without it (the tags are in the schemas).
const withoutMappings = JSON.parse(JSON.stringify(openApiDoc), (k, v) => (k === 'mapping' ? undefined : v)) as object;
ajv.addSchema(withoutMappings, 'openapi');
const compiled = new Map<string, ValidateFunction>();

/** A schema from the document: a component by name, or a JSON pointer into it. */
export function contractValidator(pointer: string): ValidateFunction {
  let fn = compiled.get(pointer);
  if (!fn) {
    fn = ajv.compile({ $ref: `openapi#${pointer}` });
    compiled.set(pointer, fn);
  }
  return fn;
}

export function assertComponent(name: string, value: unknown): void {
  const fn = contractValidator(`/components/schemas/${name}`);
  if (!fn(value)) {
    throw new Error(`value does not match components.schemas.${name}: ${ajv.errorsText(fn.errors)}\n${JSON.stringify(value).slice(0, 2000)}`);
  }
}

type Operation = (typeof openApiDoc.paths)[string][string];
type DeclaredResponse = Operation['responses'][string] & { headers?: Record<string, { $ref?: string; schema?: unknown }> };

function findOperation(method: string, urlPath: string): { template: string; op: Operation } {
  for (const [template, ops] of Object.entries(openApiDoc.paths)) {
    const re = new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`);
    if (re.test(urlPath) && ops[method.toLowerCase()]) return { template, op: ops[method.toLowerCase()]! };
  }
  throw new Error(`no operation ${method} ${urlPath} in openapi.json`);
}

/** Response headers the contract speaks about: when one is sent, the response must declare it. */
const CONTRACT_HEADERS = ['set-cookie', 'etag', 'repr-digest', 'content-range', 'retry-after', 'location', 'x-request-id', 'x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'];

export interface ObservedResponse {
  method: string;
  /** The concrete path, or the route template (`{param}` or `:param`). */
  path: string;
  status: number;
  contentType: string;
  /** The parsed JSON body, the text, or undefined when the body is a stream (not checked). */
  body: unknown;
  headers: Record<string, string | undefined>;
}

/** Checks one response against openapi.json: operation, status, content type, body and headers. */
export function checkResponse(r: ObservedResponse): void {
  const templated = r.path.replace(/:([A-Za-z_]+)/g, '{$1}');
  const method = r.method === 'HEAD' ? 'GET' : r.method;
  const { template, op } = openApiDoc.paths[templated]?.[method.toLowerCase()]
    ? { template: templated, op: openApiDoc.paths[templated]![method.toLowerCase()]! }
    : findOperation(method, r.path);
  let declared = op.responses[String(r.status)] as (DeclaredResponse & { $ref?: string }) | undefined;
  if (!declared) throw new Error(`${method} ${template} answered ${r.status}, which openapi.json does not declare`);
  // A shared answer (components.responses) is validated where it is written.
  let base = `/paths/${template.replace(/~/g, '~0').replace(/\//g, '~1')}/${method.toLowerCase()}/responses/${r.status}`;
  if (declared.$ref) {
    base = declared.$ref.slice(1);
    declared = (openApiDoc as unknown as { components: { responses: Record<string, DeclaredResponse> } }).components.responses[declared.$ref.split('/').pop()!];
    if (!declared) throw new Error(`openapi.json refers to a missing response for ${method} ${template} ${r.status}`);
  }
  const declaredHeaders = Object.fromEntries(Object.entries(declared.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v]));
  for (const name of CONTRACT_HEADERS) {
    const value = r.headers[name];
    if (value === undefined) continue;
    const h = declaredHeaders[name];
    if (!h) throw new Error(`${method} ${template} ${r.status} sent the ${name} header, which openapi.json does not declare for it`);
    const pointer = h.$ref ? h.$ref.slice(1) + '/schema' : undefined;
    const fn = pointer ? contractValidator(pointer) : undefined;
    // Header values are text: an integer header is compared as the number it spells.
    const component = h.$ref ? (openApiDoc as unknown as { components: { headers: Record<string, { schema: { type?: string } }> } }).components.headers[h.$ref.split('/').pop()!] : undefined;
    const schema = component?.schema ?? ((h.schema ?? {}) as { type?: string });
    const typed = schema.type === 'integer' && /^\d+$/.test(value) ? Number(value) : value;
    if (fn && !fn(typed)) throw new Error(`${method} ${template} ${r.status} header ${name}: ${JSON.stringify(value)} violates openapi.json: ${ajv.errorsText(fn.errors)}`);
  }
  if (!declared.content) {
    if (r.body !== '' && r.body !== undefined) throw new Error(`${method} ${template} ${r.status} declares no body but sent ${JSON.stringify(r.body).slice(0, 200)}`);
    return;
  }
  if (r.method === 'HEAD' || r.body === undefined) return;
  const [mediaType, ...params] = r.contentType.split(';').map((p) => p.trim());
  // A declared type with parameters (`text/plain; version=0.0.4`) matches a response that has them all.
  const declaredType = Object.keys(declared.content).find((k) => {
    const [kBase, ...kParams] = k.split(';').map((p) => p.trim());
    return kBase === mediaType && kParams.every((p) => params.includes(p));
  });
  if (!declaredType) throw new Error(`${method} ${template} ${r.status} sent ${r.contentType}; declared: ${Object.keys(declared.content).join(', ')}`);
  const pointer = `${base}/content/${encodeURIComponent(declaredType.replace(/~/g, '~0').replace(/\//g, '~1'))}/schema`;
  const fn = contractValidator(pointer);
  if (!fn(r.body)) {
    throw new Error(`${method} ${template} ${r.status} body violates openapi.json: ${ajv.errorsText(fn.errors)}\n${JSON.stringify(r.body).slice(0, 2000)}`);
  }
}

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export class ContractClient {
  constructor(
    readonly baseUrl: string,
    private readonly token?: string,
  ) {}

  async request<T = any>(
    method: string,
    urlPath: string,
    body?: unknown,
    init: { headers?: Record<string, string>; raw?: string; skipContract?: boolean } = {},
  ): Promise<ApiResponse<T>> {
    const headers: Record<string, string> = { ...(init.headers ?? {}) };
    if (this.token && !('authorization' in headers)) headers.authorization = `Bearer ${this.token}`;
    let payload: string | undefined;
    if (init.raw !== undefined) payload = init.raw;
    else if (body !== undefined) payload = JSON.stringify(body);
    if (payload !== undefined && !('content-type' in headers)) headers['content-type'] = 'application/json';
    const res = await fetch(this.baseUrl + urlPath, { method, headers, ...(payload !== undefined ? { body: payload } : {}) });
    const text = await res.text();
    const type = res.headers.get('content-type') ?? '';
    const parsed = type.includes('json') && text !== '' ? JSON.parse(text) : text;
    if (!init.skipContract) this.check(method, urlPath.split('?')[0]!, res, type, parsed);
    return { status: res.status, headers: res.headers, body: parsed as T, text };
  }

  private check(method: string, urlPath: string, res: Response, contentType: string, body: unknown): void {
    const headers: Record<string, string | undefined> = {};
    res.headers.forEach((v, k) => (headers[k] = v));
    checkResponse({ method, path: urlPath, status: res.status, contentType, body, headers });
  }

  get = <T = any>(p: string, init?: Parameters<ContractClient['request']>[3]) => this.request<T>('GET', p, undefined, init);
  post = <T = any>(p: string, body?: unknown, init?: Parameters<ContractClient['request']>[3]) => this.request<T>('POST', p, body, init);
  patch = <T = any>(p: string, body?: unknown, init?: Parameters<ContractClient['request']>[3]) => this.request<T>('PATCH', p, body, init);
  delete = <T = any>(p: string, init?: Parameters<ContractClient['request']>[3]) => this.request<T>('DELETE', p, undefined, init);
}
