// How SearchExtraTools picks tools: `select:` by exact name, `/regex/` over names and
// descriptions, or keywords ranked over name parts (most), names, then descriptions.
import type { DeferredToolInfo } from '../../tools/capability.js';

export type RegexMatcher = (source: string, flags: string, texts: readonly string[]) => boolean[];

/** The words of a tool name: `mcp__github__create_issue` → mcp, github, create, issue; `WebFetch` → web, fetch. */
function nameWords(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w !== '');
}

const DESCRIPTION_CHARS = 2000;

export function rankTools(tools: readonly DeferredToolInfo[], query: string, max: number, regex: RegexMatcher): DeferredToolInfo[] {
  if (query.toLowerCase().startsWith('select:')) {
    const wanted = query.slice('select:'.length).split(',').map((s) => s.trim()).filter((s) => s !== '');
    return wanted.flatMap((w) => tools.filter((t) => t.name === w)).slice(0, max);
  }
  const re = /^\/(.+)\/([a-z]*)$/s.exec(query);
  if (re) {
    // g and y would make a reused pattern stateful; they mean nothing for a yes/no match. Other
    // letters go to the RegExp constructor, which names an unknown flag.
    const flags = [...new Set(re[2]!.replace(/[gy]/g, '').split(''))].join('');
    const hits = regex(re[1]!, flags, tools.map((t) => `${t.name}\n${t.description.slice(0, DESCRIPTION_CHARS)}`));
    return tools.filter((_, i) => hits[i]).slice(0, max);
  }
  const terms = query.toLowerCase().split(/\s+/).filter((t) => t !== '' && t !== '+');
  const required = terms.filter((t) => t.startsWith('+')).map((t) => t.slice(1));
  const all = terms.map((t) => t.replace(/^\+/, ''));
  const scored: { tool: DeferredToolInfo; score: number }[] = [];
  for (const tool of tools) {
    const name = tool.name.toLowerCase();
    const words = nameWords(tool.name);
    const description = tool.description.slice(0, DESCRIPTION_CHARS).toLowerCase();
    const hit = (t: string) => name.includes(t) || description.includes(t);
    if (!required.every(hit)) continue;
    let score = name === query.toLowerCase() ? 100 : 0;
    for (const t of all) {
      if (words.includes(t)) score += 10;
      else if (name.includes(t)) score += 5;
      if (new RegExp(`\\b${t.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`).test(description)) score += 2;
      else if (description.includes(t)) score += 1;
    }
    if (score > 0) scored.push({ tool, score });
  }
  scored.sort((a, b) => b.score - a.score || a.tool.name.localeCompare(b.tool.name));
  return scored.slice(0, max).map((s) => s.tool);
}
