// Agent's manual for the model: when to start a subagent, what it has, what to tell it, and when
// doing the work directly is cheaper.

export const AGENT_DESCRIPTION = `Starts a subagent for a self-contained task (research, a search across many files, a multi-step change) \
and returns its final answer. The subagent has the same tools and permissions as you, but not this tool, \
and does not see this conversation: put everything it needs in \`prompt\`.

Use it when a task needs many searches and reads whose details you do not need to keep, such as an open-ended \
search of an unfamiliar code base, or for a piece of work you can describe completely. Its final answer is all \
you get back: say in \`prompt\` exactly what to report (e.g. paths and line numbers). Several Agent calls run one \
after another, not side by side.

Do not use it for a single file read or a known path (use Read), to find files by name (use Glob), or to search \
a few files for a string (use Grep): doing that yourself is faster and keeps the details in front of you.`;
