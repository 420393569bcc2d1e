// The session view's state: what waits for a person (listings and events in any order), the
// turns with their calls matched by tool_use_id, the todo list, live-only text.
import { describe, expect, it } from 'vitest';
import { arrivals, baseline, emptyPending, newsworthy } from '../../console/src/lib/pending.js';
import { initialSessionState, sessionReducer, type SessionAction, type SessionState } from '../../console/src/lib/session-state.js';
import { turnStatus } from '../../console/src/lib/turns.js';
import type { NormaEvent, PermissionRequest, Question, ToolResult, Turn } from '../../console/src/lib/types.js';

let seq = 0;
const at = (n: number) => new Date(1_700_000_000_000 + n * 1000).toISOString();
function event<T extends NormaEvent['type']>(type: T, fields: Record<string, unknown>): NormaEvent {
  seq++;
  return { type, seq, session_id: 'ses_1', time: at(seq), ...fields } as unknown as NormaEvent;
}

const perm = (id: string, status: PermissionRequest['status'] = 'pending', n = 1): PermissionRequest => ({
  id,
  session_id: 'ses_1',
  turn_id: 'turn_1',
  tool_use_id: `tu_${id}`,
  tool: 'Write',
  input: { file_path: 'a.txt', content: 'hi' },
  reason: 'edits need approval',
  suggestions: ['Write(a.txt)'],
  status,
  created_at: at(n),
});

const question = (id: string, status: Question['status'] = 'pending'): Question => ({
  id,
  session_id: 'ses_1',
  turn_id: 'turn_1',
  tool_use_id: `tu_${id}`,
  questions: [{ question: 'Which?', options: [{ label: 'A' }, { label: 'B' }], multiSelect: false }],
  status,
  created_at: at(2),
});

const result = (id: string, text: string, isError = false): ToolResult => ({ type: 'tool_result', tool_use_id: id, is_error: isError, content: [{ type: 'text', text }] });

const run = (actions: SessionAction[], from: SessionState = initialSessionState) => actions.reduce(sessionReducer, from);
const events = (...list: NormaEvent[]): SessionAction => ({ kind: 'events', events: list });

describe('pending requests and questions', () => {
  it('listing then events: requested adds, resolved removes', () => {
    const s = run([
      { kind: 'permissions', items: [perm('p1')] },
      events(event('permission.requested', { turn_id: 'turn_1', permission: perm('p2', 'pending', 2) })),
    ]);
    expect(s.pending.permissions.map((p) => p.id)).toEqual(['p1', 'p2']);
    const t = run([events(event('permission.resolved', { turn_id: 'turn_1', permission: perm('p1', 'allowed') }))], s);
    expect(t.pending.permissions.map((p) => p.id)).toEqual(['p2']);
  });

  it('a resolution seen before a stale listing keeps the request resolved', () => {
    const s = run([
      events(event('permission.requested', { turn_id: 'turn_1', permission: perm('p1') })),
      events(event('permission.resolved', { turn_id: 'turn_1', permission: perm('p1', 'denied') })),
      { kind: 'permissions', items: [perm('p1')] },
      { kind: 'questions', items: [question('q1')] },
      { kind: 'resolved', id: 'q1' },
      { kind: 'questions', items: [question('q1')] },
    ]);
    expect(s.pending.permissions).toEqual([]);
    expect(s.pending.questions).toEqual([]);
  });

  it('questions follow question.asked and question.answered', () => {
    const s = run([events(event('question.asked', { turn_id: 'turn_1', question: question('q1') }))]);
    expect(s.pending.questions.map((q) => q.id)).toEqual(['q1']);
    const t = run([events(event('question.answered', { turn_id: 'turn_1', question: question('q1', 'answered') }))], s);
    expect(t.pending.questions).toEqual([]);
  });

  it('arrivals are the ids that were not pending before', () => {
    const before = run([{ kind: 'permissions', items: [perm('p1')] }]).pending;
    const after = run([{ kind: 'permissions', items: [perm('p2', 'pending', 3)] }, { kind: 'questions', items: [question('q1')] }], { ...initialSessionState, pending: before }).pending;
    expect(arrivals(before, after).permissions.map((p) => p.id)).toEqual(['p2']);
    expect(arrivals(before, after).questions.map((q) => q.id)).toEqual(['q1']);
    expect(arrivals(emptyPending, emptyPending).permissions).toEqual([]);
  });

  it('what the listing returned is the baseline; a request the stream brought while it loaded is an arrival', () => {
    // p1 was listed; p2 came by the stream before the listing answered; q1 was listed.
    const now = run([{ kind: 'permissions', items: [perm('p1'), perm('p2', 'pending', 3)] }, { kind: 'questions', items: [question('q1')] }]).pending;
    const base = baseline(now, new Set(['p1', 'q1']));
    expect(base.permissions.map((p) => p.id)).toEqual(['p1']);
    expect(arrivals(base, now).permissions.map((p) => p.id)).toEqual(['p2']);
    expect(arrivals(base, now).questions).toEqual([]);
    expect(arrivals(baseline(now, new Set()), now).permissions.map((p) => p.id)).toEqual(['p1', 'p2']);
  });

  it('only recent arrivals are news (a replay brings old requests back briefly)', () => {
    const now = Date.parse(at(100));
    expect(newsworthy([perm('old', 'pending', 10), perm('new', 'pending', 90), perm('ahead', 'pending', 130)], now).map((p) => p.id)).toEqual(['new', 'ahead']);
  });
});

