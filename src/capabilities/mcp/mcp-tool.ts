// A tool an MCP server offers, as the session has it: `mcp__<server>__<tool>`, with the server's own
// input schema (validated by the dialect it is written in, so the central validator treats it as
// a RawInput tool), and fail-closed metadata: mutating, exclusive and approval-required, unless
// the operator or session chose to trust the server's `readOnlyHint` (a hint from an untrusted
// party is not a judgement). The result passes the common cap and spill like any tool's.
import type { TSchema } from '@sinclair/typebox';
import type { McpToolInfo } from '../../mcp/connection.js';
import { McpUnavailable } from '../../mcp/connection.js';
import { toolResultBlocks } from '../../mcp/content.js';
import type { McpHub } from '../../mcp/hub.js';
import { buildTool, ToolRefusal, type CoreTool } from '../../tools/tool.js';

export function mcpTool(hub: McpHub, server: string, info: McpToolInfo, trustReadOnlyHint: boolean): CoreTool {
  const readOnly = trustReadOnlyHint && info.readOnlyHint;
  return buildTool<unknown>({
    name: info.fullName,
    description: info.description || `Tool ${info.name} of MCP server ${server}`,
    inputSchema: info.inputSchema as unknown as TSchema,
    // Checked in a worker thread with a deadline (src/mcp/schema-check.ts): the server's schema
    // decides how much work a check is. One that cannot finish in time ends the call, before
    // anyone is asked and before the server is called.
    parseRawInputAsync: async (raw, signal) => {
      const v = await info.validate(raw, signal);
      if (v.ok) return { ok: true, value: raw };
      if ('errors' in v) return { ok: false, errors: v.errors };
      return { ok: false, errors: [v.unchecked], refusal: `${info.fullName} was not called: ${v.unchecked}. Without that check against MCP server "${server}"'s input schema the call is refused; a shorter or simpler input may pass.` };
    },
    // What a person asked to allow the call sees: the server, its tool, the input, and what the
    // server says of the tool (its claims: shown, never trusted).
    preview: async (input) => ({ preview: { kind: 'mcp', server, tool: info.name, input, annotations: info.annotations ? { ...info.annotations } : null } }),
    isReadOnly: () => readOnly,
    isConcurrencySafe: () => readOnly,
    requiresApproval: () => !readOnly,
    call: async (input, ctx) => {
      const conn = hub.get(server);
      if (!conn) throw new ToolRefusal(`MCP server "${server}" is not part of this session`);
      try {
        // The server's progress notifications are live progress of the call (`tool.progress`).
        const result = await conn.callTool(info.name, input, ctx.signal, { turnId: ctx.turnId, toolUseId: ctx.toolUseId }, (p) =>
          ctx.progress(`progress ${p.progress}${p.total !== undefined ? `/${p.total}` : ''}${p.message ? `: ${p.message.slice(0, 500)}` : ''}\n`),
        );
        const mapped = toolResultBlocks(result);
        return { content: mapped.content, ...(mapped.isError ? { isError: true } : {}) };
      } catch (err) {
        if (err instanceof McpUnavailable) throw new ToolRefusal(err.message);
        throw err;
      }
    },
  });
}
