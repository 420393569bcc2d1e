// TodoWrite's manual for the model: when a list helps, when it is noise, and how to keep it true.

export const TODO_WRITE_DESCRIPTION = `Replaces this session's todo list: a structured plan of the current task that the \
user watches live. Send the whole list every time (it replaces the previous one).

Use it when a task has three or more distinct steps, when the user gives several things to do, or when \
new steps turn up while you work. Mark an item \`in_progress\` before you start it (one at a time), and \
\`completed\` as soon as it is done and verified — not before, and not in batches at the end. Remove items \
that no longer apply.

Do not use it for a single, simple or purely conversational request: just do it. The list is not a place \
for notes or results; say those in your reply.

Each item: \`content\` (imperative: "Run the tests"), \`activeForm\` (present continuous: "Running the tests"), \
\`status\` (pending, in_progress, completed).`;
