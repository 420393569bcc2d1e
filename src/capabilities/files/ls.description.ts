// LS's manual for the model: what it does, its limits, how it shows entries.

/** LS's description, stating how many entries and levels it lists at most. */
export function lsDescription(limits: { maxEntries: number; maxDepth: number }): string {
  return `Lists a directory of the workspace as a tree (up to ${limits.maxEntries} entries, ${limits.maxDepth} levels). \
Directories end with "/"; symlinks are shown with their target and never followed.`;
}
