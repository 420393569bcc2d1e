import { describe, it, expect } from 'vitest';
import { Type } from '@sinclair/typebox';
import { evaluatePermission, type PermissionDecision, type RuleSet } from '../../src/permission/evaluate.js';
import { parseRule, type ParsedRule } from '../../src/permission/rules.js';
import type { RuleSubject } from '../../src/permission/subject.js';
import { buildTool, textOutput, type CoreTool, type ToolContext, type ToolPermissionCheck } from '../../src/tools/tool.js';
import { PERMISSION_MODES, type PermissionMode } from '../../src/contract/schemas.js';

const AnyInput = Type.Object({}, { additionalProperties: true });
const call = async () => textOutput('ok');

const tools = {
  /** Read-only tool. */
  ro: buildTool({ name: 'Read', description: 'reads', inputSchema: AnyInput, isReadOnly: () => true, isConcurrencySafe: () => true, call }),
  /** Mutating file-edit tool. */
  edit: buildTool({ name: 'Write', description: 'writes', inputSchema: AnyInput, isFileEdit: true, isReadOnly: () => false, call }),
  /** Mutating tool that is not a file edit. */
  mut: buildTool({ name: 'Bash', description: 'runs', inputSchema: AnyInput, call }),
  /** A mutating MCP tool. */
  mcp: buildTool({ name: 'mcp__srv__query', description: 'mcp', inputSchema: AnyInput, call }),
} satisfies Record<string, CoreTool>;
type ToolKind = keyof typeof tools;

/** The file-edit tool changes /ws/a.txt; the others have no rule subject (name rules only). */
const ROOT = '/ws';
const SUBJECTS: Record<ToolKind, RuleSubject> = {
  ro: { kind: 'none' },
  edit: { kind: 'paths', access: 'edit', paths: [{ lexical: '/ws/a.txt', real: '/ws/a.txt', isDir: false }] },
  mut: { kind: 'none' },
  mcp: { kind: 'none' },
};

function rules(r: { allow?: string[]; deny?: string[]; ask?: string[] } = {}): RuleSet {
  const parse = (texts: string[] = []): ParsedRule[] =>
    texts.map((t) => {
      const p = parseRule(t);
      if (!p.ok) throw new Error(`bad rule in test: ${t}`);
      return p.rule;
    });
  return { allow: parse(r.allow), deny: parse(r.deny), ask: parse(r.ask) };
}

const PASS: ToolPermissionCheck = { behavior: 'passthrough' };
const REWRITE = { file_path: 'rewritten.txt' };

interface Case {
  name: string;
  tool: ToolKind;
  mode: PermissionMode;
  rules?: { allow?: string[]; deny?: string[]; ask?: string[] };
  check?: ToolPermissionCheck;
  behavior: PermissionDecision['behavior'];
  decidedBy: PermissionDecision['decidedBy'];
  /** Substrings the reason must contain. */
  reason: string[];
  rule?: string;
  suggestions?: string[];
  /** Expected updatedInput; when omitted the decision must not carry one. */
  updatedInput?: unknown;
}

