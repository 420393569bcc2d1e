// The Agent tool: a subagent in the session's current prompt turn, through the same pipeline.
import type { Capability } from '../../tools/capability.js';
import { agentTool, type AgentDeps } from './agent.js';

export const agentCapability: Capability<AgentDeps> = {
  group: 'subagent',
  tools: [agentTool],
  install: (s) => ({ deps: { subagent: s.subagent } }),
};
