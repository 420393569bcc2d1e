// /mcp under a client that pushes: an initialize the transport would refuse leaves nothing behind;
// a request id reused while its request is answered is refused; calls queued behind a waiting one
// are bounded; the cap on MCP sessions in memory counts attached ones and running calls, and
// letting one go never cancels its call's turn; a form stays open past the SDK's 60 s default.
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema, LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { newKey, startWithKeys } from '../helpers/tenants.js';

const servers: TestServer[] = [];
const clients: Client[] = [];
const aborts: AbortController[] = [];

afterEach(async () => {
  for (const a of aborts.splice(0)) a.abort();
  await Promise.all(clients.splice(0).map((c) => c.close().catch(() => {})));
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function start(env: Record<string, string> = {}): Promise<TestServer> {
  const t = await startServer({ NORMA_SANDBOX: 'off', ...env });
  servers.push(t);
  return t;
}

const initialize = (id: number | string = 1) => ({
  jsonrpc: '2.0',
  id,
  method: 'initialize',
  params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
});
const call = (id: number | string, name: string, args: object) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });

/** One POST to /mcp; `signal` drops the connection (not a JSON-RPC cancellation). */
async function post(t: TestServer, body: unknown, opts: { session?: string; accept?: string; query?: string; signal?: AbortSignal } = {}) {
  const res = await fetch(`${t.url}/mcp${opts.query ?? ''}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: opts.accept ?? 'application/json, text/event-stream',
      ...(opts.session ? { 'mcp-session-id': opts.session, 'mcp-protocol-version': LATEST_PROTOCOL_VERSION } : {}),
    },
    body: JSON.stringify(body),
    ...(opts.signal ? { signal: opts.signal } : {}),
  });
  return res;
}

/** The JSON-RPC answer in a response, JSON or an SSE stream's message with that id. */
async function answerOf(res: Response, id: number | string): Promise<{ result?: { isError?: boolean; content: { text?: string }[] }; error?: { code: number; message: string } }> {
  const text = await res.text();
  if ((res.headers.get('content-type') ?? '').startsWith('application/json')) return JSON.parse(text);
  for (const line of text.split('\n')) {
    if (!line.startsWith('data: ')) continue;
    const m = JSON.parse(line.slice(6));
    if (m.id === id) return m;
  }
  throw new Error(`no answer to ${id} in ${text.slice(0, 300)}`);
}

async function open(t: TestServer, query = ''): Promise<{ session: string; sessionId: string }> {
  const res = await post(t, initialize(), { query });
  expect(res.status).toBe(200);
  await res.text();
  const session = res.headers.get('mcp-session-id')!;
  const done = await post(t, { jsonrpc: '2.0', method: 'notifications/initialized' }, { session });
  expect(done.status).toBe(202);
  return { session, sessionId: session.split('.')[0]! };
}

const pendingOf = async (t: TestServer, sessionId: string) => (await t.api.get(`/v1/sessions/${sessionId}/permissions?status=pending`)).body.items as { id: string }[];
const activeSessions = async (t: TestServer) => ((await t.api.get('/v1/sessions')).body.items as { status: string }[]).filter((s) => s.status === 'active').length;

describe('/mcp bounds', { timeout: 120_000 }, () => {
  it('an initialize the transport would refuse makes no session', async () => {
    const t = await start();
    for (const accept of ['application/json', '*/*', 'text/event-stream']) {
      const res = await post(t, initialize(), { accept });
      expect(res.status).toBe(406);
      expect(JSON.parse(await res.text())).toMatchObject({ jsonrpc: '2.0', error: { code: -32000 } });
      expect(res.headers.get('mcp-session-id')).toBeNull();
    }
    const made = (await t.api.post('/v1/sessions', {})).body;
    const before = (await t.api.get(`/v1/sessions/${made.id}/verify`)).body;
    const attached = await post(t, initialize(), { accept: 'application/json', query: `?session=${made.id}` });
    expect(attached.status).toBe(406);
    await attached.text();
    expect(await activeSessions(t)).toBe(1);
    // The session attached to records no MCP client: not one event more.
    const after = (await t.api.get(`/v1/sessions/${made.id}/verify`)).body;
    expect(after.ok).toBe(true);
    expect(after.events).toBe(before.events);
  });

  it('a request id still being answered is refused; the first request still gets its own answer', async () => {
    const t = await start();
    const { session, sessionId } = await open(t);
    // The first call waits for a person (Write asks; the client declared no elicitation).
    const first = post(t, call(7, 'Write', { file_path: 'a.txt', content: 'a' }), { session });
    await expect.poll(async () => (await pendingOf(t, sessionId)).length).toBe(1);
    const again = await post(t, call(7, 'LS', { path: '.' }), { session });
    expect(again.status).toBe(400);
    expect(JSON.parse(await again.text())).toMatchObject({ error: { code: -32600, message: expect.stringMatching(/still being answered/) } });
    // Another id is fine (it queues behind the first), and the same id once it is answered.
    const [p] = await pendingOf(t, sessionId);
    expect((await t.api.post(`/v1/sessions/${sessionId}/permissions/${p!.id}`, { behavior: 'allow' })).status).toBe(200);
    const answered = await answerOf(await first, 7);
    expect(answered.result?.isError).toBe(false);
    const reused = await answerOf(await post(t, call(7, 'LS', { path: '.' }), { session }), 7);
    expect(reused.result?.content.map((c) => c.text).join('')).toContain('a.txt');
  });

  it('calls queued behind a waiting one are bounded; the one beyond is answered at once, and nothing is lost', async () => {
    const t = await start();
    const { session, sessionId } = await open(t);
    const first = post(t, call(1, 'Write', { file_path: 'q.txt', content: 'q' }), { session });
    await expect.poll(async () => (await pendingOf(t, sessionId)).length).toBe(1);
    // Eight wait behind it (each a POST held open until its call runs).
    const queued = Array.from({ length: 8 }, (_, i) => post(t, call(10 + i, 'LS', { path: '.' }), { session }));
    // Let the eight reach the queue before the ninth.
    await new Promise((r) => setTimeout(r, 500));
    const beyond = await answerOf(await post(t, call(99, 'LS', { path: '.' }), { session }), 99);
    expect(beyond.result?.isError).toBe(true);
    expect(beyond.result?.content[0]?.text).toMatch(/did not run: 9 calls of this session are already running or waiting/);
    const [p] = await pendingOf(t, sessionId);
    await t.api.post(`/v1/sessions/${sessionId}/permissions/${p!.id}`, { behavior: 'allow' });
    expect((await answerOf(await first, 1)).result?.isError).toBe(false);
    const answers = await Promise.all(queued.map(async (r, i) => answerOf(await r, 10 + i)));
    expect(answers.map((a) => a.result?.isError)).toEqual(Array(8).fill(false));
    // One turn per call that ran: the first, and the eight queued; none for the one refused.
    const turns = (await t.api.get(`/v1/sessions/${sessionId}/turns?limit=100`)).body.items as unknown[];
    expect(turns).toHaveLength(9);
  });

  it('the cap counts attached MCP sessions and running calls; letting one go never cancels its turn', async () => {
    const t = await start({ NORMA_MCP_MAX_SESSIONS: '1' });
    const { session, sessionId } = await open(t);
    // A call that waits for a person, whose client then drops the connection (not a cancellation).
    const drop = new AbortController();
    aborts.push(drop);
    const dropped = post(t, call(1, 'Write', { file_path: 'd.txt', content: 'd' }), { session, signal: drop.signal }).catch((e: Error) => e);
    await expect.poll(async () => (await pendingOf(t, sessionId)).length).toBe(1);
    drop.abort();
    expect(await dropped).toBeInstanceOf(Error);

    // No room: the one MCP session held has a call running. An attach counts as any initialize.
    const other = (await t.api.post('/v1/sessions', {})).body;
    const attach = await post(t, initialize(), { query: `?session=${other.id}` });
    expect(attach.status).toBe(503);
    await attach.text();
    const fresh = await post(t, initialize());
    expect(fresh.status).toBe(503);
    await fresh.text();
    // The turn still waits, and the person's answer finishes it.
    const turnId = (await t.api.get(`/v1/sessions/${sessionId}`)).body.active_turn_id as string;
    expect((await t.api.get(`/v1/sessions/${sessionId}/turns/${turnId}`)).body.status).toBe('awaiting_permission');
    const [p] = await pendingOf(t, sessionId);
    await t.api.post(`/v1/sessions/${sessionId}/permissions/${p!.id}`, { behavior: 'allow' });
    expect((await t.api.get(`/v1/sessions/${sessionId}/turns/${turnId}?wait=10`)).body.status).toBe('completed');
    expect(await fs.readFile(path.join((await t.api.get(`/v1/sessions/${sessionId}`)).body.workspace, 'd.txt'), 'utf8')).toBe('d');

    // Idle now: the next initialize lets it go (and is let in); its record takes it up again later.
    const second = await open(t, `?session=${other.id}`);
    expect(second.sessionId).toBe(other.id);
    const back = await answerOf(await post(t, call(2, 'LS', { path: '.' }), { session }), 2);
    expect(back.result?.content.map((c) => c.text).join('')).toContain('d.txt');
  });

  it('a form stays open past the SDK\'s 60 s default: an answer after 61 s is taken', async () => {
    const t = await start();
    const client = new Client({ name: 'slow-person', version: '1' }, { capabilities: { elicitation: { form: {} } } });
    let withdrawn = false;
    client.setRequestHandler(ElicitRequestSchema, async (_req, extra) => {
      extra.signal.addEventListener('abort', () => void (withdrawn = true));
      await new Promise((r) => setTimeout(r, 61_000));
      return { action: 'accept', content: { decision: 'allow' } };
    });
    const transport = new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`));
    await client.connect(transport);
    clients.push(client);
    const sessionId = transport.sessionId!.split('.')[0]!;
    const result = await client.callTool({ name: 'Write', arguments: { file_path: 'slow.txt', content: 'slow' } }, undefined, { timeout: 110_000 });
    expect(withdrawn).toBe(false);
    expect(result.isError).toBe(false);
    const permissions = (await t.api.get(`/v1/sessions/${sessionId}/permissions`)).body.items as { status: string; resolved_by: string }[];
    expect(permissions).toEqual([expect.objectContaining({ status: 'allowed', resolved_by: 'client' })]);
  });

  it('a stream ends when its key is removed by a reload; another key\'s goes on', async () => {
    const [gone, kept] = [newKey('gone'), newKey('kept')];
    const specs = [
      { key: gone, tenant: 'acme', scopes: ['write'], name: 'gone' },
      { key: kept, tenant: 'acme', scopes: ['write'], name: 'kept' },
    ];
    const t = await startWithKeys(specs, { NORMA_SHUTDOWN_GRACE_S: '2' });
    servers.push(t);
    const openStream = async (key: string) => {
      const init = await fetch(`${t.url}/mcp`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify(initialize()),
      });
      await init.text();
      const session = init.headers.get('mcp-session-id')!;
      const abort = new AbortController();
      aborts.push(abort);
      const res = await fetch(`${t.url}/mcp`, {
        headers: { authorization: `Bearer ${key}`, accept: 'text/event-stream', 'mcp-session-id': session, 'mcp-protocol-version': LATEST_PROTOCOL_VERSION },
        signal: abort.signal,
      });
      expect(res.status).toBe(200);
      const reader = res.body!.getReader();
      // Resolves when the stream ends (done or cut), never with data that does not come.
      const ended = (async () => {
        for (;;) {
          const r = await reader.read().catch(() => ({ done: true }));
          if (r.done) return true;
        }
      })();
      return { session, ended };
    };
    const goneStream = await openStream(gone);
    const keptStream = await openStream(kept);
    await t.keys.write([specs[1]!]);
    expect((await t.server.reloadKeys()).ok).toBe(true);
    expect(await goneStream.ended).toBe(true);
    // The removed key is refused; the kept key's stream is still the MCP session's (a second is a 409).
    const refused = await fetch(`${t.url}/mcp`, { headers: { authorization: `Bearer ${gone}`, accept: 'text/event-stream', 'mcp-session-id': goneStream.session } });
    expect(refused.status).toBe(401);
    await refused.text();
    const second = await fetch(`${t.url}/mcp`, {
      headers: { authorization: `Bearer ${kept}`, accept: 'text/event-stream', 'mcp-session-id': keptStream.session, 'mcp-protocol-version': LATEST_PROTOCOL_VERSION },
    });
    expect(second.status).toBe(409);
    await second.text();
  });
});
