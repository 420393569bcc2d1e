// A PipelineEnv over real parts (registry, validator, hooks, workspace) with a scripted
// approver, for driving execOne stage by stage.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { HookRegistry } from '../../src/hooks/registry.js';
import type { RuleSet } from '../../src/permission/evaluate.js';
import { parseRules } from '../../src/permission/rules.js';
import { execOne, type ApprovalAnswer, type ApprovalRequest, type DecisionNote, type PipelineEnv, type ToolCall } from '../../src/pipeline/exec-one.js';
import { InputValidator } from '../../src/pipeline/validate.js';
import { Workspace } from '../../src/sandbox/paths.js';
import type { SandboxHost } from '../../src/sandbox/process.js';
import { testSandboxHost, testSessionSandbox, unsandboxedHost, type TestSessionSandboxOptions } from './sandbox.js';
import { FileReadState } from '../../src/capabilities/files/read-state.js';
import { ToolRegistry } from '../../src/tools/registry.js';
import { BackgroundTasks } from '../../src/capabilities/shell/tasks.js';
import { PtyShells } from '../../src/capabilities/pty/shells.js';
import { newId } from '../../src/ids.js';
import type { CoreTool, ToolFactory } from '../../src/tools/tool.js';
import { readDenyRule } from '../../src/permission/rules.js';
import type { SessionSandbox } from '../../src/sandbox/session-sandbox.js';
import type { PermissionMode } from '../../src/contract/schemas.js';

export interface PipelineHarness {
  env: PipelineEnv;
  hooks: HookRegistry;
  controller: AbortController;
  asked: ApprovalRequest[];
  /** Every decision execOne recorded, in order. */
  decisions: DecisionNote[];
  started: { call: ToolCall; input: unknown }[];
  setMode(mode: PermissionMode): void;
  setRules(rules: { allow?: string[]; deny?: string[]; ask?: string[] }): void;
  /** Answers for successive asks; a function gets the request. */
  answers: (ApprovalAnswer | ((r: ApprovalRequest) => ApprovalAnswer))[];
  dir: string;
  /** What the session's tool groups keep, as the tools were bound to it. */
  readState: FileReadState;
  tasks: BackgroundTasks;
  shells: PtyShells;
  sandbox: SessionSandbox;
  cleanup(): Promise<void>;
}

export async function pipelineHarness(
  /** Tools as they are, or tools of a group, bound here to the harness's session state. */
  tools: (CoreTool | ToolFactory<never>)[],
  opts: {
    capChars?: number;
    /** `bwrap`: the real sandbox (shared host of the test file); default: NORMA_SANDBOX=off. */
    sandbox?: 'bwrap' | 'off' | SandboxHost;
    sandboxOptions?: TestSessionSandboxOptions;
    spill?: PipelineEnv['spill'];
  } = {},
): Promise<PipelineHarness> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'norma-pipe-'));
  const state = await fs.mkdtemp(path.join(os.tmpdir(), 'norma-pipe-state-'));
  const host = opts.sandbox === 'bwrap' ? await testSandboxHost() : opts.sandbox === undefined || opts.sandbox === 'off' ? unsandboxedHost() : opts.sandbox;
  // As the server does with the workspaces it makes: the user commands run as owns it.
  await host.handOver(dir);
  const registry = new ToolRegistry();
  const hooks = new HookRegistry();
  const controller = new AbortController();
  let mode: PermissionMode = 'default';
  let rules: RuleSet = { allow: [], deny: [], ask: [] };
  const h: PipelineHarness = {
    hooks,
    controller,
    asked: [],
    decisions: [],
    started: [],
    answers: [],
    dir,
    setMode: (m) => (mode = m),
    setRules: (r) => {
      const parse = (field: string, texts: string[] = []) => {
        const { rules: parsed, problems } = parseRules(field, texts);
        if (problems.length > 0) throw new Error(problems.join('; '));
        return parsed;
      };
      rules = { allow: parse('allow', r.allow), deny: parse('deny', r.deny), ask: parse('ask', r.ask) };
    },
    cleanup: async () => {
      h.shells.closeAll();
      await h.tasks.closeAll();
      await h.sandbox.close();
      await fs.rm(dir, { recursive: true, force: true });
      await fs.rm(state, { recursive: true, force: true });
    },
    env: undefined as unknown as PipelineEnv,
    readState: new FileReadState(),
    shells: new PtyShells(newId),
    tasks: new BackgroundTasks(path.join(dir, '.tasks'), newId, () => new Date(), { started: () => undefined, completed: () => undefined }),
    sandbox: testSessionSandbox(host, await fs.realpath(dir), path.join(state, 'sandbox'), opts.sandboxOptions),
  };
  const workspace = await Workspace.open(dir);
  // Every group's state in one object: each tool reads the part its group has.
  const deps = {
    readState: h.readState,
    sandbox: h.sandbox,
    tasks: h.tasks,
    shells: h.shells,
    readDenied: (tool: string, absReal: string, isDir: boolean) =>
      (readDenyRule(rules.deny, tool, absReal, isDir, workspace.root) ?? readDenyRule(rules.ask, tool, absReal, isDir, workspace.root))?.text ?? null,
  };
  for (const t of tools) registry.register('bind' in t ? (t as ToolFactory<typeof deps>).bind(deps) : t);
  h.env = {
    sessionId: 'ses_test',
    turnId: 'turn_test',
    registry,
    validator: new InputValidator(),
    hooks,
    workspace,
    capChars: opts.capChars ?? 30_000,
    spill: opts.spill ?? null,
    permissionContext: () => ({ mode, rules }),
    recordDecision: (note) => h.decisions.push(note),
    awaitApproval: async (request) => {
      h.asked.push(request);
      const next = h.answers.shift();
      if (next === undefined) throw new Error(`unexpected ask for ${request.tool}`);
      return typeof next === 'function' ? next(request) : next;
    },
    onStarted: (call, input) => h.started.push({ call, input }),
    onProgress: () => undefined,
    signal: controller.signal,
  };
  return h;
}

/** Runs one call through execOne and returns its error flag and joined text. */
export async function runTool(h: PipelineHarness, name: string, input: unknown): Promise<{ isError: boolean; text: string }> {
  const { result } = await execOne({ id: 't', name, input }, h.env);
  return { isError: result.is_error, text: result.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n') };
}
