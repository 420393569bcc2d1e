// The MCP SDK's server side, loaded on the first request to /mcp (like the client side, src/mcp/sdk.ts):
// a server that is never asked over MCP does not pay for loading it at start-up.
export interface McpServerSdk {
  server: typeof import('@modelcontextprotocol/sdk/server/index.js');
  http: typeof import('@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js');
  types: typeof import('@modelcontextprotocol/sdk/types.js');
}

let loading: Promise<McpServerSdk> | undefined;

export function loadMcpServerSdk(): Promise<McpServerSdk> {
  loading ??= Promise.all([
    import('@modelcontextprotocol/sdk/server/index.js'),
    import('@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'),
    import('@modelcontextprotocol/sdk/types.js'),
  ]).then(([server, http, types]) => ({ server, http, types }));
  return loading;
}
