// Agent: hands a self-contained task to a subagent — a fresh conversation with the session's model
// that has the session's tools (but not Agent itself), the session's permission rules and hooks,
// and whose every call goes through the same pipeline as the parent's. SubagentStart hooks fire
// when it starts. The tool_result is the subagent's final answer.
import { Type, type Static } from '@sinclair/typebox';
import { defineTool, type SubagentTask, type ToolContext, type ToolOutput } from '../../tools/tool.js';
import { AGENT_DESCRIPTION } from './agent.description.js';

const AgentInput = Type.Object(
  {
    description: Type.String({ minLength: 1, maxLength: 200, description: 'A short (3–5 word) description of the task' }),
    prompt: Type.String({ minLength: 1, maxLength: 100_000, description: 'The task for the subagent, with everything it needs to know' }),
    subagent_type: Type.Optional(
      Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_.-]+$', description: 'The kind of subagent (reported to SubagentStart hooks); default general-purpose' }),
    ),
  },
  { additionalProperties: false },
);
type AgentInput = Static<typeof AgentInput>;

/** What the Agent tool runs on: the session's current prompt turn (which refuses outside one). */
export interface AgentDeps {
  subagent(task: SubagentTask, ctx: ToolContext): Promise<ToolOutput>;
}

export const agentTool = defineTool<AgentInput, AgentDeps>({
  name: 'Agent',
  description: AGENT_DESCRIPTION,
  inputSchema: AgentInput,
  // The subagent's own calls are each validated, evaluated and hooked; starting it is not itself an effect.
  isReadOnly: () => false,
  isConcurrencySafe: () => false,
  requiresApproval: () => false,
  checkPermissions: async () => ({ behavior: 'allow', reason: 'starting a subagent has no effect of its own; each of its calls is evaluated' }),
  async call(input, ctx, deps) {
    return deps.subagent({ description: input.description, prompt: input.prompt, type: input.subagent_type ?? 'general-purpose' }, ctx);
  },
});
