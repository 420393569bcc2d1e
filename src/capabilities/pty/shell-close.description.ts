// ShellClose's manual for the model: what it closes and what that stops.

export const SHELL_CLOSE_DESCRIPTION = 'Closes a shell opened with ShellOpen; everything running in it is stopped.';
