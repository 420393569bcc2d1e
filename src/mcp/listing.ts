// What an MCP server offers, read and checked: its tools (every page, at most 1,000; each name,
// schema and description judged on its own, so one bad tool is reported and the rest kept) and its
// resources. Lists are requested with a loose result schema: the SDK's strict one would refuse a
// whole server for one bad tool.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { mcpSdk } from './sdk.js';
import { MCP_TOOL_NAME_PATTERN } from '../contract/mcp.js';
import type { McpSchemas, SchemaVerdict } from './schema-check.js';

/** More than this many tools from one server is refused (pages are read until then). */
export const MAX_TOOLS_PER_SERVER = 1000;
export const MAX_RESOURCES_PER_SERVER = 1000;
const MAX_PAGES = 100;
const FULL_NAME = /^[a-zA-Z0-9_-]{1,128}$/;
/** The longest tool description passed on to models. */
export const MAX_DESCRIPTION_CHARS = 4096;
const TOOL_NAME = new RegExp(MCP_TOOL_NAME_PATTERN);

export interface McpToolInfo {
  /** The server's name for it. */
  name: string;
  /** `mcp__<server>__<tool>`. */
  fullName: string;
  description: string;
  inputSchema: Record<string, unknown>;
  /** The input against the server's schema, checked off the event loop with a deadline (schema-check.ts). */
  validate(input: unknown, signal?: AbortSignal): Promise<SchemaVerdict>;
  /** The server's readOnlyHint (trusted only where the operator or session said so). */
  readOnlyHint: boolean;
  /** The server's annotations that a person may weigh (its claims, bounded): the four hints and a title. */
  annotations: McpToolAnnotations | null;
}

export interface McpResourceInfo {
  uri: string;
  name: string;
  mimeType?: string;
  description?: string;
}

/** Why a server could not be used; the message is for people (400 problems, warnings, is_error). */
export class McpUnavailable extends Error {}


/** How one server's tools are listed. */
export interface ToolListing {
  server: string;
  compiler: McpSchemas;
  timeoutMs: number;
  signal: AbortSignal;
}

/** Lists whose items are checked one by one below (one bad tool does not hide the others). */
const looseToolList = () => {
  const { z } = mcpSdk().zod;
  return z.object({ tools: z.array(z.unknown()), nextCursor: z.string().optional() }).passthrough();
};
const looseResourceList = () => {
  const { z } = mcpSdk().zod;
  return z.object({ resources: z.array(z.unknown()), nextCursor: z.string().optional() }).passthrough();
};

export async function listTools(client: Client, o: ToolListing): Promise<{ tools: McpToolInfo[]; problems: string[] }> {
  const out: McpToolInfo[] = [];
  const problems: string[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const r = await client.request({ method: 'tools/list', params: cursor ? { cursor } : {} }, looseToolList(), { timeout: o.timeoutMs, signal: o.signal });
    // Counted before any tool is looked at: each costs a schema compilation.
    if (out.length + r.tools.length > MAX_TOOLS_PER_SERVER) throw tooMany();
    for (const raw of r.tools) {
      const t = await toolOf(raw, o, seen, problems);
      if (t) out.push(t);
    }
    cursor = r.nextCursor;
    if (!cursor) return { tools: out, problems };
  }
  throw new McpUnavailable(`its tool list did not end after ${MAX_PAGES} pages`);
}

const tooMany = () => new McpUnavailable(`it advertises more than ${MAX_TOOLS_PER_SERVER} tools; at most ${MAX_TOOLS_PER_SERVER} are taken from one server`);

/** One advertised tool, or null with a problem that names it (bad name, bad schema, a second tool of that name). */
async function toolOf(raw: unknown, o: ToolListing, seen: Set<string>, problems: string[]): Promise<McpToolInfo | null> {
  const t = (typeof raw === 'object' && raw !== null ? raw : {}) as { name?: unknown; description?: unknown; title?: unknown; inputSchema?: unknown; annotations?: unknown };
  const name = typeof t.name === 'string' ? t.name : '';
  const shown = JSON.stringify(name.slice(0, 80));
  if (!TOOL_NAME.test(name)) {
    problems.push(`tool ${shown} left out: a tool name must match ${MCP_TOOL_NAME_PATTERN}`);
    return null;
  }
  const fullName = `mcp__${o.server}__${name}`;
  if (!FULL_NAME.test(fullName)) {
    problems.push(`tool ${shown} left out: its full name ${fullName} is longer than 128 characters`);
    return null;
  }
  if (seen.has(name)) {
    problems.push(`tool ${shown} left out: the server lists it twice`);
    return null;
  }
  const compiled = await o.compiler.compile(t.inputSchema);
  if (!compiled.ok) {
    problems.push(`tool ${shown} left out: ${compiled.problem}`);
    return null;
  }
  seen.add(name);
  let description = typeof t.description === 'string' ? t.description : typeof t.title === 'string' ? t.title : '';
  if (description.length > MAX_DESCRIPTION_CHARS) {
    // Every model request carries it: a server does not get to fill the context.
    problems.push(`tool ${shown}: its description of ${description.length} characters was cut to ${MAX_DESCRIPTION_CHARS}`);
    description = `${description.slice(0, MAX_DESCRIPTION_CHARS)}…`;
  }
  return {
    name,
    fullName,
    description,
    inputSchema: t.inputSchema as Record<string, unknown>,
    validate: compiled.validate,
    readOnlyHint: (t.annotations as { readOnlyHint?: unknown } | undefined)?.readOnlyHint === true,
    annotations: annotationsOf(t.annotations),
  };
}

export interface McpToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

const HINTS = ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const;

/** Only the known hints with boolean values and a short title: nothing else a server sends is kept. */
function annotationsOf(raw: unknown): McpToolAnnotations | null {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return null;
  const r = raw as Record<string, unknown>;
  const out: McpToolAnnotations = {};
  if (typeof r.title === 'string') out.title = r.title.slice(0, 200);
  for (const h of HINTS) if (typeof r[h] === 'boolean') out[h] = r[h];
  return Object.keys(out).length > 0 ? out : null;
}

/** The server's resources (every page, at most MAX_RESOURCES_PER_SERVER). */
export async function listResources(client: Client, timeoutMs: number, signal?: AbortSignal): Promise<McpResourceInfo[]> {
  const out: McpResourceInfo[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const r = await client.request({ method: 'resources/list', params: cursor ? { cursor } : {} }, looseResourceList(), {
      timeout: timeoutMs,
      ...(signal ? { signal } : {}),
    });
    for (const raw of r.resources) {
      const x = (typeof raw === 'object' && raw !== null ? raw : {}) as Record<string, unknown>;
      if (typeof x.uri !== 'string') continue;
      out.push({
        uri: x.uri,
        name: typeof x.name === 'string' ? x.name : x.uri,
        ...(typeof x.mimeType === 'string' ? { mimeType: x.mimeType } : {}),
        ...(typeof x.description === 'string' ? { description: x.description } : {}),
      });
      if (out.length >= MAX_RESOURCES_PER_SERVER) return out;
    }
    cursor = r.nextCursor;
    if (!cursor) return out;
  }
  return out;
}
