// ShellOpen's manual for the model: what it opens, where, and how long a shell lives.

export const SHELL_OPEN_DESCRIPTION = `Opens a persistent interactive bash shell on a terminal, \
in the workspace and inside the same sandbox as Bash. \
Returns a shell id for ShellWrite, ShellRead, ShellResize and ShellClose. Idle shells close after 30 minutes.`;
