// Deferred tools as an admission boundary (SPEC §8, §9.12): SearchExtraTools finds the session's
// deferred tools and unlocks what it returns (a durable `unlock` effect); ExecuteExtraTool hands
// its call to the inner tool (a `delegate`), which goes through every stage under its own name —
// admission (unlocked?), validation, its own permission check, rules, asks and hooks.
import vm from 'node:vm';
import { Type, type Static } from '@sinclair/typebox';
import type { Capability, DeferredToolInfo } from '../../tools/capability.js';
import { defineTool, textOutput, ToolRefusal } from '../../tools/tool.js';
import { EXECUTE_EXTRA_TOOL_DESCRIPTION } from './execute-extra-tool.description.js';
import { SEARCH_EXTRA_TOOLS_DESCRIPTION } from './search-extra-tools.description.js';
import { rankTools } from './rank.js';

export interface DeferredDeps {
  deferredTools(): readonly DeferredToolInfo[];
}

const SearchInput = Type.Object(
  {
    query: Type.String({ minLength: 1, maxLength: 500, description: 'Keywords (`+word` requires one), `select:Name1,Name2`, or `/regex/`' }),
    max_results: Type.Optional(Type.Integer({ minimum: 1, maximum: 20, default: 5, description: 'At most this many tools (default 5)' })),
  },
  { additionalProperties: false },
);

const ExecuteInput = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 128, pattern: '^[A-Za-z0-9_-]+$', description: 'The deferred tool\'s name, as SearchExtraTools returned it' }),
    input: Type.Record(Type.String(), Type.Unknown(), { description: 'The tool\'s input, following its schema' }),
  },
  { additionalProperties: false },
);

/** How long a regex query may run over the tool list (it runs in a context that can be stopped). */
const REGEX_BUDGET_MS = 50;

export const searchExtraToolsTool = defineTool<Static<typeof SearchInput>, DeferredDeps>({
  name: 'SearchExtraTools',
  description: SEARCH_EXTRA_TOOLS_DESCRIPTION,
  inputSchema: SearchInput,
  isReadOnly: () => true,
  isConcurrencySafe: () => true,
  requiresApproval: () => false,
  call: async (input, _ctx, deps) => {
    const tools = deps.deferredTools();
    if (tools.length === 0) return textOutput('This session has no deferred tools: every tool it has is listed to you already.');
    const max = input.max_results ?? 5;
    const found = rankTools(tools, input.query.trim(), max, regexMatcher);
    if (found.length === 0) {
      return textOutput(`No deferred tool matches ${JSON.stringify(input.query)} (${tools.length} deferred tools in this session). Try other keywords.`);
    }
    const parts = found.map((t) => `<tool name=${JSON.stringify(t.name)}>\n${t.description}\ninput_schema: ${JSON.stringify(t.input_schema)}\n</tool>`);
    const head = `${found.length} tool(s) found and unlocked; call each by its name or with ExecuteExtraTool:`;
    return { ...textOutput([head, ...parts].join('\n')), effects: [{ kind: 'unlock', tools: found.map((t) => t.name) }] };
  },
});

/**
 * A regex query runs in its own V8 context with a time budget: the model writes the pattern,
 * and a pattern that backtracks without end must not hold the server's event loop.
 */
function regexMatcher(source: string, flags: string, texts: readonly string[]): boolean[] {
  try {
    new RegExp(source, flags);
  } catch (err) {
    throw new ToolRefusal(`SearchExtraTools: the regex /${source}/ is not valid: ${err instanceof Error ? err.message : String(err)}`);
  }
  const context = vm.createContext({ source, flags, texts });
  try {
    const out = vm.runInContext('const r = new RegExp(source, flags); JSON.stringify(texts.map((t) => r.test(t)))', context, { timeout: REGEX_BUDGET_MS });
    return JSON.parse(out as string) as boolean[];
  } catch {
    throw new ToolRefusal(`SearchExtraTools: the regex /${source}/ took longer than ${REGEX_BUDGET_MS} ms over the tool list; use a simpler pattern or keywords.`);
  }
}

export const executeExtraToolTool = defineTool<Static<typeof ExecuteInput>, DeferredDeps>({
  name: 'ExecuteExtraTool',
  description: EXECUTE_EXTRA_TOOL_DESCRIPTION,
  inputSchema: ExecuteInput,
  // The wrapper itself does nothing: the inner call is admitted, judged and hooked under its own name,
  // and announced (tool.started) when it starts.
  handsOn: true,
  isReadOnly: () => true,
  isConcurrencySafe: () => false,
  requiresApproval: () => false,
  call: async (input, _ctx, deps) => {
    if (!deps.deferredTools().some((t) => t.name === input.name)) {
      throw new ToolRefusal(`ExecuteExtraTool runs deferred tools only, and "${input.name}" is not one in this session: call listed tools directly, and find deferred ones with SearchExtraTools.`);
    }
    return { content: [], delegate: { name: input.name, input: input.input } };
  },
});

export const deferredCapability: Capability<DeferredDeps> = {
  group: 'deferred',
  tools: [searchExtraToolsTool, executeExtraToolTool],
  install: (s) => ({ deps: { deferredTools: s.deferredTools } }),
};
