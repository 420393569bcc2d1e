// Keys and keys files for tests: random keys, their SHA-256, and a file in a temp dir.
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ContractClient } from './contract.js';
import { startServer, type TestServer } from './server.js';

export const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

export function newKey(label: string): string {
  return `nk_${label}_${randomBytes(18).toString('base64url')}`;
}

export interface KeySpec {
  key: string;
  tenant: string;
  scopes: string[];
  name?: string;
  expires_at?: string;
  policy?: Record<string, unknown>;
}

export function keysJson(specs: KeySpec[]): string {
  return JSON.stringify(
    specs.map(({ key, ...rest }) => ({ key_sha256: sha256(key), ...rest })),
    null,
    2,
  );
}

/** Writes the keys to a file in a new temp dir; `remove` deletes both. */
export async function keysFile(specs: KeySpec[] | string): Promise<{ file: string; write(specs: KeySpec[] | string): Promise<void>; remove(): Promise<void> }> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'norma-keys-'));
  const file = path.join(dir, 'keys.json');
  const write = (s: KeySpec[] | string) => fs.writeFile(file, typeof s === 'string' ? s : keysJson(s));
  await write(specs);
  return { file, write, remove: () => fs.rm(dir, { recursive: true, force: true }) };
}

/** A contract-checked client that sends this key. */
export function clientFor(url: string, key: string): ContractClient {
  return new ContractClient(url, key);
}

export type KeyedServer = TestServer & { keys: { file: string; write(specs: KeySpec[] | string): Promise<void> } };

/**
 * A server with a keys file of these keys (NORMA_SANDBOX=off unless `env` says otherwise);
 * `keys.write` changes the file (then `server.reloadKeys()`), and `close` removes it too.
 */
export async function startWithKeys(specs: KeySpec[] | string, env: Record<string, string> = {}, options: Parameters<typeof startServer>[1] = {}): Promise<KeyedServer> {
  const f = await keysFile(specs);
  let t: TestServer;
  try {
    t = await startServer({ NORMA_SANDBOX: 'off', NORMA_API_KEYS_FILE: f.file, ...env }, options);
  } catch (err) {
    await f.remove();
    throw err;
  }
  return {
    ...t,
    keys: { file: f.file, write: f.write },
    close: async () => {
      try {
        await t.close();
      } finally {
        await f.remove();
      }
    },
  };
}
