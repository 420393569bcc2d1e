// A tool the session's client runs (`client_tools`): the server never runs it. A call is a pause
// through the one broker — stored, announced (`client_tool.requested`), timed out, cancelled,
// taken up again after a restart — and the client's answer is the call's result, capped and
// spilled like any tool's output. Everything before the call is the pipeline's as for any tool:
// the input is checked against the client's JSON Schema (off the event loop, with a deadline, as
// an MCP server's schema is: the schema is a party's other than the server's own), rules decide,
// PreToolUse hooks see the input.
import type { TSchema } from '@sinclair/typebox';
import type { ClientToolDefinition } from '../../contract/schemas.js';
import type { ClientToolAnswer, ClientToolCall } from '../../interaction/kinds.js';
import type { SchemaVerdict } from '../../mcp/schema-check.js';
import { buildTool, textOutput, type CoreTool, type ToolContext, type ToolOutput } from '../../tools/tool.js';

export interface ClientToolDeps {
  /** Checks a call's input against the tool's input schema. */
  validate(input: unknown, signal?: AbortSignal): Promise<SchemaVerdict>;
  /** Pauses the call until the client answers (or the wait ends otherwise). */
  askClient(call: ClientToolCall, ctx: ToolContext): Promise<ClientToolAnswer>;
}

export function clientTool(def: ClientToolDefinition, deps: ClientToolDeps): CoreTool {
  return buildTool<unknown>({
    name: def.name,
    description: def.description,
    inputSchema: def.input_schema as unknown as TSchema,
    client: true,
    parseRawInputAsync: async (raw, signal) => {
      const v = await deps.validate(raw, signal);
      if (v.ok) return { ok: true, value: raw };
      if ('errors' in v) return { ok: false, errors: v.errors };
      return { ok: false, errors: [v.unchecked], refusal: `${def.name} was not called: ${v.unchecked}. Without that check against the tool's input schema the client is not asked; a shorter or simpler input may pass.` };
    },
    // What the client does with it is unknown here: not read-only (plan mode refuses it, a
    // checkpoint is taken before it), one at a time. The client declared the tool and runs it
    // itself, and the server does nothing on its behalf, so the call needs no person's approval of
    // its own: deny and ask rules, the mode and hooks still decide as for any tool.
    isReadOnly: () => false,
    isConcurrencySafe: () => false,
    requiresApproval: () => false,
    checkPermissions: async () => ({ behavior: 'allow', reason: `${def.name} is a client tool: the session's client runs it, the server does nothing` }),
    call: async (input, ctx) => resultOf(def.name, await deps.askClient({ toolUseId: ctx.toolUseId, name: def.name, input }, ctx)),
  });
}

/** The call's result: the client's content (an error result when it says so), or why there is none. */
export function resultOf(name: string, outcome: ClientToolAnswer): ToolOutput {
  switch (outcome.outcome) {
    case 'answered':
      return { content: outcome.content, ...(outcome.isError ? { isError: true } : {}) };
    case 'timed_out':
      return textOutput(`No result from ${name}: ${outcome.message}. Go on without it, or call it again if it is needed.`, true);
    case 'cancelled':
      return textOutput(`${name} was not run by the client: ${outcome.reason}.`, true);
  }
}