describe('turns', () => {
  const turn = (status: Turn['status'], results: ToolResult[] = []): Turn => ({
    id: 'turn_1',
    session_id: 'ses_1',
    kind: 'direct',
    status,
    tool_uses: [
      { type: 'tool_use', id: 'tu_1', name: 'Write', input: { file_path: 'a.txt' } },
      { type: 'tool_use', id: 'tu_2', name: 'Read', input: { file_path: 'b.txt' } },
    ],
    results,
    pending: [],
    created_at: at(0),
  });

  it('calls start from the turn, run on tool.started, end with tool.completed by tool_use_id', () => {
    const s = run([
      events(
        event('turn.started', { turn_id: 'turn_1', kind: 'direct', tool_uses: turn('running').tool_uses }),
        event('tool.started', { turn_id: 'turn_1', tool_use_id: 'tu_2', tool: 'Read', input: { file_path: 'b.txt' } }),
      ),
    ]);
    expect(s.turns).toHaveLength(1);
    expect(s.turns[0]!.calls.map((c) => [c.id, c.tool, c.state])).toEqual([
      ['tu_1', 'Write', 'waiting'],
      ['tu_2', 'Read', 'running'],
    ]);
    const t = run([events(event('tool.completed', { turn_id: 'turn_1', tool_use_id: 'tu_2', tool: 'Read', result: result('tu_2', 'B') }))], s);
    const call = t.turns[0]!.calls[1]!;
    expect(call.state).toBe('done');
    expect(call.result?.content).toEqual([{ type: 'text', text: 'B' }]);
    expect(t.turns[0]!.calls[0]!.state).toBe('waiting');
  });

  it('the status of an open turn follows what waits for a person; a final one is as reported', () => {
    const s = run([
      { kind: 'turns', turns: [turn('awaiting_permission')] },
      { kind: 'permissions', items: [perm('p1')] },
    ]);
    expect(turnStatus(s.turns[0]!, s.pending)).toBe('awaiting_permission');
    const answered = run([{ kind: 'resolved', id: 'p1' }], s);
    expect(turnStatus(answered.turns[0]!, answered.pending)).toBe('running');
    const done = run([events(event('turn.completed', { turn: turn('completed', [result('tu_1', 'ok'), result('tu_2', 'no', true)]) }))], answered);
    expect(turnStatus(done.turns[0]!, done.pending)).toBe('completed');
    expect(done.turns[0]!.calls.map((c) => c.state)).toEqual(['done', 'done']);
    expect(done.turns[0]!.calls[1]!.result?.is_error).toBe(true);
    // A listing read before the end does not reopen it.
    const stale = run([{ kind: 'turns', turns: [turn('running')] }], done);
    expect(stale.turns[0]!.status).toBe('completed');
    expect(stale.turns[0]!.calls[0]!.result).toBeDefined();
  });

  it('prompt turns learn their calls from message.completed', () => {
    const s = run([
      events(
        event('turn.started', { turn_id: 'turn_2', kind: 'prompt', tool_uses: [] }),
        event('message.completed', {
          turn_id: 'turn_2',
          message_index: 1,
          message: { role: 'assistant', content: [{ type: 'text', text: 'Let me look' }, { type: 'tool_use', id: 'tu_9', name: 'Grep', input: { pattern: 'x' } }] },
          stop_reason: 'tool_use',
          usage: { input_tokens: 1, output_tokens: 1 },
        }),
      ),
    ]);
    expect(s.turns[0]!.kind).toBe('prompt');
    expect(s.turns[0]!.calls.map((c) => [c.id, c.tool])).toEqual([['tu_9', 'Grep']]);
  });
});

