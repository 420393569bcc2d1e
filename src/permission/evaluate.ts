// Permission evaluation: the four stages of SPEC §4, first decisive stage wins.
//   1. deny rule, or the tool's hard deny            → deny (nothing overrides this)
//   2. bypassPermissions → allow; plan: mutating → deny, read-only → allow
//   3. ask rule or the tool asks                      → ask (deny beats ask beats allow)
//      allow rule; acceptEdits + file edit; read-only; tool self-allow → allow
//   4. dontAsk/auto → deny; otherwise → ask the client
import type { PermissionMode } from '../contract/schemas.js';
import type { CoreTool, ToolPermissionCheck } from '../tools/tool.js';
import type { ParsedRule, RuleBehavior, RuleMatcher } from './rules.js';

export interface RuleSet {
  allow: readonly ParsedRule[];
  deny: readonly ParsedRule[];
  ask: readonly ParsedRule[];
}

export interface PermissionDecision {
  behavior: 'allow' | 'deny' | 'ask';
  reason: string;
  /** What decided: `rule`, `mode`, `tool`, `read_only`. */
  decidedBy: 'rule' | 'mode' | 'tool' | 'read_only';
  rule?: string;
  /** An input rewrite proposed by the tool's own check. */
  updatedInput?: unknown;
  suggestions: string[];
}

export interface EvaluationInput {
  tool: CoreTool;
  input: unknown;
  mode: PermissionMode;
  rules: RuleSet;
  matcher: RuleMatcher;
  toolCheck: ToolPermissionCheck;
}

function firstMatch(rules: readonly ParsedRule[], behavior: RuleBehavior, e: EvaluationInput): ParsedRule | undefined {
  return rules.find((r) => e.matcher.matches(r, behavior, { toolName: e.tool.name, input: e.input }));
}

export function evaluatePermission(e: EvaluationInput): PermissionDecision {
  const { tool, input, mode, toolCheck } = e;
  const suggestions = toolCheck.suggestions ?? [];
  const withRewrite = toolCheck.updatedInput !== undefined ? { updatedInput: toolCheck.updatedInput } : {};

  // Stage 1: explicit deny and hard deny. Bypass never overrides either.
  const deny = firstMatch(e.rules.deny, 'deny', e);
  if (deny) return { behavior: 'deny', reason: `denied by rule "${deny.text}"`, decidedBy: 'rule', rule: deny.text, suggestions: [] };
  if (toolCheck.behavior === 'deny') {
    return { behavior: 'deny', reason: toolCheck.reason ?? `${tool.name} refused this call`, decidedBy: 'tool', suggestions: [] };
  }

  // Stage 2: modes that decide on their own.
  const readOnly = tool.isReadOnly(input);
  if (mode === 'bypassPermissions') {
    return { behavior: 'allow', reason: 'bypassPermissions mode', decidedBy: 'mode', suggestions: [], ...withRewrite };
  }
  if (mode === 'plan') {
    return readOnly
      ? { behavior: 'allow', reason: 'plan mode allows read-only tools', decidedBy: 'mode', suggestions: [], ...withRewrite }
      : { behavior: 'deny', reason: `plan mode: ${tool.name} changes things and is not allowed while planning`, decidedBy: 'mode', suggestions: [] };
  }

  // Stage 3: ask beats allow.
  const ask = firstMatch(e.rules.ask, 'ask', e);
  let askReason: string | undefined = ask ? `rule "${ask.text}" requires approval` : undefined;
  if (!askReason && toolCheck.behavior === 'ask') askReason = toolCheck.reason ?? `${tool.name} asks for approval`;

  if (!askReason) {
    const allow = firstMatch(e.rules.allow, 'allow', e);
    if (allow) return { behavior: 'allow', reason: `allowed by rule "${allow.text}"`, decidedBy: 'rule', rule: allow.text, suggestions: [], ...withRewrite };
    if (mode === 'acceptEdits' && tool.isFileEdit) {
      return { behavior: 'allow', reason: 'acceptEdits mode allows file edits', decidedBy: 'mode', suggestions: [], ...withRewrite };
    }
    if (readOnly) return { behavior: 'allow', reason: `${tool.name} is read-only`, decidedBy: 'read_only', suggestions: [], ...withRewrite };
    // dontAsk honours rules and read-only judgements only; a tool's self-allow counts elsewhere.
    if (toolCheck.behavior === 'allow' && mode !== 'dontAsk') {
      return { behavior: 'allow', reason: toolCheck.reason ?? `${tool.name} allowed this call`, decidedBy: 'tool', suggestions: [], ...withRewrite };
    }
  }

  // Stage 4.
  if (mode === 'dontAsk' || mode === 'auto') {
    return {
      behavior: 'deny',
      reason: `${mode} mode never asks, and ${askReason ?? `no rule allows ${tool.name}`}`,
      decidedBy: 'mode',
      suggestions: [],
    };
  }
  return {
    behavior: 'ask',
    reason: askReason ?? `${tool.name} needs approval`,
    decidedBy: ask ? 'rule' : toolCheck.behavior === 'ask' ? 'tool' : 'mode',
    ...(ask ? { rule: ask.text } : {}),
    suggestions: suggestions.length > 0 ? suggestions : [tool.name],
    ...withRewrite,
  };
}
