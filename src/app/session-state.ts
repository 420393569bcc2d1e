// What a session keeps besides its resource: its todo list, its memory store's files, and the
// skills it may use (API.md "Todos", "Memory and instructions", "Skills").
import type { MemoryListing, Skill, TodoList } from '../contract/schemas.js';
import type { McpServerState } from '../contract/mcp.js';
import { MemoryFiles } from '../capabilities/memory/files.js';
import { memoryDir } from '../session/data-dirs.js';
import type { Parts } from './parts.js';
import type { Scope } from './scope.js';

export class SessionStateUseCases {
  constructor(private readonly parts: Parts) {}

  todos(scope: Scope, sessionId: string): TodoList {
    const record = this.parts.records.get(sessionId, scope.tenant);
    return this.parts.runtimes.get(sessionId)?.settings.todos() ?? record.todos ?? { items: [], updated_at: null };
  }

  async memory(scope: Scope, sessionId: string): Promise<MemoryListing> {
    const { session } = this.parts.records.get(sessionId, scope.tenant);
    const items = await new MemoryFiles(memoryDir(this.parts.deps.config.dataDir, session)).list();
    return { store: session.memory_store ?? 'session', items };
  }

  /** The session's MCP servers: status, tools, resources and trouble (a closed session's are `closed`). */
  mcp(scope: Scope, sessionId: string): { servers: McpServerState[] } {
    const { session } = this.parts.records.get(sessionId, scope.tenant);
    const hub = this.parts.runtimes.get(sessionId)?.mcp;
    if (hub) return { servers: hub.state() };
    return {
      servers: Object.entries(session.mcp_servers).map(([name, config]) => ({
        name,
        status: 'closed' as const,
        config,
        server_info: null,
        protocol_version: null,
        tools: [],
        resources: [],
        problems: [],
        restarts: 0,
        last_exit: null,
        stderr_tail: '',
        started_at: null,
      })),
    };
  }

  skills(scope: Scope, sessionId: string): { items: Skill[] } {
    const { session } = this.parts.records.get(sessionId, scope.tenant);
    const known = this.parts.runtimes.get(sessionId)?.skills ?? [];
    const used = new Set(session.used_skills);
    return {
      items: known.map((k) => ({
        name: k.name,
        description: k.description,
        allowed_tools: k.allowedTools,
        source: k.source,
        sha256: k.sha256,
        used: used.has(k.name),
      })),
    };
  }
}