const cases: Case[] = [
  // ── Stage 1: deny rules and hard denies win over everything ──────────────────────────
  { name: 'deny rule on a mutating tool in default mode', tool: 'mut', mode: 'default', rules: { deny: ['Bash'] }, behavior: 'deny', decidedBy: 'rule', reason: ['denied by rule "Bash"'], rule: 'Bash' },
  { name: 'deny rule * beats bypassPermissions on a read-only tool', tool: 'ro', mode: 'bypassPermissions', rules: { deny: ['*'] }, behavior: 'deny', decidedBy: 'rule', reason: ['denied by rule "*"'], rule: '*' },
  { name: 'deny rule beats bypassPermissions on a mutating tool', tool: 'mut', mode: 'bypassPermissions', rules: { deny: ['Bash'] }, behavior: 'deny', decidedBy: 'rule', reason: ['"Bash"'], rule: 'Bash' },
  { name: 'a command rule does not apply to a call without a command subject', tool: 'mut', mode: 'bypassPermissions', rules: { deny: ['Bash(rm -rf /)'] }, behavior: 'allow', decidedBy: 'mode', reason: ['bypassPermissions'] },
  { name: 'deny rule beats an allow rule and plan-mode read-only allow', tool: 'ro', mode: 'plan', rules: { deny: ['Read'], allow: ['Read'] }, behavior: 'deny', decidedBy: 'rule', reason: ['denied by rule "Read"'], rule: 'Read' },
  { name: 'deny rule beats a tool self-allow in auto', tool: 'mut', mode: 'auto', rules: { deny: ['Bash'] }, check: { behavior: 'allow' }, behavior: 'deny', decidedBy: 'rule', reason: ['denied by rule "Bash"'], rule: 'Bash' },
  { name: 'deny rule beats acceptEdits on a file edit', tool: 'edit', mode: 'acceptEdits', rules: { deny: ['Write'] }, behavior: 'deny', decidedBy: 'rule', reason: ['"Write"'], rule: 'Write' },
  { name: 'deny rule beats the tool hard deny (decided by rule)', tool: 'mut', mode: 'default', rules: { deny: ['Bash'] }, check: { behavior: 'deny', reason: 'nope' }, behavior: 'deny', decidedBy: 'rule', reason: ['denied by rule "Bash"'], rule: 'Bash' },
  { name: 'mcp prefix deny rule beats bypass', tool: 'mcp', mode: 'bypassPermissions', rules: { deny: ['mcp__srv__*'] }, behavior: 'deny', decidedBy: 'rule', reason: ['"mcp__srv__*"'], rule: 'mcp__srv__*' },
  { name: 'tool hard deny beats bypassPermissions, keeping the tool reason', tool: 'mut', mode: 'bypassPermissions', check: { behavior: 'deny', reason: 'path is outside the workspace' }, behavior: 'deny', decidedBy: 'tool', reason: ['path is outside the workspace'] },
  { name: 'tool hard deny of a read-only tool, default reason', tool: 'ro', mode: 'default', check: { behavior: 'deny' }, behavior: 'deny', decidedBy: 'tool', reason: ['Read refused this call'] },
  { name: 'tool hard deny beats allow rule * and acceptEdits', tool: 'edit', mode: 'acceptEdits', rules: { allow: ['*'] }, check: { behavior: 'deny' }, behavior: 'deny', decidedBy: 'tool', reason: ['Write refused this call'] },
  { name: 'tool hard deny in plan mode on a read-only tool', tool: 'ro', mode: 'plan', check: { behavior: 'deny', reason: 'secret file' }, behavior: 'deny', decidedBy: 'tool', reason: ['secret file'] },
  { name: 'tool hard deny drops its updatedInput and suggestions', tool: 'mut', mode: 'auto', check: { behavior: 'deny', updatedInput: REWRITE, suggestions: ['Bash(ls)'] }, behavior: 'deny', decidedBy: 'tool', reason: ['Bash refused this call'], suggestions: [] },

  // ── Stage 2: bypassPermissions and plan ─────────────────────────────────────────────
  { name: 'bypass allows a mutating tool', tool: 'mut', mode: 'bypassPermissions', behavior: 'allow', decidedBy: 'mode', reason: ['bypassPermissions'] },
  { name: 'bypass allows despite an ask rule', tool: 'mut', mode: 'bypassPermissions', rules: { ask: ['Bash'] }, behavior: 'allow', decidedBy: 'mode', reason: ['bypassPermissions'] },
  { name: 'bypass allows despite the tool asking', tool: 'edit', mode: 'bypassPermissions', check: { behavior: 'ask' }, behavior: 'allow', decidedBy: 'mode', reason: ['bypassPermissions'] },
  { name: 'bypass carries the tool updatedInput', tool: 'edit', mode: 'bypassPermissions', check: { behavior: 'allow', updatedInput: REWRITE }, behavior: 'allow', decidedBy: 'mode', reason: ['bypassPermissions'], updatedInput: REWRITE },
  { name: 'plan denies a mutating tool', tool: 'mut', mode: 'plan', behavior: 'deny', decidedBy: 'mode', reason: ['plan mode', 'Bash'] },
  { name: 'plan denies a file edit even with an allow rule', tool: 'edit', mode: 'plan', rules: { allow: ['Write'] }, behavior: 'deny', decidedBy: 'mode', reason: ['plan mode', 'Write'] },
  { name: 'plan denies a mutating tool even when the tool self-allows', tool: 'mut', mode: 'plan', check: { behavior: 'allow', updatedInput: REWRITE }, behavior: 'deny', decidedBy: 'mode', reason: ['plan mode'] },
  { name: 'plan allows a read-only tool', tool: 'ro', mode: 'plan', behavior: 'allow', decidedBy: 'mode', reason: ['plan mode', 'read-only'] },
  { name: 'plan allows a read-only tool and carries updatedInput', tool: 'ro', mode: 'plan', check: { behavior: 'passthrough', updatedInput: REWRITE }, behavior: 'allow', decidedBy: 'mode', reason: ['plan mode'], updatedInput: REWRITE },

  // ── Stage 3: ask rules and the tool's ask beat allow rules and read-only ───────────
  { name: 'ask rule beats an allow rule (and an existing allow rule is not suggested again)', tool: 'mut', mode: 'default', rules: { allow: ['Bash'], ask: ['Bash'] }, behavior: 'ask', decidedBy: 'rule', reason: ['rule "Bash" requires approval'], rule: 'Bash', suggestions: [] },
  { name: 'ask rule beats read-only', tool: 'ro', mode: 'default', rules: { ask: ['Read'] }, behavior: 'ask', decidedBy: 'rule', reason: ['rule "Read" requires approval'], rule: 'Read', suggestions: [] },
  { name: 'a path ask rule matching the edited file beats allow *', tool: 'edit', mode: 'default', rules: { allow: ['*'], ask: ['Edit(*.txt)'] }, behavior: 'ask', decidedBy: 'rule', reason: ['rule "Edit(*.txt)" requires approval'], rule: 'Edit(*.txt)', suggestions: [] },
  { name: 'ask rule beats acceptEdits on a file edit', tool: 'edit', mode: 'acceptEdits', rules: { ask: ['Write'] }, behavior: 'ask', decidedBy: 'rule', reason: ['rule "Write" requires approval'], rule: 'Write', suggestions: [] },
  { name: 'tool ask beats read-only', tool: 'ro', mode: 'default', check: { behavior: 'ask', reason: 'reading a credentials file' }, behavior: 'ask', decidedBy: 'tool', reason: ['reading a credentials file'], suggestions: [] },
  { name: 'tool ask beats an allow rule (default reason)', tool: 'mut', mode: 'default', rules: { allow: ['Bash'] }, check: { behavior: 'ask' }, behavior: 'ask', decidedBy: 'tool', reason: ['Bash asks for approval'], suggestions: [] },
  { name: 'tool ask beats acceptEdits', tool: 'edit', mode: 'acceptEdits', check: { behavior: 'ask', suggestions: ['Write(notes/**)'] }, behavior: 'ask', decidedBy: 'tool', reason: ['Write asks for approval'], suggestions: ['Write(notes/**)'] },
  { name: 'tool ask carries suggestions and updatedInput', tool: 'mut', mode: 'default', check: { behavior: 'ask', reason: 'why', suggestions: ['Bash(git status)', 'Bash(git diff:*)'], updatedInput: REWRITE }, behavior: 'ask', decidedBy: 'tool', reason: ['why'], suggestions: ['Bash(git status)', 'Bash(git diff:*)'], updatedInput: REWRITE },

  // ── Stage 3: allow ─────────────────────────────────────────────────────────────────
  { name: 'allow rule allows a mutating tool', tool: 'mut', mode: 'default', rules: { allow: ['Bash'] }, behavior: 'allow', decidedBy: 'rule', reason: ['allowed by rule "Bash"'], rule: 'Bash' },
  { name: 'allow rule * allows anything', tool: 'edit', mode: 'default', rules: { allow: ['*'] }, behavior: 'allow', decidedBy: 'rule', reason: ['allowed by rule "*"'], rule: '*' },
  { name: 'allow rule prefix mcp__srv__* allows the mcp tool', tool: 'mcp', mode: 'default', rules: { allow: ['mcp__srv__*'] }, behavior: 'allow', decidedBy: 'rule', reason: ['"mcp__srv__*"'], rule: 'mcp__srv__*' },
  { name: 'allow rule for another mcp server does not allow', tool: 'mcp', mode: 'default', rules: { allow: ['mcp__other__*'] }, behavior: 'ask', decidedBy: 'mode', reason: ['mcp__srv__query needs approval'], suggestions: ['mcp__srv__query'] },
  { name: 'allow rule with a specifier never allows (fail-closed) → ask', tool: 'mut', mode: 'default', rules: { allow: ['Bash(git status)'] }, behavior: 'ask', decidedBy: 'mode', reason: ['Bash needs approval'], suggestions: ['Bash'] },
  { name: 'allow rule carries the tool updatedInput', tool: 'mut', mode: 'default', rules: { allow: ['Bash'] }, check: { behavior: 'allow', updatedInput: REWRITE }, behavior: 'allow', decidedBy: 'rule', reason: ['allowed by rule "Bash"'], rule: 'Bash', updatedInput: REWRITE },
  { name: 'acceptEdits allows a file edit', tool: 'edit', mode: 'acceptEdits', behavior: 'allow', decidedBy: 'mode', reason: ['acceptEdits'] },
  { name: 'acceptEdits does not allow a mutating non-edit tool', tool: 'mut', mode: 'acceptEdits', behavior: 'ask', decidedBy: 'mode', reason: ['Bash needs approval'], suggestions: ['Bash'] },
  { name: 'acceptEdits allows a read-only tool as read-only', tool: 'ro', mode: 'acceptEdits', behavior: 'allow', decidedBy: 'read_only', reason: ['Read is read-only'] },
  { name: 'default allows a read-only tool', tool: 'ro', mode: 'default', behavior: 'allow', decidedBy: 'read_only', reason: ['Read is read-only'] },
  { name: 'default does not allow a file edit', tool: 'edit', mode: 'default', behavior: 'ask', decidedBy: 'mode', reason: ['Write needs approval'], suggestions: ['Edit(./a.txt)'] },
  { name: 'default honours the tool self-allow', tool: 'mut', mode: 'default', check: { behavior: 'allow', reason: 'harmless command' }, behavior: 'allow', decidedBy: 'tool', reason: ['harmless command'] },
  { name: 'default tool self-allow without reason', tool: 'mut', mode: 'default', check: { behavior: 'allow' }, behavior: 'allow', decidedBy: 'tool', reason: ['Bash allowed this call'] },
  { name: 'read-only allow carries updatedInput', tool: 'ro', mode: 'default', check: { behavior: 'passthrough', updatedInput: REWRITE }, behavior: 'allow', decidedBy: 'read_only', reason: ['read-only'], updatedInput: REWRITE },

  // ── Stage 4: dontAsk ───────────────────────────────────────────────────────────────
  { name: 'dontAsk denies a mutating tool with no rule', tool: 'mut', mode: 'dontAsk', behavior: 'deny', decidedBy: 'mode', reason: ['dontAsk mode never asks', 'no rule allows Bash'], suggestions: [] },
  { name: 'dontAsk ignores the tool self-allow', tool: 'mut', mode: 'dontAsk', check: { behavior: 'allow', reason: 'fine' }, behavior: 'deny', decidedBy: 'mode', reason: ['dontAsk mode never asks'] },
  { name: 'dontAsk honours an allow rule', tool: 'mut', mode: 'dontAsk', rules: { allow: ['Bash'] }, behavior: 'allow', decidedBy: 'rule', reason: ['allowed by rule "Bash"'], rule: 'Bash' },
  { name: 'dontAsk honours read-only', tool: 'ro', mode: 'dontAsk', behavior: 'allow', decidedBy: 'read_only', reason: ['Read is read-only'] },
  { name: 'dontAsk denies a file edit (not acceptEdits)', tool: 'edit', mode: 'dontAsk', behavior: 'deny', decidedBy: 'mode', reason: ['no rule allows Write'] },
  { name: 'dontAsk denies when an ask rule matches a read-only tool', tool: 'ro', mode: 'dontAsk', rules: { ask: ['Read'] }, behavior: 'deny', decidedBy: 'mode', reason: ['dontAsk mode never asks', 'rule "Read" requires approval'], suggestions: [] },
  { name: 'dontAsk denies when the tool asks, with the tool reason', tool: 'mut', mode: 'dontAsk', rules: { allow: ['Bash'] }, check: { behavior: 'ask', reason: 'needs a human', suggestions: ['Bash(x)'], updatedInput: REWRITE }, behavior: 'deny', decidedBy: 'mode', reason: ['dontAsk mode never asks', 'needs a human'], suggestions: [] },

  // ── Stage 4: auto ──────────────────────────────────────────────────────────────────
  { name: 'auto honours the tool self-allow', tool: 'mut', mode: 'auto', check: { behavior: 'allow', reason: 'safe' }, behavior: 'allow', decidedBy: 'tool', reason: ['safe'] },
  { name: 'auto self-allow carries updatedInput', tool: 'mut', mode: 'auto', check: { behavior: 'allow', updatedInput: REWRITE }, behavior: 'allow', decidedBy: 'tool', reason: ['Bash allowed this call'], updatedInput: REWRITE },
  { name: 'auto denies a mutating tool with passthrough', tool: 'mut', mode: 'auto', behavior: 'deny', decidedBy: 'mode', reason: ['auto mode never asks', 'no rule allows Bash'], suggestions: [] },
  { name: 'auto denies a file edit with passthrough', tool: 'edit', mode: 'auto', behavior: 'deny', decidedBy: 'mode', reason: ['auto mode never asks'] },
  { name: 'auto honours read-only', tool: 'ro', mode: 'auto', behavior: 'allow', decidedBy: 'read_only', reason: ['read-only'] },
  { name: 'auto honours an allow rule', tool: 'edit', mode: 'auto', rules: { allow: ['Write'] }, behavior: 'allow', decidedBy: 'rule', reason: ['allowed by rule "Write"'], rule: 'Write' },
  { name: 'auto denies instead of asking when the tool asks', tool: 'ro', mode: 'auto', check: { behavior: 'ask', reason: 'sensitive' }, behavior: 'deny', decidedBy: 'mode', reason: ['auto mode never asks', 'sensitive'], suggestions: [] },
  { name: 'auto: an ask rule beats the tool self-allow, and auto denies', tool: 'mut', mode: 'auto', rules: { ask: ['Bash'] }, check: { behavior: 'allow' }, behavior: 'deny', decidedBy: 'mode', reason: ['auto mode never asks', 'rule "Bash" requires approval'] },

  // ── Stage 4: default asks the client ───────────────────────────────────────────────
  { name: 'default asks for a mutating tool, suggestions fall back to the tool name', tool: 'mut', mode: 'default', behavior: 'ask', decidedBy: 'mode', reason: ['Bash needs approval'], suggestions: ['Bash'] },
  { name: 'default asks with the tool suggestions on passthrough', tool: 'mut', mode: 'default', check: { behavior: 'passthrough', suggestions: ['Bash(git status)'] }, behavior: 'ask', decidedBy: 'mode', reason: ['Bash needs approval'], suggestions: ['Bash(git status)'] },
  { name: 'default: an empty suggestion list falls back to rules made from the subject', tool: 'edit', mode: 'default', check: { behavior: 'passthrough', suggestions: [] }, behavior: 'ask', decidedBy: 'mode', reason: ['Write needs approval'], suggestions: ['Edit(./a.txt)'] },
  { name: 'default ask carries a passthrough updatedInput', tool: 'mut', mode: 'default', check: { behavior: 'passthrough', updatedInput: REWRITE }, behavior: 'ask', decidedBy: 'mode', reason: ['Bash needs approval'], suggestions: ['Bash'], updatedInput: REWRITE },
];

