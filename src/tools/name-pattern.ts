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
  // Not a regular expression: `*a*a*a*a*b` as `^.*a.*a.*a.*a.*b$` backtracks for minutes on a long
  // tool name (an MCP server names its tools); this match is linear in the name per `*`.
  const parts = p.split('*');
  return (name) => wildcardMatch(parts, name);
}

/**
 * Whether `name` is `parts` joined by runs of any characters: the first part a prefix, the last a
 * suffix, the others found in order, each at its first place after the one before (taking the
 * first place leaves the most room for the rest, so no other choice needs trying).
 */
function wildcardMatch(parts: readonly string[], name: string): boolean {
  const first = parts[0]!;
  const last = parts[parts.length - 1]!;
  if (name.length < first.length + last.length || !name.startsWith(first) || !name.endsWith(last)) return false;
  let at = first.length;
  const end = name.length - last.length;
  for (let i = 1; i < parts.length - 1; i++) {
    const found = name.indexOf(parts[i]!, at);
    if (found < 0 || found + parts[i]!.length > end) return false;
    at = found + parts[i]!.length;
  }
  return true;
}

/** True when any of the patterns matches the name (texts that are not patterns match nothing). */
export function matchesAny(patterns: readonly string[], name: string): boolean {
  for (const p of patterns) if (namePattern(p)?.(name)) return true;
  return false;
}
