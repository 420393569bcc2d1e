// Tool-name patterns (`deferred_tools`, unlocks, a skill's `allowed-tools`): an exact name, a
// name with `*` standing for any run of characters (`mcp__*`, `mcp__github__*`, `*`), or
// `mcp__<server>` for every tool of one MCP server (as in permission rules).

export const TOOL_NAME_PATTERN = '^[A-Za-z0-9_*-]{1,128}$';
const SHAPE = new RegExp(TOOL_NAME_PATTERN);

/** A matcher for one pattern, or null when the text is not a pattern. */
export function namePattern(p: string): ((name: string) => boolean) | null {
  if (!SHAPE.test(p)) return null;
  if (p.startsWith('mcp__') && !p.slice(5).includes('__') && !p.includes('*')) return (name) => name === p || name.startsWith(`${p}__`);
  if (!p.includes('*')) return (name) => name === p;
  const re = new RegExp(`^${p.split('*').map((part) => part.replace(/[-]/g, '\\-')).join('.*')}$`);
  return (name) => re.test(name);
}

/** True when any of the patterns matches the name (texts that are not patterns match nothing). */
export function matchesAny(patterns: readonly string[], name: string): boolean {
  for (const p of patterns) if (namePattern(p)?.(name)) return true;
  return false;
}