function check(d: PermissionDecision, c: Case): void {
  expect(d.behavior).toBe(c.behavior);
  expect(d.decidedBy).toBe(c.decidedBy);
  for (const part of c.reason) expect(d.reason).toContain(part);
  expect(d.rules).toEqual(c.rule !== undefined ? [c.rule] : []);
  if (c.suggestions !== undefined) expect(d.suggestions).toEqual(c.suggestions);
  // Only an ask offers suggestions; allow and deny never do.
  if (d.behavior !== 'ask') expect(d.suggestions).toEqual([]);
  if (c.updatedInput === undefined) expect('updatedInput' in d).toBe(false);
  else expect(d.updatedInput).toEqual(c.updatedInput);
}

describe('evaluatePermission: decision table', () => {
  it('has a case for every mode and every tool kind', () => {
    expect(cases.length).toBeGreaterThanOrEqual(40);
    for (const m of PERMISSION_MODES) expect(cases.some((c) => c.mode === m)).toBe(true);
    for (const k of Object.keys(tools)) expect(cases.some((c) => c.tool === k)).toBe(true);
  });

  it.each(cases)('$name', (c) => {
    const tool = tools[c.tool];
    const d = evaluatePermission({
      tool,
      input: { x: 1 },
      mode: c.mode,
      rules: rules(c.rules),
      toolCheck: c.check ?? PASS,
      subject: SUBJECTS[c.tool],
      root: ROOT,
    });
    check(d, c);
  });
});

