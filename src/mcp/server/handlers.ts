// The MCP methods an MCP session answers: its session's exposed tools (deferred ones stay deferred:
// SearchExtraTools finds them), a call of one of them, and the session's spill files as resources.
// Each runs as the key of the HTTP request that carried it.
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { AppContext } from '../../app-context.js';
import type { Scope } from '../../app/scope.js';
import { DomainError } from '../../errors.js';
import type { CallLink, CallExtra, ToolCalls } from './calls.js';
import { outputUri, parseOutputUri } from './content.js';
import type { McpServerSdk } from './sdk.js';

/** The most of a spill file one `resources/read` returns; the REST download has Range for the rest. */
export const RESOURCE_READ_BYTES = 4 * 1024 * 1024;

function scopeOf(extra: { authInfo?: { extra?: Record<string, unknown> } }): Scope {
  const scope = extra.authInfo?.extra?.scope as Scope | undefined;
  if (!scope) throw new Error('an MCP request reached its handler without the scope of its HTTP request');
  return scope;
}

export function serveSession(sdk: McpServerSdk, server: Server, link: CallLink, ctx: AppContext, calls: ToolCalls): void {
  const { types } = sdk;
  const invalid = (message: string) => new types.McpError(types.ErrorCode.InvalidParams, message);
  const sessionId = link.sessionId;

  // What the model would see, and the deferred tools SearchExtraTools has unlocked since (a model
  // calls those by name after reading their schemas in its result; a client reads them here).
  const listed = async (scope: Scope) =>
    (await ctx.owner.call(scope, 'sessions.tools', sessionId, true)).filter((t) => !t.deferred || t.unlocked);
  // The names a call may use, read again after the session's tools or settings change (the
  // gateway calls `toolsChanged`), not on every call.
  let names: Promise<Set<string>> | null = null;
  link.toolsChanged = () => void (names = null);
  const callable = (scope: Scope) => {
    const reading = (names ??= listed(scope).then((tools) => new Set(tools.map((t) => t.name))));
    reading.catch(() => {
      if (names === reading) names = null;
    });
    return reading;
  };

  server.setRequestHandler(types.ListToolsRequestSchema, async (_req, extra) => {
    const tools = await listed(scopeOf(extra));
    return { tools: tools.map((t) => ({ name: t.name, description: t.description, inputSchema: t.input_schema as { type: 'object' } })) };
  });

  server.setRequestHandler(types.CallToolRequestSchema, async (req, extra) => {
    const scope = scopeOf(extra);
    // Only what the session exposes: nothing runs for a name it does not list.
    if (!(await callable(scope)).has(req.params.name)) throw invalid(`Unknown tool: ${req.params.name} is not one of this session's tools (tools/list)`);
    return calls.run(link, scope, req.params.name, req.params.arguments ?? {}, extra as CallExtra);
  });

  server.setRequestHandler(types.ListResourcesRequestSchema, async (_req, extra) => {
    const outputs = ctx.app.audit.outputs(scopeOf(extra), sessionId).filter((o) => o.status === 'available');
    return {
      resources: outputs.map((o) => ({
        uri: outputUri(sessionId, o.id),
        name: o.id,
        title: `${o.tool} output (${o.tool_use_id})`,
        mimeType: 'text/plain',
        size: o.bytes,
      })),
    };
  });

  server.setRequestHandler(types.ReadResourceRequestSchema, async (req, extra) => {
    const named = parseOutputUri(req.params.uri);
    // A resource of this MCP session's own session only.
    if (!named || named.sessionId !== sessionId) throw new types.McpError(types.ErrorCode.InvalidParams, `Resource not found: ${req.params.uri.slice(0, 300)}`);
    let download;
    try {
      download = ctx.app.audit.outputForDownload(scopeOf(extra), sessionId, named.outputId);
    } catch (err) {
      if (err instanceof DomainError && (err.kind === 'not_found' || err.kind === 'gone')) throw new types.McpError(types.ErrorCode.InvalidParams, `Resource not found: ${err.message}`);
      throw err;
    }
    const file = await download.open();
    const end = Math.min(file.size, RESOURCE_READ_BYTES) - 1;
    const chunks: Buffer[] = [];
    if (end >= 0) for await (const chunk of file.stream(0, end)) chunks.push(chunk as Buffer);
    else await file.close();
    const text = Buffer.concat(chunks).toString('utf8');
    const shortened = file.size > RESOURCE_READ_BYTES;
    return {
      contents: [{ uri: req.params.uri, mimeType: 'text/plain', text }],
      ...(shortened ? { _meta: { 'norma/truncated': { bytes: file.size, returned_bytes: end + 1, download: `/v1/sessions/${sessionId}/outputs/${named.outputId}` } } } : {}),
    };
  });
}
