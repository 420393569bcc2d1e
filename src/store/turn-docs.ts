// How a turn is kept in rows, whatever the database: a head (the turn without its tool_uses and
// results), its tool_uses, and one row per result. A prompt turn's messages repeat its results'
// text in their tool_result blocks: the head stores them without it and reading puts it back.
import type { ToolResult, Turn } from '../contract/schemas.js';
import { transcriptResult } from '../contract/transcript.js';

export function keyOf(turn: Turn): string {
  return `${turn.session_id}\u0000${turn.id}`;
}

/** The head row's JSON: the turn without tool_uses, results, and its messages' result text. */
export function headJsonOf(turn: Turn): string {
  const { results: _r, tool_uses: _t, ...head } = turn;
  return JSON.stringify(head.messages ? { ...head, messages: head.messages.map(withoutResultContent) } : head);
}

/** The turn again from its head, its tool_uses and its result rows (in tool_use order). */
export function turnOf(headJson: string, toolUsesJson: string, resultRows: readonly { data: string }[]): Turn {
  const results = resultRows.map((r) => JSON.parse(r.data) as ToolResult);
  const turn = { ...JSON.parse(headJson), tool_uses: JSON.parse(toolUsesJson), results } as Turn;
  if (turn.messages) {
    const byId = new Map<string, ToolResult>(results.map((r) => [r.tool_use_id, r]));
    turn.messages = turn.messages.map((m) => withResultContent(m, byId));
  }
  return turn;
}

type StoredMessage = NonNullable<Turn['messages']>[number];

// A prompt turn's messages repeat its results' text in their tool_result blocks: the head stores
// them without it (the turn_results rows have it) and reading puts it back.
function withoutResultContent(m: StoredMessage): StoredMessage {
  if (m.role !== 'user' || !m.content.some((b) => b.type === 'tool_result')) return m;
  // The stored form only: its tool_result blocks hold a marker instead of their content.
  return { ...m, content: m.content.map((b) => (b.type === 'tool_result' ? { ...b, content: undefined, content_from_result: true } : b)) } as unknown as StoredMessage;
}

function withResultContent(m: StoredMessage, results: Map<string, ToolResult>): StoredMessage {
  const blocks = m.content as Record<string, unknown>[];
  if (m.role !== 'user' || !blocks.some((b) => b.content_from_result === true)) return m;
  return {
    role: m.role,
    content: blocks.map((b) =>
      b.content_from_result === true ? transcriptResult(String(b.tool_use_id), results.get(String(b.tool_use_id))) : (b as unknown as StoredMessage['content'][number]),
    ),
  };
}
