// ListMcpResources and ReadMcpResource: what the session's MCP servers expose by URI. Both only
// read (they ask a server for data and change nothing here); each request is evidence like any
// other MCP request.
import { Type, type Static } from '@sinclair/typebox';
import { MCP_SERVER_NAME_PATTERN } from '../../contract/mcp.js';
import { McpUnavailable } from '../../mcp/connection.js';
import { resourceBlocks } from '../../mcp/content.js';
import type { McpHub } from '../../mcp/hub.js';
import { defineTool, textOutput, ToolRefusal, type ToolContext } from '../../tools/tool.js';
import { LIST_MCP_RESOURCES_DESCRIPTION } from './list-mcp-resources.description.js';
import { READ_MCP_RESOURCE_DESCRIPTION } from './read-mcp-resource.description.js';

/** The session's MCP servers (null: it has none). */
export type McpDeps = McpHub | null;

const ListInput = Type.Object(
  { server: Type.Optional(Type.String({ pattern: MCP_SERVER_NAME_PATTERN, description: 'One server\'s name; default: every server' })) },
  { additionalProperties: false },
);
const ReadInput = Type.Object(
  {
    server: Type.String({ pattern: MCP_SERVER_NAME_PATTERN, description: 'The server\'s name' }),
    uri: Type.String({ minLength: 1, maxLength: 8192, description: 'The resource\'s URI, exactly as listed' }),
  },
  { additionalProperties: false },
);

function serverOf(hub: McpDeps, name: string) {
  const conn = hub?.get(name);
  if (!conn) {
    const names = hub?.names() ?? [];
    throw new ToolRefusal(`There is no MCP server "${name}" in this session${names.length > 0 ? ` (servers: ${names.join(', ')})` : ' (it has none)'}.`);
  }
  return conn;
}

const origin = (ctx: ToolContext) => ({ turnId: ctx.turnId, toolUseId: ctx.toolUseId });

export const listMcpResourcesTool = defineTool<Static<typeof ListInput>, McpDeps>({
  name: 'ListMcpResources',
  description: LIST_MCP_RESOURCES_DESCRIPTION,
  inputSchema: ListInput,
  isReadOnly: () => true,
  isConcurrencySafe: () => true,
  requiresApproval: () => false,
  call: async (input, ctx, hub) => {
    const names = input.server !== undefined ? [serverOf(hub, input.server).name] : (hub?.names() ?? []);
    if (names.length === 0) return textOutput('This session has no MCP servers.');
    const lines: string[] = [];
    const problems: string[] = [];
    for (const name of names) {
      let listed;
      try {
        listed = await serverOf(hub, name).listResourcesNow(ctx.signal, origin(ctx));
      } catch (err) {
        if (!(err instanceof McpUnavailable)) throw err;
        problems.push(err.message);
        continue;
      }
      if (listed === null) lines.push(`${name}: offers no resources`);
      else if (listed.length === 0) lines.push(`${name}: no resources`);
      else {
        lines.push(`${name}:`);
        for (const r of listed) lines.push(`  ${r.uri}  ${r.name}${r.mimeType ? ` (${r.mimeType})` : ''}${r.description ? ` — ${r.description}` : ''}`);
      }
    }
    return textOutput([...lines, ...problems].join('\n'), lines.length === 0);
  },
});

export const readMcpResourceTool = defineTool<Static<typeof ReadInput>, McpDeps>({
  name: 'ReadMcpResource',
  description: READ_MCP_RESOURCE_DESCRIPTION,
  inputSchema: ReadInput,
  isReadOnly: () => true,
  isConcurrencySafe: () => true,
  requiresApproval: () => false,
  call: async (input, ctx, hub) => {
    const conn = serverOf(hub, input.server);
    try {
      const r = await conn.readResource(input.uri, ctx.signal, origin(ctx));
      const content = r.contents.flatMap((c) => resourceBlocks(c));
      return { content: content.length > 0 ? content : [{ type: 'text', text: `[resource ${input.uri}: no contents]` }] };
    } catch (err) {
      if (err instanceof McpUnavailable) throw new ToolRefusal(err.message);
      throw err;
    }
  },
});
