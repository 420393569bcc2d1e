// A tenant's policy, made ready once per load of the keys file: its deny rules parsed, its
// maximum mode, its hooks, and what a session shows of it.
import type { PermissionMode } from '../contract/permission.js';
import type { SessionHooks } from '../contract/hooks.js';
import type { PolicyPublic, TenantPolicy } from '../contract/tenant.js';
import { parseRules, type ParsedRule } from '../permission/rules.js';
import { checkSecrets } from '../sandbox/net/secrets.js';

export interface CompiledPolicy {
  tenant: string;
  source: TenantPolicy;
  /** `disallowed_tools`, parsed: checked before anything else decides about a call. */
  deny: readonly ParsedRule[];
  maxMode: PermissionMode | null;
  hooks: SessionHooks | null;
  public: PolicyPublic;
}

/** Where live parts find a tenant's policy (the key ring, reloaded on SIGHUP). */
export interface TenantPolicies {
  policyOf(tenant: string): CompiledPolicy | null;
}

export const NO_POLICIES: TenantPolicies = { policyOf: () => null };

/** The policy, or the problems that make it unusable (each names `where`). */
export function compilePolicy(tenant: string, policy: TenantPolicy, where: string): { policy: CompiledPolicy; problems: string[] } {
  const rules = parseRules(`${where}.disallowed_tools`, policy.disallowed_tools ?? []);
  const hookEvents = Object.entries(policy.hooks ?? {})
    .filter(([, groups]) => Array.isArray(groups) && groups.length > 0)
    .map(([event]) => event);
  return {
    problems: [...rules.problems, ...checkSecrets(`${where}.secrets`, policy.secrets)],
    policy: {
      tenant,
      source: policy,
      deny: rules.rules,
      maxMode: policy.max_permission_mode ?? null,
      hooks: hookEvents.length > 0 ? policy.hooks! : null,
      public: {
        max_permission_mode: policy.max_permission_mode ?? null,
        disallowed_tools: policy.disallowed_tools ?? [],
        hook_events: hookEvents,
        max_sessions: policy.max_sessions ?? null,
        max_running_turns: policy.max_running_turns ?? null,
        requests_per_minute: policy.requests_per_minute ?? null,
        max_checkpoint_bytes: policy.max_checkpoint_bytes ?? null,
        max_usd_per_day: policy.max_usd_per_day ?? null,
        secret_names: Object.keys(policy.secrets ?? {}),
      },
    },
  };
}
