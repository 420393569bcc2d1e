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

const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
ajv.addSchema(openApiDoc as object, 'openapi');
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

function findOperation(method: string, urlPath: string): { template: string; op: (typeof openApiDoc.paths)[string][string] } {
  for (const [template, ops] of Object.entries(openApiDoc.paths)) {
    const re = new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`);
    if (re.test(urlPath) && ops[method.toLowerCase()]) return { template, op: ops[method.toLowerCase()]! };
  }
  throw new Error(`no operation ${method} ${urlPath} in openapi.json`);
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
    if (!init.skipContract) this.check(method, urlPath.split('?')[0]!, res.status, type, parsed);
    return { status: res.status, headers: res.headers, body: parsed as T, text };
  }

  private check(method: string, urlPath: string, status: number, contentType: string, body: unknown): void {
    const { template, op } = findOperation(method, urlPath);
    const declared = op.responses[String(status)];
    if (!declared) throw new Error(`${method} ${template} answered ${status}, which openapi.json does not declare`);
    if (!declared.content) {
      if (body !== '') throw new Error(`${method} ${template} ${status} declares no body but sent ${JSON.stringify(body)}`);
      return;
    }
    const [base, ...params] = contentType.split(';').map((p) => p.trim());
    const mediaType = base!;
    // A declared type with parameters (`text/plain; version=0.0.4`) matches a response that has them all.
    const declaredType = Object.keys(declared.content).find((k) => {
      const [kBase, ...kParams] = k.split(';').map((p) => p.trim());
      return kBase === mediaType && kParams.every((p) => params.includes(p));
    });
    if (!declaredType) throw new Error(`${method} ${template} ${status} sent ${contentType}; declared: ${Object.keys(declared.content).join(', ')}`);
    const pointer = `/paths/${template.replace(/~/g, '~0').replace(/\//g, '~1')}/${method.toLowerCase()}/responses/${status}/content/${encodeURIComponent(declaredType.replace(/~/g, '~0').replace(/\//g, '~1'))}/schema`;
    const fn = contractValidator(pointer);
    if (!fn(body)) {
      throw new Error(`${method} ${template} ${status} body violates openapi.json: ${ajv.errorsText(fn.errors)}\n${JSON.stringify(body).slice(0, 2000)}`);
    }
  }

  get = <T = any>(p: string, init?: Parameters<ContractClient['request']>[3]) => this.request<T>('GET', p, undefined, init);
  post = <T = any>(p: string, body?: unknown, init?: Parameters<ContractClient['request']>[3]) => this.request<T>('POST', p, body, init);
  patch = <T = any>(p: string, body?: unknown, init?: Parameters<ContractClient['request']>[3]) => this.request<T>('PATCH', p, body, init);
  delete = <T = any>(p: string, init?: Parameters<ContractClient['request']>[3]) => this.request<T>('DELETE', p, undefined, init);
}
