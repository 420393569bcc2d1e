// ShellRead's manual for the model: what it returns, how long it waits, and where background tasks
// are read instead.

export const SHELL_READ_DESCRIPTION = `Returns what a shell printed since the last ShellRead, waiting up to \`wait_ms\` for output. \
ANSI escapes are kept unless \`strip_ansi\`.

Use it after ShellWrite to see a command's output or a program's prompt; raise \`wait_ms\` for slow commands and \
read again until the output is complete. Read often: past about a million unread characters, the oldest output is dropped.

Do not use it for tasks started with Bash \`run_in_background\` (use TaskOutput or Monitor).`;
