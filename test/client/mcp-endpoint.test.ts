// The typed client's way to /mcp: the MCP SDK's own client connects with what `norma.mcp()` gives,
// on a server with a key, to a new session or attached to one, and takes an MCP session up again.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createNormaClient, mcpEndpoint, type NormaClient } from '../../clients/typescript/src/index.js';
import { startServer, type TestServer } from '../helpers/server.js';

const TOKEN = 'mcp-endpoint-test-token-0123456789';

describe('norma.mcp()', { timeout: 60_000 }, () => {
  let t: TestServer;
  let norma: NormaClient;
  const clients: Client[] = [];
  beforeAll(async () => {
    t = await startServer({ NORMA_SANDBOX: 'off', NORMA_TOKEN: TOKEN });
    norma = createNormaClient({ baseUrl: `${t.url}/`, token: TOKEN });
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close().catch(() => {})));
    await t?.close();
  });

  async function connect(endpoint: ReturnType<NormaClient['mcp']>) {
    const client = new Client({ name: 'typed-client-test', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(endpoint.url, endpoint.options);
    await client.connect(transport);
    clients.push(client);
    return { client, transport };
  }

  it('connects with the key to a new session, and to an existing one', async () => {
    expect(norma.mcp().url.href).toBe(`${t.url}/mcp`);
    const { client, transport } = await connect(norma.mcp());
    expect((await client.callTool({ name: 'LS', arguments: { path: '.' } })).isError).toBe(false);
    const made = transport.sessionId!.split('.')[0]!;
    expect((await norma.GET('/v1/sessions/{session_id}', { params: { path: { session_id: made } } })).data?.status).toBe('active');

    const { data: session } = await norma.POST('/v1/sessions', { body: {} });
    const endpoint = norma.mcp({ session: session!.id });
    expect(endpoint.url.searchParams.get('session')).toBe(session!.id);
    const attached = await connect(endpoint);
    expect(attached.transport.sessionId!.startsWith(`${session!.id}.`)).toBe(true);
    // Taken up again with its id: no initialize, the same session.
    const again = await connect(norma.mcp({ mcpSessionId: attached.transport.sessionId! }));
    expect((await again.client.listTools()).tools.length).toBeGreaterThan(0);
    expect(again.transport.sessionId).toBe(attached.transport.sessionId);
  });

  it('without the key the server refuses; a header of the caller\'s own is kept', async () => {
    const bare = mcpEndpoint({ baseUrl: t.url });
    expect(bare.options.requestInit.headers).toEqual({});
    await expect(connect(bare)).rejects.toThrow();
    const own = mcpEndpoint({ baseUrl: t.url, token: 'ignored' }, { headers: { Authorization: `Bearer ${TOKEN}` } });
    expect(own.options.requestInit.headers).toEqual({ Authorization: `Bearer ${TOKEN}` });
    expect((await (await connect(own)).client.listTools()).tools.length).toBeGreaterThan(0);
  });
});
