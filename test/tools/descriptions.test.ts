// The tools' model-facing manuals: each says when to use the tool and when not to, stays short,
// and names only tools this server has (a manual naming a tool the model cannot call sends it
// looking for something that does not exist).
import { describe, it, expect } from 'vitest';
import { AGENT_DESCRIPTION } from '../../src/capabilities/agent/agent.description.js';
import { EDIT_DESCRIPTION } from '../../src/capabilities/files/edit.description.js';
import { globDescription } from '../../src/capabilities/files/glob.description.js';
import { grepDescription } from '../../src/capabilities/files/grep.description.js';
import { lsDescription } from '../../src/capabilities/files/ls.description.js';
import { MULTI_EDIT_DESCRIPTION } from '../../src/capabilities/files/multi-edit.description.js';
import { readDescription } from '../../src/capabilities/files/read.description.js';
import { WRITE_DESCRIPTION } from '../../src/capabilities/files/write.description.js';
import { ASK_USER_DESCRIPTION } from '../../src/capabilities/interaction/ask-user.description.js';
import { TODO_WRITE_DESCRIPTION } from '../../src/capabilities/interaction/todo-write.description.js';
import { MEMORY_DESCRIPTION } from '../../src/capabilities/memory/memory.description.js';
import { ENTER_PLAN_MODE_DESCRIPTION } from '../../src/capabilities/plan/enter-plan-mode.description.js';
import { EXIT_PLAN_MODE_DESCRIPTION } from '../../src/capabilities/plan/exit-plan-mode.description.js';
import { SHELL_CLOSE_DESCRIPTION } from '../../src/capabilities/pty/shell-close.description.js';
import { SHELL_OPEN_DESCRIPTION } from '../../src/capabilities/pty/shell-open.description.js';
import { SHELL_READ_DESCRIPTION } from '../../src/capabilities/pty/shell-read.description.js';
import { SHELL_RESIZE_DESCRIPTION } from '../../src/capabilities/pty/shell-resize.description.js';
import { SHELL_WRITE_DESCRIPTION } from '../../src/capabilities/pty/shell-write.description.js';
import { bashDescription } from '../../src/capabilities/shell/bash.description.js';
import { MONITOR_DESCRIPTION } from '../../src/capabilities/shell/monitor.description.js';
import { TASK_LIST_DESCRIPTION } from '../../src/capabilities/shell/task-list.description.js';
import { TASK_OUTPUT_DESCRIPTION } from '../../src/capabilities/shell/task-output.description.js';
import { TASK_STOP_DESCRIPTION } from '../../src/capabilities/shell/task-stop.description.js';
import { SKILL_DESCRIPTION } from '../../src/capabilities/skills/skill.description.js';
import { EXECUTE_EXTRA_TOOL_DESCRIPTION } from '../../src/capabilities/deferred/execute-extra-tool.description.js';
import { SEARCH_EXTRA_TOOLS_DESCRIPTION } from '../../src/capabilities/deferred/search-extra-tools.description.js';
import { LIST_MCP_RESOURCES_DESCRIPTION } from '../../src/capabilities/mcp/list-mcp-resources.description.js';
import { READ_MCP_RESOURCE_DESCRIPTION } from '../../src/capabilities/mcp/read-mcp-resource.description.js';
import { WEB_FETCH_DESCRIPTION } from '../../src/capabilities/web/web-fetch.description.js';
import { WEB_SEARCH_DESCRIPTION } from '../../src/capabilities/web/web-search.description.js';