describe('evaluatePermission: invariants over every mode', () => {
  it.each(PERMISSION_MODES)('%s: a deny rule denies every tool kind', (mode) => {
    for (const tool of Object.values(tools)) {
      const d = evaluatePermission({ tool, input: {}, mode, rules: rules({ deny: ['*'], allow: ['*'] }), toolCheck: { behavior: 'allow' } });
      expect(d).toMatchObject({ behavior: 'deny', decidedBy: 'rule', rules: ['*'] });
    }
  });

  it.each(PERMISSION_MODES)('%s: a tool hard deny denies every tool kind', (mode) => {
    for (const tool of Object.values(tools)) {
      const d = evaluatePermission({ tool, input: {}, mode, rules: rules({ allow: ['*'] }), toolCheck: { behavior: 'deny', reason: 'hard' } });
      expect(d).toMatchObject({ behavior: 'deny', decidedBy: 'tool', reason: 'hard' });
    }
  });

  it.each(['dontAsk', 'auto'] as const)('%s never returns ask, whatever the rules or the tool says', (mode) => {
    const checks: ToolPermissionCheck[] = [{ behavior: 'allow' }, { behavior: 'ask' }, { behavior: 'passthrough' }, { behavior: 'deny' }];
    const ruleSets = [rules(), rules({ ask: ['*'] }), rules({ allow: ['*'] }), rules({ allow: ['*'], ask: ['*'] })];
    let n = 0;
    for (const tool of Object.values(tools))
      for (const toolCheck of checks)
        for (const rs of ruleSets) {
          const d = evaluatePermission({ tool, input: {}, mode, rules: rs, toolCheck });
          expect(d.behavior).not.toBe('ask');
          n++;
        }
    expect(n).toBe(4 * 4 * 4);
  });
});

