// The last step of the OpenAPI document: what the route schemas do not say by themselves, added
// in one place so that linters (Redocly's recommended rules, Spectral's spectral:oas) find
// nothing to report and generators (openapi-typescript with default flags) produce types that
// fit the requests a client really sends.
//
// - `servers`, `contact`, `license`: where the API is and under what terms.
// - Request bodies a route marks optional (`x-norma-optional-body`) are `required: false`.
// - Components only requests use keep their defaults in words, not as `default`: generators
//   read `default` as "always present" and would make every defaulted field of a request required.
// - A `oneOf` with a `discriminator` gets the `mapping` (tag value → component).
// - Every response declares `X-Request-Id`; /v1 responses the rate-limit headers; 429s `Retry-After`.
// - Each HEAD Fastify serves for a GET route is an operation of its own (`headHealth`, …).
// - Operations with path parameters may answer 414 and every operation 431: both are refused
//   before a route runs (src/http/edge-problems.ts), so no route schema says them.
// - No boolean schemas: a property that may never appear stays `{"not": {}}` (some tools, such as
//   ibm-openapi-validator, stop at `false`); the typed client maps it to `never` itself
//   (clients/typescript/generate.ts).

type Json = Record<string, unknown>;

export const OPTIONAL_BODY = 'x-norma-optional-body';

/**
 * On the schema of a `text/event-stream` body (a string to every tool): the schema each event's
 * JSON `data` follows, as a `$ref`. OpenAPI 3.2's `itemSchema` says the same, but 3.1 tools do not
 * know it yet; the typed client reads this extension (clients/typescript/generate.ts).
 */
export const SSE_DATA_SCHEMA = 'x-sse-data-schema';

export interface DocumentInfo {
  /** The server URL the document names (the default listen address). */
  serverUrl: string;
}

export const RESPONSE_HEADERS: Json = {
  XRequestId: {
    description: 'The request\'s id: the client\'s own `X-Request-Id` when it sent a valid one (`[A-Za-z0-9._:-]`, at most 64), else one the server made; quoted in logs and 500 details',
    schema: { type: 'string', maxLength: 64 },
  },
  RetryAfter: { description: 'Seconds to wait before trying again', schema: { type: 'integer', minimum: 0 } },
  RateLimitLimit: { description: 'With a tenant policy of `requests_per_minute`: requests allowed per minute', schema: { type: 'integer', minimum: 0 } },
  RateLimitRemaining: { description: 'With a tenant policy of `requests_per_minute`: requests left in the current minute', schema: { type: 'integer', minimum: 0 } },
  RateLimitReset: { description: 'With a tenant policy of `requests_per_minute`: seconds until the window resets', schema: { type: 'integer', minimum: 0 } },
  Location: { description: 'The URL of the created resource', schema: { type: 'string' } },
  ETag: { description: 'Strong validator of the representation', schema: { type: 'string' } },
  ReprDigest: { description: 'RFC 9530 digest of the whole representation: `sha-256=:<base64>:`', schema: { type: 'string' } },
  ContentRange: { description: 'The part sent (`bytes <start>-<end>/<size>`), or the size when the range cannot be served (`bytes */<size>`)', schema: { type: 'string' } },
};

const headerRef = (name: string) => ({ $ref: `#/components/headers/${name}` });
const NAMED_HEADERS: Record<string, string> = { Location: 'Location', ETag: 'ETag', 'Repr-Digest': 'ReprDigest', 'Content-Range': 'ContentRange', 'Retry-After': 'RetryAfter' };

