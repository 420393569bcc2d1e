// A session's client tools (`client_tools`): what is wrong with a declaration (checked at
// creation, where each problem is a 400), and the tools a runtime registers from the stored
// definitions (at creation and after a restart alike). Their input schemas are compiled by the
// same bounded compiler as MCP servers' (src/mcp/schema-check.ts): a schema from outside the
// server decides how much work a check is, so it is compiled and enforced off the event loop.
import { clientTool } from '../capabilities/client/client-tool.js';
import { MAX_CLIENT_TOOL_SCHEMA_BYTES, MAX_CLIENT_TOOL_SCHEMA_DEPTH, type ClientToolDefinition } from '../contract/schemas.js';
import type { ClientToolAnswer, ClientToolCall } from '../interaction/kinds.js';
import { nestedDeeperThan } from '../json-depth.js';
import type { McpSchemas } from '../mcp/schema-check.js';
import { NETWORK_TOOL } from '../permission/network.js';
import { catalogEntry } from '../tools/catalog.js';
import type { CoreTool, ToolContext } from '../tools/tool.js';
import { BUDGET_TOOL } from './budget-gate.js';

/** Names permission requests use for what is not a tool call (a connection, a budget): rules name them too. */
const RESERVED = new Set([NETWORK_TOOL, BUDGET_TOOL]);

/** Every problem of a session's `client_tools`: names taken or repeated, schemas that are not usable JSON Schema. */
export async function clientToolProblems(defs: readonly ClientToolDefinition[], schemas: McpSchemas): Promise<string[]> {
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const [i, def] of defs.entries()) {
    const at = `client_tools[${i}]`;
    if (catalogEntry(def.name) || RESERVED.has(def.name)) problems.push(`${at}.name: "${def.name}" is the name of a built-in tool; choose another`);
    else if (def.name.startsWith('mcp__')) problems.push(`${at}.name: "${def.name}" is in the namespace of MCP servers' tools (mcp__…); choose another`);
    else if (seen.has(def.name)) problems.push(`${at}.name: "${def.name}" is declared twice`);
    seen.add(def.name);
    const schemaProblem = await schemaProblemOf(def.input_schema, schemas);
    if (schemaProblem) problems.push(`${at}.input_schema: ${schemaProblem}`);
  }
  return problems;
}

async function schemaProblemOf(schema: unknown, schemas: McpSchemas): Promise<string | null> {
  // Measured before it is compiled: depth first (a deep value makes JSON.stringify recurse).
  if (nestedDeeperThan(schema, MAX_CLIENT_TOOL_SCHEMA_DEPTH)) return `nests deeper than ${MAX_CLIENT_TOOL_SCHEMA_DEPTH} levels`;
  const bytes = Buffer.byteLength(JSON.stringify(schema) ?? '');
  if (bytes > MAX_CLIENT_TOOL_SCHEMA_BYTES) return `is ${bytes} bytes; at most ${MAX_CLIENT_TOOL_SCHEMA_BYTES} are taken`;
  const compiled = await schemas.compile(schema);
  return compiled.ok ? null : compiled.problem;
}

/**
 * The session's client tools, ready to register; a definition whose schema cannot be compiled now
 * (after a restart: the compiler was busy, or changed) is left out and named in `problems`.
 */
export async function sessionClientTools(
  defs: readonly ClientToolDefinition[],
  schemas: McpSchemas,
  askClient: (call: ClientToolCall, ctx: ToolContext) => Promise<ClientToolAnswer>,
): Promise<{ tools: CoreTool[]; problems: string[] }> {
  const tools: CoreTool[] = [];
  const problems: string[] = [];
  for (const def of defs) {
    const compiled = await schemas.compile(def.input_schema);
    if (!compiled.ok) problems.push(`client_tools.${def.name}: ${compiled.problem}`);
    else tools.push(clientTool(def, { validate: compiled.validate, askClient }));
  }
  return { tools, problems };
}
