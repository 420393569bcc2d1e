// TaskOutput's manual for the model: what it returns and how to wait for a task.

export const TASK_OUTPUT_DESCRIPTION = `Returns the new output of a background task since the last TaskOutput or Monitor, \
and its status. With \`block\`, waits for the task to end first.`;
