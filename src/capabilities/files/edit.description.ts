// Edit's manual for the model: what it does, what it requires, what it returns.

export const EDIT_DESCRIPTION = `Replaces \`old_string\` with \`new_string\` in a file the session has read. \
\`old_string\` must match exactly once unless \`replace_all\` is set. \
Line endings and a UTF-8 byte-order mark are preserved. The result shows a unified diff.`;
