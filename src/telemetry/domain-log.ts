// One structured log line per domain event, derived from the event log (EventLog.observe): a
// session created or closed, a turn ended, a permission request, a question or a client-tool
// request resolved (info), an outbound request refused by the egress guard (warn). Each line names
// the session, the turn where there is one, and the trace it belongs to. Never logged: inputs,
// answers, messages, prompts, results, headers, or a URL's query (any could carry a secret).
import type { Logger } from 'pino';
import type { NormaEvent } from '../contract/events.js';
import type { Store } from '../store/store.js';
import { currentTrace } from '../trace/context.js';
import { egressKind, egressOutcome } from './metrics.js';

/** A URL as a log line shows it: scheme, host and path; no credentials, no query, no fragment. */
export function shownUrl(raw: string): string {
  try {
    const u = new URL(raw);
    return `${u.protocol}//${u.host}${u.pathname}`.slice(0, 512);
  } catch {
    // A CONNECT tunnel's `host:port`, or something that is not a URL: cut at the first `?`, `#` or `@`.
    return raw.split(/[?#]/)[0]!.replace(/^.*@/, '').slice(0, 512);
  }
}

export function domainLog(logger: Logger, store: Pick<Store, 'getSession'>): (event: NormaEvent) => void {
  return (event) => {
    const trace = currentTrace();
    const base = { session_id: event.session_id, ...(trace ? { trace_id: trace.traceId } : {}) };
    switch (event.type) {
      case 'session.created':
        logger.info({ ...base, tenant: event.session.tenant, permission_mode: event.session.permission_mode }, 'session created');
        return;
      case 'session.closed': {
        const tenant = store.getSession(event.session_id)?.session.tenant;
        logger.info({ ...base, ...(tenant !== undefined ? { tenant } : {}), reason: event.reason }, 'session closed');
        return;
      }
      case 'turn.completed':
      case 'turn.failed':
      case 'turn.cancelled':
      case 'turn.interrupted': {
        const t = event.turn;
        const ms = t.ended_at !== undefined ? Math.max(0, Date.parse(t.ended_at) - Date.parse(t.created_at)) : undefined;
        logger.info(
          {
            ...base,
            turn_id: t.id,
            kind: t.kind,
            status: t.status,
            ...(ms !== undefined && Number.isFinite(ms) ? { duration_ms: ms } : {}),
            tool_calls: t.tool_uses.length,
            ...(t.error ? { error_code: t.error.code } : {}),
          },
          'turn ended',
        );
        return;
      }
      case 'permission.resolved': {
        const p = event.permission;
        logger.info(
          {
            ...base,
            turn_id: p.turn_id,
            permission_id: p.id,
            tool_use_id: p.tool_use_id,
            tool: p.tool,
            outcome: p.resolved_by === 'timeout' ? 'timeout' : p.status,
            resolved_by: p.resolved_by,
            ...(p.answered_by !== undefined ? { answered_by: p.answered_by } : {}),
            ...(p.rules !== undefined ? { rules: p.rules } : {}),
          },
          'permission resolved',
        );
        return;
      }
      case 'question.answered': {
        const q = event.question;
        logger.info(
          {
            ...base,
            turn_id: q.turn_id,
            question_id: q.id,
            tool_use_id: q.tool_use_id,
            outcome: q.status === 'timed_out' ? 'timeout' : q.status,
            resolved_by: q.resolved_by,
            ...(q.answered_by !== undefined ? { answered_by: q.answered_by } : {}),
          },
          'question resolved',
        );
        return;
      }
      case 'client_tool.resolved': {
        const r = event.request;
        logger.info(
          {
            ...base,
            turn_id: r.turn_id,
            client_tool_request_id: r.id,
            tool_use_id: r.tool_use_id,
            tool: r.name,
            outcome: r.status === 'timed_out' ? 'timeout' : r.status,
            resolved_by: r.resolved_by,
            ...(r.is_error !== undefined ? { is_error: r.is_error } : {}),
            ...(r.answered_by !== undefined ? { answered_by: r.answered_by } : {}),
          },
          'client-tool request resolved',
        );
        return;
      }
      case 'egress.request': {
        if (egressOutcome(event) !== 'refused') return;
        const url = shownUrl(event.url);
        logger.warn(
          {
            ...base,
            ...(event.turn_id !== undefined ? { turn_id: event.turn_id } : {}),
            ...(event.tool_use_id !== undefined ? { tool_use_id: event.tool_use_id } : {}),
            ...(event.tool !== undefined ? { tool: event.tool } : {}),
            ...(event.hook !== undefined ? { hook: event.hook } : {}),
            egress: egressKind(event),
            method: event.method,
            url,
            reason: (event.error ?? '').split(event.url).join(url),
          },
          event.via === 'sandbox_proxy' ? 'sandbox network refused' : 'egress refused',
        );
        return;
      }
      default:
        return;
    }
  };
}
