// The permission pause (SPEC §4, API.md "Permissions"): an ask becomes a stored request and
// a `permission.requested` event; the call waits until a client answers, the optional
// timeout denies it, or the turn's cancellation resolves it as cancelled. Every outcome is
// stored and emits `permission.resolved`.
import type { PermissionRequest, PermissionResponse } from '../contract/schemas.js';
import { DomainError, notFound } from '../errors.js';
import type { EventLog } from '../events/log.js';
import type { Clock, IdFactory } from '../ids.js';
import type { ApprovalAnswer, ApprovalRequest, Reevaluate } from '../pipeline/exec-one.js';
import type { Store } from '../store/store.js';
import { TurnStop, type TurnRunner } from './turn.js';

interface Waiter {
  sessionId: string;
  runner: TurnRunner;
  reevaluate: Reevaluate | undefined;
  resolve: (answer: ApprovalAnswer) => void;
  cleanup: () => void;
}

export interface PermissionBrokerDeps {
  store: Store;
  events: EventLog;
  clock: Clock;
  newId: IdFactory;
}

export class PermissionBroker {
  private readonly waiters = new Map<string, Waiter>();

  constructor(private readonly deps: PermissionBrokerDeps) {}

  /** Opens a request for one call and waits for its outcome. */
  awaitApproval(
    sessionId: string,
    runner: TurnRunner,
    request: ApprovalRequest,
    timeoutS: number | null,
    signal: AbortSignal,
    reevaluate?: Reevaluate,
    /** A request a previous process opened for this call and input: wait on it again. */
    earlier?: PermissionRequest,
  ): Promise<ApprovalAnswer> {
    const { store, events, clock, newId } = this.deps;
    const record: PermissionRequest = earlier ?? {
      id: newId('perm'),
      session_id: sessionId,
      turn_id: runner.id,
      tool_use_id: request.toolUseId,
      tool: request.tool,
      input: request.input,
      reason: request.reason,
      suggestions: request.suggestions,
      status: 'pending',
      created_at: clock().toISOString(),
    };
    if (earlier) {
      runner.addPending(record.id);
    } else {
      store.transaction(() => {
        store.putPermission(record);
        runner.addPending(record.id);
        events.emit(sessionId, { type: 'permission.requested', turn_id: runner.id, permission: record });
      });
    }
    // The timeout counts from the request's creation, across restarts.
    const remainingMs = timeoutS === null ? null : Math.max(0, timeoutS * 1000 - (clock().getTime() - Date.parse(record.created_at)));

    return new Promise<ApprovalAnswer>((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const onAbort = () => {
        const stop = signal.reason instanceof TurnStop ? signal.reason : undefined;
        const by = stop?.by === 'session_closed' || stop?.by === 'shutdown' ? 'session_closed' : 'cancel';
        this.settle(sessionId, record.id, { status: 'cancelled', resolved_by: by }, {
          behavior: 'cancelled',
          reason: stop?.message ?? 'the turn was cancelled',
          permissionId: record.id,
        });
      };
      const cleanup = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
      };
      this.waiters.set(record.id, { sessionId, runner, reevaluate, resolve, cleanup });
      if (signal.aborted) return onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
      if (timeoutS !== null && remainingMs !== null) {
        timer = setTimeout(() => {
          this.settle(sessionId, record.id, {
            status: 'denied',
            resolved_by: 'timeout',
            message: `no answer within permission_timeout_s (${timeoutS} s)`,
          }, { behavior: 'deny', message: `no answer within ${timeoutS} s`, by: 'timeout', permissionId: record.id });
        }, remainingMs);
        timer.unref();
      }
    });
  }

  /** A client's answer. Resolved requests answer 409; unknown ids 404. */
  respond(sessionId: string, permissionId: string, response: PermissionResponse): PermissionRequest {
    const record = this.deps.store.getPermission(sessionId, permissionId);
    if (!record) throw notFound('permission request', permissionId);
    if (record.status !== 'pending') {
      throw new DomainError('conflict', `permission request ${permissionId} is already resolved (${record.status})`);
    }
    if (!this.waiters.has(permissionId)) {
      throw new DomainError('conflict', `permission request ${permissionId} has no waiting call`);
    }
    if (response.behavior === 'allow') {
      return this.settle(
        sessionId,
        permissionId,
        {
          status: 'allowed',
          resolved_by: 'client',
          ...(response.updated_input !== undefined ? { updated_input: response.updated_input } : {}),
          ...(response.remember ? { remember: response.remember } : {}),
        },
        {
          behavior: 'allow',
          by: 'client',
          permissionId,
          ...(response.updated_input !== undefined ? { updatedInput: response.updated_input } : {}),
        },
      );
    }
    return this.settle(
      sessionId,
      permissionId,
      {
        status: 'denied',
        resolved_by: 'client',
        ...(response.message !== undefined ? { message: response.message } : {}),
        ...(response.interrupt !== undefined ? { interrupt: response.interrupt } : {}),
      },
      {
        behavior: 'deny',
        by: 'client',
        permissionId,
        ...(response.message !== undefined ? { message: response.message } : {}),
        ...(response.interrupt !== undefined ? { interrupt: response.interrupt } : {}),
      },
    );
  }

  /**
   * The session's rules or mode changed: every call of the session waiting for an answer is
   * evaluated again, and one that is now allowed or denied is resolved by that rule (or mode)
   * with `permission.resolved`, as if answered. Calls still needing a person keep waiting.
   */
  async reevaluatePending(sessionId: string): Promise<void> {
    const waiting = [...this.waiters.entries()].filter(([, w]) => w.sessionId === sessionId && w.reevaluate);
    await Promise.all(
      waiting.map(async ([permissionId, w]) => {
        let decision;
        try {
          decision = await w.reevaluate!();
        } catch {
          return; // it keeps waiting for a person; the call's own evaluation reports errors
        }
        if (!decision) return;
        const rules = decision.rules.length > 0 ? { rules: decision.rules } : {};
        if (decision.behavior === 'allow') {
          this.settle(sessionId, permissionId, { status: 'allowed', resolved_by: 'rule', ...rules }, { behavior: 'allow', by: 'rule', decision, permissionId });
        } else {
          this.settle(
            sessionId,
            permissionId,
            { status: 'denied', resolved_by: 'rule', message: decision.reason, ...rules },
            { behavior: 'deny', by: 'rule', decision, permissionId, message: decision.reason },
          );
        }
      }),
    );
  }

  /** Stops waiting on every request without resolving it (shutdown: they stay pending in the store). */
  detachAll(): void {
    for (const w of this.waiters.values()) w.cleanup();
    this.waiters.clear();
  }

  /** Resolves a stored pending request nobody waits on any more (after a restart) as cancelled. */
  abandon(record: PermissionRequest, why: string): void {
    const current = this.deps.store.getPermission(record.session_id, record.id);
    if (!current || current.status !== 'pending' || this.waiters.has(record.id)) return;
    const resolved: PermissionRequest = { ...current, status: 'cancelled', resolved_by: 'cancel', message: why, resolved_at: this.deps.clock().toISOString() };
    this.deps.store.transaction(() => {
      this.deps.store.putPermission(resolved);
      this.deps.events.emit(record.session_id, { type: 'permission.resolved', turn_id: resolved.turn_id, permission: resolved });
    });
  }

  private settle(
    sessionId: string,
    permissionId: string,
    update: Partial<PermissionRequest> & Pick<PermissionRequest, 'status'>,
    answer: ApprovalAnswer,
  ): PermissionRequest {
    const waiter = this.waiters.get(permissionId);
    const current = this.deps.store.getPermission(sessionId, permissionId)!;
    if (!waiter || current.status !== 'pending') return current;
    this.waiters.delete(permissionId);
    waiter.cleanup();
    const resolved: PermissionRequest = { ...current, ...update, resolved_at: this.deps.clock().toISOString() };
    this.deps.store.transaction(() => {
      this.deps.store.putPermission(resolved);
      waiter.runner.removePending(permissionId);
      this.deps.events.emit(sessionId, { type: 'permission.resolved', turn_id: resolved.turn_id, permission: resolved });
    });
    waiter.resolve(answer);
    return resolved;
  }
}
