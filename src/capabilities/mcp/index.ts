// The MCP group: ListMcpResources and ReadMcpResource, bound to the session's MCP servers. The
// servers' own tools (`mcp__<server>__<tool>`) are not catalog names: the session registers them
// from its servers' lists (mcpTool) and replaces them when a list changes.
import type { Capability } from '../../tools/capability.js';
import { listMcpResourcesTool, readMcpResourceTool, type McpDeps } from './resources.js';

export { mcpTool } from './mcp-tool.js';

export const mcpCapability: Capability<McpDeps> = {
  group: 'mcp',
  tools: [listMcpResourcesTool, readMcpResourceTool],
  install: (s) => ({ deps: s.mcp }),
};
