// Monitor's manual for the model: what it waits for, what it returns, how it shares output with
// TaskOutput, and when TaskOutput or a plain Bash call is the better choice.

export const MONITOR_DESCRIPTION = `Waits until a background task prints a new line matching \`until\` (or any new line), \
or ends, or \`timeout\` ms pass; returns the matching line and the task status. \
Lines it reads count as read for TaskOutput.

Use it to wait for a task started with Bash \`run_in_background\` to reach a point, e.g. a server printing that it \
is listening or a test run printing its summary, instead of calling TaskOutput again and again.

Do not use it to read everything a task printed (use TaskOutput) or for a command that finishes within Bash's \
timeout (run it with Bash in the foreground).`;
