// The event types the server sends and a one-line summary of each, for the timeline.
import type { EventType, NormaEvent } from './types.js';

/**
 * Every type of components.schemas.Event. An EventSource delivers a named event (`event:`)
 * only to a listener for that name, so the stream listens for each of these.
 */
export const EVENT_TYPES: readonly EventType[] = [
  'session.created',
  'session.updated',
  'session.closed',
  'turn.started',
  'tool.started',
  'tool.progress',
  'permission.requested',
  'permission.resolved',
  'question.asked',
  'question.answered',
  'client_tool.requested',
  'client_tool.resolved',
  'todo.updated',
  'tool.completed',
  'task.started',
  'task.completed',
  'turn.completed',
  'turn.failed',
  'turn.cancelled',
  'turn.interrupted',
  'turn.resumed',
  'hook.completed',
  'hook.failed',
  'message.delta',
  'thinking.delta',
  'message.completed',
  'compaction.started',
  'compaction.completed',
  'compaction.failed',
  'egress.request',
  'mcp.server.started',
  'mcp.server.exited',
  'tools.changed',
  'mcp.request',
  'mcp.client.connected',
  'mcp.client.closed',
  'workspace.rewound',
  'stream.end',
];

/**
 * Delivered live but never stored or replayed; they repeat the seq of the last durable event
 * (so they are not part of the seq order and never count as duplicates or gaps).
 */
export const LIVE_ONLY: ReadonlySet<string> = new Set(['tool.progress', 'message.delta', 'thinking.delta', 'stream.end']);

export function isLiveOnly(event: { type: string }): boolean {
  return LIVE_ONLY.has(event.type);
}

const clip = (s: string, n = 120): string => {
  const line = s.replace(/\s+/g, ' ').trim();
  return line.length > n ? `${line.slice(0, n - 1)}…` : line;
};

function firstText(blocks: { type: string; text?: string }[]): string {
  return blocks.find((b) => b.type === 'text' && b.text)?.text ?? '';
}

/** One line saying what the event is about. */
export function summarize(e: NormaEvent): string {
  switch (e.type) {
    case 'session.created':
      return `mode ${e.session.permission_mode}, ${e.session.tools.length} tools`;
    case 'session.updated':
      return `mode ${e.session.permission_mode}`;
    case 'session.closed':
      return e.reason;
    case 'turn.started':
      return e.kind === 'direct' ? `${e.turn_id}: ${e.tool_uses.map((t) => t.name).join(', ') || 'no calls'}` : `${e.turn_id}: prompt`;
    case 'tool.started':
      return `${e.tool} (${e.tool_use_id})`;
    case 'tool.progress':
      return clip(e.chunk);
    case 'permission.requested':
      return `${e.permission.tool}: ${clip(e.permission.reason)}`;
    case 'permission.resolved':
      return `${e.permission.tool}: ${e.permission.status}`;
    case 'question.asked':
      return clip(e.question.questions.map((q) => q.question).join(' / '));
    case 'question.answered':
      return e.question.status;
    case 'client_tool.requested':
      return `${e.request.name} (${e.request.tool_use_id}): waits for the client`;
    case 'client_tool.resolved':
      return `${e.request.name}: ${e.request.status}${e.request.is_error ? ' (error)' : ''}`;
    case 'todo.updated':
      return `${e.items.length} items, ${e.items.filter((i) => i.status === 'completed').length} done`;
    case 'tool.completed': {
      const text = firstText(e.result.content);
      const files = e.changes?.files.length ? ` · ${e.changes.files.length} file${e.changes.files.length === 1 ? '' : 's'} changed` : '';
      return `${e.tool}${e.result.is_error ? ' error' : ''}${text ? `: ${clip(text)}` : ''}${files}`;
    }
    case 'workspace.rewound':
      return `to ${e.to}: ${e.restored.length} restored, ${e.deleted.length} deleted${e.recovered ? ' (finished at start-up)' : ''}`;
    case 'task.started':
      return `${e.task_id}: ${clip(e.command)}`;
    case 'task.completed':
      return `${e.task_id}: ${e.status}${e.exit_code !== null ? ` (exit ${e.exit_code})` : ''}`;
    case 'turn.completed':
    case 'turn.failed':
    case 'turn.cancelled':
    case 'turn.interrupted':
      return `${e.turn.id}: ${e.turn.status}${e.turn.error ? ` (${clip(e.turn.error.message)})` : ''}`;
    case 'turn.resumed':
      return `${e.turn_id}: waits for ${e.pending.join(', ')}`;
    case 'hook.completed':
      return `${e.event} ${e.hook}: ${e.outcome}${e.decision ? ` (${e.decision})` : ''}`;
    case 'hook.failed':
      return `${e.event} ${e.hook}: ${e.outcome}: ${clip(e.error)}`;
    case 'message.delta':
      return clip(e.text);
    case 'message.completed': {
      const calls = e.message.content.filter((b) => b.type === 'tool_use').map((b) => b.name ?? '');
      const text = firstText(e.message.content);
      return clip([text, calls.length ? `calls ${calls.join(', ')}` : ''].filter(Boolean).join(' · ') || e.stop_reason);
    }
    case 'egress.request':
      return `${e.method} ${clip(e.url, 80)}: ${egressOutcome(e)}`;
    case 'mcp.server.started':
      return `${e.server}: ${e.tools.length} tools`;
    case 'mcp.server.exited':
      return `${e.server}: ${clip(e.reason)}`;
    case 'tools.changed':
      return `${e.server}: +${e.added.length} −${e.removed.length} ~${e.changed.length}`;
    case 'mcp.request':
      return `${e.server} ${e.method}${e.tool ? ` ${e.tool}` : ''}: ${e.outcome}`;
    case 'mcp.client.connected':
      return clip(`${e.client.name || 'an MCP client'} ${e.client.version}${e.attached ? ', attached' : ''}${e.elicitation ? ', asks by elicitation' : ''}`);
    case 'mcp.client.closed':
      return e.session_closed ? 'ended; the session is closed with it' : 'ended';
    case 'compaction.started':
      return `${e.trigger}: ${e.tokens_before} tokens`;
    case 'compaction.completed':
      return `${e.trigger}, ${e.stage}: ${e.tokens_before} → ${e.tokens_after} tokens`;
    case 'compaction.failed':
      return `${e.trigger}: ${clip(e.reason)}`;
    case 'thinking.delta':
      return clip(e.text);
    case 'stream.end':
      return e.reason;
  }
}

/** What became of an outbound request, in words. */
export function egressOutcome(e: { status: number | null; error?: string }): string {
  if (e.error) return `refused or failed: ${e.error}`;
  return e.status === null ? 'no answer' : `HTTP ${e.status}`;
}
