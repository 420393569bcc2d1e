// W3C trace context end to end: a turn's outbound requests — model calls, http hooks, WebFetch,
// MCP over HTTP — carry the trace of the request that posted the turn (a fresh span id each),
// also after the turn paused and an approval (with a trace of its own) resumed it; after a
// restart a resumed turn gets a trace of its own; a sandboxed program's requests through the
// session's egress proxy are passed on as the program sent them.
import fs from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { mcpAddServer } from '../helpers/mcp-http.js';
import { anthropicStream } from '../helpers/model-streams.js';
import { FakeServer, sse } from '../model/fake-server.js';
import { startServer, type TestServer, closeAll } from '../helpers/server.js';
import { closeFixtures, serve } from '../helpers/http-fixture.js';

let servers: TestServer[] = [];
let fakes: FakeServer[] = [];
let dirs: string[] = [];
afterEach(async () => {
  await closeAll(servers);
  for (const f of fakes) await f.close();
  fakes = [];
  await closeFixtures();
  for (const d of dirs) await fs.rm(d, { recursive: true, force: true });
  dirs = [];
});

const T0 = '0af7651916cd43dd8448eb211c80319c';
const T1 = '4bf92f3577b34da6a3ce929d0e0e4736';
const T2 = 'aa0123456789abcdef0123456789abcd';
const traceparent = (traceId: string, parent = 'b7ad6b7169203331', flags = '01') => `00-${traceId}-${parent}-${flags}`;
const OUTBOUND = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** One outbound request as a loopback server saw it. */
interface Seen {
  at: string;
  traceparent: string | undefined;
  tracestate: string | undefined;
}

function seen(at: string, headers: http.IncomingHttpHeaders): Seen {
  return { at, traceparent: headers.traceparent as string | undefined, tracestate: headers.tracestate as string | undefined };
}

/** The trace id, span id and flags of a recorded request (it must have a well-formed traceparent). */
function parts(s: Seen): { traceId: string; spanId: string; flags: string } {
  const m = OUTBOUND.exec(s.traceparent ?? '');
  if (!m) throw new Error(`${s.at} carried no valid traceparent: ${JSON.stringify(s.traceparent)}`);
  return { traceId: m[1]!, spanId: m[2]!, flags: m[3]! };
}


async function fake(): Promise<FakeServer> {
  const f = await new FakeServer().start();
  fakes.push(f);
  return f;
}

async function boot(env: Record<string, string> = {}, options: Parameters<typeof startServer>[1] = {}): Promise<TestServer> {
  const t = await startServer({ NORMA_SANDBOX: 'off', NORMA_EGRESS_ALLOW: '127.0.0.1', ...env }, options);
  servers.push(t);
  return t;
}

/** A stateless Streamable HTTP MCP server with an `add` tool, recording every request. */
function mcpServer(record: Seen[]): Promise<string> {
  return mcpAddServer('trace-test', (req) => {
    record.push(seen(`mcp ${req.method}`, req.headers));
    return true;
  });
}

