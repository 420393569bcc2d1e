// MultiEdit's manual for the model: what it does, what it requires, what it returns, and when Edit
// or Write fits better.

export const MULTI_EDIT_DESCRIPTION = `Applies several exact-match replacements to one file the session has read, \
in order, each on the result of the previous. If any edit fails, nothing is written. The result shows one unified diff.

Use it for several changes to the same file (e.g. a new import plus the code that uses it): each edit takes \
\`old_string\`, \`new_string\` and \`replace_all\` as in Edit, and must match the text as the earlier edits left it.

Do not use it for a single change (use Edit), for changes to several files (one call per file), or to replace \
most of a file (use Write).`;
