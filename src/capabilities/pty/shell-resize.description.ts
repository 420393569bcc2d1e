// ShellResize's manual for the model: what it resizes.

export const SHELL_RESIZE_DESCRIPTION = "Resizes a shell's terminal.";
