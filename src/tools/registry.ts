// The tool registry (SPEC §1): a duplicate name replaces the earlier tool, and the list
// exposed to a model is separate from the name lookup that executes (deferred tools are
// known to lookup but not advertised).
import type { CoreTool } from './tool.js';

export interface ExposedTool {
  name: string;
  description: string;
  input_schema: unknown;
}

export class ToolRegistry {
  private readonly tools = new Map<string, CoreTool>();

  register(tool: CoreTool): void {
    // Map.set replaces, but delete first so the replacement takes the newest position.
    this.tools.delete(tool.name);
    this.tools.set(tool.name, tool);
  }

  lookup(name: string): CoreTool | undefined {
    return this.tools.get(name);
  }

  names(): string[] {
    return [...this.tools.keys()];
  }

  /** The list as exposed to a model: `[{name, description, input_schema}]`, deferred tools left out. */
  exposed(): ExposedTool[] {
    return [...this.tools.values()]
      .filter((t) => !t.deferred)
      .map((t) => ({ name: t.name, description: t.prompt, input_schema: t.inputSchema }));
  }
}
