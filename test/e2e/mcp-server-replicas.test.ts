// /mcp with replicas on one PostgreSQL database: an MCP session opened on one replica is taken up
// by another from its stored record (a proxy that does not route by Mcp-Session-Id sends it
// anywhere); its calls run where the session runs, and after that replica stops, on the one that
// takes the session over.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createTestDatabase, type TestDatabase } from '../helpers/postgres.js';
import { startServer, type TestServer } from '../helpers/server.js';

let db: TestDatabase;
let dataDir: string;
const replicas: TestServer[] = [];
const clients: Client[] = [];

beforeAll(async () => {
  db = await createTestDatabase();
  dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'norma-mcp-replicas-'));
});
afterAll(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close().catch(() => {})));
  await Promise.all(replicas.splice(0).map((t) => t.close()));
  await db?.drop();
  await fs.rm(dataDir, { recursive: true, force: true });
});

async function replica(id: string): Promise<TestServer> {
  const t = await startServer({ NORMA_STORE: 'postgres', NORMA_DATABASE_URL: db.url, NORMA_NODE_ID: id, NORMA_SANDBOX: 'off' }, { dataDir });
  replicas.push(t);
  return t;
}

async function connect(t: TestServer, sessionId?: string) {
  const client = new Client({ name: 'replica-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`), sessionId ? { sessionId } : {});
  await client.connect(transport);
  clients.push(client);
  return { client, transport };
}

describe('/mcp on replicas', { timeout: 90_000 }, () => {
  it('an MCP session is taken up on another replica and after its first replica stops', async () => {
    const [a, b] = [await replica('a'), await replica('b')];
    const { client, transport } = await connect(a);
    const id = transport.sessionId!;
    const sessionId = id.split('.')[0]!;
    expect((await client.callTool({ name: 'LS', arguments: { path: '.' } })).isError).toBe(false);

    // The same MCP session on B: taken up from its record; the call runs on A, which runs the session.
    const onB = await connect(b, id);
    expect((await onB.client.listTools()).tools.some((x) => x.name === 'LS')).toBe(true);
    expect((await onB.client.callTool({ name: 'LS', arguments: { path: '.' } })).isError).toBe(false);

    // A stops; B takes the session over, and the MCP session goes on there.
    await clients.splice(0, 1)[0]!.close().catch(() => {});
    replicas.splice(replicas.indexOf(a), 1);
    await a.close();
    let ok = false;
    for (let tries = 0; tries < 100 && !ok; tries++) {
      const r = await onB.client.callTool({ name: 'LS', arguments: { path: '.' } }).catch(() => null);
      ok = r?.isError === false;
      if (!ok) await new Promise((res) => setTimeout(res, 200));
    }
    expect(ok).toBe(true);
    const turns = (await b.api.get(`/v1/sessions/${sessionId}/turns`)).body.items as { status: string }[];
    expect(turns.filter((x) => x.status === 'completed').length).toBeGreaterThanOrEqual(3);
    const connected = (await b.api.get(`/v1/sessions/${sessionId}/export`)).text.match(/"mcp\.client\.connected"/g) ?? [];
    expect(connected).toHaveLength(1);
  });

  it('an MCP session ended with DELETE on one replica ends on the replica that took it up too', async () => {
    const [c, d] = [await replica('c'), await replica('d')];
    // Attached, so the session itself stays open: only the MCP session ends.
    const made = (await c.api.post('/v1/sessions', {})).body;
    const onC = new StreamableHTTPClientTransport(new URL(`${c.url}/mcp?session=${made.id}`));
    const clientC = new Client({ name: 'replica-test', version: '1.0.0' });
    await clientC.connect(onC);
    clients.push(clientC);
    const id = onC.sessionId!;
    const onD = await connect(d, id);
    expect((await onD.client.callTool({ name: 'LS', arguments: { path: '.' } })).isError).toBe(false);
    await onC.terminateSession();
    const raw = () =>
      fetch(`${d.url}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': id, 'mcp-protocol-version': '2025-06-18' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 50, method: 'tools/list' }),
      }).then(async (r) => (await r.text(), r.status));
    await expect.poll(raw, { timeout: 15_000 }).toBe(404);
    expect((await d.api.get(`/v1/sessions/${made.id}`)).body.status).toBe('active');
  });
});
