// The console's inbox and tenant stream bookkeeping: j/k and where they move the selection, what
// is selected after an answer or a reload, the list's filter query, and the tenant stream's
// reconnections (a fresh ticket each time, resuming after the last id). EventSource, tickets
// and timers are fakes.
import { describe, expect, it } from 'vitest';
import { inboxKeyOf, itemId, merged, moved, withoutAnswered } from '../../console/src/lib/inbox.js';
import { listQuery } from '../../console/src/lib/sessions-list.js';
import { TenantStream, tenantEventsUrl, type TenantMessage, type TenantSource } from '../../console/src/lib/tenant-stream.js';
import { ApiError } from '../../console/src/lib/problem.js';
import type { PendingItem } from '../../console/src/lib/types.js';

const perm = (id: string): PendingItem =>
  ({
    kind: 'permission',
    session: { id: 'ses_1', name: null, labels: {}, permission_mode: 'default' },
    permission: { id, session_id: 'ses_1', turn_id: 't', tool_use_id: 'u', tool: 'Write', input: {}, reason: 'r', suggestions: [], status: 'pending', created_at: '2026-01-01T00:00:00Z' },
  }) as PendingItem;
const ids = (items: readonly PendingItem[]) => items.map(itemId);

describe('the inbox', () => {
  it('j and k move the selection, never while typing or with a modifier', () => {
    expect(inboxKeyOf({ key: 'j' }, null)).toBe('next');
    expect(inboxKeyOf({ key: 'k' }, { tagName: 'BUTTON' })).toBe('previous');
    expect(inboxKeyOf({ key: 'j' }, { tagName: 'input' })).toBeNull();
    expect(inboxKeyOf({ key: 'j' }, { tagName: 'DIV', isContentEditable: true })).toBeNull();
    expect(inboxKeyOf({ key: 'j', ctrlKey: true }, null)).toBeNull();
    expect(inboxKeyOf({ key: 'j', defaultPrevented: true }, null)).toBeNull();
    expect(inboxKeyOf({ key: 'a' }, null)).toBeNull();
    const items = [perm('p1'), perm('p2'), perm('p3')];
    expect(moved(items, null, 'next')).toBe('p1');
    expect(moved(items, 'p1', 'next')).toBe('p2');
    expect(moved(items, 'p3', 'next')).toBe('p3');
    expect(moved(items, 'p1', 'previous')).toBe('p1');
    expect(moved(items, 'gone', 'previous')).toBe('p1');
    expect(moved([], 'p1', 'next')).toBeNull();
  });

  it('after an answer the next item is selected; a reload keeps the selection and leaves out what was answered here', () => {
    const items = [perm('p1'), perm('p2'), perm('p3')];
    expect(withoutAnswered(items, 'p2', 'p2')).toEqual({ items: [items[0], items[2]], selected: 'p3' });
    expect(withoutAnswered(items, 'p3', 'p3').selected).toBe('p2');
    expect(withoutAnswered(items, 'p1', 'p3').selected).toBe('p3');
    expect(withoutAnswered([items[0]!], 'p1', 'p1')).toEqual({ items: [], selected: null });
    // The reload still lists p1 (its answer was not stored yet when read): it stays out.
    const reloaded = merged(items, [perm('p1'), perm('p2'), perm('p3'), perm('p4')], 'p2', new Set(['p1']));
    expect(ids(reloaded.items)).toEqual(['p2', 'p3', 'p4']);
    expect(reloaded.selected).toBe('p2');
    // The selected one was answered elsewhere: the next one still there is selected.
    expect(merged(items, [perm('p1'), perm('p3')], 'p2', new Set()).selected).toBe('p3');
    expect(merged(items, [perm('p1')], 'p3', new Set()).selected).toBe('p1');
    expect(merged(items, [], 'p1', new Set())).toEqual({ items: [], selected: null });
    // The first load selects the oldest.
    expect(merged([], items, null, new Set()).selected).toBe('p1');
  });

  it('the list\'s filter becomes label and status parameters, each encoded', () => {
    expect(listQuery({ labels: '', status: '' })).toBe('');
    expect(listQuery({ labels: ' team:infra  env:prod ', status: 'active' })).toBe('&label=team%3Ainfra&label=env%3Aprod&status=active');
    expect(listQuery({ labels: 'url:https://x/?a=1&b', status: '' })).toBe('&label=url%3Ahttps%3A%2F%2Fx%2F%3Fa%3D1%26b');
  });
});

class FakeSource implements TenantSource {
  readyState = 0;
  closed = false;
  private readonly listeners = new Map<string, ((m: TenantMessage) => void)[]>();
  constructor(readonly url: string) {}
  addEventListener(type: string, listener: (m: TenantMessage) => void): void {
    this.listeners.set(type, [...(this.listeners.get(type) ?? []), listener]);
  }
  close(): void {
    this.closed = true;
    this.readyState = 2;
  }
  emit(type: string, m: TenantMessage = { data: '' }): void {
    for (const l of this.listeners.get(type) ?? []) l(m);
  }
}

