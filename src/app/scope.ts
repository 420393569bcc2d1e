// Who is calling: every use case takes the caller's scope first. A key belongs to one tenant
// and sees that tenant's sessions only (another tenant's session does not exist for it); what
// it may do there is its access, checked by the HTTP edge per route.
import { DEFAULT_TENANT, KEY_SCOPES, type KeyScope } from '../contract/tenant.js';

export interface Scope {
  /**
   * How the caller was admitted. `key`: an API key (NORMA_TOKEN or NORMA_API_KEYS_FILE);
   * `ticket`: an event ticket a key took; `console`: the web console's login of a key; `loopback`: no key is configured, which the config
   * allows only on a loopback bind; `internal`: the server acting for itself.
   */
  principal: 'key' | 'ticket' | 'console' | 'loopback' | 'internal';
  /** The tenant whose sessions the caller sees; null only for the server itself (every tenant). */
  tenant: string | null;
  /** What the caller may do (the key's scopes with the ones they include). */
  access: ReadonlySet<KeyScope>;
  /** The key's name in logs and audit records; null without a key. */
  key: string | null;
  /**
   * The exact key (an id derived from its SHA-256, see KeyRing): what a login, a ticket or a
   * stream made with it is bound to, so a new key under the same name is another key. Null
   * without a key.
   */
  keyId: string | null;
}

/**
 * What changing a session's rules and mode needs (PATCH /v1/sessions/{session_id}). An answer
 * that would add rules or choose a mode is held to the same: without it, an answer adds only
 * what the request itself offered (src/app/answer-bounds.ts).
 */
export const SESSION_CHANGE_ACCESS: KeyScope = 'write';

/** The server acting for itself (recovery, retention, shutdown): every tenant's sessions. */
export const INTERNAL: Scope = Object.freeze({ principal: 'internal', tenant: null, access: new Set(KEY_SCOPES), key: null, keyId: null });

/** The caller on a loopback bind with no key configured: the default tenant, everything allowed. */
export const LOOPBACK: Scope = Object.freeze({ principal: 'loopback', tenant: DEFAULT_TENANT, access: new Set(KEY_SCOPES), key: null, keyId: null });

/**
 * Whether the caller is the server's operator: the server itself, or an `admin` of the default
 * tenant — NORMA_TOKEN's key, an `admin` key the keys file gives to `default`, and the loopback
 * caller when no key is configured. The default tenant is the server's own (its workspaces are
 * the root's, NORMA_TOKEN belongs to it); an `admin` key of any other tenant administers that
 * tenant only, so views of the whole process (GET /metrics) are not its to read.
 */
export function isOperator(scope: Scope): boolean {
  return scope.tenant === null || (scope.tenant === DEFAULT_TENANT && scope.access.has('admin'));
}

/** The tenant a new session of this caller belongs to. */
export function tenantOf(scope: Scope): string {
  return scope.tenant ?? DEFAULT_TENANT;
}
