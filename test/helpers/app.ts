// The application (src/app) over real parts — SQLite in a temp directory, the real event log,
// validator and outputs — without HTTP, for testing the use cases and the session layer directly.
import { NO_POLICIES } from '../../src/tenants/policy.js';
import { TicketBook } from '../../src/tenants/tickets.js';
import { INTERNAL } from '../../src/app/scope.js';
import { McpSchemas } from '../../src/mcp/schema-check.js';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { createApplication, type Application } from '../../src/app/index.js';
import { loadConfig, type Config } from '../../src/config.js';
import { EventLog } from '../../src/events/log.js';
import { HookRegistry } from '../../src/hooks/registry.js';
import { newId, systemClock } from '../../src/ids.js';
import { InputValidator } from '../../src/pipeline/validate.js';
import { OutputFiles } from '../../src/store/outputs.js';
import { SqliteStore } from '../../src/store/sqlite.js';
import type { NormaEvent } from '../../src/contract/events.js';
import { unsandboxedHost } from './sandbox.js';
import { ToolCatalog } from '../../src/tools/catalog.js';
import { HtmlConverter } from '../../src/web/html-convert.js';
import { findRipgrep } from '../../src/capabilities/files/grep.js';

export interface AppHarness {
  app: Application;
  store: SqliteStore;
  events: EventLog;
  config: Config;
  dir: string;
  /** Every event emitted so far, in order. */
  seen: NormaEvent[];
  /** A second application on the same database and data directory: a restart. */
  restart(): Promise<AppHarness>;
  close(): Promise<void>;
}

export async function appHarness(env: Record<string, string> = {}, dir?: string): Promise<AppHarness> {
  const data = dir ?? (await fs.mkdtemp(path.join(os.tmpdir(), 'norma-app-')));
  const config = loadConfig({ NORMA_DATA_DIR: data, NORMA_SANDBOX: 'off', NORMA_LOG_LEVEL: 'silent', ...env });
  const store = new SqliteStore(config.databaseFile);
  const events = new EventLog(store, systemClock);
  const logger = pino({ level: 'silent' });
  const seen: NormaEvent[] = [];
  const sandbox = unsandboxedHost();
  const app = createApplication({
    config,
    store,
    events,
    clock: systemClock,
    newId,
    logger,
    validator: new InputValidator(),
    mcpSchemas: new McpSchemas(),
    hooks: new HookRegistry(),
    catalog: new ToolCatalog({ rgPath: findRipgrep(), html: new HtmlConverter() }),
    outputs: new OutputFiles(path.join(data, 'outputs'), store, systemClock, newId, { maxAgeMs: config.outputRetentionMs, maxBytesPerSession: config.outputMaxBytesPerSession }, logger),
    sandbox,
    sandboxStatus: () => sandbox.selfTest(path.join(data, 'sandbox', 'selftest')),
    tenants: NO_POLICIES,
    tickets: new TicketBook(),
  });
  const originalEmit = events.emit.bind(events);
  events.emit = (sessionId, input) => {
    const e = originalEmit(sessionId, input);
    seen.push(e);
    return e;
  };
  let closed = false;
  const stop = async () => {
    if (closed) return;
    closed = true;
    await app.shutdown(INTERNAL, 0);
    store.close();
  };
  return {
    app,
    store,
    events,
    config,
    dir: data,
    seen,
    restart: async () => {
      await stop();
      return appHarness(env, data);
    },
    close: async () => {
      await stop();
      await fs.rm(data, { recursive: true, force: true });
    },
  };
}
