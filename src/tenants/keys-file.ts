// NORMA_API_KEYS_FILE: a JSON list of keys, each `{key_sha256, tenant, scopes, name?,
// expires_at?, policy?}`. Read and checked as a whole: any problem refuses the whole file (at
// start-up that stops the server; on SIGHUP the keys in force stay), naming the entry and field.
import fs from 'node:fs/promises';
import { isDeepStrictEqual } from 'node:util';
import { Type } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { ApiKeyEntrySchema, expandScopes, type ApiKeyEntry, type KeyScope } from '../contract/tenant.js';
import type { SessionHooks } from '../contract/hooks.js';
import { compilePolicy, type CompiledPolicy } from './policy.js';

/** The name NORMA_TOKEN's key has in logs and audit records: no entry of the file may take it. */
export const TOKEN_KEY_NAME = 'NORMA_TOKEN';

/** Most keys one file may list. */
export const MAX_KEYS = 10_000;

const KeysFileSchema = Type.Array(ApiKeyEntrySchema, { maxItems: MAX_KEYS });

export interface LoadedKey {
  name: string;
  /** SHA-256 of the key (32 bytes). */
  digest: Buffer;
  tenant: string;
  access: ReadonlySet<KeyScope>;
  /** ms since the epoch; null: never. */
  expiresAt: number | null;
}

export interface LoadedKeys {
  keys: LoadedKey[];
  policies: Map<string, CompiledPolicy>;
}

/** Checks the policies' hooks where they would run (the sandbox for command hooks, the egress guard for http ones). */
export type HookCheck = (hooks: SessionHooks, where: string) => Promise<string[]>;

/** The key's name when the entry gives none: `key_` and the first 12 hex digits of its hash. */
export function defaultKeyName(sha256Hex: string): string {
  return `key_${sha256Hex.slice(0, 12).toLowerCase()}`;
}

/** Reads and checks the file; throws an Error listing every problem. */
export async function loadKeysFile(file: string, checkHooks: HookCheck): Promise<LoadedKeys> {
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (err) {
    throw new KeysFileError(file, [(err as Error).message]);
  }
  return parseKeys(file, text, checkHooks);
}

export class KeysFileError extends Error {
  constructor(
    readonly file: string,
    readonly problems: string[],
  ) {
    super(`NORMA_API_KEYS_FILE ${file}: ${problems.join('; ')}`);
    this.name = 'KeysFileError';
  }
}

export async function parseKeys(file: string, text: string, checkHooks: HookCheck): Promise<LoadedKeys> {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new KeysFileError(file, [`not JSON: ${(err as Error).message}`]);
  }
  if (!Value.Check(KeysFileSchema, json)) {
    const problems = [...Value.Errors(KeysFileSchema, json)].slice(0, 20).map((e) => `${e.path || '(root)'}: ${e.message}${known(e.schema as { additionalProperties?: unknown; properties?: Record<string, unknown> }, e.message)}`);
    throw new KeysFileError(file, problems);
  }
  const entries = json as ApiKeyEntry[];
  const problems: string[] = [];
  const keys: LoadedKey[] = [];
  const byDigest = new Map<string, number>();
  const byName = new Map<string, number>();
  const policySource = new Map<string, { index: number; policy: NonNullable<ApiKeyEntry['policy']> }>();
  for (const [i, e] of entries.entries()) {
    const hex = e.key_sha256.toLowerCase();
    const name = e.name ?? defaultKeyName(hex);
    const seen = byDigest.get(hex);
    if (seen !== undefined) problems.push(`[${i}].key_sha256: the same key as entry [${seen}] (a key belongs to one tenant, once)`);
    else byDigest.set(hex, i);
    if (name === TOKEN_KEY_NAME) problems.push(`[${i}].name: ${JSON.stringify(name)} is the name of NORMA_TOKEN's key; choose another`);
    const named = byName.get(name);
    if (named !== undefined) problems.push(`[${i}].name: ${JSON.stringify(name)} is also entry [${named}]'s name`);
    else byName.set(name, i);
    let expiresAt: number | null = null;
    if (e.expires_at !== undefined) expiresAt = Date.parse(e.expires_at);
    if (e.policy !== undefined) {
      const other = policySource.get(e.tenant);
      if (other === undefined) policySource.set(e.tenant, { index: i, policy: e.policy });
      else if (!isDeepStrictEqual(other.policy, e.policy)) {
        problems.push(`[${i}].policy: tenant ${JSON.stringify(e.tenant)} already has a different policy in entry [${other.index}] (a policy is the tenant's: give it once, or the same on every entry)`);
      }
    }
    keys.push({ name, digest: Buffer.from(hex, 'hex'), tenant: e.tenant, access: expandScopes(e.scopes), expiresAt });
  }
  const policies = new Map<string, CompiledPolicy>();
  for (const [tenant, { index, policy }] of policySource) {
    const where = `[${index}].policy`;
    const compiled = compilePolicy(tenant, policy, where);
    problems.push(...compiled.problems);
    if (compiled.policy.hooks) problems.push(...(await checkHooks(compiled.policy.hooks, `${where}.hooks`)));
    policies.set(tenant, compiled.policy);
  }
  if (problems.length > 0) throw new KeysFileError(file, problems);
  return { keys, policies };
}

/** For a property a closed object does not know (a typo is the usual cause): the ones it does. */
function known(schema: { additionalProperties?: unknown; properties?: Record<string, unknown> }, message: string): string {
  if (schema.additionalProperties !== false || message !== 'Unexpected property') return '';
  return ` (known: ${Object.keys(schema.properties ?? {}).join(', ')})`;
}
