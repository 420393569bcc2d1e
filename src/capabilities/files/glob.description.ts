// Glob's manual for the model: what it does, its pattern syntax, its limits, and when Grep, LS or
// Agent is the better choice.

/** Glob's description, stating how many paths it returns at most. */
export function globDescription(limits: { maxResults: number }): string {
  return `Finds files in the workspace by a glob pattern matched against paths relative to \`path\` (default: the workspace root). \
\`*\`, \`?\` and \`[abc]\` never cross "/", \`**\` spans any number of directories, \`{a,b}\` lists alternatives; \
dot-files are matched like any other. \
Returns paths relative to the workspace, newest modification first, at most ${limits.maxResults}. \
Symlinked directories are not followed; ".." segments and absolute patterns outside the workspace are refused.

Use it to find files by name or path, e.g. "**/*.test.ts" or "src/**/config.*", or to check whether a file \
exists. It reports files only, never directories (use LS to see those).

Do not use it to search file contents (use Grep), and do not run find or ls through Bash. For an open-ended \
search that needs several rounds of Glob and Grep, use Agent if you have it.`;
}
