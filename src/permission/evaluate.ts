// Permission evaluation (SPEC §4 with the argument-aware rules of §9.3); the first stage that
// decides wins:
//   0. a deny rule of the tenant's policy matches any part of the call       → deny (decided_by "policy")
//   1. a deny rule matches any part of the call, or the tool hard-denies   → deny (nothing overrides this)
//      a tool that needs a person where nobody is asked (dontAsk, auto)   → deny
//      a tool that always has a person decide (ExitPlanMode)               → ask, whatever the mode
//   2. a file edit touches a protected path (.git/, hook and agent config,   → ask, whatever the mode
//      shell/tool startup files such as .bashrc, .gitconfig, .npmrc, .envrc)
//      (denied where nobody can be asked: plan, dontAsk, auto)
//   3. bypassPermissions → allow; plan: mutating → deny, read-only → allow
//   4. an ask rule matches, or the tool asks                                 → ask (ask beats allow)
//      allow rules cover every part; acceptEdits + a file edit inside the workspace; read-only;
//      the tool's own allow (not in dontAsk)                                → allow
//   5. dontAsk/auto → deny; otherwise → ask the client
import path from 'node:path';
import type { PermissionMode } from '../contract/schemas.js';
import type { CoreTool, ToolContext, ToolPermissionCheck } from '../tools/tool.js';
import { allowingRules, firstLenientMatch, type MatchContext, type ParsedRule } from './rules.js';
import type { RuleSubject, SubjectPath } from './subject.js';
import { suggestRules } from './suggest.js';

export interface RuleSet {
  allow: readonly ParsedRule[];
  deny: readonly ParsedRule[];
  ask: readonly ParsedRule[];
}

export type DecidedBy = 'rule' | 'mode' | 'tool' | 'read_only' | 'protected_path' | 'hook' | 'policy';

export interface PermissionDecision {
  behavior: 'allow' | 'deny' | 'ask';
  reason: string;
  decidedBy: DecidedBy;
  /** The rule(s) that decided (several allow rules may cover the parts of one command line). */
  rules: string[];
  /** An input rewrite proposed by the tool's own check. */
  updatedInput?: unknown;
  /** For an ask: narrow rules a client can offer as "always allow". */
  suggestions: string[];
}

export interface EvaluationInput {
  tool: CoreTool;
  input: unknown;
  mode: PermissionMode;
  rules: RuleSet;
  toolCheck: ToolPermissionCheck;
  /** What specifier rules are matched against (defaults to none: name rules only). */
  subject?: RuleSubject;
  /** The workspace root (real path): relative path rules are anchored here. */
  root?: string;
  /** The tenant's `disallowed_tools`: checked first, and no mode, rule or tool overrides them. */
  policyDeny?: readonly ParsedRule[];
}

/**
 * Names that, anywhere in an edited path, make the edit ask whatever the mode: repository
 * metadata, hooks and agent configuration, and the files that make programs run code — shell
 * and readline startup files, git, npm/yarn/pnpm, direnv, editor and client configuration,
 * ssh keys and configuration.
 */
const PROTECTED_DIRS = new Set(['.git', '.norma', '.claude', '.husky', '.ssh', '.gnupg', '.vscode', '.idea', '.devcontainer']);
/** Directory pairs (`.config/git`): protected where the two names follow each other. */
const PROTECTED_SUBDIRS: readonly (readonly [string, string])[] = [
  ['.config', 'git'],
  ['.config', 'fish'],
  ['.config', 'direnv'],
  ['.yarn', 'releases'],
  ['.yarn', 'plugins'],
];
const PROTECTED_FILES = new Set([
  '.gitmodules', '.mcp.json',
  '.bashrc', '.bash_profile', '.bash_login', '.bash_logout', '.profile', '.zshrc', '.zshenv', '.zprofile', '.zlogin',
  '.zlogout', '.kshrc', '.mkshrc', '.inputrc',
  '.gitconfig', '.gitattributes', '.git-credentials',
  '.envrc', '.npmrc', '.yarnrc', '.yarnrc.yml', '.pnpmfile.cjs', '.bunfig.toml',
  '.curlrc', '.wgetrc', '.netrc', '.lesskey', '.vimrc', '.exrc', '.nvimrc',
]);

