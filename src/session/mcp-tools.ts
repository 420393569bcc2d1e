// A session's MCP servers: the hub that runs them (their events go out through the session's
// gate, their HTTP through the egress client) and their tools in the session's registry. One
// server's tools replace what it had before (names, schemas and descriptions alike), so a list
// that changed — or a server that came back with other tools after a restart — is what the next
// call and the next model request see.
import { mcpTool } from '../capabilities/mcp/index.js';
import { egressFetcher } from '../egress/client.js';
import { McpHub, type HubServer } from '../mcp/hub.js';
import type { SessionSandbox } from '../sandbox/session-sandbox.js';
import type { SessionRecord } from '../store/store.js';
import type { ToolRegistry } from '../tools/registry.js';
import type { Config } from '../config.js';
import type { McpServers } from '../contract/mcp.js';
import type { Clock } from '../ids.js';
import type { McpSchemas } from '../mcp/schema-check.js';
import type { EgressPolicy } from '../sandbox/egress.js';
import type { EventGate } from './event-gate.js';
import type { Redactor } from '../redact.js';

/** What a session's MCP servers need of the server (part of what a runtime is built with). */
export interface McpHubDeps {
  config: Config;
  clock: Clock;
  egress: EgressPolicy;
  /** The operator's MCP servers (NORMA_MCP_FILE), which every session gets besides its own. */
  operatorMcp?: McpServers;
  /** Compiles MCP tools' input schemas (one per distinct schema, shared by every session). */
  mcpSchemas: McpSchemas;
  /** Pauses before an exited MCP server is started again (tests shorten them). */
  mcpRestartDelaysMs?: readonly number[];
}

/** The hub of the operator's and the session's own servers (null: none), not started yet. */
export function sessionMcpHub(
  record: SessionRecord,
  sandbox: SessionSandbox,
  deps: McpHubDeps,
  gate: EventGate,
  registry: () => ToolRegistry | undefined,
  /** The session's secrets (sessionRedactor): out of what its servers' errors and stderr say. */
  redactor: Redactor,
): McpHub | null {
  const servers: HubServer[] = [
    ...Object.entries(deps.operatorMcp ?? {}).map(([name, config]) => ({ name, config, source: 'operator' as const })),
    ...Object.entries(record.mcpServers ?? {}).map(([name, config]) => ({ name, config, source: 'session' as const })),
  ];
  if (servers.length === 0) return null;
  const { config, clock } = deps;
  const hub: McpHub = new McpHub(servers, {
    sandbox,
    compiler: deps.mcpSchemas,
    now: clock,
    fetcher: (server) =>
      egressFetcher({
        policy: deps.egress,
        ...(config.web.proxy ? { proxy: config.web.proxy } : {}),
        clock,
        onEvidence: (e) => gate.emit({ type: 'egress.request', tool: `mcp__${server}`, ...e }),
      }),
    redactor,
    ...(deps.mcpRestartDelaysMs ? { restartDelaysMs: deps.mcpRestartDelaysMs } : {}),
    events: {
      started: (server, e) => gate.emit({ type: 'mcp.server.started', server, restarts: e.restarts, tools: e.tools, duration_ms: e.durationMs }),
      exited: (server, e) =>
        gate.emit({ type: 'mcp.server.exited', server, code: e.code, signal: e.signal, reason: e.reason, next: e.next, ...(e.restartInMs !== undefined ? { restart_in_ms: e.restartInMs } : {}) }),
      toolsChanged: (server, change) => {
        const r = registry();
        if (r) syncMcpTools(r, hub, server);
        if (change.added.length + change.removed.length + change.changed.length > 0) gate.emit({ type: 'tools.changed', server, ...change });
      },
      evidence: (server, e) => gate.emit({ type: 'mcp.request', server, ...e }),
    },
  });
  return hub;
}

export function syncMcpTools(registry: ToolRegistry, hub: McpHub, server: string): void {
  const conn = hub.get(server);
  const config = hub.server(server)?.config;
  if (!conn || !config) return;
  const prefix = `mcp__${server}__`;
  for (const name of registry.names()) if (name.startsWith(prefix)) registry.unregister(name);
  for (const info of conn.tools) registry.register(mcpTool(hub, server, info, config.trust_read_only_hint ?? false));
}
