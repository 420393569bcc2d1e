// What a peer other than an MCP server sends is bounded before it is parsed: a model provider's
// stream event, its error body, a command hook's printed answer and an HTTP hook's answer,
// each nested 30,000 levels deep. Each ends its own turn or hook with a reason; the server (this
// process: it runs in the test's own) stays up and the next turn runs.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeServer, jsonError, sse } from '../model/fake-server.js';
import { startServer, type TestServer, closeAll } from '../helpers/server.js';

const DEEP = '['.repeat(30_000) + ']'.repeat(30_000);
/** A PreToolUse answer that allows the call with a rewritten input holding a value 30,000 deep. */
const DEEP_REWRITE = `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"file_path":"a.txt","content":"x","extra":${DEEP}}}}`;

let servers: TestServer[] = [];
let fakes: FakeServer[] = [];
let hookServers: http.Server[] = [];
afterEach(async () => {
  await closeAll(servers);
  servers = [];
  for (const f of fakes) await f.close();
  fakes = [];
  for (const s of hookServers) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
  hookServers = [];
});

async function boot(env: Record<string, string> = {}): Promise<TestServer> {
  const t = await startServer(env, { modelOptions: { retry: { maxRetries: 0, baseDelayMs: 1, maxDelayMs: 5 } } });
  servers.push(t);
  return t;
}

async function stillServes(t: TestServer): Promise<void> {
  const s = (await t.api.post('/v1/sessions', {})).body;
  const turn = await t.api.post(`/v1/sessions/${s.id}/turns?wait=20`, { tool_uses: [{ name: 'LS', input: { path: '.' } }] });
  expect(turn.body.status).toBe('completed');
}

describe('model providers', () => {
  it('a stream event nested 30,000 deep fails the turn as a provider error', async () => {
    const f = await new FakeServer().start();
    fakes.push(f);
    const t = await boot({ NORMA_EGRESS_ALLOW: '127.0.0.1' });
    const s = (await t.api.post('/v1/sessions', { model: { provider: 'anthropic', model: 'claude-test', base_url: f.origin, api_key: 'sk-ant-test-key-0001' } })).body;
    f.always(sse(`event: message_start\ndata: {"type":"message_start","message":{"id":"m","content":[],"usage":{"input_tokens":1,"extra":${DEEP}}}}\n\n`));
    const turn = (await t.api.post(`/v1/sessions/${s.id}/turns?wait=20`, { prompt: 'hi' })).body;
    expect(turn.status).toBe('failed');
    expect(turn.error.message).toMatch(/not JSON|nests deeper than 64 levels/);
    await stillServes(t);
  });

  it('an OpenAI-compatible chunk and an error body nested 30,000 deep fail the turn with a reason', async () => {
    const f = await new FakeServer().start();
    fakes.push(f);
    const t = await boot({ NORMA_EGRESS_ALLOW: '127.0.0.1' });
    const s = (await t.api.post('/v1/sessions', { model: { provider: 'openai', model: 'gpt-test', base_url: `${f.origin}/v1`, api_key: 'sk-test-key-0001' } })).body;
    f.reply(sse(`data: {"id":"c","object":"chat.completion.chunk","choices":[],"x":${DEEP}}\n\n`), jsonError(400, `{"error":{"message":"bad","data":${DEEP}}}`));
    const first = (await t.api.post(`/v1/sessions/${s.id}/turns?wait=20`, { prompt: 'hi' })).body;
    expect(first.status).toBe('failed');
    const second = (await t.api.post(`/v1/sessions/${s.id}/turns?wait=20`, { prompt: 'hi' })).body;
    expect(second.status).toBe('failed');
    // The error body is shown cut, as text: never parsed into a value 30,000 deep.
    expect(second.error.message.length).toBeLessThan(2000);
    await stillServes(t);
  });
});

/** The hook's answer was refused (hook.failed says why); the call ran with its own input. */
async function hookFailedAndCallRan(t: TestServer, sessionId: string, turn: { status: string; results: { is_error: boolean }[] }): Promise<void> {
  expect(turn.status).toBe('completed');
  expect(turn.results[0]!.is_error).toBe(false);
  const runs = (await t.api.get(`/v1/sessions/${sessionId}/hook-runs`)).body.items as { type: string; error?: string }[];
  expect(runs.find((r) => r.type === 'hook.failed')?.error).toMatch(/nests deeper than 64 levels/);
  await stillServes(t);
}

describe('hooks', () => {
  it('a command hook that rewrites the input with a value nested 30,000 deep fails as a hook that did not answer JSON; the call runs as it was', async () => {
    const t = await boot();
    const deep = '"[".repeat(30000) + "]".repeat(30000)';
    const printer = `node -e 'process.stdout.write(\`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"file_path":"a.txt","content":"x","extra":\${${deep}}}}}\`)'`;
    const s = (await t.api.post('/v1/sessions', { permission_mode: 'bypassPermissions', hooks: { PreToolUse: [{ hooks: [{ type: 'command', command: printer }] }] } })).body;
    const turn = (await t.api.post(`/v1/sessions/${s.id}/turns?wait=30`, { tool_uses: [{ name: 'Write', input: { file_path: 'a.txt', content: 'x' } }] })).body;
    await hookFailedAndCallRan(t, s.id, turn);
  });

  it('an HTTP hook that answers JSON nested 30,000 deep fails the same way', async () => {
    const hook = http.createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(DEEP_REWRITE);
    });
    hookServers.push(hook);
    await new Promise<void>((r) => hook.listen(0, '127.0.0.1', r));
    const t = await boot({ NORMA_EGRESS_ALLOW: '127.0.0.1' });
    const url = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/hook`;
    const s = (await t.api.post('/v1/sessions', { permission_mode: 'bypassPermissions', hooks: { PreToolUse: [{ hooks: [{ type: 'http', url }] }] } })).body;
    const turn = (await t.api.post(`/v1/sessions/${s.id}/turns?wait=30`, { tool_uses: [{ name: 'Write', input: { file_path: 'a.txt', content: 'x' } }] })).body;
    await hookFailedAndCallRan(t, s.id, turn);
  });
});
