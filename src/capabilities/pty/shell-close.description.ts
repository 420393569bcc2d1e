// ShellClose's manual for the model: what it closes, what that stops, and what stops background
// tasks instead.

export const SHELL_CLOSE_DESCRIPTION = `Closes a shell opened with ShellOpen; everything running in it is stopped.

Use it when you are done with a shell or a program in it no longer responds; this frees one of the 4 shells that \
may be open at once.

Do not use it to stop a background task from Bash (use TaskStop), or between commands that should share the same shell.`;
