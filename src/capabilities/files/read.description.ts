// Read's manual for the model: what it does, its limits, how to call it, and which tool to use for
// directories, searches and shell reads instead.

/** Read's description, stating how many lines it returns by default and where it cuts a long line. */
export function readDescription(limits: { defaultLines: number; maxLineChars: number }): string {
  return `Reads a text file from the workspace and returns its lines numbered like \`cat -n\`. \
Reads up to ${limits.defaultLines} lines from \`offset\` (1-based) unless \`limit\` says otherwise; \
lines longer than ${limits.maxLineChars} characters are cut. Directories, binary and special files are refused.

Use it whenever you know the path of a file you need to see, and always before changing a file with Edit, \
MultiEdit or Write (they require it). For a long file, read the part you need with \`offset\` and \`limit\`, \
e.g. around a line number Grep reported. Several Read calls in one message run side by side.

Do not use it on a directory (use LS or Glob) or to find which file contains something (use Grep), and do not \
read files with cat, head or tail through Bash: a file shown that way does not count as read for Edit and Write.`;
}
