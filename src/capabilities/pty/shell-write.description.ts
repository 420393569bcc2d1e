// ShellWrite's manual for the model: how to type into a shell, what is checked first, and where
// output is read.

export const SHELL_WRITE_DESCRIPTION = `Types text into a shell opened with ShellOpen. End a command with "\\r". \
Command lines are checked like Bash commands before they reach the shell. Read the result with ShellRead.

Use it to run a command in a shell from ShellOpen or to answer a program waiting in it. Every line you complete \
is checked as a shell command, even when a program other than bash reads it; control keys (e.g. "\\u0003", Ctrl-C) \
cannot be checked, so input containing them is asked about.

Do not use it for one-off commands (use Bash) or to get output: it returns only a confirmation (use ShellRead).`;
