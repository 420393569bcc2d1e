// Prompt turns through the HTTP API with the scripted provider: the model loop, pairing and order
// of tool_results, streaming, permission pauses, cancellation, limits, hooks around the loop,
// continuation across turns and across a restart.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { HookInput } from '../../src/hooks/registry.js';
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

async function boot(...args: Parameters<typeof startServer>): Promise<TestServer> {
  const t = await startServer(...args);
  servers.push(t);
  return t;
}

async function sse(t: TestServer, sessionId: string, after?: string): Promise<SseStream> {
  const s = await openSse(`${t.url}/v1/sessions/${sessionId}/events`, after !== undefined ? { lastEventId: after } : {});
  streams.push(s);
  return s;
}

const text = (t: string) => ({ type: 'text', text: t });
const use = (id: string, name: string, input: unknown) => ({ type: 'tool_use', id, name, input });

async function session(t: TestServer, script: unknown[], extra: Record<string, unknown> = {}) {
  const res = await t.api.post('/v1/sessions', { model: { provider: 'scripted', model: 'demo', script }, ...extra });
  expect(res.status).toBe(201);
  return res.body;
}

describe('prompt turns with the scripted provider', () => {
  it('runs the loop: tool_uses through the pipeline, results paired in order in one user message, until the model stops', async () => {
    const t = await boot();
    const s = await session(t, [
      { content: [text('Let me look.'), use('toolu_a', 'Read', { file_path: 'a.txt' }), use('toolu_b', 'LS', { path: '.' })] },
      { content: [text('The file says hello.')] },
    ]);
    expect(s.model).toMatchObject({ provider: 'scripted', model: 'demo', has_api_key: false, source: 'session', script_replies: 2 });
    await fs.writeFile(path.join(s.workspace, 'a.txt'), 'hello\n');
    const events = await sse(t, s.id);

    const res = await t.api.post(`/v1/sessions/${s.id}/turns?wait=20`, { prompt: 'What does a.txt say?' });
    expect(res.status).toBe(200);
    const turn = res.body;
    expect(turn).toMatchObject({ kind: 'prompt', status: 'completed', stop_reason: 'end_turn', model_calls: 2 });
    expect(turn.prompt).toEqual([text('What does a.txt say?')]);
    expect(turn.tool_uses.map((u: { id: string }) => u.id)).toEqual(['toolu_a', 'toolu_b']);
    expect(turn.results.map((r: { tool_use_id: string; is_error: boolean }) => [r.tool_use_id, r.is_error])).toEqual([
      ['toolu_a', false],
      ['toolu_b', false],
    ]);
    expect(turn.messages.map((m: { role: string }) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    const results = turn.messages[2].content;
    expect(results.map((b: { type: string; tool_use_id: string }) => [b.type, b.tool_use_id])).toEqual([
      ['tool_result', 'toolu_a'],
      ['tool_result', 'toolu_b'],
    ]);
    expect(results[0].content[0].text).toContain('hello');
    expect(results[1].content[0].text).toContain('a.txt');
    expect(turn.usage.input_tokens).toBeGreaterThan(0);

    // Events: deltas stream the text, each model call ends with message.completed, and the calls
    // start only after the message that asked for them.
    await events.waitFor((e) => e.event === 'turn.completed');
    const types = events.events.map((e) => e.event).filter((e) => e !== 'hook.completed');
    const firstMessage = types.indexOf('message.completed');
    expect(types.indexOf('turn.started')).toBeLessThan(firstMessage);
    expect(firstMessage).toBeLessThan(types.indexOf('tool.started'));
    expect(types.filter((x) => x === 'message.completed')).toHaveLength(2);
    const deltas = events.events.filter((e) => e.event === 'message.delta' && e.data.message_index === 1);
    expect(deltas.length).toBeGreaterThan(0);
    expect(deltas.every((d) => d.id === undefined)).toBe(true); // live-only
    expect(deltas.map((d) => d.data.text).join('')).toBe('Let me look.');
    const completed = events.events.filter((e) => e.event === 'message.completed');
    expect(completed.map((e) => e.data.message_index)).toEqual([1, 3]);
    expect(completed[1]!.data.message).toEqual({ role: 'assistant', content: [text('The file says hello.')] });

    // The stored turn (read back from SQLite) has the same conversation.
    const stored = (await t.api.get(`/v1/sessions/${s.id}/turns/${turn.id}`)).body;
    expect(stored.messages).toEqual(turn.messages);
  });

  it('continues the conversation in the next prompt turn of the session', async () => {
    const t = await boot();
    const s = await session(t, [
      { content: [text('first answer')] },
      { content: [use('toolu_x', 'LS', { path: '.' })] },
      { content: [text('second answer')] },
    ]);
    const one = (await t.api.post(`/v1/sessions/${s.id}/turns?wait=20`, { prompt: 'one' })).body;
    expect(one.messages[1].content).toEqual([text('first answer')]);
    // The script answers by the number of assistant messages in what it is sent: the second
    // turn gets reply 2 (and then 3) only if the first turn's conversation was sent along.
    const two = (await t.api.post(`/v1/sessions/${s.id}/turns?wait=20`, { prompt: [text('two')] })).body;
    expect(two.status).toBe('completed');
    expect(two.tool_uses.map((u: { id: string }) => u.id)).toEqual(['toolu_x']);
    expect(two.messages.at(-1).content).toEqual([text('second answer')]);
    expect(two.messages[0]).toEqual({ role: 'user', content: [text('two')] });
  });

  it('answers an unknown tool and malformed tool input with is_error results the model sees, then goes on', async () => {
    const t = await boot();
    const s = await session(t, [
      {
        content: [
          { type: 'tool_use', id: 'toolu_bad', name: 'Read', input_json: '{"file_path": "a.txt"' },
          use('toolu_nope', 'NoSuchTool', {}),
          { type: 'tool_use', id: 'toolu_arr', name: 'LS', input_json: '[1,2]' },
        ],
      },
      { content: [text('I will correct myself.')] },
    ]);
    const turn = (await t.api.post(`/v1/sessions/${s.id}/turns?wait=20`, { prompt: 'go' })).body;
    expect(turn.status).toBe('completed');
    const byId = Object.fromEntries(turn.results.map((r: { tool_use_id: string }) => [r.tool_use_id, r]));
    expect(byId.toolu_bad.is_error).toBe(true);
    expect(byId.toolu_bad.content[0].text).toContain('is not valid JSON');
    expect(byId.toolu_nope.is_error).toBe(true);
    expect(byId.toolu_nope.content[0].text).toContain('NoSuchTool');
    expect(byId.toolu_arr.content[0].text).toContain('must be a JSON object');
    expect(turn.messages[1].content[0]).toMatchObject({ type: 'tool_use', id: 'toolu_bad', input: {}, input_error: expect.stringContaining('JSON') });
    expect(turn.messages[2].content.map((b: { tool_use_id: string; is_error: boolean }) => `${b.tool_use_id}:${b.is_error}`)).toEqual([
      'toolu_bad:true',
      'toolu_nope:true',
      'toolu_arr:true',
    ]);
  });

  it('pauses inside a prompt turn for a permission and continues the loop after the answer', async () => {
    const t = await boot();
    const s = await session(t, [
      { content: [text('Writing.'), use('toolu_w', 'Write', { file_path: 'out.txt', content: 'from the model\n' })] },
      { content: [text('Written.')] },
    ]);
    const paused = (await t.api.post(`/v1/sessions/${s.id}/turns?wait=20`, { prompt: 'write it' })).body;
    expect(paused).toMatchObject({ status: 'awaiting_permission', model_calls: 1 });
    const [perm] = (await t.api.get(`/v1/sessions/${s.id}/permissions?status=pending`)).body.items;
    expect(perm).toMatchObject({ tool: 'Write', tool_use_id: 'toolu_w', turn_id: paused.id });
    await t.api.post(`/v1/sessions/${s.id}/permissions/${perm.id}`, { behavior: 'allow' });
    const final = await waitTurn(t, s.id, paused.id);
    expect(final).toMatchObject({ status: 'completed', model_calls: 2 });
    expect(final.messages.at(-1).content).toEqual([text('Written.')]);
    expect(await fs.readFile(path.join(s.workspace, 'out.txt'), 'utf8')).toBe('from the model\n');
  });

  it('a denial reaches the model as an is_error tool_result and the model goes on', async () => {
    const t = await boot();
    const s = await session(t, [{ content: [use('toolu_w', 'Write', { file_path: 'x.txt', content: 'x' })] }, { content: [text('Understood.')] }]);
    const paused = (await t.api.post(`/v1/sessions/${s.id}/turns?wait=20`, { prompt: 'write' })).body;
    const [perm] = (await t.api.get(`/v1/sessions/${s.id}/permissions?status=pending`)).body.items;
    await t.api.post(`/v1/sessions/${s.id}/permissions/${perm.id}`, { behavior: 'deny', message: 'not today' });
    const final = await waitTurn(t, s.id, paused.id);
    expect(final.status).toBe('completed');
    expect(final.messages[2].content[0]).toMatchObject({ type: 'tool_result', tool_use_id: 'toolu_w', is_error: true });
    expect(final.messages[2].content[0].content[0].text).toContain('not today');
  });

  it('cancels mid-stream: the model call stops, the turn is cancelled and the session takes a new turn', async () => {
    const t = await boot();
    const s = await session(t, [{ content: [text('x'.repeat(400_000))] }, { content: [text('after')] }]);
    const events = await sse(t, s.id);
    const started = (await t.api.post(`/v1/sessions/${s.id}/turns`, { prompt: 'long' })).body;
    await events.waitFor((e) => e.event === 'message.delta');
    const cancelled = await t.api.post(`/v1/sessions/${s.id}/turns/${started.id}/cancel`, {});
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({ status: 'cancelled', error: { code: 'cancelled' } });
    const stored = await waitTurn(t, s.id, started.id);
    expect(stored.messages).toHaveLength(1); // the prompt; no half message
    expect(stored.model_calls).toBe(0);
    await events.waitFor((e) => e.event === 'turn.cancelled');
    const deltasBefore = events.events.filter((e) => e.event === 'message.delta').length;
    await new Promise((r) => setTimeout(r, 50));
    expect(events.events.filter((e) => e.event === 'message.delta').length).toBe(deltasBefore); // the stream stopped
    // The conversation goes on from the cancelled prompt (reply 1 of the script: no assistant message was kept).
    const next = (await t.api.post(`/v1/sessions/${s.id}/turns?wait=20`, { prompt: 'again' })).body;
    expect(next.status).toBe('completed');
  });

  it('cancelling while calls run gives every tool_use a result and closes the transcript', async () => {
    const t = await boot();
    const s = await session(t, [{ content: [use('toolu_1', 'Write', { file_path: 'a', content: 'a' }), use('toolu_2', 'LS', { path: '.' })] }]);
    const paused = (await t.api.post(`/v1/sessions/${s.id}/turns?wait=20`, { prompt: 'go' })).body;
    expect(paused.status).toBe('awaiting_permission');
    const cancelled = (await t.api.post(`/v1/sessions/${s.id}/turns/${paused.id}/cancel`, {})).body;
    expect(cancelled.status).toBe('cancelled');
    expect(cancelled.results.map((r: { tool_use_id: string }) => r.tool_use_id)).toEqual(['toolu_1', 'toolu_2']);
    expect(cancelled.messages.map((m: { role: string }) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(cancelled.messages[2].content.map((b: { tool_use_id: string }) => b.tool_use_id)).toEqual(['toolu_1', 'toolu_2']);
  });

  it('stops at max_turns with every call answered', async () => {
    const t = await boot();
    const loop = { content: [use('toolu_l', 'LS', { path: '.' })] };
    const s = await t.api.post('/v1/sessions', { model: { provider: 'scripted', model: 'demo', script: [loop, loop, loop], max_turns: 2 } });
    expect(s.body.model.max_turns).toBe(2);
    const turn = (await t.api.post(`/v1/sessions/${s.body.id}/turns?wait=20`, { prompt: 'loop' })).body;
    expect(turn).toMatchObject({ status: 'failed', model_calls: 2, error: { code: 'max_turns' } });
    expect(turn.error.message).toContain('max_turns (2 model calls)');
    // Ids repeated by the model are made unique within the turn.
    expect(turn.tool_uses.map((u: { id: string }) => u.id)).toEqual(['toolu_l', 'toolu_l_2']);
    expect(turn.results).toHaveLength(2);
    expect(turn.messages.at(-1).role).toBe('user');
  });

  it('a provider error fails the turn with a clear message', async () => {
    const t = await boot();
    const s = await session(t, [{ error: 'the model is on fire' }]);
    const turn = (await t.api.post(`/v1/sessions/${s.id}/turns?wait=20`, { prompt: 'hi' })).body;
    expect(turn).toMatchObject({ status: 'failed', error: { code: 'provider_script' } });
    expect(turn.error.message).toContain('the model is on fire');
    const short = await session(t, [{ content: [text('only reply')] }]);
    expect((await t.api.post(`/v1/sessions/${short.id}/turns?wait=20`, { prompt: 'one' })).body.status).toBe('completed');
    const past = (await t.api.post(`/v1/sessions/${short.id}/turns?wait=20`, { prompt: 'two' })).body;
    expect(past).toMatchObject({ status: 'failed', error: { code: 'provider_script' } });
    expect(past.error.message).toContain('the script has 1 replies and this is model call 2');
  });

  it('refuses a prompt turn without a model, and bad model configuration at creation', async () => {
    const t = await boot();
    const plain = (await t.api.post('/v1/sessions', {})).body;
    expect(plain.model).toBeNull();
    const res = await t.api.post(`/v1/sessions/${plain.id}/turns`, { prompt: 'hi' });
    expect(res.status).toBe(400);
    expect(res.body.detail).toContain('has no model');

    const bad = await t.api.post('/v1/sessions', {
      model: { provider: 'scripted', model: 'm', api_key: 'k' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((e: { message: string }) => e.message)).toEqual([
      'model.api_key: the scripted provider takes no key',
      'model.script: the scripted provider needs `script` (a list of replies) or NORMA_MODEL_SCRIPT on the server',
    ]);
    const noKey = await t.api.post('/v1/sessions', { model: { provider: 'anthropic', model: 'claude-x' } });
    expect(noKey.status).toBe(400);
    expect(noKey.body.detail).toContain('model.api_key: required for anthropic');
    const unknown = await t.api.post('/v1/sessions', { model: { provider: 'gemini', model: 'x' } });
    expect(unknown.status).toBe(400);
    const both = await t.api.post(`/v1/sessions/${plain.id}/turns`, { prompt: 'x', tool_uses: [{ name: 'LS', input: {} }] });
    expect(both.status).toBe(400);
  });

  it('never echoes an API key', async () => {
    const t = await boot();
    const res = await t.api.post('/v1/sessions', { model: { provider: 'openai', model: 'gpt-x', api_key: 'sk-secret-123456' } });
    expect(res.status).toBe(201);
    expect(res.body.model).toMatchObject({ provider: 'openai', has_api_key: true });
    const texts = [res.text, (await t.api.get(`/v1/sessions/${res.body.id}`)).text, (await t.api.get('/v1/sessions')).text];
    const exported = await fetch(`${t.url}/v1/sessions/${res.body.id}/export`).then((r) => r.text());
    for (const x of [...texts, exported]) expect(x).not.toContain('sk-secret-123456');
  });

  it('uses the server default model (NORMA_MODEL_*) when the session names none', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'norma-script-'));
    dirs.push(dir);
    const file = path.join(dir, 'script.json');
    await fs.writeFile(file, JSON.stringify([{ content: [text('from the server script')] }]));
    const t = await boot({ NORMA_MODEL_PROVIDER: 'scripted', NORMA_MODEL: 'demo', NORMA_MODEL_SCRIPT: file });
    const s = (await t.api.post('/v1/sessions', {})).body;
    expect(s.model).toMatchObject({ provider: 'scripted', source: 'server', script_replies: 1 });
    const turn = (await t.api.post(`/v1/sessions/${s.id}/turns?wait=20`, { prompt: 'hi' })).body;
    expect(turn.messages[1].content).toEqual([text('from the server script')]);
  });
});

describe('hooks around the model loop', () => {
  it('UserPromptSubmit runs once before the first model call; its additionalContext reaches the model', async () => {
    const seen: HookInput[] = [];
    const t = await boot({}, { hooks: [{ event: 'UserPromptSubmit', callback: (i) => (seen.push(i), { additionalContext: 'Policy: be brief.' }) }] });
    const s = await session(t, [{ content: [use('toolu_1', 'LS', { path: '.' })] }, { content: [text('ok')] }]);
    const turn = (await t.api.post(`/v1/sessions/${s.id}/turns?wait=20`, { prompt: 'hello' })).body;
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ hook_event_name: 'UserPromptSubmit', prompt: 'hello', session_id: s.id, turn_id: turn.id, cwd: s.workspace });
    expect(turn.messages[0]).toEqual({ role: 'user', content: [text('hello'), text('Policy: be brief.')] });
  });

  it('a UserPromptSubmit block refuses the prompt before any model call', async () => {
    const t = await boot({}, { hooks: [{ event: 'UserPromptSubmit', callback: (i) => (i.prompt?.includes('secret') ? { block: true, reason: 'no secrets' } : undefined) }] });
    const s = await session(t, [{ content: [text('should not be reached')] }, { content: [text('fine')] }]);
    const turn = (await t.api.post(`/v1/sessions/${s.id}/turns?wait=20`, { prompt: 'tell me the secret' })).body;
    expect(turn).toMatchObject({ status: 'failed', model_calls: 0, error: { code: 'prompt_blocked' } });
    expect(turn.error.message).toContain('no secrets');
    expect(turn.messages).toEqual([]);
    // The refused prompt is not part of the conversation: the next turn gets reply 1.
    const next = (await t.api.post(`/v1/sessions/${s.id}/turns?wait=20`, { prompt: 'hello' })).body;
    expect(next.messages[1].content).toEqual([text('should not be reached')]);
  });

  it('Stop: a block keeps the model going with the reason (once), continue:false ends at once', async () => {
    const seen: HookInput[] = [];
    const t = await boot({}, {
      hooks: [
        {
          event: 'Stop',
          callback: (i) => {
            seen.push(i);
            return i.stop_hook_active ? undefined : { decision: 'deny', reason: 'Run the tests before you stop.' };
          },
        },
      ],
    });
    const s = await session(t, [{ content: [text('done?')] }, { content: [text('tests pass, done.')] }]);
    const turn = (await t.api.post(`/v1/sessions/${s.id}/turns?wait=20`, { prompt: 'work' })).body;
    expect(turn).toMatchObject({ status: 'completed', model_calls: 2, stop_reason: 'end_turn' });
    expect(turn.messages.map((m: { role: string }) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    expect(turn.messages[2].content).toEqual([text('Run the tests before you stop.')]);
    expect(seen.map((i) => [i.stop_hook_active, i.last_assistant_message])).toEqual([
      [false, 'done?'],
      [true, 'tests pass, done.'],
    ]);
    const runs = (await t.api.get(`/v1/sessions/${s.id}/hook-runs`)).body.items.filter((r: { event: string }) => r.event === 'Stop');
    expect(runs.map((r: { outcome: string }) => r.outcome)).toEqual(['blocked', 'ok']);
  });

  it('Stop: continue:false is a hard stop even when another hook asks to continue', async () => {
    const t = await boot({}, {
      hooks: [
        { event: 'Stop', callback: () => ({ decision: 'deny', reason: 'keep going' }) },
        { event: 'Stop', callback: () => ({ continue: false, stopReason: 'budget spent' }) },
      ],
    });
    const s = await session(t, [{ content: [text('stopping')] }, { content: [text('never')] }]);
    const turn = (await t.api.post(`/v1/sessions/${s.id}/turns?wait=20`, { prompt: 'work' })).body;
    expect(turn).toMatchObject({ status: 'completed', model_calls: 1, stop_reason: 'stop_hook' });
  });

  it('a PostToolUse continue:false stops the loop after that call, with every call answered', async () => {
    const t = await boot({}, { hooks: [{ event: 'PostToolUse', matcher: 'LS', callback: () => ({ continue: false, stopReason: 'enough listing' }) }] });
    const s = await session(t, [{ content: [use('toolu_1', 'LS', { path: '.' }), use('toolu_2', 'Read', { file_path: 'x' })] }, { content: [text('never')] }]);
    const turn = (await t.api.post(`/v1/sessions/${s.id}/turns?wait=20`, { prompt: 'go' })).body;
    expect(turn).toMatchObject({ status: 'cancelled', model_calls: 1, error: { code: 'stopped_by_hook' } });
    expect(turn.error.message).toContain('enough listing');
    expect(turn.results.map((r: { tool_use_id: string }) => r.tool_use_id)).toEqual(['toolu_1', 'toolu_2']);
    expect(turn.messages.map((m: { role: string }) => m.role)).toEqual(['user', 'assistant', 'user']);
  });

  it('a denial with interrupt stops the loop: no further model call', async () => {
    const t = await boot();
    const s = await session(t, [{ content: [use('toolu_w', 'Write', { file_path: 'x', content: 'x' })] }, { content: [text('never')] }]);
    const paused = (await t.api.post(`/v1/sessions/${s.id}/turns?wait=20`, { prompt: 'go' })).body;
    const [perm] = (await t.api.get(`/v1/sessions/${s.id}/permissions?status=pending`)).body.items;
    await t.api.post(`/v1/sessions/${s.id}/permissions/${perm.id}`, { behavior: 'deny', message: 'stop it', interrupt: true });
    const final = await waitTurn(t, s.id, paused.id);
    expect(final).toMatchObject({ status: 'cancelled', model_calls: 1, error: { code: 'interrupted' } });
    expect(final.messages.at(-1).content[0]).toMatchObject({ type: 'tool_result', tool_use_id: 'toolu_w', is_error: true });
  });

  it('PreToolUse and PostToolUse context reaches the model in the tool_result', async () => {
    const t = await boot({}, {
      hooks: [
        { event: 'PreToolUse', callback: () => ({ additionalContext: 'pre-note' }) },
        { event: 'PostToolUse', callback: () => ({ additionalContext: 'post-note' }) },
      ],
    });
    const s = await session(t, [{ content: [use('toolu_1', 'LS', { path: '.' })] }, { content: [text('ok')] }]);
    const turn = (await t.api.post(`/v1/sessions/${s.id}/turns?wait=20`, { prompt: 'go' })).body;
    const sent = JSON.stringify(turn.messages[2]);
    expect(sent).toContain('pre-note');
    expect(sent).toContain('post-note');
  });
});

describe('the Agent tool (subagents)', () => {
  it('runs a subagent through the pipeline; SubagentStart fires once; the answer is the tool_result', async () => {
    const starts: HookInput[] = [];
    const pre: string[] = [];
    const t = await boot({}, {
      hooks: [
        { event: 'SubagentStart', callback: (i) => (starts.push(i), { additionalContext: 'Be thorough.' }) },
        { event: 'PreToolUse', callback: (i) => void pre.push(`${i.tool_name}:${i.tool_use_id}`) },
      ],
    });
    const res = await t.api.post('/v1/sessions', {
      tools: ['Read', 'LS', 'Agent'],
      model: {
        provider: 'scripted',
        model: 'demo',
        script: [
          { content: [use('toolu_ag', 'Agent', { description: 'survey', prompt: 'What files are there?', subagent_type: 'explorer' })] },
          { content: [text('The subagent found them.')] },
        ],
        subagent_script: [
          { content: [use('toolu_in', 'LS', { path: '.' }), use('toolu_nest', 'Agent', { description: 'x', prompt: 'y' })] },
          { content: [text('There is a.txt.')] },
        ],
      },
    });
    expect(res.status).toBe(201);
    const s = res.body;
    await fs.writeFile(path.join(s.workspace, 'a.txt'), 'x');
    const events = await sse(t, s.id);
    const turn = (await t.api.post(`/v1/sessions/${s.id}/turns?wait=20`, { prompt: 'survey the workspace' })).body;
    expect(turn).toMatchObject({ status: 'completed', model_calls: 2 });
    expect(turn.results).toHaveLength(1);
    expect(turn.results[0]).toMatchObject({ tool_use_id: 'toolu_ag', is_error: false, content: [text('There is a.txt.')] });
    expect(starts).toHaveLength(1);
    expect(starts[0]).toMatchObject({ hook_event_name: 'SubagentStart', agent_id: 'agent_toolu_ag', agent_type: 'explorer', prompt: 'What files are there?', turn_id: turn.id });
    // The subagent's own call went through the pipeline (PreToolUse ran for it) and is reported with its parent.
    expect(pre).toEqual(['Agent:toolu_ag', 'LS:toolu_in']);
    await events.waitFor((e) => e.event === 'turn.completed');
    const inner = events.events.filter((e) => e.event === 'tool.completed' && e.data.parent_tool_use_id === 'toolu_ag');
    expect(inner.map((e) => [e.data.tool_use_id, e.data.result.is_error])).toEqual([
      ['toolu_in', false],
      ['toolu_nest', true],
    ]);
    expect(inner[0]!.data.result.content[0].text).toContain('a.txt');
    expect(inner[1]!.data.result.content[0].text).toContain('cannot start subagents');
    const subMessages = events.events.filter((e) => e.event === 'message.completed' && e.data.parent_tool_use_id === 'toolu_ag');
    expect(subMessages).toHaveLength(2);
    // The SubagentStart run is audited against the Agent call that started it.
    const runs = (await t.api.get(`/v1/sessions/${s.id}/hook-runs`)).body.items.filter((r: { event: string }) => r.event === 'SubagentStart');
    expect(runs.map((r: { tool_use_id?: string; turn_id?: string }) => [r.tool_use_id, r.turn_id])).toEqual([['toolu_ag', turn.id]]);
  });

  it('needs a model at creation, and refuses to run in a direct turn', async () => {
    const t = await boot();
    const bad = await t.api.post('/v1/sessions', { tools: ['Agent'] });
    expect(bad.status).toBe(400);
    expect(bad.body.detail).toContain('"Agent" needs a model');
    const s = await session(t, [{ content: [text('x')] }], { tools: ['Agent', 'LS'] });
    const direct = (await t.api.post(`/v1/sessions/${s.id}/turns?wait=10`, { tool_uses: [{ name: 'Agent', input: { description: 'a', prompt: 'b' } }] })).body;
    expect(direct.results[0].is_error).toBe(true);
    expect(direct.results[0].content[0].text).toContain('only inside prompt turns');
  });
});

describe('prompt turns across a restart', () => {
  it('a prompt turn paused on a permission resumes after a restart and the loop goes on', async () => {
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'norma-restart-'));
    dirs.push(dataDir);
    const a = await boot({ NORMA_SHUTDOWN_GRACE_S: '2' }, { dataDir });
    const s = await session(a, [
      { content: [use('toolu_w', 'Write', { file_path: 'r.txt', content: 'after restart\n' })] },
      { content: [text('all done')] },
    ]);
    const paused = (await a.api.post(`/v1/sessions/${s.id}/turns?wait=20`, { prompt: 'write' })).body;
    expect(paused.status).toBe('awaiting_permission');
    await a.close();
    servers = servers.filter((x) => x !== a);

    const b = await boot({ NORMA_SHUTDOWN_GRACE_S: '2' }, { dataDir });
    const again = (await b.api.get(`/v1/sessions/${s.id}/turns/${paused.id}`)).body;
    expect(again).toMatchObject({ status: 'awaiting_permission', kind: 'prompt', model_calls: 1 });
    const [perm] = (await b.api.get(`/v1/sessions/${s.id}/permissions?status=pending`)).body.items;
    await b.api.post(`/v1/sessions/${s.id}/permissions/${perm.id}`, { behavior: 'allow' });
    const final = await waitTurn(b, s.id, paused.id);
    expect(final).toMatchObject({ status: 'completed', model_calls: 2 });
    expect(final.messages.map((m: { role: string }) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    expect(await fs.readFile(path.join(s.workspace, 'r.txt'), 'utf8')).toBe('after restart\n');
  });
});

async function waitTurn(t: TestServer, sessionId: string, turnId: string) {
  for (let i = 0; i < 200; i++) {
    const turn = (await t.api.get(`/v1/sessions/${sessionId}/turns/${turnId}`)).body;
    if (!['running', 'awaiting_permission'].includes(turn.status)) return turn;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`turn ${turnId} did not finish`);
}
