// Reading a session's stored record: 404 for an unknown id, and the fields an earlier version
// did not store filled with what then applied. Writes of a live session go through its
// settings (settings.ts); this is for reads and for sessions without a runtime.
import type { Session } from '../contract/schemas.js';
import { DEFAULT_TENANT } from '../contract/tenant.js';
import { notFound } from '../errors.js';
import type { SessionRecord, Store } from '../store/store.js';
import type { TenantPolicies } from '../tenants/policy.js';

export class SessionRecords {
  constructor(
    private readonly store: Store,
    /** The limits a session stored before limits existed ran under. */
    private readonly legacyLimits: () => Session['limits'],
    /** Where a session's `policy` (its tenant's, as it is now) comes from. */
    private readonly policies: TenantPolicies,
  ) {}

  /**
   * The session, as `tenant` sees it: another tenant's session is a 404 exactly like a missing
   * one (same query, same answer). `null`: the server itself, which sees every tenant's.
   */
  get(id: string, tenant: string | null): SessionRecord {
    const r = this.store.getSession(id, tenant ?? undefined);
    if (!r) throw notFound('session', id);
    return this.normalized(r);
  }

  find(id: string): SessionRecord | undefined {
    const r = this.store.getSession(id);
    return r ? this.normalized(r) : undefined;
  }

  normalized(r: SessionRecord): SessionRecord {
    const s = r.session;
    s.tenant ??= DEFAULT_TENANT;
    s.policy = this.policies.policyOf(s.tenant)?.public ?? null;
    s.limits ??= this.legacyLimits();
    s.question_timeout_s ??= null;
    s.mode_before_plan ??= null;
    s.memory_store ??= null;
    s.skills ??= [];
    s.used_skills ??= [];
    s.unlocked_tools ??= [];
    s.deferred_tools ??= [];
    s.mcp_servers ??= {};
    s.client_tools ??= [];
    s.instructions ??= [];
    s.name ??= null;
    s.labels ??= {};
    return r;
  }
}
