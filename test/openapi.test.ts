// The committed OpenAPI document is exactly what the server generates, and is well formed.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../src/config.js';
import { buildServer } from '../src/server.js';
import { describe, expect, it } from 'vitest';
import { generateOpenApiDocument } from '../src/openapi.js';
import { EVENT_SCHEMAS } from '../src/contract/events.js';
import { servedRoutes } from '../src/http/docs.js';

describe('openapi/openapi.json', () => {
  it('is identical to what the server generates (run `npm run openapi:write` after changing routes)', async () => {
    const committed = await fs.readFile(new URL('../openapi/openapi.json', import.meta.url), 'utf8');
    expect(committed).toBe(await generateOpenApiDocument());
  });

  it('is OpenAPI 3.1 with named components for shared schemas and every SSE event', async () => {
    const doc = JSON.parse(await generateOpenApiDocument());
    expect(doc.openapi).toBe('3.1.0');
    const names = Object.keys(doc.components.schemas);
    for (const name of ['Problem', 'Session', 'Turn', 'ToolResult', 'Truncation', 'PermissionRequest', 'Event']) {
      expect(names).toContain(name);
    }
    for (const e of EVENT_SCHEMAS) expect(names).toContain(e.$id);
    // No anonymous def-N components leak from unregistered schemas.
    expect(names.filter((n) => /^def-\d+$/.test(n))).toEqual([]);
  });

  it('declares problem+json for errors and a schema for every response of every operation', async () => {
    const doc = JSON.parse(await generateOpenApiDocument());
    let operations = 0;
    for (const [p, ops] of Object.entries<Record<string, any>>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(ops)) {
        operations++;
        expect(op.operationId, `${method} ${p}`).toEqual(expect.any(String));
        for (const [status, declared] of Object.entries<any>(op.responses)) {
          if (status === '204' || status === '304') continue;
          // MCP's answers without a body: a notification accepted (202), a session ended (DELETE's 200).
          if (p === '/mcp' && (status === '202' || (method === 'delete' && status === '200'))) {
            expect(declared.content, `${method} ${p} ${status}`).toBeUndefined();
            continue;
          }
          // A shared answer is written once under components.responses.
          const response = declared.$ref ? doc.components.responses[declared.$ref.split('/').pop()] : declared;
          expect(response.content, `${method} ${p} ${status}`).toBeDefined();
          const types = Object.keys(response.content);
          // /mcp answers protocol errors as JSON-RPC errors, as the MCP specification says (and HTTP-level ones as problems).
          if (Number(status) >= 400 && p === '/mcp') expect(types.every((t) => t === 'application/problem+json' || t === 'application/json'), `${method} ${p} ${status}`).toBe(true);
          else if (Number(status) >= 400 && p !== '/readyz') expect(types, `${method} ${p} ${status}`).toEqual(['application/problem+json']);
        }
      }
    }
    // 50 operations (the client-tool routes' 3 and /mcp's 3 among them), and the HEAD of each GET
    // route but the event streams and /mcp.
    expect(operations).toBe(87);
  });
});

