// What the server logs: one structured line per domain event (sessions, turns, answers, refusals),
// request ids and traces on request lines, health checks at debug — and, at level `trace`
// through a whole scenario with every kind of secret in play, none of them in any form.
import { createHash } from 'node:crypto';
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { mcpAddServer } from '../helpers/mcp-http.js';
import { anthropicStream } from '../helpers/model-streams.js';
import { FakeServer, sse } from '../model/fake-server.js';
import { closeFixtures, serve } from '../helpers/http-fixture.js';
import { openSse, type SseStream } from '../helpers/sse.js';
import { startServer, type TestServer, closeAll } from '../helpers/server.js';
import { clientFor, newKey, startWithKeys } from '../helpers/tenants.js';

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

interface LogLine {
  level: number;
  msg: string;
  [k: string]: unknown;
}

/** A pino destination that keeps every line. */
function capture(): { sink: Writable; raw: string[]; lines: () => LogLine[] } {
  const raw: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      raw.push(String(chunk));
      done();
    },
  });
  return { sink, raw, lines: () => raw.join('').split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as LogLine) };
}

const INFO = 30;
const WARN = 40;
const DEBUG = 20;
const T1 = '4bf92f3577b34da6a3ce929d0e0e4736';


/** A Streamable HTTP MCP server that answers only with both secret headers. */
function mcpServer(bearer: string, apiKey: string): Promise<string> {
  return mcpAddServer('log-test', (req) => req.headers.authorization === `Bearer ${bearer}` && req.headers['x-api-key'] === apiKey);
}

/** A secret as it could leak: itself, base64 (also of `Bearer <it>`), base64url, hex, its SHA-256 digests. */
function forms(secret: string): string[] {
  const sha = createHash('sha256').update(secret).digest();
  return [
    secret,
    Buffer.from(secret).toString('base64'),
    Buffer.from(secret).toString('base64url'),
    Buffer.from(`Bearer ${secret}`).toString('base64'),
    Buffer.from(secret).toString('hex'),
    sha.toString('hex'),
    sha.toString('base64'),
    sha.toString('base64url'),
  ];
}

