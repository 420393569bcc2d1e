// Permission rule parsing and matching. One parser for every place rules come from
// (allowed_tools, disallowed_tools, ask_rules, session rules, `remember`).
//
// Matching here is by tool name: `*`, an exact name, `mcp__server__*`, or the name part of
// `Name(specifier)`. Specifiers are parsed and kept but not yet evaluated against arguments,
// so — fail-closed — a specifier rule widens deny and ask (it matches every call of that
// tool) but never widens allow (an allow rule with a specifier matches nothing yet).
// The matcher is an interface so an argument-aware one can replace it.

export type RuleBehavior = 'allow' | 'deny' | 'ask';

export interface ParsedRule {
  /** The rule string as written. */
  text: string;
  /** `*`, an exact tool name, or a name prefix ending in `*` (e.g. `mcp__server__*`). */
  tool: string;
  specifier: string | null;
}

export type RuleParse = { ok: true; rule: ParsedRule } | { ok: false; error: string };

const TOOL_NAME = /^[A-Za-z][A-Za-z0-9_-]*\*?$/;

export function parseRule(text: string): RuleParse {
  const s = text.trim();
  if (s === '') return { ok: false, error: 'empty rule' };
  if (s === '*') return { ok: true, rule: { text, tool: '*', specifier: null } };
  const open = s.indexOf('(');
  if (open === -1) {
    if (!TOOL_NAME.test(s)) return { ok: false, error: `"${s}" is not a tool name (letters, digits, _ and -, optionally ending in *)` };
    return { ok: true, rule: { text, tool: s, specifier: null } };
  }
  const name = s.slice(0, open);
  if (!s.endsWith(')')) return { ok: false, error: `"${s}" has "(" without a closing ")" at the end` };
  if (!TOOL_NAME.test(name) || name.endsWith('*')) return { ok: false, error: `"${name}" is not a tool name` };
  const specifier = s.slice(open + 1, -1);
  if (specifier.trim() === '') return { ok: false, error: `"${s}" has an empty specifier; write "${name}" for the whole tool` };
  let depth = 0;
  for (const c of specifier) {
    if (c === '(') depth++;
    else if (c === ')' && --depth < 0) break;
  }
  if (depth !== 0) return { ok: false, error: `"${s}" has unbalanced parentheses` };
  return { ok: true, rule: { text, tool: name, specifier } };
}

/** Parses every rule; the errors name each bad rule and its field. */
export function parseRules(field: string, texts: readonly string[]): { rules: ParsedRule[]; problems: string[] } {
  const rules: ParsedRule[] = [];
  const problems: string[] = [];
  for (const text of texts) {
    const r = parseRule(text);
    if (r.ok) rules.push(r.rule);
    else problems.push(`${field}: invalid rule ${JSON.stringify(text)}: ${r.error}`);
  }
  return { rules, problems };
}

export interface ToolCallSubject {
  toolName: string;
  input: unknown;
}

export interface RuleMatcher {
  matches(rule: ParsedRule, behavior: RuleBehavior, call: ToolCallSubject): boolean;
}

function nameMatches(pattern: string, name: string): boolean {
  if (pattern === '*') return true;
  if (pattern.endsWith('*')) return name.startsWith(pattern.slice(0, -1));
  return pattern === name;
}

export const nameRuleMatcher: RuleMatcher = {
  matches(rule, behavior, call) {
    if (!nameMatches(rule.tool, call.toolName)) return false;
    // Fail closed until specifiers are evaluated: never let one widen an allow.
    if (rule.specifier !== null && behavior === 'allow') return false;
    return true;
  },
};
