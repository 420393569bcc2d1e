// The turns of a session and their tool calls, from GET …/turns and the events: a call is
// known from its turn's tool_uses (or a model message), runs from tool.started and ends with
// tool.completed, matched by tool_use_id. A final turn.* event carries the whole turn.
import type { NormaEvent, ToolResult, Turn, TurnStatus } from './types.js';
import type { PendingState } from './pending.js';

export interface CallView {
  id: string;
  tool: string;
  input: unknown;
  /** Set for a subagent's own calls: the Agent call they belong to. */
  parent?: string;
  state: 'waiting' | 'running' | 'done';
  result?: ToolResult;
}

export interface TurnView {
  id: string;
  kind: 'direct' | 'prompt';
  /** The status as last reported; for an open turn see `turnStatus`. */
  status: TurnStatus;
  created_at: string;
  ended_at?: string;
  error?: { code: string; message: string };
  calls: CallView[];
  /** Prompt turns: the prompt as posted. */
  prompt?: string;
  /** Prompt turns: the model's messages, by their index in the turn's conversation: text and the calls each asked for. */
  said?: SaidView[];
}

export interface SaidView {
  index: number;
  text: string;
  calls: string[];
}

type Message = Extract<NormaEvent, { type: 'message.completed' }>['message'];

function saidOf(index: number, message: Message): SaidView {
  const text = message.content.flatMap((b) => (b.type === 'text' && typeof b.text === 'string' ? [b.text] : [])).join('\n\n');
  const calls = message.content.flatMap((b) => (b.type === 'tool_use' && b.id ? [b.id] : []));
  return { index, text, calls };
}

function withSaid(said: readonly SaidView[] | undefined, one: SaidView): SaidView[] {
  return [...(said ?? []).filter((m) => m.index !== one.index), one].sort((a, b) => a.index - b.index);
}

/** The prompt's text (its text blocks, one paragraph each). */
const promptText = (prompt: readonly { text: string }[] | undefined): string | undefined => (prompt ? prompt.map((p) => p.text).join('\n\n') : undefined);

const FINAL: ReadonlySet<TurnStatus> = new Set(['completed', 'failed', 'cancelled', 'interrupted']);

export const isFinal = (status: TurnStatus): boolean => FINAL.has(status);

/** An open turn's status follows what waits for a person now; a final one is as reported. */
export function turnStatus(turn: TurnView, pending: PendingState): TurnStatus {
  if (isFinal(turn.status)) return turn.status;
  if (pending.permissions.some((p) => p.turn_id === turn.id)) return 'awaiting_permission';
  if (pending.questions.some((q) => q.turn_id === turn.id)) return 'awaiting_input';
  return 'running';
}

function mergeCall(calls: CallView[], call: Partial<CallView> & { id: string }): CallView[] {
  const at = calls.findIndex((c) => c.id === call.id);
  if (at < 0) return [...calls, { tool: '', input: {}, state: 'waiting', ...call } as CallView];
  const old = calls[at]!;
  const merged: CallView = {
    ...old,
    ...Object.fromEntries(Object.entries(call).filter(([, v]) => v !== undefined)),
    // A call never goes back: done stays done, running does not return to waiting.
    state: old.state === 'done' || call.state === 'done' ? 'done' : old.state === 'running' ? 'running' : (call.state ?? old.state),
    result: call.result ?? old.result,
  };
  return calls.map((c, i) => (i === at ? merged : c));
}

function fromTurn(turn: Turn, into: TurnView | undefined): TurnView {
  let calls = into?.calls ?? [];
  for (const use of turn.tool_uses) calls = mergeCall(calls, { id: use.id, tool: use.name, input: use.input });
  for (const result of turn.results) calls = mergeCall(calls, { id: result.tool_use_id, state: 'done', result });
  const keepOld = into !== undefined && isFinal(into.status) && !isFinal(turn.status);
  let said = into?.said;
  for (const [i, m] of (turn.messages ?? []).entries()) if (m.role === 'assistant') said = withSaid(said, saidOf(i, m as Message));
  const prompt = promptText(turn.prompt) ?? into?.prompt;
  return {
    ...(prompt !== undefined ? { prompt } : {}),
    ...(said ? { said } : {}),
    id: turn.id,
    kind: turn.kind,
    status: keepOld ? into.status : turn.status,
    created_at: turn.created_at,
    ...(turn.ended_at ?? into?.ended_at ? { ended_at: turn.ended_at ?? into?.ended_at } : {}),
    ...(turn.error ?? into?.error ? { error: turn.error ?? into?.error } : {}),
    calls,
  };
}

function upsert(turns: readonly TurnView[], id: string, make: (old: TurnView | undefined) => TurnView): TurnView[] {
  const at = turns.findIndex((t) => t.id === id);
  if (at >= 0) return turns.map((t, i) => (i === at ? make(t) : t));
  return [...turns, make(undefined)].sort((a, b) => (a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : 0));
}

const placeholder = (id: string, time: string): TurnView => ({ id, kind: 'direct', status: 'running', created_at: time, calls: [] });

/** Merges turns as GET …/turns reports them. */
export function applyTurnList(turns: readonly TurnView[], list: readonly Turn[]): TurnView[] {
  return list.reduce<TurnView[]>((acc, turn) => upsert(acc, turn.id, (old) => fromTurn(turn, old)), [...turns]);
}

export function applyTurnEvent(turns: readonly TurnView[], e: NormaEvent): readonly TurnView[] {
  switch (e.type) {
    case 'turn.started':
      return upsert(turns, e.turn_id, (old) => {
        let calls = old?.calls ?? [];
        for (const use of e.tool_uses) calls = mergeCall(calls, { id: use.id, tool: use.name, input: use.input });
        const prompt = promptText(e.prompt);
        return { ...(old ?? placeholder(e.turn_id, e.time)), kind: e.kind, calls, ...(prompt !== undefined ? { prompt } : {}) };
      });
    case 'message.completed':
      return upsert(turns, e.turn_id, (old) => {
        let calls = (old ?? placeholder(e.turn_id, e.time)).calls;
        for (const b of e.message.content) {
          if (b.type === 'tool_use' && b.id) calls = mergeCall(calls, { id: b.id, tool: b.name ?? '', input: b.input });
        }
        const base = old ?? { ...placeholder(e.turn_id, e.time), kind: 'prompt' as const };
        // A subagent's messages belong to its Agent call, not to the turn's conversation.
        const said = e.parent_tool_use_id ? base.said : withSaid(base.said, saidOf(e.message_index, e.message));
        return { ...base, calls, ...(said ? { said } : {}) };
      });
    case 'tool.started':
      return upsert(turns, e.turn_id, (old) => {
        const turn = old ?? placeholder(e.turn_id, e.time);
        return { ...turn, calls: mergeCall(turn.calls, { id: e.tool_use_id, tool: e.tool, input: e.input, parent: e.parent_tool_use_id, state: 'running' }) };
      });
    case 'tool.completed':
      return upsert(turns, e.turn_id, (old) => {
        const turn = old ?? placeholder(e.turn_id, e.time);
        return { ...turn, calls: mergeCall(turn.calls, { id: e.tool_use_id, tool: e.tool, parent: e.parent_tool_use_id, state: 'done', result: e.result }) };
      });
    case 'turn.completed':
    case 'turn.failed':
    case 'turn.cancelled':
    case 'turn.interrupted':
      return upsert(turns, e.turn.id, (old) => fromTurn(e.turn, old));
    default:
      return turns;
  }
}
