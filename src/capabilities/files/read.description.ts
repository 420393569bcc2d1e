// Read's manual for the model: what it does, its limits, how to call it.

/** Read's description, stating how many lines it returns by default and where it cuts a long line. */
export function readDescription(limits: { defaultLines: number; maxLineChars: number }): string {
  return `Reads a text file from the workspace and returns its lines numbered like \`cat -n\`. \
Reads up to ${limits.defaultLines} lines from \`offset\` (1-based) unless \`limit\` says otherwise; \
lines longer than ${limits.maxLineChars} characters are cut. Directories, binary and special files are refused.`;
}
