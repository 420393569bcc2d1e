// Edit's manual for the model: what it does, what it requires, what it returns, and when Write,
// MultiEdit or Bash is the wrong or the better choice.

export const EDIT_DESCRIPTION = `Replaces \`old_string\` with \`new_string\` in a file the session has read. \
\`old_string\` must match exactly once unless \`replace_all\` is set. \
Line endings and a UTF-8 byte-order mark are preserved. The result shows a unified diff.

Use it for a targeted change to an existing file: copy \`old_string\` from Read's output without the line-number \
prefix (the number and the tab before each line), with its exact indentation, and with enough surrounding lines \
to make it unique; set \`replace_all\` to rename something throughout the file.

Do not use it to create a file (use Write) or for several changes to one file (use MultiEdit, which applies them \
all or none), and do not edit files with sed, awk or echo through Bash.`;
