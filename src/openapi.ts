// The OpenAPI document exactly as a server generates it, serialised the way it is committed.
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from './config.js';
import { buildServer } from './server.js';

export async function generateOpenApiDocument(): Promise<string> {
  // Building the server touches no files; the data dir is only named.
  const config = loadConfig({ NORMA_DATA_DIR: path.join(os.tmpdir(), 'norma-openapi-unused'), NORMA_LOG_LEVEL: 'silent' });
  const server = await buildServer(config);
  try {
    await server.app.ready();
    return `${JSON.stringify(server.app.swagger(), null, 2)}\n`;
  } finally {
    await server.app.close();
  }
}
