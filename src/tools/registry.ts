// The tool registry (SPEC §1): a duplicate name replaces the earlier tool, and the list
// exposed to a model is separate from the name lookup that executes. Deferred tools (a tool's own
// `deferred`, or a session's `deferred_tools` patterns) are known to lookup but not advertised;
// whether one may run is the pipeline's admission (unlocks), not this list's.
import { matchesAny } from './name-pattern.js';
import type { CoreTool } from './tool.js';

export interface ExposedTool {
  name: string;
  description: string;
  input_schema: unknown;
  /** Listed with ?include=deferred only. */
  deferred?: boolean;
  unlocked?: boolean;
  /** A tool the session's client runs. */
  client?: boolean;
}

export class ToolRegistry {
  private readonly tools = new Map<string, CoreTool>();
  private deferredPatterns: readonly string[] = [];

  register(tool: CoreTool): void {
    // Map.set replaces, but delete first so the replacement takes the newest position.
    this.tools.delete(tool.name);
    this.tools.set(tool.name, tool);
  }

  /** Removes a tool (an MCP server no longer offers it). */
  unregister(name: string): boolean {
    return this.tools.delete(name);
  }

  lookup(name: string): CoreTool | undefined {
    return this.tools.get(name);
  }

  names(): string[] {
    return [...this.tools.keys()];
  }

  /** The session's `deferred_tools`: names and `*` patterns kept out of the model's list. */
  setDeferred(patterns: readonly string[]): void {
    this.deferredPatterns = [...patterns];
  }

  /** A tool that is hidden from the model's list and runs only once unlocked. */
  isDeferred(name: string): boolean {
    const tool = this.tools.get(name);
    return (tool?.deferred ?? false) || matchesAny(this.deferredPatterns, name);
  }

  /** The deferred tools, in registration order. */
  deferredTools(): CoreTool[] {
    return [...this.tools.values()].filter((t) => this.isDeferred(t.name));
  }

  /** The list as exposed to a model: `[{name, description, input_schema}]` (`client` marks a client tool), deferred tools left out. */
  exposed(): ExposedTool[] {
    return [...this.tools.values()]
      .filter((t) => !this.isDeferred(t.name))
      .map((t) => ({ name: t.name, description: t.prompt, input_schema: t.inputSchema, ...(t.client ? { client: true } : {}) }));
  }
}
