// NORMA_HOOKS_FILE: the operator's hooks for every session, read and checked at start-up. Any
// problem stops start-up, naming the file and the hook.
import fs from 'node:fs/promises';
import { Value } from '@sinclair/typebox/value';
import { ConfigError, type Config } from '../config.js';
import { SessionHooksSchema } from '../contract/schemas.js';
import type { Resolver } from '../sandbox/egress.js';
import type { SandboxHost, SandboxStatus } from '../sandbox/process.js';
import { compileSessionHooks } from './config.js';
import type { SessionHooks } from './registry.js';

export async function loadHooksFile(
  config: Config,
  host: SandboxHost,
  sandboxStatus: () => Promise<SandboxStatus>,
  resolve: Resolver | undefined,
): Promise<SessionHooks> {
  const file = config.hooksFile!;
  let json: unknown;
  try {
    json = JSON.parse(await fs.readFile(file, 'utf8'));
  } catch (err) {
    throw new ConfigError([`NORMA_HOOKS_FILE ${file}: ${(err as Error).message}`]);
  }
  if (!Value.Check(SessionHooksSchema, json)) {
    const problems = [...Value.Errors(SessionHooksSchema, json)].map((e) => `NORMA_HOOKS_FILE ${file}: ${e.path || '(root)'} ${e.message}`);
    throw new ConfigError(problems.slice(0, 20));
  }
  const hooks = json as SessionHooks;
  const status = await sandboxStatus();
  const { problems } = compileSessionHooks(hooks, { mode: host.mode, usable: status.usable, detail: status.detail }, {
    allow: config.egressAllow,
    ...(resolve ? { resolve } : {}),
  }, 'NORMA_HOOKS_FILE');
  if (problems.length > 0) throw new ConfigError(problems);
  return hooks;
}
