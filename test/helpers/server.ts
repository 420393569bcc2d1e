// A real server on a loopback port with its own temp data dir; everything is removed on close.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { loadConfig, type Config } from '../../src/config.js';
import { buildServer, type NormaServer, type ServerOptions } from '../../src/server.js';
import { ContractClient } from './contract.js';
import { testSandboxHost } from './sandbox.js';

export interface TestServer {
  url: string;
  server: NormaServer;
  config: Config;
  dataDir: string;
  api: ContractClient;
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
  const config = loadConfig({ NORMA_DATA_DIR: dataDir, PORT: '0', NORMA_LOG_LEVEL: 'silent', ...env });
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
  const address = await server.app.listen({ port: 0, host: '127.0.0.1' });
  const api = new ContractClient(address, env.NORMA_TOKEN);
  return {
    url: address,
    server,
    config,
    dataDir,
    api,
    close: async () => {
      await server.close();
      if (ownsDir) await fs.rm(dataDir, { recursive: true, force: true });
    },
  };
}
