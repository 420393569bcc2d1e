// TaskOutput's manual for the model: what it returns, how to wait for a task, and when Monitor or
// a foreground Bash call fits better.

export const TASK_OUTPUT_DESCRIPTION = `Returns the new output of a background task since the last TaskOutput or Monitor, \
and its status. With \`block\`, waits for the task to end first.

Use it to check on a task started with Bash \`run_in_background\` (\`task_id\` is the id Bash returned), or with \
\`block\` to wait for it to finish and collect the rest of its output.

Do not use it to wait for one particular line (use Monitor) or for commands started without \`run_in_background\`: \
Bash already returned their output.`;