describe('outbound requests carry the W3C trace of the request that caused them', () => {
  it('a turn\'s model calls, hooks, WebFetch and MCP requests continue the posting request\'s trace, also after an approval', async () => {
    const model = await fake();
    const hookSeen: Seen[] = [];
    const pageSeen: Seen[] = [];
    const mcpSeen: Seen[] = [];
    const hook = await serve('127.0.0.1', (req, res) => {
      hookSeen.push(seen(`hook ${JSON.stringify(req.headers['x-hook-tool'] ?? '')}`, req.headers));
      req.resume();
      req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
    });
    const page = await serve('127.0.0.1', (req, res) => {
      pageSeen.push(seen('page', req.headers));
      res.writeHead(200, { 'content-type': 'text/plain' }).end('the page');
    });
    const mcpUrl = await mcpServer(mcpSeen);
    const t = await boot();

    const created = await t.api.post(
      '/v1/sessions',
      {
        model: { provider: 'anthropic', model: 'claude-test', base_url: model.origin, api_key: 'sk-ant-trace-test-key' },
        hooks: { PreToolUse: [{ hooks: [{ type: 'http', url: `${hook.origin}/hook` }] }] },
        mcp_servers: { h: { url: mcpUrl } },
        tools: ['Write', 'WebFetch'],
        allowed_tools: ['WebFetch', 'mcp__h'],
      },
      { headers: { traceparent: traceparent(T0), tracestate: 'made=here' } },
    );
    expect(created.status).toBe(201);
    const sessionId = created.body.id as string;
    // The MCP server was started (initialize, tools/list) by the creating request: its trace.
    expect(mcpSeen.length).toBeGreaterThanOrEqual(2);
    for (const s of mcpSeen) {
      expect(parts(s).traceId).toBe(T0);
      expect(s.tracestate).toBe('made=here');
    }
    const duringCreation = mcpSeen.length;

    model.reply(
      sse(anthropicStream([{ id: 'toolu_fetch', name: 'WebFetch', input: { url: `${page.origin}/doc` } }, { id: 'toolu_add', name: 'mcp__h__add', input: { a: 20, b: 22 } }], { inputTokens: 5, outputTokens: 7 })),
      sse(anthropicStream([{ id: 'toolu_write', name: 'Write', input: { file_path: 'a.txt', content: 'x\n' } }], { inputTokens: 5, outputTokens: 7 })),
      sse(anthropicStream([{ text: 'done' }], { inputTokens: 5, outputTokens: 7 })),
    );
    const posted = await t.api.post(
      `/v1/sessions/${sessionId}/turns?wait=20`,
      { prompt: 'fetch, add, write' },
      { headers: { traceparent: traceparent(T1, '00f067aa0ba902b7'), tracestate: 'congo=t61rcWkgMzE' } },
    );
    expect(posted.body.status).toBe('awaiting_permission');
    const beforeApproval = { model: model.received.length, hooks: hookSeen.length };
    expect(beforeApproval).toEqual({ model: 2, hooks: 2 });

    // The approval comes with a trace of its own: the turn's continuation is not its work.
    const [perm] = (await t.api.get(`/v1/sessions/${sessionId}/permissions?status=pending`)).body.items;
    const answered = await t.api.post(`/v1/sessions/${sessionId}/permissions/${perm.id}`, { behavior: 'allow' }, { headers: { traceparent: traceparent(T2) } });
    expect(answered.status).toBe(200);
    const done = await t.api.get(`/v1/sessions/${sessionId}/turns/${posted.body.id}?wait=20`);
    expect(done.body.status).toBe('completed');
    expect(done.body.results.map((r: { is_error: boolean }) => r.is_error)).toEqual([false, false, false]);

    const modelSeen = model.received.map((r) => seen('model', r.headers));
    const turnRequests = [...modelSeen, ...hookSeen, ...pageSeen, ...mcpSeen.slice(duringCreation)];
    // Three model calls, three PreToolUse hooks, the page, and the MCP tool call.
    expect({ model: modelSeen.length, hooks: hookSeen.length, page: pageSeen.length }).toEqual({ model: 3, hooks: 3, page: 1 });
    expect(mcpSeen.length).toBeGreaterThan(duringCreation);
    const spans = new Set<string>();
    for (const s of turnRequests) {
      const p = parts(s);
      expect(p.traceId, s.at).toBe(T1);
      expect(p.flags).toBe('01');
      expect(p.spanId).not.toBe('00f067aa0ba902b7');
      expect(s.tracestate, s.at).toBe('congo=t61rcWkgMzE');
      spans.add(p.spanId);
    }
    // Each outbound request is a span of its own.
    expect(spans.size).toBe(turnRequests.length);
    // After the approval: the Write's hook and the last model call are still the turn's.
    expect(parts(hookSeen[2]!).traceId).toBe(T1);
    expect(parts(modelSeen[2]!).traceId).toBe(T1);

    // A request without a traceparent starts a trace of its own, which its turn's requests carry.
    model.reply(sse(anthropicStream([{ text: 'again' }], { inputTokens: 5, outputTokens: 7 })));
    const second = await t.api.post(`/v1/sessions/${sessionId}/turns?wait=20`, { prompt: 'again' });
    expect(second.body.status).toBe('completed');
    const fresh = parts(seen('model', model.received.at(-1)!.headers));
    expect([T0, T1, T2]).not.toContain(fresh.traceId);
    expect(fresh.traceId).not.toBe('0'.repeat(32));
    expect(seen('model', model.received.at(-1)!.headers).tracestate).toBeUndefined();
  });

  it('a turn resumed after a restart gets a trace of its own, not the approval\'s', async () => {
    const model = await fake();
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'norma-trace-'));
    dirs.push(dataDir);
    const first = await boot({}, { dataDir });
    const sessionId = (
      await first.api.post('/v1/sessions', { model: { provider: 'anthropic', model: 'claude-test', base_url: model.origin, api_key: 'sk-ant-trace-test-key' } })
    ).body.id as string;
    model.reply(sse(anthropicStream([{ id: 'toolu_write', name: 'Write', input: { file_path: 'b.txt', content: 'y\n' } }], { inputTokens: 5, outputTokens: 7 })), sse(anthropicStream([{ text: 'written' }], { inputTokens: 5, outputTokens: 7 })));
    const posted = await first.api.post(`/v1/sessions/${sessionId}/turns?wait=20`, { prompt: 'write' }, { headers: { traceparent: traceparent(T1) } });
    expect(posted.body.status).toBe('awaiting_permission');
    expect(parts(seen('model', model.received[0]!.headers)).traceId).toBe(T1);
    await first.close();
    servers = servers.filter((s) => s !== first);

    const second = await boot({}, { dataDir });
    const [perm] = (await second.api.get(`/v1/sessions/${sessionId}/permissions?status=pending`)).body.items;
    await second.api.post(`/v1/sessions/${sessionId}/permissions/${perm.id}`, { behavior: 'allow' }, { headers: { traceparent: traceparent(T2) } });
    const done = await second.api.get(`/v1/sessions/${sessionId}/turns/${posted.body.id}?wait=20`);
    expect(done.body.status).toBe('completed');
    expect(model.received).toHaveLength(2);
    const resumed = parts(seen('model', model.received[1]!.headers));
    expect(resumed.traceId).not.toBe(T1);
    expect(resumed.traceId).not.toBe(T2);
  });
});

