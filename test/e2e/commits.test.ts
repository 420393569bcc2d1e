// How a direct turn is stored: which writes share a commit, and that nothing is delivered or
// answered before the write it reflects has committed. A recording store wraps the real SQLite
// store and notes every write and every outermost commit.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NormaEvent } from '../../src/contract/events.js';
import { SqliteStore } from '../../src/store/sqlite.js';
import type { Store } from '../../src/store/store.js';
import { startServer, type TestServer } from '../helpers/server.js';

/** Every commit, as the list of writes it held ('event:<type>', 'decision:<behavior>', 'turn:<status>', 'activeTurn'). */
const commits: string[][] = [];
let open: string[] | null = null;
let depth = 0;

function recording(inner: SqliteStore): Store {
  const note = (what: string) => {
    // A write outside any transaction is a commit of its own.
    if (open) open.push(what);
    else commits.push([what]);
  };
  return new Proxy(inner, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      if (typeof value !== 'function') return value;
      switch (prop) {
        case 'transaction':
          return (fn: () => unknown) => {
            if (depth === 0) open = [];
            depth++;
            let ok = false;
            try {
              const v = target.transaction(fn);
              ok = true;
              return v;
            } finally {
              depth--;
              if (depth === 0) {
                if (ok && open!.length > 0) commits.push(open!);
                open = null;
              }
            }
          };
        case 'appendEvent':
          return (e: NormaEvent) => (note(`event:${e.type}`), target.appendEvent(e));
        case 'appendDecision':
          return (d: { behavior: string }) => (note(`decision:${d.behavior}`), target.appendDecision(d as never));
        case 'putTurn':
          return (t: { status: string }) => (note(`turn:${t.status}`), target.putTurn(t as never));
        case 'setActiveTurn':
          return (...args: [string, string | null, string?]) => (note('activeTurn'), target.setActiveTurn(...args));
        default:
          return value.bind(target);
      }
    },
  }) as Store;
}

