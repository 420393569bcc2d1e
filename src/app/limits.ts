// A tenant's policy limits on what it has at once (max_sessions, max_running_turns). The exact
// check is made inside the transaction that adds a session or a turn, with the count taken
// `held`: with replicas, every replica's such transaction for the tenant waits for this one to end
// (a transaction lock per tenant in PostgreSQL), so two replicas cannot both pass on the same
// count; one process alone is held by being synchronous. A refusal rolls back what the
// transaction wrote.
import { DomainError } from '../errors.js';
import type { Parts } from './parts.js';

/**
 * 429 when the tenant has max_sessions active sessions. `held`: inside the creating transaction
 * (the exact check); otherwise an early one, with `creating` (this process's creations under way)
 * counted too, that spares a refused creation its work.
 */
export function checkSessionLimit(parts: Parts, tenant: string, opts: { held: boolean; creating?: number }): void {
  const max = parts.deps.tenants.policyOf(tenant)?.source.max_sessions;
  if (max === undefined) return;
  const active = (opts.held ? parts.tenantCounts.held(tenant, 'sessions') : parts.tenantCounts.activeSessions(tenant)) + (opts.creating ?? 0);
  if (active >= max) {
    throw new DomainError('limit', `tenant ${tenant} has ${active} active session(s), its policy's max_sessions (${max}); close one first (DELETE /v1/sessions/{session_id})`);
  }
}

/** 429 when the tenant has max_running_turns unfinished turns; called inside the transaction that stores a new turn. */
export function checkTurnLimit(parts: Parts, tenant: string): void {
  const max = parts.deps.tenants.policyOf(tenant)?.source.max_running_turns;
  if (max === undefined) return;
  const running = parts.tenantCounts.held(tenant, 'turns');
  if (running >= max) {
    throw new DomainError('limit', `tenant ${tenant} has ${running} unfinished turn(s), its policy's max_running_turns (${max}); wait for one to finish (or answer what it waits for)`);
  }
}
