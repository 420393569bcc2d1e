// ShellResize's manual for the model: what it resizes, and when the size does not matter.

export const SHELL_RESIZE_DESCRIPTION = `Resizes a shell's terminal.

Use it when a full-screen program in a shell from ShellOpen (an editor, a pager, top) needs a different size, \
or when its output wraps badly: \`cols\` 20–500, \`rows\` 5–200.

Do not use it for ordinary commands; if you know the size you need, pass \`cols\` and \`rows\` to ShellOpen instead.`;
