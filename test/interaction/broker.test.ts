// The one broker for every pause: stored and evented requests, answers committed before the
// waiting call learns them, timeouts, stops, re-evaluation, and requests resumed after a restart.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { PermissionRequest } from '../../src/contract/schemas.js';
import { EventLog } from '../../src/events/log.js';
import { newId, systemClock } from '../../src/ids.js';
import { InteractionBroker, type PauseHost } from '../../src/interaction/broker.js';
import { answerBlocks, clientToolKind, permissionKind, type ApprovalAnswer } from '../../src/interaction/kinds.js';
import { TurnStop } from '../../src/interaction/stop.js';
import { SqliteStore } from '../../src/store/sqlite.js';

let dir: string;
let store: SqliteStore;
let events: EventLog;
let broker: InteractionBroker;

function host(): PauseHost & { pending: Set<string> } {
  const pending = new Set<string>();
  return { turnId: 'turn_1', pending, addPending: (id) => pending.add(id), removePending: (id) => pending.delete(id) };
}

const ASK = { toolUseId: 'toolu_1', tool: 'Write', input: { file_path: 'a.txt' }, reason: 'Write needs approval', suggestions: ['Write(a.txt)'] };
const types = () => store.eventsAfter('ses_1', 0, 100).map((e) => e.type);

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'norma-broker-'));
  store = new SqliteStore(path.join(dir, 'db.sqlite'));
  events = new EventLog(store, systemClock);
  broker = new InteractionBroker({ store, events, clock: systemClock, newId });
});
afterEach(() => {
  broker.detachAll();
  store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

function only(): PermissionRequest {
  const all = store.listPermissions('ses_1');
  expect(all).toHaveLength(1);
  return all[0]!;
}

describe('asking and answering', () => {
  it('stores the request with its event, and resolves the call only with what was stored', async () => {
    const h = host();
    const waiting = broker.askPermission('ses_1', h, ASK, { timeoutS: null, signal: new AbortController().signal });
    const p = only();
    expect(p).toMatchObject({ status: 'pending', tool: 'Write', turn_id: 'turn_1', suggestions: ['Write(a.txt)'] });
    expect([...h.pending]).toEqual([p.id]);
    expect(types()).toEqual(['permission.requested']);
    const resolved = broker.answer(permissionKind, 'ses_1', p.id, { behavior: 'allow', updated_input: { file_path: 'b.txt' } });
    expect(resolved).toMatchObject({ status: 'allowed', resolved_by: 'client', updated_input: { file_path: 'b.txt' } });
    expect(await waiting).toEqual({ behavior: 'allow', by: 'client', permissionId: p.id, updatedInput: { file_path: 'b.txt' } });
    expect(h.pending.size).toBe(0);
    expect(types()).toEqual(['permission.requested', 'permission.resolved']);
    expect(() => broker.answer(permissionKind, 'ses_1', p.id, { behavior: 'deny' })).toThrow(expect.objectContaining({ kind: 'conflict' }));
    expect(() => broker.answer(permissionKind, 'ses_1', 'perm_nope', { behavior: 'deny' })).toThrow(expect.objectContaining({ kind: 'not_found' }));
  });

  it('what goes alongside an answer commits with it; if it fails, nothing is stored and the call keeps waiting', async () => {
    const h = host();
    let answer: ApprovalAnswer | undefined;
    void broker.askPermission('ses_1', h, ASK, { timeoutS: null, signal: new AbortController().signal }).then((a) => (answer = a));
    const p = only();
    expect(() =>
      broker.answer(permissionKind, 'ses_1', p.id, { behavior: 'allow' }, () => {
        throw new Error('disk full');
      }),
    ).toThrow('disk full');
    await new Promise((r) => setImmediate(r));
    expect(answer).toBeUndefined();
    expect(only().status).toBe('pending');
    expect(types()).toEqual(['permission.requested']);
    let seenByAlongside: string | undefined;
    broker.answer(permissionKind, 'ses_1', p.id, { behavior: 'deny', message: 'no' }, (r) => (seenByAlongside = r.status));
    expect(seenByAlongside).toBe('denied');
    await new Promise((r) => setImmediate(r));
    expect(answer).toMatchObject({ behavior: 'deny', message: 'no', by: 'client' });
  });

  it('a timeout denies, counted from the request\'s creation', async () => {
    const waiting = broker.askPermission('ses_1', host(), ASK, { timeoutS: 0.05, signal: new AbortController().signal });
    expect(await waiting).toMatchObject({ behavior: 'deny', by: 'timeout', message: 'no answer within 0.05 s' });
    expect(only()).toMatchObject({ status: 'denied', resolved_by: 'timeout' });
  });

  it('a stop of the turn cancels, naming who stopped it', async () => {
    const ctl = new AbortController();
    const waiting = broker.askPermission('ses_1', host(), ASK, { timeoutS: null, signal: ctl.signal });
    ctl.abort(new TurnStop('the session was closed (bye)', 'session_closed'));
    expect(await waiting).toMatchObject({ behavior: 'cancelled', reason: 'the session was closed (bye)' });
    expect(only()).toMatchObject({ status: 'cancelled', resolved_by: 'session_closed' });
  });

  it('a rule that now decides resolves the request by that rule', async () => {
    const waiting = broker.askPermission('ses_1', host(), ASK, {
      timeoutS: null,
      signal: new AbortController().signal,
      reevaluate: async () => ({ behavior: 'allow', reason: 'allowed by rule "Write"', decidedBy: 'rule', rules: ['Write'] }),
    });
    await broker.reevaluatePending('ses_1');
    expect(await waiting).toMatchObject({ behavior: 'allow', by: 'rule', verdict: { rules: ['Write'] } });
    expect(only()).toMatchObject({ status: 'allowed', resolved_by: 'rule', rules: ['Write'] });
  });
});

describe('after a restart', () => {
  async function leftPending(): Promise<PermissionRequest> {
    void broker.askPermission('ses_1', host(), ASK, { timeoutS: null, signal: new AbortController().signal });
    const p = only();
    broker.detachAll(); // the process ends; the request stays pending in the store
    broker = new InteractionBroker({ store, events, clock: systemClock, newId });
    return p;
  }

  it('an expected request can be answered before its call comes back; the call then gets that answer', async () => {
    const p = await leftPending();
    const h = host();
    broker.expect(permissionKind, 'ses_1', h, p, { timeoutS: null, signal: new AbortController().signal });
    expect([...h.pending]).toEqual([p.id]);
    broker.answer(permissionKind, 'ses_1', p.id, { behavior: 'allow' });
    expect(h.pending.size).toBe(0);
    const answer = await broker.askPermission('ses_1', h, ASK, { timeoutS: null, signal: new AbortController().signal, earlier: p });
    expect(answer).toMatchObject({ behavior: 'allow', by: 'client', permissionId: p.id });
    expect(store.listPermissions('ses_1')).toHaveLength(1);
  });

  it('a call that comes back first waits on the same request, and one that never does has it cancelled', async () => {
    const p = await leftPending();
    const h = host();
    broker.expect(permissionKind, 'ses_1', h, p, { timeoutS: null, signal: new AbortController().signal });
    const waiting = broker.askPermission('ses_1', h, ASK, { timeoutS: null, signal: new AbortController().signal, earlier: p });
    broker.answer(permissionKind, 'ses_1', p.id, { behavior: 'deny', message: 'later' });
    expect(await waiting).toMatchObject({ behavior: 'deny', message: 'later' });

    void broker.askPermission('ses_1', host(), { ...ASK, toolUseId: 'toolu_2' }, { timeoutS: null, signal: new AbortController().signal });
    const second = store.listPermissions('ses_1', 'pending')[0]!;
    broker.detachAll();
    broker = new InteractionBroker({ store, events, clock: systemClock, newId });
    broker.expect(permissionKind, 'ses_1', host(), second, { timeoutS: null, signal: new AbortController().signal });
    broker.abandon(permissionKind, second, 'the call no longer asked');
    expect(store.getPermission('ses_1', second.id)).toMatchObject({ status: 'cancelled', resolved_by: 'cancel', message: 'the call no longer asked' });
  });
});

describe('client-tool requests (a third kind, in the same broker)', () => {
  const CALL = { toolUseId: 'toolu_c', name: 'lookup_order', input: { id: 'A-1' } };
  const onlyRequest = () => {
    const all = store.listClientToolRequests('ses_1');
    expect(all).toHaveLength(1);
    return all[0]!;
  };

  it('is stored and announced; the answer\'s content reaches the call and is not stored with the request', async () => {
    const h = host();
    const waiting = broker.askClient('ses_1', h, CALL, { timeoutS: null, signal: new AbortController().signal });
    const r = onlyRequest();
    expect(r.id).toMatch(/^ct_/);
    expect(r).toMatchObject({ status: 'pending', name: 'lookup_order', input: { id: 'A-1' }, tool_use_id: 'toolu_c', turn_id: 'turn_1' });
    expect([...h.pending]).toEqual([r.id]);
    expect(broker.pendingCounts()).toEqual({ permission: 0, question: 0, client_tool: 1 });
    expect(types()).toEqual(['client_tool.requested']);
    const answered = broker.answer(clientToolKind, 'ses_1', r.id, { content: [{ type: 'text', text: 'shipped' }], is_error: true }, undefined, 'acme-write');
    expect(answered).toMatchObject({ status: 'answered', resolved_by: 'client', is_error: true, answered_by: 'acme-write' });
    expect(JSON.stringify(onlyRequest())).not.toContain('shipped');
    expect(await waiting).toEqual({ outcome: 'answered', content: [{ type: 'text', text: 'shipped' }], isError: true, requestId: r.id });
    expect(types()).toEqual(['client_tool.requested', 'client_tool.resolved']);
    expect(h.pending.size).toBe(0);
    expect(() => broker.answer(clientToolKind, 'ses_1', r.id, { content: 'again' })).toThrow(expect.objectContaining({ kind: 'conflict' }));
    // Not a person's: the inbox and the sessions' pending counts leave it out.
    expect(store.listPending({ limit: 10 })).toEqual([]);
  });

  it('a timeout and a stop each end the call without content, and are stored as such', async () => {
    const timedOut = await broker.askClient('ses_1', host(), CALL, { timeoutS: 0.05, signal: new AbortController().signal });
    expect(timedOut).toMatchObject({ outcome: 'timed_out', message: 'the client did not answer within 0.05 s (question_timeout_s)' });
    expect(onlyRequest()).toMatchObject({ status: 'timed_out', resolved_by: 'timeout' });
    const ctl = new AbortController();
    const waiting = broker.askClient('ses_1', host(), { ...CALL, toolUseId: 'toolu_d' }, { timeoutS: null, signal: ctl.signal });
    ctl.abort(new TurnStop('cancelled by the client', 'cancel'));
    expect(await waiting).toMatchObject({ outcome: 'cancelled', reason: 'cancelled by the client' });
    expect(store.listClientToolRequests('ses_1').map((r) => r.status)).toEqual(['timed_out', 'cancelled']);
  });

  it('after a restart an answer given before the call comes back is what the call gets', async () => {
    void broker.askClient('ses_1', host(), CALL, { timeoutS: null, signal: new AbortController().signal });
    const left = onlyRequest();
    broker.detachAll();
    broker = new InteractionBroker({ store, events, clock: systemClock, newId });
    const h = host();
    broker.expect(clientToolKind, 'ses_1', h, left, { timeoutS: null, signal: new AbortController().signal });
    broker.answer(clientToolKind, 'ses_1', left.id, { content: 'late but there' });
    const answer = await broker.askClient('ses_1', h, CALL, { timeoutS: null, signal: new AbortController().signal, earlier: left });
    expect(answer).toMatchObject({ outcome: 'answered', content: [{ type: 'text', text: 'late but there' }], isError: false });
    expect(store.listClientToolRequests('ses_1')).toHaveLength(1);
  });

  it('a string answer is one text block; an empty one is none', () => {
    expect(answerBlocks('x')).toEqual([{ type: 'text', text: 'x' }]);
    expect(answerBlocks('')).toEqual([]);
    expect(answerBlocks([{ type: 'text', text: 'y' }])).toEqual([{ type: 'text', text: 'y' }]);
  });
});