export function finishDocument(doc: Json, info: DocumentInfo): Json {
  const infoObj = doc.info as Json;
  infoObj.contact = { name: 'Norma Server maintainers' };
  // No open-source license is granted: an SPDX reference to the proprietary terms.
  infoObj.license = { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' };
  doc.servers = [{ url: info.serverUrl, description: 'The default listen address (`npm start`); use your deployment\'s URL' }];
  const components = doc.components as Json;
  components.headers = { ...((components.headers as Json | undefined) ?? {}), ...RESPONSE_HEADERS };
  const schemas = components.schemas as Record<string, Json>;

  const paths = doc.paths as Record<string, Record<string, Json>>;
  for (const [p, ops] of Object.entries(paths)) nameHeadOperation(p, ops);
  for (const [p, ops] of Object.entries(paths)) {
    for (const op of Object.values(ops)) {
      if (op[OPTIONAL_BODY]) {
        if (op.requestBody) (op.requestBody as Json).required = false;
        delete op[OPTIONAL_BODY];
      }
      // A path parameter longer than the router takes (far longer than any id) is 414.
      if (p.includes('{') && op.responses) {
        (op.responses as Json)['414'] = {
          description: 'A path parameter is longer than any id could be (URI too long)',
          content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
        };
      }
      // Any request's request line and headers together may be over Node's limit (16 KiB by
      // default; a URL that long counts too): 431, answered before any route runs.
      if (op.responses) {
        (op.responses as Json)['431'] = {
          description: 'The request line and header fields together are larger than the server takes (a very long URL included)',
          content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
        };
      }
      for (const [status, response] of Object.entries((op.responses as Record<string, Json> | undefined) ?? {})) {
        const headers = ((response.headers as Json | undefined) ?? {}) as Json;
        headers['X-Request-Id'] = headerRef('XRequestId');
        if (p.startsWith('/v1/')) {
          headers['X-RateLimit-Limit'] = headerRef('RateLimitLimit');
          headers['X-RateLimit-Remaining'] = headerRef('RateLimitRemaining');
          headers['X-RateLimit-Reset'] = headerRef('RateLimitReset');
        }
        if (status === '429' || status === '503') headers['Retry-After'] = headerRef('RetryAfter');
        // A header a route declares by its name is the shared component of that name.
        for (const [name, component] of Object.entries(NAMED_HEADERS)) if (headers[name]) headers[name] = headerRef(component);
        response.headers = headers;
      }
    }
  }

  // Which components requests use and which responses use (following $refs).
  const requestOnly = reachable(doc, 'request');
  for (const name of reachable(doc, 'response')) requestOnly.delete(name);
  for (const name of requestOnly) {
    const s = schemas[name];
    if (s) defaultsIntoWords(s);
  }

  for (const s of Object.values(schemas)) addMappings(s, schemas);
  dropNoBodyContent(doc);
  shareProblemResponses(doc);
  // Only the header components some response uses.
  const used = new Set(JSON.stringify([doc.paths, components.responses]).match(/#\/components\/headers\/[A-Za-z]+/g) ?? []);
  const headerComponents = components.headers as Json;
  for (const name of Object.keys(headerComponents)) if (!used.has(`#/components/headers/${name}`)) delete headerComponents[name];
  return doc;
}

/**
 * The HEAD Fastify serves for a GET route (@fastify/swagger lists it as `<getId>-head`): an
 * operation of its own, named `head<Resource>` (`getHealth` → `headHealth`, `listSessions` →
 * `headSessions`), that answers what GET would, headers only.
 */
function nameHeadOperation(path: string, ops: Record<string, Json>): void {
  const head = ops.head;
  const get = ops.get;
  if (!head || !get || typeof get.operationId !== 'string') return;
  const resource = get.operationId.replace(/^(get|list)(?=[A-Z])/, '');
  head.operationId = `head${resource[0]!.toUpperCase()}${resource.slice(1)}`;
  head.summary = `${String(get.summary ?? get.operationId)} (HEAD: headers only)`;
  head.description = `The status and headers \`GET ${path}\` answers, without its body (RFC 9110 §9.3.2).`;
}

/**
 * A problem answer that several operations declare alike (the same description and headers)
 * becomes one `components.responses` entry (`Problem404`, …) they refer to: the document says
 * each once, and generated clients get one type per answer rather than one per operation.
 */
function shareProblemResponses(doc: Json): void {
  const byKey = new Map<string, { status: string; response: Json; uses: Json[] }>();
  for (const ops of Object.values(doc.paths as Record<string, Record<string, Json>>)) {
    for (const op of Object.values(ops)) {
      const responses = (op.responses ?? {}) as Record<string, Json>;
      for (const [status, response] of Object.entries(responses)) {
        if (Number(status) < 400 || !(response.content as Json | undefined)?.['application/problem+json']) continue;
        const key = `${status}\u0000${JSON.stringify(response)}`;
        let entry = byKey.get(key);
        if (!entry) byKey.set(key, (entry = { status, response, uses: [] }));
        entry.uses.push(responses);
      }
    }
  }
  const components = doc.components as Json;
  const shared = ((components.responses as Json | undefined) ?? {}) as Json;
  for (const { status, response, uses } of [...byKey.values()].sort((a, b) => b.uses.length - a.uses.length)) {
    if (uses.length < 2) continue;
    let name = `Problem${status}`;
    for (let n = 2; name in shared; n++) name = `Problem${status}_${n}`;
    shared[name] = response;
    for (const responses of uses) responses[status] = { $ref: `#/components/responses/${name}` };
  }
  components.responses = shared;
}

/** Component names reachable from the request bodies and parameters, or from the responses. */
function reachable(doc: Json, side: 'request' | 'response'): Set<string> {
  const schemas = (doc.components as Json).schemas as Record<string, Json>;
  const found = new Set<string>();
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) {
      for (const n of node) visit(n);
      return;
    }
    if (node === null || typeof node !== 'object') return;
    const ref = (node as Json).$ref;
    if (typeof ref === 'string' && ref.startsWith('#/components/schemas/')) {
      const name = ref.slice('#/components/schemas/'.length);
      if (!found.has(name)) {
        found.add(name);
        visit(schemas[name]);
      }
    }
    for (const v of Object.values(node)) visit(v);
  };
  for (const ops of Object.values(doc.paths as Record<string, Record<string, Json>>)) {
    for (const op of Object.values(ops)) {
      if (side === 'request') {
        visit(op.requestBody);
        visit(op.parameters);
      } else {
        visit(op.responses);
      }
    }
  }
  return found;
}

/** Moves every `default` of a request-only schema into its description (not into `$ref`s). */
function defaultsIntoWords(node: unknown): void {
  if (Array.isArray(node)) {
    for (const n of node) defaultsIntoWords(n);
    return;
  }
  if (node === null || typeof node !== 'object') return;
  const o = node as Json;
  if ('default' in o && (typeof o.type === 'string' || Array.isArray(o.type) || o.enum !== undefined)) {
    const words = `Default: \`${JSON.stringify(o.default)}\`.`;
    o.description = typeof o.description === 'string' && o.description !== '' ? `${o.description.replace(/\.?$/, '.')} ${words}` : words;
    delete o.default;
  }
  for (const [k, v] of Object.entries(o)) if (k !== 'default') defaultsIntoWords(v);
}

/** Adds `mapping` to every discriminated `oneOf` of `$ref`s. */
function addMappings(node: unknown, schemas: Record<string, Json>): void {
  if (Array.isArray(node)) {
    for (const n of node) addMappings(n, schemas);
    return;
  }
  if (node === null || typeof node !== 'object') return;
  const o = node as Json;
  const d = o.discriminator as Json | undefined;
  if (d && typeof d.propertyName === 'string' && Array.isArray(o.oneOf) && !d.mapping) {
    const mapping: Record<string, string> = {};
    for (const alt of o.oneOf as Json[]) {
      const ref = alt.$ref;
      if (typeof ref !== 'string') continue;
      const target = schemas[ref.slice('#/components/schemas/'.length)];
      // The tag is a constant (written as a one-value enum in the document).
      const prop = (target?.properties as Json | undefined)?.[d.propertyName] as Json | undefined;
      const tag = prop?.const ?? (Array.isArray(prop?.enum) && prop.enum.length === 1 ? prop.enum[0] : undefined);
      if (typeof tag === 'string') mapping[tag] = ref;
    }
    if (Object.keys(mapping).length === (o.oneOf as unknown[]).length) d.mapping = mapping;
  }
  for (const v of Object.values(o)) addMappings(v, schemas);
}

/**
 * An answer without a body (MCP's 202 for an accepted notification, and its DELETE's 200) is
 * declared with `x-norma-no-body`; the content @fastify/swagger writes for any response is removed.
 */
function dropNoBodyContent(doc: Json): void {
  for (const ops of Object.values(doc.paths as Record<string, Record<string, Json>>)) {
    for (const op of Object.values(ops)) {
      for (const response of Object.values((op.responses ?? {}) as Record<string, Json>)) {
        const content = response.content as Record<string, { schema?: Json }> | undefined;
        if (content && Object.values(content).some((c) => c.schema?.['x-norma-no-body'] === true)) delete response.content;
      }
    }
  }
}

