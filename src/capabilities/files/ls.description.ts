// LS's manual for the model: what it does, its limits, how it shows entries, and when Glob or Grep
// answers the question better.

/** LS's description, stating how many entries and levels it lists at most. */
export function lsDescription(limits: { maxEntries: number; maxDepth: number }): string {
  return `Lists a directory of the workspace as a tree (up to ${limits.maxEntries} entries, ${limits.maxDepth} levels). \
Directories end with "/"; symlinks are marked as such and never followed.

Use it to see how a directory you know is laid out; leave out noise such as build output with \`ignore\` \
(glob patterns of names, e.g. "node_modules").

Do not use it to find files by name or extension across the tree (use Glob) or to search their contents \
(use Grep), and do not run ls or find through Bash.`;
}
