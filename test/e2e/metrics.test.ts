// GET /metrics: a scrape before and after a turn moves each metric by exactly what happened;
// the operator's only (a tenant's admin key is refused); every server counts in its own registry;
// labels stay bounded, and no name a tenant chose becomes one.
import { afterEach, describe, expect, it } from 'vitest';
import { FakeServer, sse } from '../model/fake-server.js';
import { closeFixtures } from '../helpers/http-fixture.js';
import { mcpAddServer } from '../helpers/mcp-http.js';
import { openSse, type SseStream } from '../helpers/sse.js';
import { startServer, type TestServer, closeAll } from '../helpers/server.js';
import { clientFor, newKey, startWithKeys } from '../helpers/tenants.js';
import { MCP_TOOL_LABEL, ServerMetrics, toolOutcome } from '../../src/telemetry/metrics.js';

let servers: TestServer[] = [];
let fakes: FakeServer[] = [];
let streams: SseStream[] = [];
afterEach(async () => {
  for (const s of streams) s.close();
  streams = [];
  await closeAll(servers);
  for (const f of fakes) await f.close();
  fakes = [];
  await closeFixtures();
});

async function boot(env: Record<string, string> = {}): Promise<TestServer> {
  const t = await startServer({ NORMA_SANDBOX: 'off', ...env });
  servers.push(t);
  return t;
}

/** One scrape: each sample by `name{label="value",…}` with its labels sorted. */
type Samples = Map<string, number>;

function series(name: string, labels: Record<string, string> = {}): string {
  const l = Object.entries(labels)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, v]) => `${k}="${v}"`)
    .join(',');
  return l ? `${name}{${l}}` : name;
}

