// A session's MCP tools in its registry: one server's tools replace what it had before (names,
// schemas and descriptions alike), so a list that changed — or a server that came back with other
// tools after a restart — is what the next call and the next model request see.
import { mcpTool } from '../capabilities/mcp/index.js';
import type { McpHub } from '../mcp/hub.js';
import type { ToolRegistry } from '../tools/registry.js';

export function syncMcpTools(registry: ToolRegistry, hub: McpHub, server: string): void {
  const conn = hub.get(server);
  const config = hub.server(server)?.config;
  if (!conn || !config) return;
  const prefix = `mcp__${server}__`;
  for (const name of registry.names()) if (name.startsWith(prefix)) registry.unregister(name);
  for (const info of conn.tools) registry.register(mcpTool(hub, server, info, config.trust_read_only_hint ?? false));
}
