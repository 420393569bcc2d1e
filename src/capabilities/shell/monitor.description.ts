// Monitor's manual for the model: what it waits for, what it returns, how it shares output with TaskOutput.

export const MONITOR_DESCRIPTION = `Waits until a background task prints a new line matching \`until\` (or any new line), \
or ends, or \`timeout\` ms pass; returns the matching line and the task status. \
Lines it reads count as read for TaskOutput.`;
