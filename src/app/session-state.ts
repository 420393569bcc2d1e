// What a session keeps besides its resource: its todo list, its memory store's files, and the
// skills it may use (API.md "Todos", "Memory and instructions", "Skills").
import type { MemoryListing, Skill, TodoList } from '../contract/schemas.js';
import { MemoryFiles } from '../capabilities/memory/files.js';
import { memoryDir } from '../session/data-dirs.js';
import type { Parts } from './parts.js';
import type { Scope } from './scope.js';

export class SessionStateUseCases {
  constructor(private readonly parts: Parts) {}

  todos(_scope: Scope, sessionId: string): TodoList {
    const record = this.parts.records.get(sessionId);
    return this.parts.runtimes.get(sessionId)?.settings.todos() ?? record.todos ?? { items: [], updated_at: null };
  }

  async memory(_scope: Scope, sessionId: string): Promise<MemoryListing> {
    const { session } = this.parts.records.get(sessionId);
    const items = await new MemoryFiles(memoryDir(this.parts.deps.config.dataDir, session)).list();
    return { store: session.memory_store ?? 'session', items };
  }

  skills(_scope: Scope, sessionId: string): { items: Skill[] } {
    const { session } = this.parts.records.get(sessionId);
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
