// The OpenAPI document exactly as a server generates it, serialised the way it is committed.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from './config.js';
import { buildServer } from './server.js';

export async function generateOpenApiDocument(): Promise<string> {
  // A throwaway server: in-memory store, its own temporary data directory, removed afterwards.
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'norma-openapi-'));
  try {
    const config = loadConfig({ NORMA_DATA_DIR: dataDir, NORMA_LOG_LEVEL: 'silent', NORMA_STORE: 'memory' });
    const server = await buildServer(config);
    try {
      await server.app.ready();
      return `${JSON.stringify(server.app.swagger(), null, 2)}\n`;
    } finally {
      await server.close();
    }
  } finally {
    await fs.rm(dataDir, { recursive: true, force: true });
  }
}
