// A real server on a loopback port with its own temp data dir; everything is removed on close.
import { createTestDatabase } from './postgres.js';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { loadConfig, type Config } from '../../src/config.js';
import { buildServer, type NormaServer, type ServerOptions } from '../../src/server.js';
import { ContractClient, assertComponent, checkResponse } from './contract.js';
import { testSandboxHost } from './sandbox.js';

export interface TestServer {
  url: string;
  server: NormaServer;
  config: Config;
  dataDir: string;
  api: ContractClient;
  /** Responses the server sent that the OpenAPI document does not allow (close() fails on any). */
  violations: string[];
  close(): Promise<void>;
}

export async function startServer(
  env: Record<string, string> = {},
  options: ServerOptions & {
    configure?: (c: Config) => void;
    /** Serve from this data directory (a restart of an earlier server); it is kept on close. */
    dataDir?: string;
  } = {},
): Promise<TestServer> {
  const dataDir = options.dataDir ?? (await fs.mkdtemp(path.join(os.tmpdir(), 'norma-test-')));
  const ownsDir = options.dataDir === undefined;
  const config = loadConfig({ NORMA_DATA_DIR: dataDir, PORT: '0', NORMA_LOG_LEVEL: 'silent', ...(await storeOnRequest(env, dataDir, options)), ...env });
  options.configure?.(config);
  let server: NormaServer;
  try {
    // One sandbox host per test file (its system scan and cgroups are made once), unless the
    // test brings its own or turns the sandbox off.
    const processSandbox = options.processSandbox ?? (config.sandbox === 'bwrap' ? await testSandboxHost() : undefined);
    server = await buildServer(config, { ...options, ...(processSandbox ? { processSandbox } : {}) });
  } catch (err) {
    if (ownsDir) await fs.rm(dataDir, { recursive: true, force: true });
    throw err;
  }
  // Every response the server sends to a route is checked against the committed OpenAPI document
  // (status, content type, body, contract headers), whoever made the request: a test client, a
  // browser, raw fetch. Closing the server fails when any was off-contract.
  const violations: string[] = [];
  server.app.addHook('onSend', async (req, reply, payload) => {
    const template = req.routeOptions.url;
    try {
      // Unmatched paths (404, 405, 414) have no operation: their answer is still a problem.
      if (template === undefined) {
        if (reply.statusCode >= 400) {
          const type = String(reply.getHeader('content-type') ?? '');
          if (!type.startsWith('application/problem+json')) throw new Error(`${req.method} ${req.url} ${reply.statusCode} is ${type}, not a problem`);
          assertComponent('Problem', JSON.parse(String(payload)));
        }
        return payload;
      }
      // The documents themselves (/openapi.json, /docs) and the console's files are not operations.
      if (!template.startsWith('/v1/') && template !== '/healthz' && template !== '/readyz' && template !== '/console/session' && template !== '/mcp') return payload;
      const contentType = String(reply.getHeader('content-type') ?? '');
      let body: unknown;
      // Fastify writes no body with 204 and 304, whatever the handler passed.
      if (reply.statusCode === 204 || reply.statusCode === 304) body = '';
      else if (typeof payload === 'string' || Buffer.isBuffer(payload)) {
        const text = payload.toString();
        body = contentType.includes('json') && text !== '' ? JSON.parse(text) : text;
      } else if (payload === null || payload === undefined) body = '';
      else body = undefined; // a stream: not read here
      const headers: Record<string, string | undefined> = {};
      for (const [k, v] of Object.entries(reply.getHeaders())) if (v !== undefined) headers[k.toLowerCase()] = String(v);
      checkResponse({ method: req.method, path: template, status: reply.statusCode, contentType, body, headers });
    } catch (err) {
      violations.push((err as Error).message);
    }
    return payload;
  });
  const address = await server.app.listen({ port: 0, host: '127.0.0.1' });
  const api = new ContractClient(address, env.NORMA_TOKEN);
  return {
    url: address,
    server,
    config,
    dataDir,
    api,
    violations,
    close: async () => {
      await server.close();
      if (ownsDir) await fs.rm(dataDir, { recursive: true, force: true });
      if (violations.length > 0) throw new Error(`the server sent ${violations.length} response(s) off the OpenAPI contract:\n${violations.slice(0, 10).join('\n')}`);
    },
  };
}

/** Data directory → the database its servers use, when the run asked for PostgreSQL. */
const databases = new Map<string, Promise<string>>();

/**
 * NORMA_TEST_STORE=postgres runs every server a test starts without a store of its own on
 * PostgreSQL (a database per data directory, so a restart finds what the first server stored):
 * the whole suite, once, on the other engine. The run's cluster is removed with them.
 */
async function storeOnRequest(env: Record<string, string>, dataDir: string, options: ServerOptions): Promise<Record<string, string>> {
  if (process.env.NORMA_TEST_STORE !== 'postgres' || env.NORMA_STORE !== undefined || options.store) return {};
  let url = databases.get(dataDir);
  if (!url) databases.set(dataDir, (url = createTestDatabase().then((db) => db.url)));
  return { NORMA_STORE: 'postgres', NORMA_DATABASE_URL: await url };
}

/**
 * Closes every server of a test (their temp dirs go with them), even when one of them reports a
 * failure (an off-contract answer), and empties the list; the first failure is thrown after.
 */
export async function closeAll(servers: { close(): Promise<void> }[]): Promise<void> {
  const closing = await Promise.allSettled(servers.splice(0).map((t) => t.close()));
  for (const c of closing) if (c.status === 'rejected') throw c.reason;
}
