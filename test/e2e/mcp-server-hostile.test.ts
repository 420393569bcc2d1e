// /mcp against clients that should get nothing: no key, another tenant's key for an MCP session or
// a `?session=`, a batch, malformed JSON-RPC, an oversized message, a second GET stream, a request
// other than initialize without a session; and an MCP session taken up again after a restart.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { LATEST_PROTOCOL_VERSION, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { keysFile, newKey } from '../helpers/tenants.js';

const servers: TestServer[] = [];
const clients: Client[] = [];
const alice = newKey('alice');
const bob = newKey('bob');
const reader = newKey('reader');
let keys: Awaited<ReturnType<typeof keysFile>>;

beforeAll(async () => {
  keys = await keysFile([
    { key: alice, tenant: 'alice', scopes: ['write'] },
    { key: bob, tenant: 'bob', scopes: ['write'] },
    { key: reader, tenant: 'alice', scopes: ['read'] },
  ]);
});
afterAll(async () => keys.remove());
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close().catch(() => {})));
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function start(env: Record<string, string> = {}, dataDir?: string): Promise<TestServer> {
  const t = await startServer({ NORMA_SANDBOX: 'off', NORMA_API_KEYS_FILE: keys.file, ...env }, dataDir ? { dataDir } : {});
  servers.push(t);
  return t;
}

async function connect(t: TestServer, key: string, opts: { query?: string; sessionId?: string } = {}) {
  const client = new Client({ name: 'hostile-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${t.url}/mcp${opts.query ?? ''}`), {
    requestInit: { headers: { authorization: `Bearer ${key}` } },
    ...(opts.sessionId ? { sessionId: opts.sessionId } : {}),
  });
  await client.connect(transport);
  clients.push(client);
  return { client, transport };
}

const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'raw', version: '1' } } };

