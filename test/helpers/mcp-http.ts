// A stateless Streamable HTTP MCP server with one tool, `add` (a server and a transport per
// request, as the SDK's examples do), on loopback, for tests of MCP over HTTP. `admit` sees each
// request first: false answers 401. closeFixtures() (http-fixture.ts) ends it.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { track } from './http-fixture.js';

export async function mcpAddServer(name: string, admit: (req: http.IncomingMessage) => boolean = () => true): Promise<string> {
  const { McpServer } = await import('@modelcontextprotocol/sdk/server/mcp.js');
  const { StreamableHTTPServerTransport } = await import('@modelcontextprotocol/sdk/server/streamableHttp.js');
  const { z } = await import('zod');
  const server = http.createServer(async (req, res) => {
    if (!admit(req)) return void res.writeHead(401).end();
    const mcp = new McpServer({ name, version: '1.0.0' });
    mcp.registerTool('add', { description: 'Adds two numbers', inputSchema: { a: z.number(), b: z.number() } }, async ({ a, b }) => ({
      content: [{ type: 'text', text: String(a + b) }],
    }));
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => void transport.close());
    await mcp.connect(transport);
    await transport.handleRequest(req, res);
  });
  track(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
}
