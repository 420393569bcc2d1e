// ShellOpen's manual for the model: what it opens, where, how long a shell lives, and why one-off
// commands belong to Bash.

export const SHELL_OPEN_DESCRIPTION = `Opens a persistent interactive bash shell on a terminal, \
in the workspace and inside the same sandbox as Bash. \
Returns a shell id for ShellWrite, ShellRead, ShellResize and ShellClose. Idle shells close after 30 minutes.

Use it when state must persist between commands (working directory, variables, an activated environment) or for \
an interactive program that reads from the terminal: a REPL, a debugger, a command that prompts for answers. \
At most 4 shells are open at once; set \`cols\` and \`rows\` here if the default 120x40 does not suit.

Do not use it for one-off commands: use Bash, which returns the output and the exit status in one call. For a \
long-running command you only need to watch, use Bash with \`run_in_background\`.`;
