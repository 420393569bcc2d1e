// What the loop keeps of the providers' own streams, through the HTTP API against loopback fakes
// replaying recorded streams: extended thinking asked for, streamed as its own live events, kept
// with its signature and sent back unchanged (redacted thinking too); a `pause_turn` continued by
// sending the paused message back; an OpenAI-compatible gateway's parallel calls all at index 0
// run as the separate calls they are.
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { anthropicStream } from '../helpers/model-streams.js';
import { FakeServer, fixture, sse } from '../model/fake-server.js';
import { openSse, type SseStream } from '../helpers/sse.js';
import { startServer, type TestServer, closeAll } from '../helpers/server.js';

let servers: TestServer[] = [];
let fakes: FakeServer[] = [];
let streams: SseStream[] = [];
afterEach(async () => {
  for (const s of streams.splice(0)) s.close();
  await closeAll(servers);
  servers = [];
  for (const f of fakes.splice(0)) await f.close();
});

async function setup(provider: 'anthropic' | 'openai', model: Record<string, unknown> = {}) {
  const f = await new FakeServer().start();
  fakes.push(f);
  const t = await startServer({ NORMA_EGRESS_ALLOW: '127.0.0.1' });
  servers.push(t);
  const base = provider === 'anthropic' ? f.origin : `${f.origin}/v1`;
  const s = (await t.api.post('/v1/sessions', { model: { provider, model: 'm', base_url: base, api_key: 'k', ...model }, tools: ['Read', 'LS'], allowed_tools: ['Read', 'LS'] })).body;
  const events = await openSse(`${t.url}/v1/sessions/${s.id}/events`);
  streams.push(events);
  return { f, t, s, events };
}

describe('provider fidelity', () => {
  it('thinking: asked for, streamed as thinking.delta, kept with its signature and sent back unchanged', async () => {
    const { f, t, s, events } = await setup('anthropic', { thinking: { budget_tokens: 2048 }, max_tokens: 1024 });
    expect(s.model.thinking).toEqual({ budget_tokens: 2048 });
    await fs.writeFile(path.join(s.workspace, 'README.md'), 'hello\n');
    f.reply(sse(fixture('anthropic/thinking.sse')), sse(anthropicStream([{ text: 'Done.' }])));
    const turn = (await t.api.post(`/v1/sessions/${s.id}/turns?wait=20`, { prompt: 'Read the README' })).body;
    expect(turn.status).toBe('completed');
    const first = JSON.parse(f.received[0]!.body);
    // The budget is asked for; max_tokens is raised above it, as the API requires.
    expect(first.thinking).toEqual({ type: 'enabled', budget_tokens: 2048 });
    expect(first.max_tokens).toBeGreaterThan(2048);
    const thinking = turn.messages[1].content[0];
    expect(thinking).toEqual({ type: 'thinking', thinking: 'The user wants a greeting.', signature: 'EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds' });
    // The next call carries the thinking block exactly as it came, before the tool_use it led to.
    const second = JSON.parse(f.received[1]!.body);
    const assistant = second.messages[1];
    expect(assistant.role).toBe('assistant');
    expect(assistant.content[0]).toEqual(thinking);
    expect(assistant.content.at(-1)).toMatchObject({ type: 'tool_use', id: 'toolu_01ThInKiNgTool000000001' });
    const delta = await events.waitFor((e) => e.event === 'thinking.delta');
    expect(delta.data).toMatchObject({ turn_id: turn.id, message_index: 1, block_index: 0, text: 'The user wants a greeting.' });
    // Live-only: a replay from the start does not have it.
    const replay = await openSse(`${t.url}/v1/sessions/${s.id}/events?after=0`);
    streams.push(replay);
    await replay.waitFor((e) => e.event === 'turn.completed');
    expect(replay.events.some((e) => e.event === 'thinking.delta')).toBe(false);
  });

  it('pause_turn: the paused message (redacted thinking included) is sent back and the model goes on', async () => {
    const { f, t, s } = await setup('anthropic');
    f.reply(sse(fixture('anthropic/redacted-thinking.sse')), sse(anthropicStream([{ text: 'It is sunny in Paris.' }])));
    const turn = (await t.api.post(`/v1/sessions/${s.id}/turns?wait=20`, { prompt: 'Weather in Paris?' })).body;
    expect(turn).toMatchObject({ status: 'completed', model_calls: 2, stop_reason: 'end_turn' });
    const paused = turn.messages[1];
    expect(paused.content.map((b: { type: string }) => b.type)).toContain('redacted_thinking');
    const second = JSON.parse(f.received[1]!.body);
    // Sent back as the last message, unchanged: the provider resumes from it.
    expect(second.messages.at(-1).role).toBe('assistant');
    const redacted = second.messages.at(-1).content.find((b: { type: string }) => b.type === 'redacted_thinking');
    expect(redacted).toEqual(paused.content.find((b: { type: string }) => b.type === 'redacted_thinking'));
  });

  it('an OpenAI-compatible gateway\'s parallel calls, all at index 0 with distinct ids, run as separate calls', async () => {
    const { f, t, s } = await setup('openai');
    f.reply(sse(fixture('openai/index0-whole.sse')), sse('data: {"choices":[{"index":0,"delta":{"content":"ok"},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n'));
    const turn = (await t.api.post(`/v1/sessions/${s.id}/turns?wait=20`, { prompt: 'two things' })).body;
    expect(turn.status).toBe('completed');
    expect(turn.tool_uses.length).toBe(2);
    expect(new Set(turn.tool_uses.map((u: { id: string }) => u.id)).size).toBe(2);
    expect(turn.tool_uses.map((u: { name: string; input: unknown }) => [u.name, u.input])).toEqual([
      ['Read', { file_path: '/work/README.md' }],
      ['Bash', { command: 'ls -la', description: 'List files' }],
    ]);
    expect(turn.results.map((r: { tool_use_id: string }) => r.tool_use_id)).toEqual(turn.tool_uses.map((u: { id: string }) => u.id));
    // Both results go back as tool messages, each paired by its id.
    const second = JSON.parse(f.received[1]!.body);
    const toolMessages = second.messages.filter((m: { role: string }) => m.role === 'tool').map((m: { tool_call_id: string }) => m.tool_call_id);
    expect(toolMessages).toEqual(turn.tool_uses.map((u: { id: string }) => u.id));
  });
});