describe('events, todos and live text', () => {
  it('keeps durable events in order and counts them by type', () => {
    const s = run([
      events(event('session.created', { session: { id: 'ses_1', status: 'active', permission_mode: 'default', tools: [] } })),
      events(event('todo.updated', { turn_id: 't', tool_use_id: 'u', items: [{ content: 'x', status: 'pending', activeForm: 'xing' }], updated_at: at(50) })),
      events(event('session.closed', { reason: 'deleted' })),
    ]);
    expect(s.events.map((e) => e.type)).toEqual(['session.created', 'todo.updated', 'session.closed']);
    expect(s.counts['todo.updated']).toBe(1);
    expect(s.session?.status).toBe('closed');
    expect(s.todos?.items).toHaveLength(1);
    // An older listing does not replace the newer list.
    const t = run([{ kind: 'todos', list: { items: [], updated_at: at(10) } }], s);
    expect(t.todos?.items).toHaveLength(1);
    // Nor does an older read of the session reopen it.
    const u = run([{ kind: 'session', session: { ...s.session!, status: 'active' } }], s);
    expect(u.session?.status).toBe('closed');
  });

  it('streams message deltas (reset drops them) until message.completed; progress until tool.completed', () => {
    const delta = (text: string, reset?: boolean) => ({ type: 'message.delta', seq: 3, session_id: 'ses_1', time: at(3), turn_id: 't', message_index: 0, block_index: 0, text, ...(reset ? { reset } : {}) }) as NormaEvent;
    let s = run([{ kind: 'events', events: [delta('Hel'), delta('lo')] }]);
    expect(s.live.messages['t/0']).toBe('Hello');
    s = run([{ kind: 'events', events: [delta('Again', true)] }], s);
    expect(s.live.messages['t/0']).toBe('Again');
    s = run([{ kind: 'events', events: [{ type: 'tool.progress', seq: 3, session_id: 'ses_1', time: at(3), turn_id: 't', tool_use_id: 'u', chunk: 'out' } as NormaEvent] }], s);
    expect(s.live.progress.u).toBe('out');
    expect(s.events).toHaveLength(0);
    s = run(
      [
        events(
          event('message.completed', { turn_id: 't', message_index: 0, message: { role: 'assistant', content: [] }, stop_reason: 'end_turn' }),
          event('tool.completed', { turn_id: 't', tool_use_id: 'u', tool: 'Bash', result: result('u', 'out') }),
        ),
      ],
      s,
    );
    expect(s.live.messages).toEqual({});
    expect(s.live.progress).toEqual({});
    expect(s.counts['tool:Bash']).toBe(1);
  });

  it('applies a batch in arrival order: a delta before its message.completed leaves no text', () => {
    const s = run([
      events(
        { type: 'message.delta', seq: 0, session_id: 'ses_1', time: at(0), turn_id: 't', message_index: 0, block_index: 0, text: 'Hi' } as NormaEvent,
        event('message.completed', { turn_id: 't', message_index: 0, message: { role: 'assistant', content: [] }, stop_reason: 'end_turn' }),
      ),
    ]);
    expect(s.live.messages).toEqual({});
    expect(s.events.map((e) => e.type)).toEqual(['message.completed']);
  });
});
