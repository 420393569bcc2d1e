// NORMA_MCP_FILE: the operator's MCP servers for every session, read and checked at start-up. Any
// problem stops start-up, naming the file and the server.
import fs from 'node:fs/promises';
import { Value } from '@sinclair/typebox/value';
import { ConfigError, type Config } from '../config.js';
import { McpServersValue, type McpServers } from '../contract/mcp.js';
import { checkMcpServers } from './check.js';

export async function loadMcpFile(config: Config, processes: { usable: boolean; detail: string }): Promise<McpServers> {
  const file = config.mcpFile!;
  let json: unknown;
  try {
    json = JSON.parse(await fs.readFile(file, 'utf8'));
  } catch (err) {
    throw new ConfigError([`NORMA_MCP_FILE ${file}: ${(err as Error).message}`]);
  }
  // The file may hold the servers directly or under "mcp_servers" (the shape of a session's field).
  const servers = typeof json === 'object' && json !== null && 'mcp_servers' in json ? (json as { mcp_servers: unknown }).mcp_servers : json;
  if (!Value.Check(McpServersValue, servers)) {
    const problems = [...Value.Errors(McpServersValue, servers)].map((e) => `NORMA_MCP_FILE ${file}: ${e.path || '(root)'} ${e.message}`);
    throw new ConfigError(problems.slice(0, 20));
  }
  const problems = checkMcpServers(servers, {
    field: `NORMA_MCP_FILE ${file}: mcp_servers`,
    roots: null,
    dataDir: config.dataDir,
    workspaceRoot: config.workspaceRoot,
    processes: config.sandbox === 'off' ? { usable: true, detail: 'off' } : processes,
  });
  if (problems.length > 0) throw new ConfigError(problems);
  return servers;
}
