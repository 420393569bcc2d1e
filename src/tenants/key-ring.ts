// The keys in force: NORMA_TOKEN (an admin key of the default tenant) and the keys of
// NORMA_API_KEYS_FILE, with their tenants' policies. A presented key is hashed first and found
// by its SHA-256 (one map lookup, however many keys there are), then compared in constant time:
// the secret itself is never compared byte by byte, so how much of a stored key a guess matches
// never shows in the timing — only the hash of the guess is looked up, and finding a stored key
// from it needs a preimage. Replaced as a whole on reload. What a key makes (console logins,
// event tickets, event streams) is bound to the key's id, derived from its SHA-256, and looked up
// again on every use: a key removed, expired or replaced under the same name ends it.
import { createHash, timingSafeEqual } from 'node:crypto';
import { DEFAULT_TENANT, expandScopes, type KeyScope } from '../contract/tenant.js';
import { TOKEN_KEY_NAME, type LoadedKey, type LoadedKeys } from './keys-file.js';
import type { CompiledPolicy, TenantPolicies } from './policy.js';

export { TOKEN_KEY_NAME };

export interface KeyIdentity {
  /**
   * The exact key: an id derived from its SHA-256 (keyIdOf). What is made with a key — console
   * logins, event tickets, event streams — is bound to it, not to the name: a new key under the
   * same name has another id, and ends them.
   */
  id: string;
  name: string;
  tenant: string;
  access: ReadonlySet<KeyScope>;
}

/**
 * The id of the key with this SHA-256: the same on every replica, and not the digest itself (the
 * digest is what finds a key in the file; the id is what shared tables keep).
 */
export function keyIdOf(digest: Buffer): string {
  return createHash('sha256').update('norma key id\0').update(digest).digest('base64url').slice(0, 32);
}

export type Authentication = { ok: true; key: KeyIdentity } | { ok: false; reason: 'unknown' | 'expired' };

export class KeyRing implements TenantPolicies {
  private keys: LoadedKey[] = [];
  private byDigest = new Map<string, { key: LoadedKey; id: string }>();
  private byId = new Map<string, { key: LoadedKey; id: string }>();
  private policies = new Map<string, CompiledPolicy>();
  private readonly listeners = new Set<(changed: ReadonlySet<string>) => void>();

  constructor(
    private readonly token: string | undefined,
    loaded?: LoadedKeys,
  ) {
    this.install(loaded ?? { keys: [], policies: new Map() });
  }

  /** Whether a key is configured: a request without one is then refused. */
  get required(): boolean {
    return this.keys.length > 0;
  }

  get size(): number {
    return this.keys.length;
  }

  authenticate(presented: string, now: number): Authentication {
    const digest = createHash('sha256').update(presented).digest();
    const found = this.byDigest.get(digest.toString('hex'));
    if (!found || !timingSafeEqual(found.key.digest, digest)) return { ok: false, reason: 'unknown' };
    if (found.key.expiresAt !== null && now >= found.key.expiresAt) return { ok: false, reason: 'expired' };
    return { ok: true, key: identity(found.key, found.id) };
  }

  /**
   * The key of that id as it is now, while it is in force: null once it was removed or replaced
   * (a new key under the same name has another id) or expired. Its tenant and scopes are the
   * current ones.
   */
  inForce(id: string, now: number): KeyIdentity | null {
    const found = this.byId.get(id);
    if (!found || (found.key.expiresAt !== null && now >= found.key.expiresAt)) return null;
    return identity(found.key, found.id);
  }

  /**
   * Whether what a login, ticket or stream of key `id` (null: made without a key) was made for
   * still holds: that key is in force, of `tenant`, with `access`; or, without a key, none is required.
   */
  stillGrants(id: string | null, tenant: string, access: KeyScope, now: number): boolean {
    if (id === null) return !this.required;
    const key = this.inForce(id, now);
    return key !== null && key.tenant === tenant && key.access.has(access);
  }

  policyOf(tenant: string): CompiledPolicy | null {
    return this.policies.get(tenant) ?? null;
  }

  tenants(): string[] {
    return [...new Set(this.keys.map((k) => k.tenant))];
  }

  /** Puts a newly loaded file in force; listeners hear which tenants' policies changed. */
  replace(loaded: LoadedKeys): { keys: number; tenants: number; changedPolicies: string[] } {
    const before = this.policies;
    this.install(loaded);
    const changed = new Set<string>();
    for (const t of new Set([...before.keys(), ...this.policies.keys()])) {
      if (JSON.stringify(before.get(t)?.source) !== JSON.stringify(this.policies.get(t)?.source)) changed.add(t);
    }
    for (const l of this.listeners) l(changed);
    return { keys: this.keys.length, tenants: this.tenants().length, changedPolicies: [...changed] };
  }

  /** Called after every reload with the tenants whose policy changed. */
  onChange(listener: (changed: ReadonlySet<string>) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private install(loaded: LoadedKeys): void {
    const keys = [...loaded.keys];
    if (this.token !== undefined) {
      keys.unshift({
        name: TOKEN_KEY_NAME,
        digest: createHash('sha256').update(this.token).digest(),
        tenant: DEFAULT_TENANT,
        access: expandScopes(['admin']),
        expiresAt: null,
      });
    }
    this.keys = keys;
    const entries = keys.map((key) => ({ key, id: keyIdOf(key.digest) }));
    this.byDigest = new Map(entries.map((e) => [e.key.digest.toString('hex'), e]));
    this.byId = new Map(entries.map((e) => [e.id, e]));
    this.policies = loaded.policies;
  }

  /** Whether NORMA_TOKEN is also one of the file's keys (refused: one key, one tenant). */
  tokenAmong(loaded: LoadedKeys): LoadedKey | undefined {
    if (this.token === undefined) return undefined;
    const d = createHash('sha256').update(this.token).digest();
    return loaded.keys.find((k) => k.digest.equals(d));
  }
}

function identity(k: LoadedKey, id: string): KeyIdentity {
  return { id, name: k.name, tenant: k.tenant, access: k.access };
}
