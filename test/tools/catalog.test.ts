// The catalog's security metadata is what the tools themselves say: for each implemented tool,
// a typical call is judged read-only, concurrency-safe and approval-required exactly as the
// catalog states (SPEC §6), and the tools whose judgement depends on the input are checked on
// both kinds of input.
import { describe, expect, it } from 'vitest';
import { CATALOG, ToolCatalog } from '../../src/tools/catalog.js';
import { InputValidator } from '../../src/pipeline/validate.js';
import { testHtmlConverter } from '../helpers/search.js';

/** A typical input for each tool (for input-dependent tools: the kind the catalog describes). */
const TYPICAL: Record<string, unknown> = {
  Read: { file_path: 'a.txt' },
  Write: { file_path: 'a.txt', content: 'x' },
  Edit: { file_path: 'a.txt', old_string: 'a', new_string: 'b' },
  MultiEdit: { file_path: 'a.txt', edits: [{ old_string: 'a', new_string: 'b' }] },
  LS: { path: '.' },
  Glob: { pattern: '*.ts' },
  Grep: { pattern: 'x' },
  Bash: { command: 'rm -rf build' },
  TaskOutput: { task_id: 'task_1' },
  TaskStop: { task_id: 'task_1' },
  TaskList: {},
  Monitor: { task_id: 'task_1' },
  ShellOpen: {},
  ShellWrite: { shell_id: 'shell_1', input: 'make\n' },
  ShellRead: { shell_id: 'shell_1' },
  ShellResize: { shell_id: 'shell_1', cols: 80, rows: 24 },
  ShellClose: { shell_id: 'shell_1' },
  WebFetch: { url: 'https://example.com/', prompt: 'x' },
  WebSearch: { query: 'x' },
  TodoWrite: { todos: [] },
  AskUser: { questions: [{ question: 'Q?', options: [{ label: 'a' }, { label: 'b' }] }] },
  EnterPlanMode: {},
  ExitPlanMode: { plan: 'p' },
  Memory: { command: 'create', path: '/memories/a.md', file_text: 'x' },
  Skill: { skill: 'deploy' },
  Agent: { description: 'd', prompt: 'p' },
  SearchExtraTools: { query: 'github issue' },
  ExecuteExtraTool: { name: 'mcp__github__create_issue', input: { title: 't' } },
  ListMcpResources: {},
  ReadMcpResource: { server: 'docs', uri: 'file:///a.md' },
};

const catalog = new ToolCatalog({ rgPath: null, html: testHtmlConverter });
const specs = new Map(catalog.specs().map((s) => [s.name, s]));

describe('the tool catalog', () => {
  it('has the 30 static names of SPEC §6, each once', () => {
    expect(CATALOG).toHaveLength(30);
    expect(new Set(CATALOG.map((e) => e.name)).size).toBe(30);
  });

  it('states for every implemented tool what the tool itself judges of a typical call', () => {
    const implemented = CATALOG;
    expect(implemented.map((e) => e.name).sort()).toEqual([...specs.keys()].sort());
    for (const e of implemented) {
      const spec = specs.get(e.name)!;
      const input = TYPICAL[e.name];
      expect(input, `${e.name} needs a typical input in this test`).toBeDefined();
      expect({ name: e.name, readOnly: spec.isReadOnly(input), concurrencySafe: spec.isConcurrencySafe(input), approval: spec.requiresApproval(input) }).toEqual({
        name: e.name,
        readOnly: e.readOnly,
        concurrencySafe: e.concurrencySafe,
        approval: e.approval,
      });
    }
  });

  it('judges by the input where the call decides: Memory view is read-only, its changes ask', () => {
    const memory = specs.get('Memory')!;
    const view = { command: 'view', path: '/memories' };
    expect([memory.isReadOnly(view), memory.isConcurrencySafe(view), memory.requiresApproval(view)]).toEqual([true, true, false]);
    for (const input of [
      { command: 'str_replace', path: '/memories/a', old_str: 'a', new_str: 'b' },
      { command: 'insert', path: '/memories/a', insert_line: 0, insert_text: 'x' },
      { command: 'delete', path: '/memories/a' },
      { command: 'rename', old_path: '/memories/a', new_path: '/memories/b' },
    ]) {
      expect([memory.isReadOnly(input), memory.requiresApproval(input)]).toEqual([false, true]);
    }
  });

  it('marks the tools that need a person, and only those', () => {
    expect([...specs.values()].filter((s) => s.interactive).map((s) => s.name).sort()).toEqual(['AskUser', 'ExitPlanMode']);
  });

  it('installs the new tools only when a session names them', () => {
    const defaults = new Set(catalog.defaultNames());
    for (const name of ['TodoWrite', 'AskUser', 'EnterPlanMode', 'ExitPlanMode', 'Memory', 'Skill']) expect(defaults.has(name)).toBe(false);
    for (const name of ['SearchExtraTools', 'ExecuteExtraTool', 'ListMcpResources', 'ReadMcpResource']) expect(defaults.has(name)).toBe(false);
    // Every name of the catalog has its implementation: the catalog refuses to be made otherwise.
    expect(specs.size).toBe(30);
  });
});

describe('input schemas', () => {
  it('every tool\'s input schema compiles with the strict input validator (the server compiles them after it listens)', () => {
    const validator = new InputValidator();
    expect(specs.size).toBe(CATALOG.length);
    for (const spec of specs.values()) expect(() => validator.prepare(spec), spec.name).not.toThrow();
  });
});
