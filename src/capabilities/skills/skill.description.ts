// Skill's manual for the model: what a skill is, when to invoke one and what invoking it gives.
// The list of the session's skills (names and descriptions only) is appended when the tool is bound.

export const SKILL_DESCRIPTION = `Loads a skill: a folder of instructions (and often scripts, templates or reference files) \
for one kind of task, prepared by the operator or kept in the workspace. Only each skill's name and description are listed \
below; invoking it returns its full instructions.

When to use it:
- Use it when the task matches the description of a skill listed below: invoke that skill before starting that work, \
and follow its instructions. Invoke it once per task.
- Pass \`skill\` (the name as listed) and, optionally, \`args\` (what the skill should work on, in a few words).

When not to use it:
- Do not use it for a skill that is not listed below: there is no such skill in this session.
- Do not use it to re-read a skill already loaded in this conversation: its instructions are above; follow them.
- Do not use it to read a skill's other files: once it is loaded, use Read, Glob and Grep on its folder.

The result is the skill's instructions. The skill's folder becomes readable with Read, Glob and Grep, so that \
the files its instructions refer to (relative to that folder) can be read; invoking a skill may also make the \
tools it needs available.`;