describe('browsers', () => {
  it('may send traceparent and tracestate from a listed origin (CORS preflight)', async () => {
    const page = 'http://127.0.0.2:5173';
    const t = await boot({ NORMA_CORS_ORIGINS: page });
    const pre = await fetch(`${t.url}/v1/sessions`, {
      method: 'OPTIONS',
      headers: { origin: page, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type,traceparent,tracestate' },
    });
    expect(pre.status).toBe(204);
    const allowed = (pre.headers.get('access-control-allow-headers') ?? '').toLowerCase().split(/\s*,\s*/);
    expect(allowed).toEqual(expect.arrayContaining(['traceparent', 'tracestate', 'x-request-id']));
  });
});

describe('the sandbox\'s egress proxy', () => {
  it('passes on a sandboxed program\'s request as the program sent it: no traceparent added, its own kept', async () => {
    const got: Seen[] = [];
    const target = await serve('127.0.0.2', (req, res) => {
      got.push(seen('target', req.headers));
      res.end('ok');
    });
    const t = await boot({ NORMA_SANDBOX: 'bwrap', NORMA_EGRESS_ALLOW: '127.0.0.2' });
    const s = (await t.api.post('/v1/sessions', { permission_mode: 'bypassPermissions', sandbox_network: true })).body;
    const own = traceparent('11111111111111111111111111111111', '2222222222222222');
    const command = [
      `curl -s --max-time 10 ${target.origin}/plain; echo`,
      `curl -s --max-time 10 -H 'traceparent: ${own}' ${target.origin}/own; echo`,
    ].join('; ');
    const turn = await t.api.post(`/v1/sessions/${s.id}/turns?wait=30`, { tool_uses: [{ name: 'Bash', input: { command } }] }, { headers: { traceparent: traceparent(T1) } });
    expect(turn.body.results[0].content[0].text).toMatch(/^ok\nok\n/);
    expect(got.map((g) => g.traceparent)).toEqual([undefined, own]);
  });
});
