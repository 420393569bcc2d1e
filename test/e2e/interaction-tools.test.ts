// The interaction and plan tools over HTTP and SSE: TodoWrite's durable list, AskUser's pause
// through the broker (answer, dismiss, timeout, cancel, restart, bad answers, alongside a
// permission request, in a prompt turn), and plan mode (enter, a person approves the plan and
// picks the next mode, a denial keeps plan mode).
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openSse, type SseStream } from '../helpers/sse.js';
import { startServer, type TestServer, closeAll } from '../helpers/server.js';

let servers: TestServer[] = [];
let streams: SseStream[] = [];
let dirs: string[] = [];
afterEach(async () => {
  for (const s of streams) s.close();
  streams = [];
  await closeAll(servers);
  for (const d of dirs) await fs.rm(d, { recursive: true, force: true });
  dirs = [];
});

async function boot(env: Record<string, string> = {}, dataDir?: string): Promise<TestServer> {
  const t = await startServer({ NORMA_SANDBOX: 'off', NORMA_SHUTDOWN_GRACE_S: '2', ...env }, dataDir ? { dataDir } : {});
  servers.push(t);
  return t;
}
async function sse(t: TestServer, sessionId: string, after?: string): Promise<SseStream> {
  const s = await openSse(`${t.url}/v1/sessions/${sessionId}/events`, after !== undefined ? { lastEventId: after } : {});
  streams.push(s);
  return s;
}
async function session(t: TestServer, body: Record<string, unknown> = {}) {
  const res = await t.api.post('/v1/sessions', { tools: ['Read', 'Write', 'TodoWrite', 'AskUser', 'EnterPlanMode', 'ExitPlanMode'], ...body });
  expect(res.status).toBe(201);
  return res.body;
}
const textOf = (r: { content: { text: string }[] }) => r.content.map((c) => c.text).join('\n');

const QUESTIONS = [
  { question: 'Which database should the service use?', header: 'Database', options: [{ label: 'PostgreSQL (Recommended)', description: 'Replicas later' }, { label: 'SQLite' }] },
  { question: 'Which features should ship first?', options: [{ label: 'Search' }, { label: 'Export' }, { label: 'Sharing' }], multiSelect: true },
];

describe('TodoWrite', () => {
  it('replaces the durable list, announces it, serves it, exports it, and keeps it across a restart', async () => {
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'norma-todos-'));
    dirs.push(dataDir);
    const a = await boot({}, dataDir);
    const s = await session(a);
    expect((await a.api.get(`/v1/sessions/${s.id}/todos`)).body).toEqual({ items: [], updated_at: null });
    const events = await sse(a, s.id);
    const todos = [
      { content: 'Read the code', status: 'completed', activeForm: 'Reading the code' },
      { content: 'Write the fix', status: 'in_progress', activeForm: 'Writing the fix' },
      { content: 'Run the tests', status: 'pending', activeForm: 'Running the tests' },
    ];
    const turn = (await a.api.post(`/v1/sessions/${s.id}/turns?wait=20`, { tool_uses: [{ id: 'toolu_t', name: 'TodoWrite', input: { todos } }] })).body;
    expect(turn.status).toBe('completed');
    expect(turn.results[0].is_error).toBe(false);
    expect(textOf(turn.results[0])).toContain('3 item(s): 1 completed, 1 in progress, 1 pending. Now: Writing the fix.');
    const ev = await events.waitFor((e) => e.event === 'todo.updated');
    expect(ev.data).toMatchObject({ turn_id: turn.id, tool_use_id: 'toolu_t', items: todos });
    const listed = (await a.api.get(`/v1/sessions/${s.id}/todos`)).body;
    expect(listed.items).toEqual(todos);
    expect(Date.parse(listed.updated_at)).toBeGreaterThan(0);

    // Bad lists change nothing: two items in progress, a missing activeForm, a status not known.
    const bad = (
      await a.api.post(`/v1/sessions/${s.id}/turns?wait=20`, {
        tool_uses: [
          { name: 'TodoWrite', input: { todos: [todos[1], { ...todos[2], status: 'in_progress' }] } },
          { name: 'TodoWrite', input: { todos: [{ content: 'x', status: 'pending' }] } },
          { name: 'TodoWrite', input: { todos: [{ content: 'x', status: 'done', activeForm: 'x' }] } },
        ],
      })
    ).body;
    expect(bad.results.map((r: { is_error: boolean }) => r.is_error)).toEqual([true, true, true]);
    expect(textOf(bad.results[0])).toContain('2 items are in_progress');
    expect(textOf(bad.results[1])).toContain('activeForm');
    expect((await a.api.get(`/v1/sessions/${s.id}/todos`)).body).toEqual(listed);

    const exported = (await a.api.get(`/v1/sessions/${s.id}/export`)).body;
    expect(exported.todos).toEqual(listed);

    await a.close();
    const b = await boot({}, dataDir);
    expect((await b.api.get(`/v1/sessions/${s.id}/todos`)).body).toEqual(listed);
    // Cleared by an empty list.
    const cleared = (await b.api.post(`/v1/sessions/${s.id}/turns?wait=20`, { tool_uses: [{ name: 'TodoWrite', input: { todos: [] } }] })).body;
    expect(textOf(cleared.results[0])).toContain('now empty');
    expect((await b.api.get(`/v1/sessions/${s.id}/todos`)).body.items).toEqual([]);
  });

  it('is allowed in plan mode (it changes only the session\'s own list)', async () => {
    const t = await boot();
    const s = await session(t, { permission_mode: 'plan' });
    const turn = (
      await t.api.post(`/v1/sessions/${s.id}/turns?wait=20`, {
        tool_uses: [{ name: 'TodoWrite', input: { todos: [{ content: 'Plan', status: 'in_progress', activeForm: 'Planning' }] } }],
      })
    ).body;
    expect(turn.results[0].is_error).toBe(false);
  });
});

