// Agent's manual for the model: when to start a subagent, what it has, and what to tell it.

export const AGENT_DESCRIPTION = `Starts a subagent for a self-contained task (research, a search across many files, a multi-step change) \
and returns its final answer. The subagent has the same tools and permissions as you, but not this tool, \
and does not see this conversation: put everything it needs in \`prompt\`.`;
