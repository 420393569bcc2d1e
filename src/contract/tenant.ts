// Tenants and API keys (API.md "Tenants, keys and browsers"): the entries of NORMA_API_KEYS_FILE,
// the policy a tenant's sessions cannot loosen, the policy as a session shows it, and event
// tickets.
import { SecretsSchema } from './secrets.js';
import { Type, type Static } from '@sinclair/typebox';
import { ID_PATTERN, ref, StringEnum } from './common.js';
import { RuleString, Timestamp } from './fields.js';
import { SessionHooksSchema } from './hooks.js';
import { PERMISSION_MODES, PermissionModeSchema, type PermissionMode } from './permission.js';

/**
 * What a key may do. Each includes the ones after it: `admin` ⊇ `write` ⊇ `approve` ⊇ `read`.
 * `read`: GET (events included) and event tickets; `approve`: also answer permission requests
 * and questions; `write`: also create, change and close sessions and post and cancel turns;
 * `admin`: also the operator's routes.
 */
export const KEY_SCOPES = ['admin', 'write', 'approve', 'read'] as const;
export type KeyScope = (typeof KEY_SCOPES)[number];

/** The scopes a key's listed scopes amount to. */
export function expandScopes(listed: readonly KeyScope[]): Set<KeyScope> {
  const widest = Math.min(...listed.map((s) => KEY_SCOPES.indexOf(s)));
  return new Set(KEY_SCOPES.slice(widest));
}

/** The tenant NORMA_TOKEN's key, the no-key loopback caller and sessions of earlier versions belong to. */
export const DEFAULT_TENANT = 'default';

/**
 * Modes from the strictest to the loosest: `plan` runs nothing that changes anything, `dontAsk`
 * and `auto` run only what rules or the tools allow and never ask, `default` asks a person,
 * `acceptEdits` also lets file edits through, `bypassPermissions` lets everything through
 * (deny rules aside). A tenant's `max_permission_mode` allows it and every stricter one.
 */
export const MODE_ORDER: readonly PermissionMode[] = ['plan', 'dontAsk', 'auto', 'default', 'acceptEdits', 'bypassPermissions'];

/** Whether `mode` is at most as loose as `max` (any mode when there is no maximum). */
export function modeWithin(mode: PermissionMode, max: PermissionMode | null | undefined): boolean {
  return max === null || max === undefined || MODE_ORDER.indexOf(mode) <= MODE_ORDER.indexOf(max);
}

/** `mode`, or `max` when `mode` is looser. */
export function clampMode(mode: PermissionMode, max: PermissionMode | null | undefined): PermissionMode {
  return modeWithin(mode, max) ? mode : max!;
}

// Every policy mode is ordered: a new mode must take its place in MODE_ORDER.
if (MODE_ORDER.length !== PERMISSION_MODES.length) throw new Error('MODE_ORDER must list every permission mode');

export const TenantPolicySchema = Type.Object(
  {
    // Inline, not by reference: the file is checked on its own, outside the API's schemas.
    max_permission_mode: Type.Optional(PermissionModeSchema),
    disallowed_tools: Type.Optional(Type.Array(RuleString, { maxItems: 256, description: 'Deny rules every session of the tenant has; PATCH cannot remove them' })),
    hooks: Type.Optional(SessionHooksSchema),
    max_sessions: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000, description: 'Active sessions the tenant may have at once' })),
    max_running_turns: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000, description: 'Unfinished turns (running or waiting for a person) the tenant may have at once' })),
    requests_per_minute: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000, description: 'Requests of all the tenant\'s keys per minute; beyond: 429 with Retry-After' })),
    max_checkpoint_bytes: Type.Optional(
      Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description: 'Bytes all the tenant\'s sessions\' checkpoints may hold together on disk; past it, new content is not captured (said in the checkpoint) and calls run without undo' }),
    ),
    secrets: Type.Optional(SecretsSchema),
    max_usd_per_day: Type.Optional(
      Type.Number({
        exclusiveMinimum: 0,
        maximum: 1_000_000,
        description:
          'What all the tenant\'s sessions\' model calls may cost together per UTC day, in US dollars, counted across replicas; reaching it pauses a prompt turn with a `Budget` permission request (or ends it with `budget_exceeded` where nobody can be asked). Sessions whose model has no known price are refused while it is set',
      }),
    ),
  },
  { additionalProperties: false },
);
export type TenantPolicy = Static<typeof TenantPolicySchema>;

/** One entry of NORMA_API_KEYS_FILE (a JSON list of them). */
export const ApiKeyEntrySchema = Type.Object(
  {
    key_sha256: Type.String({ pattern: '^[0-9a-fA-F]{64}$', description: 'SHA-256 of the key, hex; the key itself is never stored' }),
    tenant: Type.String({ pattern: ID_PATTERN }),
    scopes: Type.Array(StringEnum(KEY_SCOPES), { minItems: 1, maxItems: 4, uniqueItems: true }),
    name: Type.Optional(Type.String({ pattern: ID_PATTERN, description: 'How logs and audit records name the key (default: key_ and the first 12 hex digits of its hash)' })),
    expires_at: Type.Optional(Type.String({ format: 'date-time', description: 'The key is refused from then on' })),
    policy: Type.Optional(TenantPolicySchema),
  },
  { additionalProperties: false },
);
export type ApiKeyEntry = Static<typeof ApiKeyEntrySchema>;

export const PolicyPublicSchema = Type.Object(
  {
    max_permission_mode: Type.Union([ref(PermissionModeSchema), Type.Null()]),
    disallowed_tools: Type.Array(Type.String(), { description: 'Deny rules in force for every session of the tenant (decisions name them with `decided_by: "policy"`)' }),
    hook_events: Type.Array(Type.String(), { description: 'Events with hooks the tenant\'s sessions always run' }),
    max_sessions: Type.Union([Type.Integer(), Type.Null()]),
    max_running_turns: Type.Union([Type.Integer(), Type.Null()]),
    requests_per_minute: Type.Union([Type.Integer(), Type.Null()]),
    max_checkpoint_bytes: Type.Union([Type.Integer(), Type.Null()]),
    max_usd_per_day: Type.Union([Type.Number(), Type.Null()], { description: 'What the tenant\'s model calls may cost per UTC day, in US dollars (null: no limit)' }),
    secret_names: Type.Array(Type.String(), { description: 'Secrets every session of the tenant\'s processes may use, by name' }),
  },
  { $id: 'TenantPolicyPublic', description: 'The limits the session\'s tenant sets, which the session cannot loosen' },
);
export type PolicyPublic = Static<typeof PolicyPublicSchema>;

export const EventTicketSchema = Type.Object(
  {
    ticket: Type.String({ description: 'Pass as `?ticket=` to GET …/events once, within 60 s (EventSource cannot send headers)' }),
    expires_at: Timestamp('The ticket is refused from then on'),
  },
  { $id: 'EventTicket' },
);
export type EventTicket = Static<typeof EventTicketSchema>;

/** How a ticket looks in a URL: 32 random bytes, base64url. */
export const TICKET_PATTERN = '^[A-Za-z0-9_-]{43}$';
