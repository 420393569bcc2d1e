// TaskList's manual for the model: what it lists, and where output and shells are found instead.

export const TASK_LIST_DESCRIPTION = `Lists this session's background tasks with their command and status.

Use it to find the id or state of tasks you started with Bash \`run_in_background\`, e.g. before starting another \
(at most 8 run at once).

Do not use it to read a task's output (use TaskOutput); shells opened with ShellOpen are not listed.`;
