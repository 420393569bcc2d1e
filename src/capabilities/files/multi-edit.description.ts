// MultiEdit's manual for the model: what it does, what it requires, what it returns.

export const MULTI_EDIT_DESCRIPTION = `Applies several exact-match replacements to one file the session has read, \
in order, each on the result of the previous. If any edit fails, nothing is written. The result shows one unified diff.`;
