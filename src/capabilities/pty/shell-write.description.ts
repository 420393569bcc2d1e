// ShellWrite's manual for the model: how to type into a shell, and what is checked first.

export const SHELL_WRITE_DESCRIPTION = `Types text into a shell opened with ShellOpen. End a command with "\\r". \
Command lines are checked like Bash commands before they reach the shell. Read the result with ShellRead.`;