describe('the tenant stream in the console', () => {
  it('asks only for its types, takes a fresh ticket for every connection and resumes after the last id', async () => {
    expect(tenantEventsUrl('/v1/events', 't k', ['a.b', 'c'], null)).toBe('/v1/events?ticket=t%20k&type=a.b&type=c');
    expect(tenantEventsUrl('/v1/events', 't', [], '12-3')).toBe('/v1/events?ticket=t&after=12-3');
    const sources: FakeSource[] = [];
    const timers: (() => void)[] = [];
    const got: string[] = [];
    const statuses: string[] = [];
    let n = 0;
    const stream = new TenantStream('/v1/events', ['permission.requested'], {
      takeTicket: async () => `ticket${++n}`,
      open: (url) => {
        const s = new FakeSource(url);
        sources.push(s);
        return s;
      },
      onEvent: (e) => got.push(`${e.session_id}/${e.seq}`),
      onStatus: (s) => statuses.push(s),
      onError: () => undefined,
      isFatal: () => false,
      setTimer: (fn) => timers.push(fn),
      clearTimer: () => undefined,
    });
    stream.start();
    await Promise.resolve();
    await Promise.resolve();
    expect(sources[0]!.url).toBe('/v1/events?ticket=ticket1&type=permission.requested');
    sources[0]!.emit('open');
    sources[0]!.emit('permission.requested', { data: JSON.stringify({ type: 'permission.requested', session_id: 's', seq: 4 }), lastEventId: '7' });
    sources[0]!.emit('permission.requested', { data: 'not json', lastEventId: '8' });
    expect(got).toEqual(['s/4']);
    // The connection fails: a new ticket, after the last id, once the backoff timer fires.
    sources[0]!.readyState = 2;
    sources[0]!.emit('error');
    expect(timers).toHaveLength(1);
    timers.shift()!();
    await Promise.resolve();
    await Promise.resolve();
    expect(sources[1]!.url).toBe('/v1/events?ticket=ticket2&type=permission.requested&after=8');
    // An old connection's late events are ignored.
    sources[0]!.emit('permission.requested', { data: JSON.stringify({ type: 'permission.requested', session_id: 'old', seq: 1 }), lastEventId: '99' });
    expect(got).toEqual(['s/4']);
    // The server ends the stream: reconnect too.
    sources[1]!.emit('stream.end');
    expect(sources[1]!.closed).toBe(true);
    expect(timers).toHaveLength(1);
    stream.stop();
    expect(statuses.at(-1)).toBe('stopped');
  });

  it('a fatal ticket error stops it; another is retried', async () => {
    const statuses: string[] = [];
    let calls = 0;
    const timers: (() => void)[] = [];
    const stream = new TenantStream('/v1/events', ['x'], {
      takeTicket: async () => {
        calls++;
        throw new ApiError(calls === 1 ? 503 : 403, 'no');
      },
      open: () => new FakeSource(''),
      onEvent: () => undefined,
      onStatus: (s) => statuses.push(s),
      onError: () => undefined,
      isFatal: (e) => e instanceof ApiError && e.status === 403,
      setTimer: (fn) => timers.push(fn),
    });
    stream.start();
    await new Promise((r) => setTimeout(r, 0));
    expect(timers).toHaveLength(1);
    timers.shift()!();
    await new Promise((r) => setTimeout(r, 0));
    expect(statuses.at(-1)).toBe('stopped');
    expect(timers).toHaveLength(0);
  });
});

describe('a prompt turn as a conversation', () => {
  it('keeps the prompt and each model message with the calls it asked for, from events and from the turn as listed, without a subagent\'s', async () => {
    const { applyTurnEvent, applyTurnList } = await import('../../console/src/lib/turns.js');
    const time = '2026-01-01T00:00:00Z';
    const base = { session_id: 's', time };
    let turns = applyTurnEvent([], { ...base, seq: 1, type: 'turn.started', turn_id: 't1', kind: 'prompt', tool_uses: [], prompt: [{ type: 'text', text: 'Fix **it**' }] } as never);
    turns = applyTurnEvent(turns, {
      ...base,
      seq: 2,
      type: 'message.completed',
      turn_id: 't1',
      message_index: 1,
      message: { role: 'assistant', content: [{ type: 'text', text: 'Reading *first*.' }, { type: 'tool_use', id: 'tu1', name: 'Read', input: { file_path: 'a' } }] },
      stop_reason: 'tool_use',
      usage: { input_tokens: 1, output_tokens: 1 },
    } as never);
    turns = applyTurnEvent(turns, {
      ...base,
      seq: 3,
      type: 'message.completed',
      turn_id: 't1',
      parent_tool_use_id: 'agent1',
      message_index: 0,
      message: { role: 'assistant', content: [{ type: 'text', text: 'subagent talk' }] },
      stop_reason: 'end_turn',
      usage: { input_tokens: 1, output_tokens: 1 },
    } as never);
    expect(turns[0]).toMatchObject({ kind: 'prompt', prompt: 'Fix **it**', said: [{ index: 1, text: 'Reading *first*.', calls: ['tu1'] }] });
    // The listed turn agrees, and adds what came later, without repeating a message.
    const listed = applyTurnList(turns, [
      {
        id: 't1',
        session_id: 's',
        kind: 'prompt',
        status: 'completed',
        created_at: time,
        tool_uses: [{ type: 'tool_use', id: 'tu1', name: 'Read', input: { file_path: 'a' } }],
        results: [],
        prompt: [{ type: 'text', text: 'Fix **it**' }],
        messages: [
          { role: 'user', content: [{ type: 'text', text: 'Fix **it**' }] },
          { role: 'assistant', content: [{ type: 'text', text: 'Reading *first*.' }, { type: 'tool_use', id: 'tu1', name: 'Read', input: {} }] },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'tu1', content: [] }] },
          { role: 'assistant', content: [{ type: 'text', text: 'Done.' }] },
        ],
      } as never,
    ]);
    expect(listed[0]!.said).toEqual([
      { index: 1, text: 'Reading *first*.', calls: ['tu1'] },
      { index: 3, text: 'Done.', calls: [] },
    ]);
  });
});