// Limits as the tools pass them (read.ts, ls.ts, glob.ts, grep-output.ts, bash.ts).
const MANUALS: Record<string, string> = {
  Agent: AGENT_DESCRIPTION,
  Read: readDescription({ defaultLines: 2000, maxLineChars: 2000 }),
  Write: WRITE_DESCRIPTION,
  Edit: EDIT_DESCRIPTION,
  MultiEdit: MULTI_EDIT_DESCRIPTION,
  LS: lsDescription({ maxEntries: 1000, maxDepth: 8 }),
  Glob: globDescription({ maxResults: 1000 }),
  Grep: grepDescription({ defaultMaxLines: 10_000 }),
  Bash: bashDescription({ defaultTimeoutMs: 120_000, maxTimeoutMs: 600_000 }),
  TaskOutput: TASK_OUTPUT_DESCRIPTION,
  TaskStop: TASK_STOP_DESCRIPTION,
  TaskList: TASK_LIST_DESCRIPTION,
  Monitor: MONITOR_DESCRIPTION,
  ShellOpen: SHELL_OPEN_DESCRIPTION,
  ShellWrite: SHELL_WRITE_DESCRIPTION,
  ShellRead: SHELL_READ_DESCRIPTION,
  ShellResize: SHELL_RESIZE_DESCRIPTION,
  ShellClose: SHELL_CLOSE_DESCRIPTION,
  WebFetch: WEB_FETCH_DESCRIPTION,
  WebSearch: WEB_SEARCH_DESCRIPTION,
  Skill: SKILL_DESCRIPTION,
  TodoWrite: TODO_WRITE_DESCRIPTION,
  AskUser: ASK_USER_DESCRIPTION,
  EnterPlanMode: ENTER_PLAN_MODE_DESCRIPTION,
  ExitPlanMode: EXIT_PLAN_MODE_DESCRIPTION,
  Memory: MEMORY_DESCRIPTION,
  SearchExtraTools: SEARCH_EXTRA_TOOLS_DESCRIPTION,
  ExecuteExtraTool: EXECUTE_EXTRA_TOOL_DESCRIPTION,
  ListMcpResources: LIST_MCP_RESOURCES_DESCRIPTION,
  ReadMcpResource: READ_MCP_RESOURCE_DESCRIPTION,
};

/** The tools this server implements: the only names a manual may send the model to. */
const TOOLS = new Set(Object.keys(MANUALS));

/** Tool names of other agent harnesses, or of catalog entries this server does not implement. */
const FOREIGN_TOOLS = [
  'NotebookEdit',
  'NotebookRead',
  'TodoRead',
  'BashOutput',
  'KillShell',
  'KillBash',
  'WebBrowser',
  'AskUserQuestion',
  'SlashCommand',
  'ToolSearch',
];

/** CamelCase words in manuals that are not tool names. */
const NOT_TOOL_NAMES = new Set(['KiB', 'MiB', 'GiB', 'JavaScript', 'TypeScript', 'GitHub']);

const WHEN = /\bUse it\b/;
const WHEN_NOT = /\bDo not use it\b/;

describe('tool manuals', () => {
  it.each(Object.entries(MANUALS))('%s says when to use it and when not to', (name, text) => {
    expect(text).toMatch(WHEN);
    expect(text).toMatch(WHEN_NOT);
  });

  it.each(Object.entries(MANUALS))('%s is at most 4000 characters', (_name, text) => {
    expect(text.length).toBeGreaterThan(0);
    expect(text.length).toBeLessThanOrEqual(4000);
  });

  it.each(Object.entries(MANUALS))('%s names no tool this server lacks', (_name, text) => {
    for (const foreign of FOREIGN_TOOLS) expect(text).not.toMatch(new RegExp(`\\b${foreign}\\b`));
    const named = text.match(/\b[A-Z][a-z0-9]+[A-Z][A-Za-z0-9]*\b/g) ?? [];
    for (const word of named) {
      if (!NOT_TOOL_NAMES.has(word)) expect(TOOLS, `"${word}" is not a tool of this server`).toContain(word);
    }
  });

  it('keeps the limits the tools pass in', () => {
    expect(MANUALS.Read).toContain('up to 2000 lines');
    expect(MANUALS.LS).toContain('up to 1000 entries, 8 levels');
    expect(MANUALS.Glob).toContain('at most 1000');
    expect(MANUALS.Grep).toContain('(default 10000)');
    expect(MANUALS.Bash).toContain('Default timeout 120 s, at most 600 s');
  });
});
