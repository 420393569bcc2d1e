// Connecting an MCP client to the server's /mcp (Norma as an MCP server): the URL and request
// options for the MCP SDK's StreamableHTTPClientTransport, with the key sent on every request.
//
//   import { Client } from '@modelcontextprotocol/sdk/client/index.js';
//   import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
//   const { url, options } = norma.mcp();                        // a new session, or { session: 'ses_…' }
//   const mcp = new Client({ name: 'my-agent', version: '1.0.0' }, { capabilities: { elicitation: {} } });
//   await mcp.connect(new StreamableHTTPClientTransport(url, options));
//   await mcp.callTool({ name: 'Read', arguments: { file_path: 'README.md' } });
//
// This package does not depend on the MCP SDK: the options are plain fetch options.

export interface McpConnectOptions {
  /** Attach to this existing session (`?session=`) instead of a new one made at initialize. */
  session?: string;
  /** Take up an MCP session opened before (its `Mcp-Session-Id`): the SDK's client then skips initialize. */
  mcpSessionId?: string;
  /** More headers for every request. */
  headers?: Record<string, string>;
}

export interface McpEndpoint {
  /** `<baseUrl>/mcp`, with `?session=` when attaching. */
  url: URL;
  /** For `new StreamableHTTPClientTransport(url, options)`. */
  options: { requestInit: { headers: Record<string, string> }; sessionId?: string };
}

export function mcpEndpoint(base: { baseUrl: string; token?: string }, options: McpConnectOptions = {}): McpEndpoint {
  const url = new URL(`${base.baseUrl.replace(/\/+$/, '')}/mcp`);
  if (options.session !== undefined) url.searchParams.set('session', options.session);
  const headers: Record<string, string> = { ...(options.headers ?? {}) };
  if (base.token !== undefined && !Object.keys(headers).some((h) => h.toLowerCase() === 'authorization')) headers.authorization = `Bearer ${base.token}`;
  return { url, options: { requestInit: { headers }, ...(options.mcpSessionId !== undefined ? { sessionId: options.mcpSessionId } : {}) } };
}