describe('what third-party tools read', () => {
  it('has no boolean schemas (a never-present property is `{"not": {}}`); only `additionalProperties: false` is a boolean', async () => {
    const doc = JSON.parse(await fs.readFile(new URL('../openapi/openapi.json', import.meta.url), 'utf8'));
    const booleans: string[] = [];
    const SCHEMA_MAPS = ['properties', 'patternProperties', '$defs', 'dependentSchemas'];
    const SCHEMA_KEYS = ['items', 'not', 'if', 'then', 'else', 'contains', 'propertyNames', 'unevaluatedProperties', 'unevaluatedItems', 'additionalItems'];
    const SCHEMA_LISTS = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];
    const walk = (node: unknown, at: string): void => {
      if (node === null || typeof node !== 'object') return;
      if (Array.isArray(node)) return node.forEach((n, i) => walk(n, `${at}/${i}`));
      for (const [k, v] of Object.entries(node)) {
        if (SCHEMA_KEYS.includes(k) && typeof v === 'boolean') booleans.push(`${at}/${k}`);
        if (SCHEMA_MAPS.includes(k) && v && typeof v === 'object') for (const [name, s] of Object.entries(v)) if (typeof s === 'boolean') booleans.push(`${at}/${k}/${name}`);
        if (SCHEMA_LISTS.includes(k) && Array.isArray(v)) v.forEach((s, i) => typeof s === 'boolean' && booleans.push(`${at}/${k}/${i}`));
        if (k === 'schema' && typeof v === 'boolean') booleans.push(`${at}/${k}`);
        walk(v, `${at}/${k}`);
      }
    };
    walk(doc, '#');
    expect(booleans).toEqual([]);
    const direct = doc.components.schemas.DirectTurnCreate.properties.prompt;
    expect(direct.not).toEqual({});
  });

  it('describes the event stream as text, naming the Event schema of each data in x-sse-data-schema', async () => {
    const doc = JSON.parse(await fs.readFile(new URL('../openapi/openapi.json', import.meta.url), 'utf8'));
    const schema = doc.paths['/v1/sessions/{session_id}/events'].get.responses['200'].content['text/event-stream'].schema;
    expect(schema.type).toBe('string');
    expect(schema['x-sse-data-schema']).toEqual({ $ref: '#/components/schemas/Event' });
    expect(doc.components.schemas.Event.oneOf.length).toBe(EVENT_SCHEMAS.length);
  });
});

describe('the document and the router', () => {
  it('declare the same operations: every method and path served is in the document, HEAD included, and nothing else is', async () => {
    const doc = JSON.parse(await fs.readFile(new URL('../openapi/openapi.json', import.meta.url), 'utf8'));
    const declared = new Set<string>();
    for (const [p, ops] of Object.entries<Record<string, unknown>>(doc.paths)) for (const method of Object.keys(ops)) declared.add(`${method.toUpperCase()} ${p}`);
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'norma-routes-'));
    try {
      const server = await buildServer(loadConfig({ NORMA_DATA_DIR: dataDir, NORMA_LOG_LEVEL: 'silent', NORMA_STORE: 'memory', NORMA_SANDBOX: 'off' }));
      try {
        await server.app.ready();
        const routes = servedRoutes(server.app);
        const served = new Set(routes.filter((r) => !r.hidden).map((r) => `${r.method} ${r.url.replace(/:([A-Za-z_]+)/g, '{$1}')}`));
        expect([...served].filter((r) => !declared.has(r)).sort(), 'served, not declared').toEqual([]);
        expect([...declared].filter((r) => !served.has(r)).sort(), 'declared, not served').toEqual([]);
        // HEAD wherever GET is, but on the endless event streams (a HEAD there would hold a subscription open for nothing).
        const gets = [...served].filter((r) => r.startsWith('GET ')).map((r) => r.slice(4));
        expect(gets.filter((p) => !served.has(`HEAD ${p}`)).sort()).toEqual(['/mcp', '/v1/events', '/v1/sessions/{session_id}/events']);
        // The hidden routes are the document itself, its UI and the console's files, nothing of the API.
        for (const r of routes.filter((r) => r.hidden)) expect(r.url, `${r.method} ${r.url}`).toMatch(/^(\/openapi\.json$|\/docs(\/|$)|\/console(\/|$)|\*$)/);
      } finally {
        await server.close();
      }
    } finally {
      await fs.rm(dataDir, { recursive: true, force: true });
    }
  });
});

describe('request validators', () => {
  it('every route\'s validators compile (the server compiles them on first use or after it listens)', async () => {
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'norma-validators-'));
    try {
      const server = await buildServer(loadConfig({ NORMA_DATA_DIR: dataDir, NORMA_LOG_LEVEL: 'silent', NORMA_STORE: 'memory', NORMA_SANDBOX: 'off' }));
      try {
        await server.app.ready();
        // Body, query, params and headers of every operation: more validators than operations.
        expect(server.compileValidators()).toBeGreaterThan(40);
      } finally {
        await server.close();
      }
    } finally {
      await fs.rm(dataDir, { recursive: true, force: true });
    }
  });
});