describe('evaluatePermission: details', () => {
  it('names the first matching deny rule', () => {
    const d = evaluatePermission({ tool: tools.mut, input: {}, mode: 'default', rules: rules({ deny: ['Write', 'Bash', '*'] }), toolCheck: PASS });
    expect(d.rules).toEqual(['Bash']);
    expect(d.reason).toBe('denied by rule "Bash"');
  });

  it('names the first matching allow rule', () => {
    const d = evaluatePermission({ tool: tools.mut, input: {}, mode: 'default', rules: rules({ allow: ['Bash(ls)', 'Read', '*', 'Bash'] }), toolCheck: PASS });
    expect(d).toMatchObject({ behavior: 'allow', rules: ['*'] });
  });

  it('judges read-only per input', () => {
    const bash = buildTool<{ command: string }>({
      name: 'Bash',
      description: 'runs',
      inputSchema: AnyInput,
      isReadOnly: (i) => i.command === 'ls',
      call,
    });
    const base = { tool: bash, rules: rules(), toolCheck: PASS };
    expect(evaluatePermission({ ...base, input: { command: 'ls' }, mode: 'plan' }).behavior).toBe('allow');
    expect(evaluatePermission({ ...base, input: { command: 'rm x' }, mode: 'plan' }).behavior).toBe('deny');
    expect(evaluatePermission({ ...base, input: { command: 'ls' }, mode: 'default' }).decidedBy).toBe('read_only');
    expect(evaluatePermission({ ...base, input: { command: 'rm x' }, mode: 'default' }).behavior).toBe('ask');
  });

  it("a buildTool default check (passthrough) feeds the stages like an explicit passthrough", async () => {
    const ctx = {} as ToolContext;
    const toolCheck = await tools.mut.checkPermissions({}, ctx);
    expect(toolCheck).toEqual({ behavior: 'passthrough' });
    const d = evaluatePermission({ tool: tools.mut, input: {}, mode: 'default', rules: rules(), toolCheck });
    expect(d).toEqual({ behavior: 'ask', reason: 'Bash needs approval', decidedBy: 'mode', rules: [], suggestions: ['Bash'] });
  });
});
