// What an MCP server's configuration must satisfy before anything is started: each problem is
// named (a 400 for a session's servers, a start-up error for the operator's file). A read-only
// path is where the server is installed; it never opens the server's data directory, the
// workspaces of other sessions, or the host's root — and a session's own servers may name only
// paths under the operator's NORMA_MCP_READ_ONLY_ROOTS. Nothing of a stdio server may come from the
// workspaces unless it says workspace_code (isolation.ts).
import fs from 'node:fs';
import path from 'node:path';
import type { McpServerConfig, McpServers } from '../contract/mcp.js';
import { checkWorkspaceIsolation } from './isolation.js';

export interface McpCheckContext {
  /** The field named in problems (`mcp_servers`, `NORMA_MCP_FILE`). */
  field: string;
  /** Where read-only paths may lie (null: anywhere but the places refused for everyone). */
  roots: readonly string[] | null;
  dataDir: string;
  workspaceRoot: string;
  /** Whether stdio servers can run: the process sandbox is usable (or deliberately off). */
  processes: { usable: boolean; detail: string };
}

/** Headers the transport sets itself (framing, the target, the protocol's own): a configuration may not. */
const RESERVED_HEADERS = new Set([
  'host', 'content-length', 'transfer-encoding', 'connection', 'keep-alive', 'upgrade', 'te', 'trailer',
  'proxy-authorization', 'proxy-connection', 'content-type', 'accept', 'mcp-session-id', 'mcp-protocol-version', 'last-event-id',
  // W3C trace context: every request carries the turn's own (src/trace/context.ts).
  'traceparent', 'tracestate',
]);

const within = (p: string, dir: string) => p === dir || p.startsWith(dir.endsWith(path.sep) ? dir : dir + path.sep);

function real(p: string): string {
  try {
    return fs.realpathSync(p);
  } catch {
    return path.resolve(p);
  }
}

/** Problems of every server, in words; none: the servers may be started. */
export function checkMcpServers(servers: McpServers, ctx: McpCheckContext): string[] {
  const problems: string[] = [];
  for (const [name, config] of Object.entries(servers)) {
    // Tools are `mcp__<server>__<tool>`: a `__` in the server's name would make the split ambiguous.
    if (name.includes('__')) problems.push(`${ctx.field}.${name}: a server name may not contain "__" (its tools are named mcp__<server>__<tool>)`);
    problems.push(...checkOne(`${ctx.field}.${name}`, config, ctx));
  }
  return problems;
}

function checkOne(at: string, c: McpServerConfig, ctx: McpCheckContext): string[] {
  const problems: string[] = [];
  if ('url' in c) {
    let url: URL | undefined;
    try {
      url = new URL(c.url);
    } catch {
      problems.push(`${at}.url: ${JSON.stringify(c.url)} is not a URL`);
    }
    if (url && url.protocol !== 'http:' && url.protocol !== 'https:') problems.push(`${at}.url: only http and https servers are supported`);
    if (url && (url.username || url.password)) problems.push(`${at}.url: credentials in the URL are refused; send them in headers`);
    for (const name of Object.keys(c.headers ?? {})) {
      if (RESERVED_HEADERS.has(name.toLowerCase())) problems.push(`${at}.headers.${name}: set by the client itself; it cannot be given`);
    }
    return problems;
  }
  if (!ctx.processes.usable) problems.push(`${at}: a stdio server runs in the process sandbox, which is unusable (${ctx.processes.detail})`);
  if (c.command.includes('\0') || (c.args ?? []).some((a) => a.includes('\0'))) problems.push(`${at}: the command or an argument contains a NUL byte`);
  if (c.command.includes('/') && !path.isAbsolute(c.command) && !c.workspace_code) {
    problems.push(`${at}.command: a path must be absolute (or give a program name found on PATH); a path relative to the workspace runs the workspace's code, which needs workspace_code: true`);
  }
  problems.push(...checkWorkspaceIsolation(at, c, ctx.workspaceRoot));
  const dataDir = real(ctx.dataDir);
  const workspaces = real(ctx.workspaceRoot);
  const roots = ctx.roots?.map(real) ?? null;
  for (const [i, p] of (c.read_only_paths ?? []).entries()) {
    const where = `${at}.read_only_paths[${i}]`;
    if (!path.isAbsolute(p)) {
      problems.push(`${where}: ${JSON.stringify(p)} is not an absolute path`);
      continue;
    }
    if (!fs.existsSync(p)) {
      problems.push(`${where}: ${p} does not exist`);
      continue;
    }
    const r = real(p);
    if (r === '/') problems.push(`${where}: the host's root is refused`);
    else if (within(dataDir, r) || within(r, dataDir)) problems.push(`${where}: ${p} is (or holds) the server's data directory`);
    else if (within(workspaces, r) || within(r, workspaces)) problems.push(`${where}: ${p} is (or holds) the workspaces`);
    else if (roots && !roots.some((root) => within(r, root))) {
      problems.push(`${where}: ${p} is not under the directories the operator allows for MCP servers (NORMA_MCP_READ_ONLY_ROOTS: ${roots.join(', ') || 'none'})`);
    }
  }
  return problems;
}