describe('log lines', () => {
  it('at level trace, a whole scenario logs its domain events and not one secret, in any form', async () => {
    const token = `nt_${newKey('token')}`;
    const writeKey = newKey('write');
    const approveKey = newKey('approve');
    const modelKey = `sk-ant-${newKey('model')}`;
    const hookSecret = `hs_${newKey('hook')}`;
    const mcpBearer = `mcpb_${newKey('mcp')}`;
    const mcpApiKey = `mcpk_${newKey('mcp')}`;
    const querySecret = `qs_${newKey('query')}`;
    const badKey = `bad_${newKey('bad')}`;

    const model = await new FakeServer().start();
    fakes.push(model);
    const hook = await serve('127.0.0.1', (req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
    });
    const mcpUrl = await mcpServer(mcpBearer, mcpApiKey);
    const log = capture();
    const t = await startWithKeys(
      [
        { key: writeKey, tenant: 'acme', scopes: ['write'], name: 'acme-backend' },
        { key: approveKey, tenant: 'acme', scopes: ['approve'], name: 'acme-approvals' },
      ],
      { NORMA_TOKEN: token, NORMA_LOG_LEVEL: 'trace', NORMA_EGRESS_ALLOW: '127.0.0.1' },
      { logDestination: log.sink },
    );
    servers.push(t);
    const writer = clientFor(t.url, writeKey);
    const approver = clientFor(t.url, approveKey);

    // The operator's token at work, and a key nobody has.
    expect((await clientFor(t.url, token).get('/v1/sessions')).status).toBe(200);
    expect((await clientFor(t.url, badKey).get('/v1/sessions')).status).toBe(401);

    const created = await writer.post(
      '/v1/sessions',
      {
        tools: ['Read', 'Write', 'WebFetch', 'AskUser'],
        allowed_tools: ['WebFetch', 'mcp__h'],
        model: { provider: 'anthropic', model: 'claude-test', base_url: model.origin, api_key: modelKey },
        hooks: { PreToolUse: [{ hooks: [{ type: 'http', url: `${hook.origin}/hook`, secret: hookSecret }] }] },
        mcp_servers: { h: { url: mcpUrl, headers: { Authorization: `Bearer ${mcpBearer}`, 'X-Api-Key': mcpApiKey } } },
      },
      { headers: { 'x-request-id': 'client-create-1' } },
    );
    expect(created.status).toBe(201);
    const sessionId = created.body.id as string;

    // The event stream opened with a ticket in its URL.
    const ticket = (await writer.post(`/v1/sessions/${sessionId}/events/tickets`)).body.ticket as string;
    const stream = await openSse(`${t.url}/v1/sessions/${sessionId}/events?ticket=${ticket}`);
    streams.push(stream);
    await stream.waitFor((e) => e.event === 'session.created');

    // A prompt turn: an MCP call, then a Write a person approves.
    model.reply(
      sse(anthropicStream([{ id: 'toolu_add', name: 'mcp__h__add', input: { a: 1, b: 2 } }], { inputTokens: 5, outputTokens: 7 })),
      sse(anthropicStream([{ id: 'toolu_write', name: 'Write', input: { file_path: 'a.txt', content: 'a\n' } }], { inputTokens: 5, outputTokens: 7 })),
      sse(anthropicStream([{ text: 'done' }], { inputTokens: 5, outputTokens: 7 })),
    );
    const prompt = await writer.post(`/v1/sessions/${sessionId}/turns?wait=20`, { prompt: 'add, then write' }, { headers: { traceparent: `00-${T1}-00f067aa0ba902b7-01` } });
    expect(prompt.body.status).toBe('awaiting_permission');
    const [perm] = (await approver.get(`/v1/sessions/${sessionId}/permissions?status=pending`)).body.items;
    expect((await approver.post(`/v1/sessions/${sessionId}/permissions/${perm.id}`, { behavior: 'allow' })).status).toBe(200);
    expect((await writer.get(`/v1/sessions/${sessionId}/turns/${prompt.body.id}?wait=20`)).body.status).toBe('completed');

    // A direct turn: a question a person answers, a URL the egress guard refuses, a path out of the workspace.
    const direct = await writer.post(`/v1/sessions/${sessionId}/turns?wait=20`, {
      tool_uses: [
        { name: 'WebFetch', input: { url: `http://169.254.169.254/latest/meta-data?token=${querySecret}` } },
        { name: 'Read', input: { file_path: '/etc/hostname' } },
        { name: 'AskUser', input: { questions: [{ question: 'Which one?', options: [{ label: 'A' }, { label: 'B' }] }] } },
      ],
    });
    expect(direct.body.status).toBe('awaiting_input');
    const [q] = (await approver.get(`/v1/sessions/${sessionId}/questions?status=pending`)).body.items;
    expect((await approver.post(`/v1/sessions/${sessionId}/questions/${q.id}`, { answers: { 'Which one?': 'A' } })).status).toBe(200);
    const finished = (await writer.get(`/v1/sessions/${sessionId}/turns/${direct.body.id}?wait=20`)).body;
    expect(finished.status).toBe('completed');
    expect(finished.results[1].content[0].text).toContain('outside the workspace');

    expect((await writer.delete(`/v1/sessions/${sessionId}`)).status).toBe(204);
    await stream.ended;
    await t.close();
    servers = [];

    const lines = log.lines();
    const text = log.raw.join('');
    // Trace level is on: the request lines are there, the secrets are not.
    expect(lines.some((l) => l.msg === 'incoming request')).toBe(true);
    for (const [name, secret] of Object.entries({ token, writeKey, approveKey, modelKey, hookSecret, mcpBearer, mcpApiKey, ticket, querySecret, badKey })) {
      for (const form of forms(secret)) expect(text.includes(form), `${name} (${form.slice(0, 12)}…) is in the log`).toBe(false);
    }
    expect(text).toContain('ticket=[redacted]');

    const one = (msg: string, where: (l: LogLine) => boolean = () => true) => {
      const found = lines.filter((l) => l.msg === msg && where(l));
      expect(found, msg).toHaveLength(1);
      return found[0]!;
    };
    expect(one('session created')).toMatchObject({ level: INFO, session_id: sessionId, tenant: 'acme' });
    expect(one('session closed')).toMatchObject({ level: INFO, session_id: sessionId, tenant: 'acme', reason: expect.any(String) });
    const promptEnded = one('turn ended', (l) => l.turn_id === prompt.body.id);
    expect(promptEnded).toMatchObject({ level: INFO, session_id: sessionId, kind: 'prompt', status: 'completed', duration_ms: expect.any(Number), trace_id: T1 });
    expect(one('turn ended', (l) => l.turn_id === direct.body.id)).toMatchObject({ kind: 'direct', status: 'completed' });
    expect(one('permission resolved')).toMatchObject({
      level: INFO,
      session_id: sessionId,
      turn_id: prompt.body.id,
      permission_id: perm.id,
      tool: 'Write',
      outcome: 'allowed',
      resolved_by: 'client',
      answered_by: 'acme-approvals',
    });
    expect(one('question resolved')).toMatchObject({ level: INFO, session_id: sessionId, turn_id: direct.body.id, question_id: q.id, outcome: 'answered', answered_by: 'acme-approvals' });
    expect(one('egress refused')).toMatchObject({
      level: WARN,
      session_id: sessionId,
      turn_id: direct.body.id,
      tool: 'WebFetch',
      egress: 'web',
      url: 'http://169.254.169.254/latest/meta-data',
      reason: expect.stringContaining('linkLocal addresses are not allowed'),
    });
    expect(one('sandbox refused')).toMatchObject({ level: WARN, session_id: sessionId, turn_id: direct.body.id, tool: 'Read', refused: 'path', reason: expect.stringContaining('/etc/hostname: outside the workspace') });
    // Request lines carry the request id (the client's, when it sent a plain one) and the trace.
    const create = lines.filter((l) => l.reqId === 'client-create-1');
    expect(create.map((l) => l.msg)).toEqual(expect.arrayContaining(['incoming request', 'request completed']));
    for (const l of create) expect(l.trace_id).toMatch(/^[0-9a-f]{32}$/);
    expect(lines.filter((l) => l.msg === 'request completed' && l.trace_id === T1)).toHaveLength(1);
  });

  it('health checks log their access lines at debug; other requests at info', async () => {
    const atInfo = capture();
    const t = await startServer({ NORMA_SANDBOX: 'off', NORMA_LOG_LEVEL: 'info' }, { logDestination: atInfo.sink });
    servers.push(t);
    await t.api.get('/healthz');
    await t.api.get('/readyz');
    await t.api.get('/v1/sessions');
    const urls = (lines: LogLine[]) => lines.filter((l) => l.msg === 'incoming request').map((l) => (l.req as { url: string }).url);
    expect(urls(atInfo.lines())).toEqual(['/v1/sessions']);

    const atDebug = capture();
    const d = await startServer({ NORMA_SANDBOX: 'off', NORMA_LOG_LEVEL: 'debug' }, { logDestination: atDebug.sink });
    servers.push(d);
    await d.api.get('/healthz');
    await d.api.get('/v1/sessions');
    const access = atDebug.lines().filter((l) => l.msg === 'incoming request' || l.msg === 'request completed');
    const health = access.filter((l) => (l.req as { url?: string } | undefined)?.url === '/healthz' || l.reqId === access.find((a) => (a.req as { url?: string } | undefined)?.url === '/healthz')?.reqId);
    expect(health.map((l) => [l.msg, l.level])).toEqual([
      ['incoming request', DEBUG],
      ['request completed', DEBUG],
    ]);
    expect(access.filter((l) => !health.includes(l)).map((l) => l.level)).toEqual([INFO, INFO]);
  });
});