/** The protected part of a path (e.g. `.git`), or null. Paths outside `root` are judged by their names too. */
export function protectedPart(p: SubjectPath, root: string): string | null {
  for (const abs of [p.real, p.lexical]) {
    const rel = abs === root ? '' : abs.startsWith(root + path.sep) ? abs.slice(root.length + 1) : abs.slice(1);
    const parts = rel.split('/');
    for (const [i, part] of parts.entries()) {
      if (PROTECTED_DIRS.has(part)) return parts.slice(0, i + 1).join('/');
      if (i > 0 && PROTECTED_SUBDIRS.some(([a, b]) => parts[i - 1] === a && part === b)) return parts.slice(0, i + 1).join('/');
      if (i === parts.length - 1 && PROTECTED_FILES.has(part)) return rel;
    }
  }
  return null;
}

export function evaluatePermission(e: EvaluationInput): PermissionDecision {
  const { tool, input, mode, toolCheck } = e;
  const subject = e.subject ?? { kind: 'none' };
  const root = e.root ?? '/';
  const mc: MatchContext = { toolName: tool.name, subject, root };
  const withRewrite = toolCheck.updatedInput !== undefined ? { updatedInput: toolCheck.updatedInput } : {};
  const none = { rules: [] as string[], suggestions: [] as string[] };

  // Stage 0: the tenant's policy.
  const banned = e.policyDeny && e.policyDeny.length > 0 ? firstLenientMatch(e.policyDeny, 'deny', mc) : undefined;
  if (banned) {
    return { behavior: 'deny', reason: `denied by the tenant's policy (disallowed_tools "${banned.text}")`, decidedBy: 'policy', ...none, rules: [banned.text] };
  }

  // Stage 1: explicit deny and hard deny. Nothing overrides either.
  const deny = firstLenientMatch(e.rules.deny, 'deny', mc);
  if (deny) return { behavior: 'deny', reason: `denied by rule "${deny.text}"`, decidedBy: 'rule', ...none, rules: [deny.text] };
  if (toolCheck.behavior === 'deny') {
    return { behavior: 'deny', reason: toolCheck.reason ?? `${tool.name} refused this call`, decidedBy: 'tool', ...none };
  }

  // A tool that only works with a person (AskUser, ExitPlanMode) where nobody is asked.
  if (tool.interactive && (mode === 'dontAsk' || mode === 'auto')) {
    return { behavior: 'deny', reason: `${mode} mode: nobody answers ${tool.name} in this session`, decidedBy: 'mode', ...none };
  }
  // A tool that always has a person decide (ExitPlanMode): neither mode nor allow rules skip it.
  if (toolCheck.behavior === 'ask' && toolCheck.always) {
    if (mode === 'dontAsk' || mode === 'auto') {
      return { behavior: 'deny', reason: `${mode} mode never asks, and ${toolCheck.reason ?? `${tool.name} needs a person`}`, decidedBy: 'mode', ...none };
    }
    return { behavior: 'ask', reason: toolCheck.reason ?? `${tool.name} needs a person's decision`, decidedBy: 'tool', ...none, ...withRewrite };
  }

  // Stage 2: protected paths always ask.
  const readOnly = tool.isReadOnly(input);
  if (subject.kind === 'paths' && subject.access === 'edit') {
    const hit = subject.paths.map((p) => protectedPart(p, root)).find((x) => x !== null);
    if (hit) {
      const reason = `${hit} is protected (repository metadata, hooks, agent configuration, or a file that makes programs run code): every change to it is asked about`;
      if (mode === 'plan' || mode === 'dontAsk' || mode === 'auto') {
        return { behavior: 'deny', reason: `${mode} mode never asks, and ${reason}`, decidedBy: 'protected_path', ...none };
      }
      return { behavior: 'ask', reason, decidedBy: 'protected_path', ...none, ...withRewrite };
    }
  }

  // Stage 3: modes that decide on their own.
  if (mode === 'bypassPermissions') {
    return { behavior: 'allow', reason: 'bypassPermissions mode', decidedBy: 'mode', ...none, ...withRewrite };
  }
  if (mode === 'plan') {
    return readOnly
      ? { behavior: 'allow', reason: 'plan mode allows read-only tools', decidedBy: 'mode', ...none, ...withRewrite }
      : { behavior: 'deny', reason: `plan mode: ${tool.name} changes things and is not allowed while planning`, decidedBy: 'mode', ...none };
  }

  // Stage 4: ask beats allow.
  const ask = firstLenientMatch(e.rules.ask, 'ask', mc);
  let askReason: string | undefined = ask ? `rule "${ask.text}" requires approval` : undefined;
  if (!askReason && toolCheck.behavior === 'ask') askReason = toolCheck.reason ?? `${tool.name} asks for approval`;

  if (!askReason) {
    const allow = allowingRules(e.rules.allow, mc);
    if (allow) {
      const texts = allow.map((r) => r.text);
      const reason = texts.length === 1 ? `allowed by rule "${texts[0]}"` : `allowed by rules ${texts.map((t) => `"${t}"`).join(', ')}`;
      return { behavior: 'allow', reason, decidedBy: 'rule', ...none, rules: texts, ...withRewrite };
    }
    if (mode === 'acceptEdits' && tool.isFileEdit && insideWorkspace(subject, root)) {
      return { behavior: 'allow', reason: 'acceptEdits mode allows file edits inside the workspace', decidedBy: 'mode', ...none, ...withRewrite };
    }
    if (readOnly) return { behavior: 'allow', reason: `${tool.name} is read-only`, decidedBy: 'read_only', ...none, ...withRewrite };
    // dontAsk honours rules and read-only judgements only; a tool's self-allow counts elsewhere.
    if (toolCheck.behavior === 'allow' && mode !== 'dontAsk') {
      return { behavior: 'allow', reason: toolCheck.reason ?? `${tool.name} allowed this call`, decidedBy: 'tool', ...none, ...withRewrite };
    }
  }

  // Stage 5.
  if (mode === 'dontAsk' || mode === 'auto') {
    return {
      behavior: 'deny',
      reason: `${mode} mode never asks, and ${askReason ?? `no rule allows ${tool.name}`}`,
      decidedBy: 'mode',
      ...none,
    };
  }
  // An allow rule cannot override an ask rule or the tool's own ask, so rules made from the
  // subject are offered only for an ask of the mode; a tool's own suggestions are its to make.
  const allowTexts = new Set(e.rules.allow.map((r) => r.text.trim()));
  const offered = ask
    ? []
    : toolCheck.suggestions?.length
      ? toolCheck.suggestions
      : toolCheck.behavior === 'ask'
        ? []
        : suggestRules(tool.name, subject, root);
  return {
    behavior: 'ask',
    reason: askReason ?? `${tool.name} needs approval`,
    decidedBy: ask ? 'rule' : toolCheck.behavior === 'ask' ? 'tool' : 'mode',
    rules: ask ? [ask.text] : [],
    suggestions: offered.filter((s) => !allowTexts.has(s)),
    ...withRewrite,
  };
}

/** acceptEdits covers a file edit only when every path it changes is inside the workspace. */
function insideWorkspace(subject: RuleSubject, root: string): boolean {
  if (subject.kind !== 'paths') return false;
  const inside = (abs: string) => abs.startsWith(root + path.sep);
  return subject.paths.length > 0 && subject.paths.every((p) => inside(p.real) && inside(p.lexical));
}

/** Evaluates one call as the pipeline does: the tool's own check and its rule subject, then the stages. */
export async function evaluateCall(
  tool: CoreTool,
  input: unknown,
  ctx: ToolContext,
  permission: { mode: PermissionMode; rules: RuleSet; policyDeny?: readonly ParsedRule[] },
): Promise<PermissionDecision> {
  const [toolCheck, subject] = await Promise.all([tool.checkPermissions(input, ctx), tool.permissionSubject(input, ctx)]);
  return evaluatePermission({ tool, input, toolCheck, subject, root: ctx.workspace.root, ...permission });
}
