// ShellRead's manual for the model: what it returns and how long it waits.

export const SHELL_READ_DESCRIPTION = `Returns what a shell printed since the last ShellRead, waiting up to \`wait_ms\` for output. \
ANSI escapes are kept unless \`strip_ansi\`.`;