async function post(t: TestServer, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${t.url}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${alice}`, ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: res.status, type: res.headers.get('content-type') ?? '', text: await res.text(), session: res.headers.get('mcp-session-id') };
}

describe('/mcp refuses what it should', { timeout: 60_000 }, () => {
  it('keys, tenants and scopes hold as on /v1', async () => {
    const t = await start();
    // No key, a key of too little scope.
    expect((await post(t, initialize, { authorization: '' })).status).toBe(401);
    expect((await post(t, initialize, { authorization: `Bearer ${reader}` })).status).toBe(403);
    const { client, transport } = await connect(t, alice);
    const sessionId = transport.sessionId!.split('.')[0]!;
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    // Bob with Alice's MCP session id: not found, and nothing runs.
    const stolen = await post(t, { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'LS', arguments: {} } }, {
      authorization: `Bearer ${bob}`,
      'mcp-session-id': transport.sessionId!,
      'mcp-protocol-version': LATEST_PROTOCOL_VERSION,
    });
    expect(stolen.status).toBe(404);
    expect(JSON.parse(stolen.text).error.message).toMatch(/Session not found/);
    // Bob attaching to Alice's session.
    const attach = await fetch(`${t.url}/mcp?session=${sessionId}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${bob}` },
      body: JSON.stringify(initialize),
    });
    expect(attach.status).toBe(404);
    expect(attach.headers.get('content-type')).toMatch(/problem\+json/);
    const turns = (await t.api.get(`/v1/sessions/${sessionId}/turns`, { headers: { authorization: `Bearer ${alice}` } })).body.items;
    expect(turns).toEqual([]);
    // A made-up MCP session id of Alice's session.
    const forged = await post(t, { jsonrpc: '2.0', id: 3, method: 'tools/list' }, { 'mcp-session-id': `${sessionId}.forged`, 'mcp-protocol-version': LATEST_PROTOCOL_VERSION });
    expect(forged.status).toBe(404);
  });

  it('malformed messages, batches, oversized bodies, a second GET stream and requests without a session get the errors the specification says', async () => {
    const t = await start();
    const batch = await post(t, [initialize]);
    expect(batch.status).toBe(400);
    expect(JSON.parse(batch.text)).toMatchObject({ jsonrpc: '2.0', error: { code: -32600 }, id: null });
    const notInit = await post(t, { jsonrpc: '2.0', id: 1, method: 'tools/list' });
    expect(notInit.status).toBe(400);
    const notJson = await post(t, '{"jsonrpc": "2.0", "id": 1, "method": ');
    expect(notJson.status).toBe(400);
    const big = await post(t, { ...initialize, params: { ...initialize.params, clientInfo: { name: 'x'.repeat(11 * 1024 * 1024), version: '1' } } });
    expect(big.status).toBe(413);
    const deep = await post(t, JSON.parse(`${'{"a":'.repeat(2000)}1${'}'.repeat(2000)}`));
    expect(deep.status).toBe(400);
    // Nothing was made of any of them.
    expect((await t.api.get('/v1/sessions', { headers: { authorization: `Bearer ${alice}` } })).body.items).toEqual([]);

    const opened = await post(t, initialize);
    expect(opened.status).toBe(200);
    const id = opened.session!;
    const headers = { authorization: `Bearer ${alice}`, accept: 'text/event-stream', 'mcp-session-id': id, 'mcp-protocol-version': LATEST_PROTOCOL_VERSION };
    const first = new AbortController();
    const one = await fetch(`${t.url}/mcp`, { headers, signal: first.signal });
    expect(one.status).toBe(200);
    const two = await fetch(`${t.url}/mcp`, { headers });
    expect(two.status).toBe(409);
    await two.text();
    first.abort();
    // An unsupported protocol version header.
    const version = await post(t, { jsonrpc: '2.0', id: 5, method: 'tools/list' }, { 'mcp-session-id': id, 'mcp-protocol-version': '1999-01-01' });
    expect(version.status).toBe(400);
  });

  it('initialize may carry the settings of the session made for it, validated as POST /v1/sessions validates them', async () => {
    const t = await start();
    const withSettings = (settings: unknown) => ({ ...initialize, params: { ...initialize.params, _meta: { 'norma/session': settings } } });
    const bad = await post(t, withSettings({ permission_mode: 'yolo', name: 5 }));
    expect(bad.status).toBe(400);
    expect(bad.type).toMatch(/problem\+json/);
    expect(JSON.parse(bad.text).detail).toMatch(/permission_mode/);
    expect((await t.api.get('/v1/sessions', { headers: { authorization: `Bearer ${alice}` } })).body.items).toEqual([]);
    const good = await post(t, withSettings({ permission_mode: 'acceptEdits', name: 'from MCP', labels: { via: 'mcp' } }));
    expect(good.status).toBe(200);
    const session = (await t.api.get(`/v1/sessions/${good.session!.split('.')[0]}`, { headers: { authorization: `Bearer ${alice}` } })).body;
    expect(session).toMatchObject({ permission_mode: 'acceptEdits', name: 'from MCP', labels: { via: 'mcp' } });
    // Settings with ?session= are refused: an attached session keeps its own.
    const attach = await fetch(`${t.url}/mcp?session=${session.id}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${alice}` },
      body: JSON.stringify(withSettings({ permission_mode: 'bypassPermissions' })),
    });
    expect(attach.status).toBe(400);
    expect((await t.api.get(`/v1/sessions/${session.id}`, { headers: { authorization: `Bearer ${alice}` } })).body.permission_mode).toBe('acceptEdits');
  });

  it('an attached session stays open after DELETE; tools/list_changed follows the session', async () => {
    const t = await start();
    const made = (await t.api.post('/v1/sessions', {}, { headers: { authorization: `Bearer ${alice}` } })).body;
    const { client, transport } = await connect(t, alice, { query: `?session=${made.id}` });
    expect(transport.sessionId!.startsWith(`${made.id}.`)).toBe(true);
    let changed = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => void changed++);
    // The client's GET stream is open once it has listed (it opens it after initialize).
    await client.listTools();
    await expect
      .poll(async () => {
        await t.api.patch(`/v1/sessions/${made.id}`, { permission_mode: 'acceptEdits' }, { headers: { authorization: `Bearer ${alice}` } });
        return changed;
      })
      .toBeGreaterThan(0);
    await transport.terminateSession();
    const events = (await t.api.get(`/v1/sessions/${made.id}/turns`, { headers: { authorization: `Bearer ${alice}` } })).status;
    expect(events).toBe(200);
    expect((await t.api.get(`/v1/sessions/${made.id}`, { headers: { authorization: `Bearer ${alice}` } })).body.status).toBe('active');
  });

  it('an MCP session is taken up again after a restart, from its record', async () => {
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'norma-mcp-restart-'));
    try {
      const first = await start({}, dataDir);
      const { client, transport } = await connect(first, alice);
      const id = transport.sessionId!;
      expect((await client.callTool({ name: 'LS', arguments: { path: '.' } })).isError).toBe(false);
      // The server stops while the client is connected (its GET stream open): its streams end.
      await servers.splice(0)[0]!.close();
      await clients.splice(0)[0]!.close().catch(() => {});
      const second = await start({}, dataDir);
      // The same MCP session id, no new initialize (the SDK client skips it when it has an id).
      const again = await connect(second, alice, { sessionId: id });
      expect((await again.client.listTools()).tools.some((x) => x.name === 'LS')).toBe(true);
      expect((await again.client.callTool({ name: 'LS', arguments: { path: '.' } })).isError).toBe(false);
      const sessionId = id.split('.')[0]!;
      const turns = (await second.api.get(`/v1/sessions/${sessionId}/turns`, { headers: { authorization: `Bearer ${alice}` } })).body.items;
      expect(turns).toHaveLength(2);
      // Another tenant cannot take it up, on a server that has not seen it either.
      const third = await post(second, { jsonrpc: '2.0', id: 9, method: 'tools/list' }, { authorization: `Bearer ${bob}`, 'mcp-session-id': id, 'mcp-protocol-version': LATEST_PROTOCOL_VERSION });
      expect(third.status).toBe(404);
      // Ended: a DELETE's record stops it being taken up again.
      await again.transport.terminateSession();
      const ended = await post(second, { jsonrpc: '2.0', id: 10, method: 'tools/list' }, { 'mcp-session-id': id, 'mcp-protocol-version': LATEST_PROTOCOL_VERSION });
      expect(ended.status).toBe(404);
    } finally {
      await Promise.all(servers.splice(0).map((s) => s.close()));
      await fs.rm(dataDir, { recursive: true, force: true });
    }
  });
});
