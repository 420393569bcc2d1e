// ExecuteExtraTool's manual for the model.

export const EXECUTE_EXTRA_TOOL_DESCRIPTION = `Runs a deferred tool that SearchExtraTools returned: \
\`name\` is the tool's name and \`input\` its input, following the schema the search showed.

When to use it:
- Use it to call a tool that SearchExtraTools returned when you cannot call it by its own name.

When not to use it:
- Do not use it for tools listed to you: call them directly.
- Do not use it for a tool no search returned yet: search first with SearchExtraTools.

The call is judged and run exactly as if the tool were called by its name: its permission rules, \
approvals and hooks apply, and its result is returned.`;