describe('AskUser', () => {
  it('pauses the turn as awaiting_input, and an answer over HTTP continues it with the answers in the tool_result', async () => {
    const t = await boot();
    const s = await session(t);
    const events = await sse(t, s.id);
    const turn = (await t.api.post(`/v1/sessions/${s.id}/turns?wait=10`, { tool_uses: [{ id: 'toolu_q', name: 'AskUser', input: { questions: QUESTIONS } }] })).body;
    expect(turn.status).toBe('awaiting_input');
    expect(turn.pending).toHaveLength(1);
    const qid = turn.pending[0];
    expect(qid).toMatch(/^q_/);
    const asked = await events.waitFor((e) => e.event === 'question.asked');
    expect(asked.data.question).toMatchObject({ id: qid, turn_id: turn.id, tool_use_id: 'toolu_q', questions: QUESTIONS, status: 'pending' });
    const pending = (await t.api.get(`/v1/sessions/${s.id}/questions?status=pending`)).body.items;
    expect(pending.map((q: { id: string }) => q.id)).toEqual([qid]);
    // Asking is not a permission request.
    expect((await t.api.get(`/v1/sessions/${s.id}/permissions`)).body.items).toEqual([]);

    // Bad answers: 400 naming what is wrong, and the question stays pending.
    const bad = async (body: unknown, text: string) => {
      const res = await t.api.post(`/v1/sessions/${s.id}/questions/${qid}`, body);
      expect(res.status).toBe(400);
      expect(res.headers.get('content-type')).toContain('application/problem+json');
      expect(JSON.stringify(res.body)).toContain(text);
    };
    await bad({ answers: { 'Which database should the service use?': 'SQLite', 'Is this asked?': 'no', 'Which features should ship first?': ['Search'] } }, 'is not one of the questions asked');
    await bad({ answers: { 'Which database should the service use?': ['SQLite', 'PostgreSQL (Recommended)'], 'Which features should ship first?': ['Search'] } }, 'takes one answer, not 2');
    await bad({ answers: { 'Which database should the service use?': 'SQLite', 'Which features should ship first?': ['Search', 'Chat'] } }, '\\"Chat\\" is not an offered option');
    await bad({ answers: { 'Which database should the service use?': 'SQLite', 'Which features should ship first?': ['Search', 'Search'] } }, 'is given twice');
    await bad({ answers: { 'Which database should the service use?': 'SQLite' } }, 'no answer to');
    await bad({ answers: {}, dismiss: true }, 'must');
    expect((await t.api.get(`/v1/sessions/${s.id}/turns/${turn.id}`)).body.status).toBe('awaiting_input');

    const answer = await t.api.post(`/v1/sessions/${s.id}/questions/${qid}`, {
      answers: { 'Which database should the service use?': 'SQLite', 'Which features should ship first?': ['Search', 'Export'] },
      response: 'Keep it small.',
    });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ id: qid, status: 'answered', resolved_by: 'client', response: 'Keep it small.' });
    const again = await t.api.post(`/v1/sessions/${s.id}/questions/${qid}`, { dismiss: true });
    expect(again.status).toBe(409);
    const done = await events.waitFor((e) => e.event === 'turn.completed');
    const result = done.data.turn.results[0];
    expect(result).toMatchObject({ tool_use_id: 'toolu_q', is_error: false });
    expect(textOf(result)).toContain('"Which database should the service use?": "SQLite"');
    expect(textOf(result)).toContain('"Which features should ship first?": "Search", "Export"');
    expect(textOf(result)).toContain('The user added: Keep it small.');
    const answered = events.events.filter((e) => e.event === 'question.answered');
    expect(answered.map((e) => e.data.question.status)).toEqual(['answered']);
    // The order of the stream: asked, answered, then the call's result.
    const order = events.events.map((e) => e.event);
    expect(order.indexOf('question.asked')).toBeLessThan(order.indexOf('question.answered'));
    expect(order.indexOf('question.answered')).toBeLessThan(order.indexOf('tool.completed'));
    expect((await t.api.get(`/v1/sessions/${s.id}/export`)).body.questions.map((q: { id: string; status: string }) => [q.id, q.status])).toEqual([[qid, 'answered']]);
  });

  it('takes free text: a single string that is not a label is the person\'s own words', async () => {
    const t = await boot();
    const s = await session(t);
    const turn = (await t.api.post(`/v1/sessions/${s.id}/turns?wait=10`, { tool_uses: [{ name: 'AskUser', input: { questions: [QUESTIONS[0]] } }] })).body;
    const qid = turn.pending[0];
    expect((await t.api.post(`/v1/sessions/${s.id}/questions/${qid}`, { answers: { [QUESTIONS[0]!.question]: 'MariaDB, we run it already' } })).status).toBe(200);
    const done = (await t.api.get(`/v1/sessions/${s.id}/turns/${turn.id}`)).body;
    const finished = done.status === 'completed' ? done : (await t.api.post(`/v1/sessions/${s.id}/turns/${turn.id}/cancel`, {}), done);
    expect(finished.status).toBe('completed');
    expect(textOf(finished.results[0])).toContain('(in the user\'s own words) "MariaDB, we run it already"');
  });

  it('a dismissal, a timeout and a cancellation each end the call with an error result, and are stored as such', async () => {
    const t = await boot();
    const s = await session(t, { question_timeout_s: 0.3 });
    expect(s.question_timeout_s).toBe(0.3);
    const events = await sse(t, s.id);

    // Timeout (counted from the question's creation).
    const timed = (await t.api.post(`/v1/sessions/${s.id}/turns?wait=10`, { tool_uses: [{ name: 'AskUser', input: { questions: [QUESTIONS[0]] } }] })).body;
    const timedOut = await events.waitFor((e) => e.event === 'turn.completed' && e.data.turn.id === timed.id);
    expect(timedOut.data.turn.results[0].is_error).toBe(true);
    expect(textOf(timedOut.data.turn.results[0])).toContain('no answer within question_timeout_s (0.3 s)');
    expect((await t.api.get(`/v1/sessions/${s.id}/questions`)).body.items[0]).toMatchObject({ status: 'timed_out', resolved_by: 'timeout' });

    // Dismissal, before the timeout.
    const s2 = await session(t);
    const ev2 = await sse(t, s2.id);
    const dis = (await t.api.post(`/v1/sessions/${s2.id}/turns?wait=10`, { tool_uses: [{ name: 'AskUser', input: { questions: [QUESTIONS[0]] } }] })).body;
    const r = await t.api.post(`/v1/sessions/${s2.id}/questions/${dis.pending[0]}`, { dismiss: true, message: 'decide yourself' });
    expect(r.body).toMatchObject({ status: 'dismissed', resolved_by: 'client', message: 'decide yourself' });
    const dismissed = await ev2.waitFor((e) => e.event === 'turn.completed');
    expect(dismissed.data.turn.results[0].is_error).toBe(true);
    expect(textOf(dismissed.data.turn.results[0])).toContain('dismissed the questions without answering: decide yourself');

    // Cancellation of the turn.
    const can = (await t.api.post(`/v1/sessions/${s2.id}/turns?wait=10`, { tool_uses: [{ name: 'AskUser', input: { questions: [QUESTIONS[0]] } }] })).body;
    expect(can.status).toBe('awaiting_input');
    expect((await t.api.post(`/v1/sessions/${s2.id}/turns/${can.id}/cancel`, {})).status).toBe(200);
    const cancelled = await ev2.waitFor((e) => e.event === 'turn.cancelled');
    expect(cancelled.data.turn.results[0].is_error).toBe(true);
    expect(textOf(cancelled.data.turn.results[0])).toMatch(/^Cancelled/);
    const q = (await t.api.get(`/v1/sessions/${s2.id}/questions/`.slice(0, -1))).body.items.find((x: { turn_id: string }) => x.turn_id === can.id);
    expect(q).toMatchObject({ status: 'cancelled', resolved_by: 'cancel' });
    expect((await t.api.post(`/v1/sessions/${s2.id}/questions/${q.id}`, { dismiss: true })).status).toBe(409);
  });

  it('is an error at once where nobody answers (dontAsk, auto), and bad questions never reach a person', async () => {
    const t = await boot();
    for (const mode of ['dontAsk', 'auto']) {
      const s = await session(t, { permission_mode: mode });
      const turn = (await t.api.post(`/v1/sessions/${s.id}/turns?wait=10`, { tool_uses: [{ name: 'AskUser', input: { questions: [QUESTIONS[0]] } }] })).body;
      expect(turn.status).toBe('completed');
      expect(turn.results[0].is_error).toBe(true);
      expect(textOf(turn.results[0])).toContain(`${mode} mode: nobody answers AskUser`);
      expect((await t.api.get(`/v1/sessions/${s.id}/questions`)).body.items).toEqual([]);
    }
    const s = await session(t);
    const q = QUESTIONS[0]!;
    const turn = (
      await t.api.post(`/v1/sessions/${s.id}/turns?wait=10`, {
        tool_uses: [
          { name: 'AskUser', input: { questions: [q, q] } },
          { name: 'AskUser', input: { questions: [{ ...q, options: [{ label: 'A' }, { label: 'A' }] }] } },
          { name: 'AskUser', input: { questions: [{ ...q, options: [{ label: 'only one' }] }] } },
          { name: 'AskUser', input: { questions: [] } },
          { name: 'AskUser', input: { questions: [q, q, q, q, q].map((x, i) => ({ ...x, question: `${i}?` })) } },
          { name: 'AskUser', input: { questions: [{ ...q, header: 'x'.repeat(41) }] } },
        ],
      })
    ).body;
    expect(turn.status).toBe('completed');
    expect(turn.results.every((r: { is_error: boolean }) => r.is_error)).toBe(true);
    expect(textOf(turn.results[0])).toContain('is asked twice');
    expect(textOf(turn.results[1])).toContain('is offered twice');
    expect((await t.api.get(`/v1/sessions/${s.id}/questions`)).body.items).toEqual([]);
    expect((await t.api.post(`/v1/sessions/${s.id}/questions/q_nope`, { dismiss: true })).status).toBe(404);
  });

  it('a turn waits on a question and a permission request at once; each answer moves its status', async () => {
    const t = await boot();
    const s = await session(t, { ask_rules: ['Read(secret.txt)'] });
    await fs.writeFile(path.join(s.workspace, 'secret.txt'), 'the secret\n');
    const turn = (
      await t.api.post(`/v1/sessions/${s.id}/turns?wait=10`, {
        tool_uses: [
          { id: 'toolu_ask', name: 'AskUser', input: { questions: [QUESTIONS[0]] } },
          { id: 'toolu_read', name: 'Read', input: { file_path: 'secret.txt' } },
        ],
      })
    ).body;
    const waitStatus = async (status: string) => {
      for (let i = 0; i < 100; i++) {
        const now = (await t.api.get(`/v1/sessions/${s.id}/turns/${turn.id}`)).body;
        const settled = status === 'awaiting_permission' ? now.pending.length === 2 : status === 'awaiting_input' ? now.results.length === 1 : true;
        if (now.status === status && settled) return now;
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new Error(`turn never reached ${status}`);
    };
    const both = await waitStatus('awaiting_permission');
    expect(both.pending.map((id: string) => id.split('_')[0]).sort()).toEqual(['perm', 'q']);
    const perm = (await t.api.get(`/v1/sessions/${s.id}/permissions?status=pending`)).body.items[0];
    expect((await t.api.post(`/v1/sessions/${s.id}/permissions/${perm.id}`, { behavior: 'allow' })).status).toBe(200);
    const onlyQuestion = await waitStatus('awaiting_input');
    expect(onlyQuestion.pending).toEqual([both.pending.find((id: string) => id.startsWith('q_'))]);
    expect(onlyQuestion.results.map((r: { tool_use_id: string }) => r.tool_use_id)).toEqual(['toolu_read']);
    await t.api.post(`/v1/sessions/${s.id}/questions/${onlyQuestion.pending[0]}`, { answers: { [QUESTIONS[0]!.question]: 'SQLite' } });
    const done = await waitStatus('completed');
    expect(done.results.map((r: { tool_use_id: string; is_error: boolean }) => [r.tool_use_id, r.is_error])).toEqual([
      ['toolu_ask', false],
      ['toolu_read', false],
    ]);
  });

  it('a PATCH that decides waiting permission requests leaves questions to a person', async () => {
    const t = await boot();
    const s = await session(t, { ask_rules: ['Read(secret.txt)'] });
    await fs.writeFile(path.join(s.workspace, 'secret.txt'), 'x');
    const turn = (
      await t.api.post(`/v1/sessions/${s.id}/turns?wait=10`, {
        tool_uses: [
          { name: 'AskUser', input: { questions: [QUESTIONS[0]] } },
          { name: 'Read', input: { file_path: 'secret.txt' } },
        ],
      })
    ).body;
    for (let i = 0; i < 100 && (await t.api.get(`/v1/sessions/${s.id}/permissions?status=pending`)).body.items.length === 0; i++) await new Promise((r) => setTimeout(r, 50));
    await t.api.patch(`/v1/sessions/${s.id}`, { add_rules: [{ rule: 'Read(secret.txt)', behavior: 'deny' }] });
    for (let i = 0; i < 100; i++) {
      if ((await t.api.get(`/v1/sessions/${s.id}/turns/${turn.id}`)).body.status === 'awaiting_input') break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const now = (await t.api.get(`/v1/sessions/${s.id}/turns/${turn.id}`)).body;
    expect(now.status).toBe('awaiting_input');
    expect((await t.api.get(`/v1/sessions/${s.id}/permissions`)).body.items[0]).toMatchObject({ status: 'denied', resolved_by: 'rule' });
    expect((await t.api.get(`/v1/sessions/${s.id}/questions?status=pending`)).body.items).toHaveLength(1);
  });

  it('after a restart the question is still pending, can be answered, and the call continues with that answer', async () => {
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'norma-q-restart-'));
    dirs.push(dataDir);
    const a = await boot({}, dataDir);
    const s = await session(a);
    const turn = (
      await a.api.post(`/v1/sessions/${s.id}/turns?wait=10`, {
        tool_uses: [
          { id: 'toolu_q', name: 'AskUser', input: { questions: [QUESTIONS[0]] } },
          { id: 'toolu_w', name: 'Write', input: { file_path: 'after.txt', content: 'x' } },
        ],
      })
    ).body;
    expect(turn.status).toBe('awaiting_input');
    const qid = turn.pending[0];
    await a.close();

    const b = await boot({}, dataDir);
    const again = (await b.api.get(`/v1/sessions/${s.id}/turns/${turn.id}`)).body;
    expect(again).toMatchObject({ status: 'awaiting_input', pending: [qid] });
    const events = await sse(b, s.id, '0');
    await events.waitFor((e) => e.event === 'turn.resumed');
    expect((await b.api.post(`/v1/sessions/${s.id}/questions/${qid}`, { answers: { [QUESTIONS[0]!.question]: 'PostgreSQL (Recommended)' } })).status).toBe(200);
    // The Write after it now asks for permission: the turn went on.
    const perm = await events.waitFor((e) => e.event === 'permission.requested');
    expect(perm.data.permission.tool_use_id).toBe('toolu_w');
    const now = (await b.api.get(`/v1/sessions/${s.id}/turns/${turn.id}`)).body;
    expect(now.results[0]).toMatchObject({ tool_use_id: 'toolu_q', is_error: false });
    expect(textOf(now.results[0])).toContain('"PostgreSQL (Recommended)"');
    // One question for the call, not a second one after the restart.
    expect(events.events.filter((e) => e.event === 'question.asked')).toHaveLength(1);
  });

  it('PreToolUse hooks see AskUser as a tool call like any other', async () => {
    const t = await boot();
    const s = await session(t, {
      hooks: { PreToolUse: [{ matcher: 'AskUser', hooks: [{ type: 'command', command: 'echo "no questions today" >&2; exit 2' }] }] },
    });
    const turn = (await t.api.post(`/v1/sessions/${s.id}/turns?wait=10`, { tool_uses: [{ name: 'AskUser', input: { questions: [QUESTIONS[0]] } }] })).body;
    expect(turn.results[0].is_error).toBe(true);
    expect(textOf(turn.results[0])).toContain('Blocked by PreToolUse hook: no questions today');
    expect((await t.api.get(`/v1/sessions/${s.id}/questions`)).body.items).toEqual([]);
  });

  it('in a prompt turn the model asks, a person answers over HTTP, and the model gets the answer as the tool_result', async () => {
    const t = await boot();
    const s = await session(t, {
      model: {
        provider: 'scripted',
        model: 'demo',
        script: [
          { content: [{ type: 'text', text: 'One question first.' }, { type: 'tool_use', id: 'toolu_ask', name: 'AskUser', input: { questions: [QUESTIONS[0]] } }] },
          { content: [{ type: 'text', text: 'SQLite it is.' }] },
        ],
      },
    });
    const events = await sse(t, s.id);
    const turn = (await t.api.post(`/v1/sessions/${s.id}/turns?wait=10`, { prompt: 'Set up the database.' })).body;
    expect(turn.status).toBe('awaiting_input');
    const asked = await events.waitFor((e) => e.event === 'question.asked');
    await t.api.post(`/v1/sessions/${s.id}/questions/${asked.data.question.id}`, { answers: { [QUESTIONS[0]!.question]: 'SQLite' } });
    const done = await events.waitFor((e) => e.event === 'turn.completed');
    const messages = done.data.turn.messages;
    expect(messages.map((m: { role: string }) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    const result = messages[2].content[0];
    expect(result).toMatchObject({ type: 'tool_result', tool_use_id: 'toolu_ask' });
    expect(JSON.stringify(result.content)).toContain('SQLite');
    expect(messages[3].content).toEqual([{ type: 'text', text: 'SQLite it is.' }]);
  });
});

