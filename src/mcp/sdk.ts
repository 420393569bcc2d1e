// The MCP SDK (and zod, which it validates with) is loaded when the first MCP server of the
// process starts, not when the server does: together they were a quarter of start-up. Code that
// runs before a connection awaits `loadMcpSdk()`; code that runs only on a started connection
// (its transport, its requests) reads `mcpSdk()`.
export interface McpSdk {
  client: typeof import('@modelcontextprotocol/sdk/client/index.js');
  http: typeof import('@modelcontextprotocol/sdk/client/streamableHttp.js');
  types: typeof import('@modelcontextprotocol/sdk/types.js');
  zod: typeof import('zod');
}

let loaded: McpSdk | undefined;
let loading: Promise<McpSdk> | undefined;

export function loadMcpSdk(): Promise<McpSdk> {
  loading ??= Promise.all([
    import('@modelcontextprotocol/sdk/client/index.js'),
    import('@modelcontextprotocol/sdk/client/streamableHttp.js'),
    import('@modelcontextprotocol/sdk/types.js'),
    import('zod'),
  ]).then(([client, http, types, zod]) => (loaded = { client, http, types, zod }));
  return loading;
}

/** The SDK, once `loadMcpSdk()` has resolved (every connection awaits it before it opens a transport). */
export function mcpSdk(): McpSdk {
  if (!loaded) throw new Error('the MCP SDK is used before loadMcpSdk() resolved');
  return loaded;
}
