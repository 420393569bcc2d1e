// What hooks leave in a session's audit trail (`hook.completed` / `hook.failed`, the
// `egress.request` of http hooks) and the SessionStart / SessionEnd runs, bounded by
// NORMA_LIFECYCLE_TIMEOUT_S.
import type { Logger } from 'pino';
import type { Session } from '../contract/schemas.js';
import type { EventLog } from '../events/log.js';
import type { HookEvidenceSink } from '../hooks/config.js';
import { HookStop, type HookInput, type HookRegistry, type HookRunRecord } from '../hooks/registry.js';

export class HookAudit {
  constructor(
    private readonly events: EventLog,
    private readonly logger: Logger,
    private readonly lifecycleTimeoutMs: number,
  ) {}

  /** An http hook's outbound request, as evidence in the session it ran for. */
  readonly evidence: HookEvidenceSink = (e, input, hook) =>
    this.events.emit(input.session_id, {
      type: 'egress.request',
      ...(input.turn_id ? { turn_id: input.turn_id } : {}),
      ...(input.tool_use_id ? { tool_use_id: input.tool_use_id } : {}),
      ...(input.tool_name ? { tool: input.tool_name } : {}),
      hook,
      ...e,
    });

  /** Every hook run becomes an event (`hook.completed` or `hook.failed`): the hooks' audit trail. */
  recordRun(sessionId: string, r: HookRunRecord, turnId?: string, toolUseId?: string): void {
    const where = { ...(turnId ? { turn_id: turnId } : {}), ...(toolUseId ? { tool_use_id: toolUseId } : {}) };
    const common = { hook: r.hook, kind: r.kind, event: r.event, ...where, duration_ms: r.duration_ms };
    if (r.outcome === 'error' || r.outcome === 'failed') {
      this.events.emit(sessionId, { type: 'hook.failed', ...common, outcome: r.outcome, error: r.error ?? 'failed' });
    } else {
      this.events.emit(sessionId, {
        type: 'hook.completed',
        ...common,
        outcome: r.outcome,
        ...(r.decision ? { decision: r.decision } : {}),
        ...(r.rewrite_digest ? { rewrite_digest: r.rewrite_digest } : {}),
      });
    }
  }

  /** SessionStart or SessionEnd; failures are logged, never thrown. */
  async lifecycle(event: 'SessionStart' | 'SessionEnd', session: Readonly<Session>, extra: Partial<HookInput>, hooks: HookRegistry): Promise<void> {
    // A lifecycle request answers within the operator's bound whatever its hooks do: a hook
    // still running then is stopped (and recorded as failed), later ones of the event are skipped.
    const bound = new AbortController();
    const seconds = this.lifecycleTimeoutMs / 1000;
    const timer = setTimeout(
      () => bound.abort(new HookStop(`stopped after ${seconds} s: ${event} hooks get at most NORMA_LIFECYCLE_TIMEOUT_S together`)),
      this.lifecycleTimeoutMs,
    );
    const result = await hooks
      .run(
        event,
        { hook_event_name: event, session_id: session.id, cwd: session.workspace, permission_mode: session.permission_mode, ...extra },
        { stopOnBlock: false, signal: bound.signal, onRun: (r) => this.recordRun(session.id, r) },
      )
      .finally(() => clearTimeout(timer));
    for (const f of result.failures) this.logger.warn({ session_id: session.id, hook: f.hook, error: f.error }, `${event} hook failed`);
  }
}
