// TaskStop's manual for the model: what it stops, and what stops foreground commands and shells.

export const TASK_STOP_DESCRIPTION = `Stops a background task of this session (its whole process tree).

Use it when a task started with Bash \`run_in_background\` is no longer needed, hangs, or must be restarted with \
other options; stopped tasks free one of the 8 that may run at once.

Do not use it for a foreground Bash command (its \`timeout\` ends it) or for a shell opened with ShellOpen (use ShellClose).`;
