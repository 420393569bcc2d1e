// Idempotency-Key use cases: a request's key claimed for the caller's tenant (keys of different
// tenants never meet), its answer kept, and keys past their day swept. What a key keeps and how a
// crash is told apart from a request still being answered is src/store/idempotency.ts.
import { IDEMPOTENCY_TTL_MS, type KeptWork, type KeyState, type StoredResponse } from '../store/idempotency.js';
import type { Parts } from './parts.js';
import { tenantOf, type Scope } from './scope.js';

export class IdempotencyUseCases {
  constructor(private readonly parts: Parts) {}

  /** The caller's tenant's key for a request of this fingerprint: new (do the work), or what it holds. */
  claim(scope: Scope, key: string, fingerprint: string): KeyState {
    const now = this.parts.deps.clock().getTime();
    return this.parts.keys.claim({ tenant: tenantOf(scope), key, fingerprint, now, expiresAt: now + IDEMPOTENCY_TTL_MS });
  }

  finish(work: KeptWork, response: StoredResponse): void {
    this.parts.keys.finish(work, response);
  }

  release(work: KeptWork): void {
    this.parts.keys.release(work);
  }

  /** Removes keys older than their day (retention); returns how many. */
  sweep(_scope: Scope): number {
    return this.parts.keys.sweep(this.parts.deps.clock().getTime());
  }
}