describe('plan mode', () => {
  it('EnterPlanMode remembers the mode; ExitPlanMode asks with the plan; the approval picks the next mode', async () => {
    const t = await boot();
    const s = await session(t, { permission_mode: 'default', allowed_tools: ['ExitPlanMode', 'Write'] });
    const events = await sse(t, s.id);
    const entered = (await t.api.post(`/v1/sessions/${s.id}/turns?wait=10`, { tool_uses: [{ name: 'EnterPlanMode', input: {} }] })).body;
    expect(textOf(entered.results[0])).toContain('Entered plan mode (the mode before was default');
    const updated = await events.waitFor((e) => e.event === 'session.updated' && e.data.session.permission_mode === 'plan');
    expect(updated.data.session.mode_before_plan).toBe('default');

    // While planning, a change is refused although an allow rule names it; a second entry is a no-op.
    const planning = (
      await t.api.post(`/v1/sessions/${s.id}/turns?wait=10`, {
        tool_uses: [
          { name: 'Write', input: { file_path: 'x.txt', content: 'x' } },
          { name: 'EnterPlanMode', input: {} },
        ],
      })
    ).body;
    expect(textOf(planning.results[0])).toContain('plan mode');
    expect(planning.results[0].is_error).toBe(true);
    expect(textOf(planning.results[1])).toContain('already in plan mode');

    // ExitPlanMode asks a person although an allow rule names it (it always does).
    const plan = '## Plan\n1. Write x.txt\n2. Test it';
    const exit = (await t.api.post(`/v1/sessions/${s.id}/turns?wait=10`, { tool_uses: [{ name: 'ExitPlanMode', input: { plan } }] })).body;
    expect(exit.status).toBe('awaiting_permission');
    const req = (await t.api.get(`/v1/sessions/${s.id}/permissions?status=pending`)).body.items[0];
    expect(req).toMatchObject({ tool: 'ExitPlanMode', input: { plan }, suggestions: [] });

    // A mode on the answer of another tool's request is refused; `plan` is not a mode to exit to.
    expect((await t.api.post(`/v1/sessions/${s.id}/permissions/${req.id}`, { behavior: 'allow', mode: 'plan' })).status).toBe(400);
    const ok = await t.api.post(`/v1/sessions/${s.id}/permissions/${req.id}`, { behavior: 'allow', mode: 'acceptEdits' });
    expect(ok.body).toMatchObject({ status: 'allowed', mode: 'acceptEdits', updated_input: { plan, next_mode: 'acceptEdits' } });
    const done = await events.waitFor((e) => e.event === 'turn.completed' && e.data.turn.id === exit.id);
    expect(textOf(done.data.turn.results[0])).toContain('now in acceptEdits mode');
    const after = (await t.api.get(`/v1/sessions/${s.id}`)).body;
    expect(after).toMatchObject({ permission_mode: 'acceptEdits', mode_before_plan: null });
    // The plan and its approval are in the decision trail.
    const decisions = (await t.api.get(`/v1/sessions/${s.id}/decisions`)).body.items.filter((d: { tool: string }) => d.tool === 'ExitPlanMode');
    expect(decisions.map((d: { behavior: string; decided_by: string }) => `${d.behavior}:${d.decided_by}`)).toEqual(['ask:tool', 'allow:person', 'allow:person']);

    // Now edits run (acceptEdits), and ExitPlanMode outside plan mode is refused without asking.
    const later = (
      await t.api.post(`/v1/sessions/${s.id}/turns?wait=10`, {
        tool_uses: [
          { name: 'Write', input: { file_path: 'x.txt', content: 'x' } },
          { name: 'ExitPlanMode', input: { plan } },
        ],
      })
    ).body;
    expect(later.status).toBe('completed');
    expect(later.results[0].is_error).toBe(false);
    expect(textOf(later.results[1])).toContain('not in plan mode');
  });

  it('without a mode the approval returns to the mode before plan mode; a denial keeps plan mode and tells the model why', async () => {
    const t = await boot();
    const s = await session(t, { permission_mode: 'acceptEdits' });
    await t.api.post(`/v1/sessions/${s.id}/turns?wait=10`, { tool_uses: [{ name: 'EnterPlanMode', input: {} }] });
    expect((await t.api.get(`/v1/sessions/${s.id}`)).body).toMatchObject({ permission_mode: 'plan', mode_before_plan: 'acceptEdits' });

    const first = (await t.api.post(`/v1/sessions/${s.id}/turns?wait=10`, { tool_uses: [{ name: 'ExitPlanMode', input: { plan: 'v1' } }] })).body;
    const r1 = (await t.api.get(`/v1/sessions/${s.id}/permissions?status=pending`)).body.items[0];
    await t.api.post(`/v1/sessions/${s.id}/permissions/${r1.id}`, { behavior: 'deny', message: 'also update the docs' });
    let turn = (await t.api.post(`/v1/sessions/${s.id}/turns/${first.id}/cancel`, {})).body;
    for (let i = 0; i < 50 && turn.status !== 'completed'; i++) turn = (await t.api.get(`/v1/sessions/${s.id}/turns/${first.id}`)).body;
    expect(turn.results[0].is_error).toBe(true);
    expect(textOf(turn.results[0])).toContain('also update the docs');
    expect((await t.api.get(`/v1/sessions/${s.id}`)).body).toMatchObject({ permission_mode: 'plan', mode_before_plan: 'acceptEdits' });

    // A mode the model names itself is not what an approval without `mode` switches to.
    const second = (
      await t.api.post(`/v1/sessions/${s.id}/turns?wait=10`, { tool_uses: [{ name: 'ExitPlanMode', input: { plan: 'v2, with docs', next_mode: 'bypassPermissions' } }] })
    ).body;
    const r2 = (await t.api.get(`/v1/sessions/${s.id}/permissions?status=pending`)).body.items[0];
    expect(r2.input).toEqual({ plan: 'v2, with docs', next_mode: 'bypassPermissions' });
    await t.api.post(`/v1/sessions/${s.id}/permissions/${r2.id}`, { behavior: 'allow' });
    for (let i = 0; i < 50; i++) {
      if ((await t.api.get(`/v1/sessions/${s.id}/turns/${second.id}`)).body.status === 'completed') break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect((await t.api.get(`/v1/sessions/${s.id}`)).body).toMatchObject({ permission_mode: 'acceptEdits', mode_before_plan: null });
  });

  it('refuses a plan too large, a mode on another tool\'s approval, and asking where nobody answers', async () => {
    const t = await boot();
    const s = await session(t, { permission_mode: 'plan' });
    const big = (await t.api.post(`/v1/sessions/${s.id}/turns?wait=10`, { tool_uses: [{ name: 'ExitPlanMode', input: { plan: 'x'.repeat(1_000_000) } }] })).body;
    expect(big.results[0].is_error).toBe(true);
    expect(textOf(big.results[0])).toMatch(/plan.*100000/);
    expect((await t.api.get(`/v1/sessions/${s.id}/permissions`)).body.items).toEqual([]);

    const d = await session(t, { permission_mode: 'default' });
    const w = (await t.api.post(`/v1/sessions/${d.id}/turns?wait=10`, { tool_uses: [{ name: 'Write', input: { file_path: 'a.txt', content: 'a' } }] })).body;
    const wr = (await t.api.get(`/v1/sessions/${d.id}/permissions?status=pending`)).body.items[0];
    const refused = await t.api.post(`/v1/sessions/${d.id}/permissions/${wr.id}`, { behavior: 'allow', mode: 'acceptEdits' });
    expect(refused.status).toBe(400);
    expect(refused.body.detail).toContain('only an approval of ExitPlanMode switches the mode');
    expect((await t.api.get(`/v1/sessions/${d.id}/turns/${w.id}`)).body.status).toBe('awaiting_permission');

    // Entering plan mode from dontAsk: nobody can approve the plan, so ExitPlanMode is refused, not left waiting.
    const n = await session(t, { permission_mode: 'dontAsk' });
    const turn = (
      await t.api.post(`/v1/sessions/${n.id}/turns?wait=10`, {
        tool_uses: [
          { name: 'EnterPlanMode', input: {} },
          { name: 'ExitPlanMode', input: { plan: 'p' } },
        ],
      })
    ).body;
    expect(turn.status).toBe('completed');
    expect(turn.results[1].is_error).toBe(true);
    expect(textOf(turn.results[1])).toContain('entered plan mode from dontAsk mode');
  });
});