let srv: TestServer;
let dir: string;
let sqlite: SqliteStore;
beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'norma-commits-'));
  sqlite = new SqliteStore(path.join(dir, 'norma.db'));
  srv = await startServer({ NORMA_SANDBOX: 'off' }, { store: recording(sqlite) });
});
afterAll(async () => {
  await srv?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('a direct turn', () => {
  it('commits three times: its start, a call\'s decision with its start, the last result with the turn\'s end', async () => {
    const s = await srv.api.post('/v1/sessions', {});
    fs.writeFileSync(path.join(s.body.workspace, 'a.txt'), 'hello\n');
    // Every event delivered live is already committed when it arrives: the database has no
    // transaction open then, and holds the event.
    const db = (sqlite as unknown as { db: { inTransaction: boolean } }).db;
    const delivered: { type: string; committedBefore: boolean }[] = [];
    const sub = srv.server.ctx.events.subscribe(s.body.id, 1, (e) => {
      delivered.push({ type: e.type, committedBefore: !db.inTransaction && sqlite.eventsAfter(e.session_id, e.seq - 1, 1)[0]?.type === e.type });
    });
    commits.length = 0;
    const turn = await srv.api.post(`/v1/sessions/${s.body.id}/turns?wait=10`, { tool_uses: [{ name: 'Read', input: { file_path: 'a.txt' } }] });
    sub.close();
    expect(turn.status).toBe(200);
    expect(turn.body.status).toBe('completed');
    expect(commits).toEqual([
      ['turn:running', 'activeTurn', 'event:turn.started'],
      ['decision:allow', 'event:tool.started'],
      ['turn:running', 'event:tool.completed', 'turn:completed', 'event:turn.completed', 'activeTurn'],
    ]);
    expect(delivered.map((d) => d.type)).toEqual(['turn.started', 'tool.started', 'tool.completed', 'turn.completed']);
    expect(delivered.every((d) => d.committedBefore)).toBe(true);
    // The answer from the runner's copy is the turn as stored.
    const stored = await srv.api.get(`/v1/sessions/${s.body.id}/turns/${turn.body.id}`);
    expect(turn.body).toEqual(stored.body);
    const session = await srv.api.get(`/v1/sessions/${s.body.id}`);
    expect(session.body.active_turn_id).toBeNull();
  });

  it('with two calls side by side, each decision commits before its call starts; a denied call\'s with its result', async () => {
    const s = await srv.api.post('/v1/sessions', { disallowed_tools: ['Glob'] });
    fs.writeFileSync(path.join(s.body.workspace, 'a.txt'), 'hello\n');
    commits.length = 0;
    const turn = await srv.api.post(`/v1/sessions/${s.body.id}/turns?wait=10`, {
      tool_uses: [
        { name: 'Read', input: { file_path: 'a.txt' } },
        { name: 'Glob', input: { pattern: '*.txt' } },
      ],
    });
    expect(turn.body.status).toBe('completed');
    expect(turn.body.results.map((r: { is_error: boolean }) => r.is_error)).toEqual([false, true]);
    const flat = commits.map((c) => c.join(' '));
    // The calls run side by side (one read-only group): held decisions go with the turn's next
    // write, whichever call makes it. The denied call never started: its decision is stored with
    // its error result; the Read's decision commits no later than its tool.started.
    const at = (what: string) => commits.findIndex((c) => c.includes(what));
    expect(flat.some((c) => /decision:deny.* event:tool\.completed/.test(c))).toBe(true);
    expect(at('decision:allow')).toBeGreaterThanOrEqual(0);
    expect(at('decision:allow')).toBeLessThanOrEqual(at('event:tool.started'));
    expect(commits.flat().filter((w) => w.startsWith('decision:'))).toHaveLength(2);
    expect(flat.at(-1)).toMatch(/event:tool\.completed turn:completed event:turn\.completed activeTurn$/);
    const decisions = await srv.api.get(`/v1/sessions/${s.body.id}/decisions`);
    expect(decisions.body.items.map((d: { tool: string; behavior: string }) => `${d.tool}:${d.behavior}`).sort()).toEqual(['Glob:deny', 'Read:allow']);
  });

  it('a call that asks a person has its decision stored before the request is shown', async () => {
    const s = await srv.api.post('/v1/sessions', {});
    commits.length = 0;
    const turn = await srv.api.post(`/v1/sessions/${s.body.id}/turns?wait=10`, { tool_uses: [{ name: 'Write', input: { file_path: 'b.txt', content: 'x' } }] });
    expect(turn.body.status).toBe('awaiting_permission');
    const askAt = commits.findIndex((c) => c.includes('decision:ask'));
    const requestAt = commits.findIndex((c) => c.includes('event:permission.requested'));
    expect(askAt).toBeGreaterThanOrEqual(0);
    expect(requestAt).toBeGreaterThan(askAt);
    await srv.api.post(`/v1/sessions/${s.body.id}/turns/${turn.body.id}/cancel`, {});
  });
});

describe('a prompt turn', () => {
  it('stores a call\'s last result with the message of results, and the model\'s last answer with the turn\'s end', async () => {
    const s = await srv.api.post('/v1/sessions', {
      model: {
        provider: 'scripted',
        model: 'demo',
        script: [{ content: [{ type: 'text', text: 'Reading.' }, { type: 'tool_use', id: 'toolu_r', name: 'Read', input: { file_path: 'a.txt' } }] }, { content: [{ type: 'text', text: 'It says hello.' }] }],
      },
    });
    fs.writeFileSync(path.join(s.body.workspace, 'a.txt'), 'hello\n');
    commits.length = 0;
    const turn = await srv.api.post(`/v1/sessions/${s.body.id}/turns?wait=10`, { prompt: 'What does a.txt say?' });
    expect(turn.body).toMatchObject({ status: 'completed', model_calls: 2, stop_reason: 'end_turn' });
    expect(commits).toEqual([
      ['turn:running', 'activeTurn', 'event:turn.started'],
      ['turn:running'], // the prompt as the first user message
      ['turn:running', 'event:message.completed'], // the model's tool_use, before the call runs
      ['decision:allow', 'event:tool.started'],
      ['turn:running', 'event:tool.completed', 'turn:running'], // the result, with the user message of results
      ['turn:running', 'event:message.completed', 'turn:completed', 'event:turn.completed', 'activeTurn'],
    ]);
    // The stored transcript pairs the call with its result, as the model was sent it.
    const stored = await srv.api.get(`/v1/sessions/${s.body.id}/turns/${turn.body.id}`);
    const roles = stored.body.messages.map((m: { role: string }) => m.role);
    expect(roles).toEqual(['user', 'assistant', 'user', 'assistant']);
    expect(stored.body.messages[2].content[0]).toMatchObject({ type: 'tool_result', tool_use_id: 'toolu_r' });
  });

  it('with a Stop hook, the last answer commits before the hook hears of it', async () => {
    // A session-level Stop hook (http to nowhere would block; a command that exits 0 is enough).
    const s = await srv.api.post('/v1/sessions', {
      model: { provider: 'scripted', model: 'demo', script: [{ content: [{ type: 'text', text: 'Done.' }] }] },
      hooks: { Stop: [{ hooks: [{ type: 'command', command: 'true' }] }] },
    });
    expect(s.status).toBe(201);
    commits.length = 0;
    const turn = await srv.api.post(`/v1/sessions/${s.body.id}/turns?wait=10`, { prompt: 'Hi' });
    expect(turn.body.status).toBe('completed');
    const at = commits.findIndex((c) => c.includes('event:message.completed'));
    expect(commits[at]).not.toContain('event:turn.completed');
    expect(commits.slice(at + 1).some((c) => c.includes('event:turn.completed'))).toBe(true);
  });
});