function parse(text: string): Samples {
  const out: Samples = new Map();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m) throw new Error(`not an exposition line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, k, v] of (m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[k!] = v!;
    out.set(series(m[1]!, labels), Number(m[3]));
  }
  return out;
}

async function scrape(t: TestServer): Promise<Samples> {
  const res = await t.api.get('/metrics');
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return parse(res.body as string);
}

/** How much a sample moved between two scrapes (absent counts as 0). */
const delta = (before: Samples, after: Samples, name: string, labels: Record<string, string> = {}) =>
  (after.get(series(name, labels)) ?? 0) - (before.get(series(name, labels)) ?? 0);

describe('GET /metrics', () => {
  it('moves by exactly one direct turn with one approved call', async () => {
    const t = await boot();
    const s = (await t.api.post('/v1/sessions', {})).body;
    const before = await scrape(t);

    const posted = await t.api.post(`/v1/sessions/${s.id}/turns?wait=10`, { tool_uses: [{ name: 'Write', input: { file_path: 'a.txt', content: 'a\n' } }] });
    expect(posted.body.status).toBe('awaiting_permission');
    const paused = await scrape(t);
    expect(paused.get(series('norma_pending_interactions', { kind: 'permission' }))).toBe(1);
    expect(paused.get(series('norma_pending_interactions', { kind: 'question' }))).toBe(0);
    const [perm] = (await t.api.get(`/v1/sessions/${s.id}/permissions?status=pending`)).body.items;
    expect((await t.api.post(`/v1/sessions/${s.id}/permissions/${perm.id}`, { behavior: 'allow' })).status).toBe(200);
    expect((await t.api.get(`/v1/sessions/${s.id}/turns/${posted.body.id}?wait=10`)).body.status).toBe('completed');
    expect((await t.api.get('/no/such/route', { skipContract: true })).status).toBe(404);
    const after = await scrape(t);

    const d = (name: string, labels: Record<string, string> = {}) => delta(before, after, name, labels);
    expect(d('norma_turns_total', { kind: 'direct', status: 'completed' })).toBe(1);
    expect(d('norma_turn_duration_seconds_count', { kind: 'direct' })).toBe(1);
    expect(d('norma_tool_calls_total', { tool: 'Write', outcome: 'ok' })).toBe(1);
    expect(d('norma_tool_call_duration_seconds_count', { tool: 'Write' })).toBe(1);
    expect(d('norma_permission_wait_seconds_count', { outcome: 'allowed', resolved_by: 'client' })).toBe(1);
    // The wait is in the sum; the +Inf bucket holds every observation.
    expect(d('norma_permission_wait_seconds_bucket', { outcome: 'allowed', resolved_by: 'client', le: '+Inf' })).toBe(1);
    expect(d('norma_permission_wait_seconds_sum', { outcome: 'allowed', resolved_by: 'client' })).toBeGreaterThan(0);
    const http = (method: string, route: string, status: number) => d('norma_http_request_duration_seconds_count', { method, route, status_code: String(status) });
    expect(http('POST', '/v1/sessions/:session_id/turns', 200)).toBe(1);
    expect(http('GET', '/v1/sessions/:session_id/permissions', 200)).toBe(1);
    expect(http('POST', '/v1/sessions/:session_id/permissions/:permission_id', 200)).toBe(1);
    expect(http('GET', '/v1/sessions/:session_id/turns/:turn_id', 200)).toBe(1);
    expect(http('GET', 'unmatched', 404)).toBe(1);
    // A scrape is counted once answered: the first two are in the third.
    expect(http('GET', '/metrics', 200)).toBe(2);
    expect(after.get(series('norma_pending_interactions', { kind: 'permission' }))).toBe(0);
    // The store was timed: the turn's events were appended, inside transactions.
    expect(d('norma_store_operation_duration_seconds_count', { operation: 'appendEvent' })).toBeGreaterThanOrEqual(5);
    expect(d('norma_store_operation_duration_seconds_count', { operation: 'transaction' })).toBeGreaterThanOrEqual(3);
    // Process metrics, on this server's registry with its prefix.
    expect(after.get('norma_process_cpu_user_seconds_total')).toBeGreaterThan(0);
    expect([...after.keys()].some((k) => k.startsWith('norma_nodejs_eventloop_lag_seconds'))).toBe(true);
    // No label carries a session id or a turn id.
    const text = (await t.api.get('/metrics')).body as string;
    expect(text).not.toContain(s.id);
    expect(text).not.toContain(posted.body.id);
  });

  it('counts outcomes: denied, an egress refusal, a model request, a cancelled turn, an answered question; open event streams', async () => {
    const model = await new FakeServer().start();
    fakes.push(model);
    const t = await boot({ NORMA_MODEL_PROVIDER: 'anthropic', NORMA_MODEL: 'claude-test', NORMA_MODEL_BASE_URL: model.origin });
    const s = (await t.api.post('/v1/sessions', { tools: ['Write', 'WebFetch'], allowed_tools: ['WebFetch'], permission_mode: 'dontAsk' })).body;
    const before = await scrape(t);

    // dontAsk denies the Write; the egress guard refuses loopback for WebFetch.
    const direct = await t.api.post(`/v1/sessions/${s.id}/turns?wait=10`, {
      tool_uses: [
        { name: 'Write', input: { file_path: 'a.txt', content: 'a' } },
        { name: 'WebFetch', input: { url: 'http://127.0.0.1:9/' } },
        { name: 'NoSuchTool', input: {} },
      ],
    });
    expect(direct.body.status).toBe('completed');
    // The model answers once (the operator's endpoint: a model request, allowed).
    model.reply(sse('event: message_start\ndata: {"type":"message_start","message":{"id":"m","type":"message","role":"assistant","model":"claude-test","content":[],"stop_reason":null,"usage":{"input_tokens":1,"output_tokens":1}}}\n\nevent: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}\n\nevent: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"hi"}}\n\nevent: content_block_stop\ndata: {"type":"content_block_stop","index":0}\n\nevent: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":1}}\n\nevent: message_stop\ndata: {"type":"message_stop"}\n\n'));
    expect((await t.api.post(`/v1/sessions/${s.id}/turns?wait=10`, { prompt: 'hi' })).body.status).toBe('completed');
    // A turn cancelled while its call waits for a person.
    const asking = (await t.api.post('/v1/sessions', { tools: ['Write', 'AskUser'] })).body;
    const paused = await t.api.post(`/v1/sessions/${asking.id}/turns?wait=10`, { tool_uses: [{ name: 'Write', input: { file_path: 'b.txt', content: 'b' } }] });
    expect(paused.body.status).toBe('awaiting_permission');
    const sse1 = await openSse(`${t.url}/v1/sessions/${asking.id}/events`);
    streams.push(sse1);
    await sse1.waitFor((e) => e.event === 'permission.requested');
    expect((await scrape(t)).get('norma_sse_subscribers')).toBe(1);
    expect((await t.api.post(`/v1/sessions/${asking.id}/turns/${paused.body.id}/cancel`)).body.status).toBe('cancelled');
    sse1.close();
    // A question a person answers.
    const asked = await t.api.post(`/v1/sessions/${asking.id}/turns?wait=10`, {
      tool_uses: [{ name: 'AskUser', input: { questions: [{ question: 'Which?', options: [{ label: 'A' }, { label: 'B' }] }] } }],
    });
    expect(asked.body.status).toBe('awaiting_input');
    expect((await scrape(t)).get(series('norma_pending_interactions', { kind: 'question' }))).toBe(1);
    const [q] = (await t.api.get(`/v1/sessions/${asking.id}/questions?status=pending`)).body.items;
    expect((await t.api.post(`/v1/sessions/${asking.id}/questions/${q.id}`, { answers: { 'Which?': 'B' } })).status).toBe(200);
    expect((await t.api.get(`/v1/sessions/${asking.id}/turns/${asked.body.id}?wait=10`)).body.status).toBe('completed');
    const after = await scrape(t);

    const d = (name: string, labels: Record<string, string> = {}) => delta(before, after, name, labels);
    expect(d('norma_tool_calls_total', { tool: 'Write', outcome: 'denied' })).toBe(1);
    expect(d('norma_tool_calls_total', { tool: 'WebFetch', outcome: 'error' })).toBe(1);
    expect(d('norma_tool_calls_total', { tool: 'other', outcome: 'unknown_tool' })).toBe(1);
    expect(d('norma_tool_calls_total', { tool: 'Write', outcome: 'cancelled' })).toBe(1);
    // Calls that never started have no duration.
    expect(d('norma_tool_call_duration_seconds_count', { tool: 'Write' })).toBe(0);
    expect(d('norma_egress_requests_total', { kind: 'web', outcome: 'refused' })).toBe(1);
    expect(d('norma_egress_requests_total', { kind: 'model', outcome: 'allowed' })).toBe(1);
    // The denied/refused/unknown turn and the question's.
    expect(d('norma_turns_total', { kind: 'direct', status: 'completed' })).toBe(2);
    expect(d('norma_turns_total', { kind: 'prompt', status: 'completed' })).toBe(1);
    expect(d('norma_turns_total', { kind: 'direct', status: 'cancelled' })).toBe(1);
    expect(d('norma_permission_wait_seconds_count', { outcome: 'cancelled', resolved_by: 'cancel' })).toBe(1);
    expect(d('norma_question_wait_seconds_count', { outcome: 'answered', resolved_by: 'client' })).toBe(1);
    expect(d('norma_tool_calls_total', { tool: 'AskUser', outcome: 'ok' })).toBe(1);
    expect(after.get(series('norma_pending_interactions', { kind: 'question' }))).toBe(0);
    // The stream closed: the gauge comes back down.
    for (let i = 0; i < 100 && (await scrape(t)).get('norma_sse_subscribers') !== 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect((await scrape(t)).get('norma_sse_subscribers')).toBe(0);
  });

  it('is refused without a key, to a read key and to a tenant\'s admin key; served to the operator\'s keys', async () => {
    const token = newKey('token');
    const admin = newKey('admin');
    const read = newKey('read');
    const operator = newKey('operator');
    const defaultWrite = newKey('default_write');
    const t = await startWithKeys(
      [
        { key: admin, tenant: 'acme', scopes: ['admin'], name: 'ops' },
        { key: read, tenant: 'acme', scopes: ['read'], name: 'dashboard' },
        { key: operator, tenant: 'default', scopes: ['admin'], name: 'scraper' },
        { key: defaultWrite, tenant: 'default', scopes: ['write'], name: 'default-writer' },
      ],
      { NORMA_TOKEN: token },
    );
    servers.push(t);
    const none = await fetch(`${t.url}/metrics`);
    expect(none.status).toBe(401);
    const refused = await clientFor(t.url, read).get('/metrics');
    expect(refused.status).toBe(403);
    expect(refused.body.detail).toContain('needs "admin"');
    // A tenant's admin key administers its tenant, not the server: problem+json, nothing of the metrics.
    const tenantAdmin = await clientFor(t.url, admin).get('/metrics');
    expect(tenantAdmin.status).toBe(403);
    expect(tenantAdmin.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(tenantAdmin.body.detail).toContain('belongs to the tenant "acme"');
    expect(JSON.stringify(tenantAdmin.body)).not.toContain('norma_');
    // The default tenant's key without admin is refused for its access, as before.
    expect((await clientFor(t.url, defaultWrite).get('/metrics')).status).toBe(403);
    for (const key of [token, operator]) {
      const served = await clientFor(t.url, key).get('/metrics');
      expect(served.status).toBe(200);
      expect(served.body).toContain('# TYPE norma_turns_total counter');
    }
  });

  it('never names a tenant\'s MCP server: every MCP tool is counted as `mcp`', async () => {
    const secretName = 'tenant-a-secret-name';
    const token = newKey('token');
    const acme = newKey('acme');
    const mcpUrl = await mcpAddServer(secretName);
    const t = await startWithKeys([{ key: acme, tenant: 'acme', scopes: ['admin'] }], { NORMA_TOKEN: token, NORMA_EGRESS_ALLOW: '127.0.0.1' });
    servers.push(t);
    const tenant = clientFor(t.url, acme);
    const before = await scrape(t);
    const s = await tenant.post('/v1/sessions', { mcp_servers: { [secretName]: { url: mcpUrl } }, allowed_tools: [`mcp__${secretName}`] });
    expect(s.status).toBe(201);
    const turn = await tenant.post(`/v1/sessions/${s.body.id}/turns?wait=20`, { tool_uses: [{ name: `mcp__${secretName}__add`, input: { a: 20, b: 22 } }] });
    expect(turn.body.status).toBe('completed');
    expect(turn.body.results[0].is_error).toBe(false);
    // The tenant's own key cannot look either.
    expect((await tenant.get('/metrics')).status).toBe(403);
    const text = (await t.api.get('/metrics')).body as string;
    expect(text).not.toContain(secretName);
    expect(text).not.toContain('mcp__');
    const after = parse(text);
    expect(delta(before, after, 'norma_tool_calls_total', { tool: MCP_TOOL_LABEL, outcome: 'ok' })).toBe(1);
    expect(delta(before, after, 'norma_tool_call_duration_seconds_count', { tool: MCP_TOOL_LABEL })).toBe(1);
    expect(delta(before, after, 'norma_egress_requests_total', { kind: 'mcp', outcome: 'allowed' })).toBeGreaterThanOrEqual(1);
  });

  it('counts each server in its own registry', async () => {
    const a = await boot();
    const b = await boot();
    const s = (await a.api.post('/v1/sessions', { permission_mode: 'acceptEdits' })).body;
    await a.api.post(`/v1/sessions/${s.id}/turns?wait=10`, { tool_uses: [{ name: 'Write', input: { file_path: 'a.txt', content: 'a' } }] });
    const inA = await scrape(a);
    const inB = await scrape(b);
    expect(inA.get(series('norma_turns_total', { kind: 'direct', status: 'completed' }))).toBe(1);
    expect(inB.get(series('norma_turns_total', { kind: 'direct', status: 'completed' }))).toBeUndefined();
    expect(inB.get('norma_process_cpu_user_seconds_total')).toBeGreaterThan(0);
    expect(a.server.metrics.registry).not.toBe(b.server.metrics.registry);
  });
});

describe('labels', () => {
  it('name built-in tools, and nothing a tenant chose: every MCP tool is `mcp`, anything else `other`', () => {
    const m = new ServerMetrics(new Set(['Read', 'Write']));
    expect(m.toolLabel('Read')).toBe('Read');
    expect(m.toolLabel('mcp__github__create_issue')).toBe('mcp');
    expect(m.toolLabel('mcp__tenant-a-secret-name__list')).toBe('mcp');
    expect(m.toolLabel('mcp__bad server__x')).toBe('mcp');
    expect(m.toolLabel('whatever-a-model-made-up')).toBe('other');
    // However many servers sessions name, the label takes one value for them all.
    const labels = new Set<string>();
    for (let i = 0; i < 1000; i++) labels.add(m.toolLabel(`mcp__s${i}__tool`));
    expect([...labels]).toEqual(['mcp']);
  });

  it('read a call\'s outcome from its result', () => {
    const r = (text: string, is_error = true) => ({ type: 'tool_result' as const, tool_use_id: 't', is_error, content: [{ type: 'text' as const, text }] });
    expect(toolOutcome(r('fine', false), true)).toBe('ok');
    expect(toolOutcome(r('Permission denied: dontAsk mode'), false)).toBe('denied');
    expect(toolOutcome(r('Permission denied by the user.'), false)).toBe('denied');
    expect(toolOutcome(r('Blocked by PreToolUse hook: no'), false)).toBe('denied');
    expect(toolOutcome(r('Invalid input for Read: input.limit: must be >= 1'), false)).toBe('invalid_input');
    expect(toolOutcome(r('Unknown tool "X". Available tools: Read.'), false)).toBe('unknown_tool');
    expect(toolOutcome(r('Cancelled: the turn was cancelled by the client.'), false)).toBe('cancelled');
    expect(toolOutcome(r('Interrupted: the server restarted while this call was running'), true)).toBe('interrupted');
    expect(toolOutcome(r('Not run: the server restarted before this call started.'), false)).toBe('interrupted');
    // A tool that started and then says "Permission denied" (a file's mode) failed on its own.
    expect(toolOutcome(r('Permission denied'), true)).toBe('error');
    expect(toolOutcome(r('Read failed: boom'), true)).toBe('error');
  });
});
