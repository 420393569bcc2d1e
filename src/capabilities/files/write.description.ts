// Write's manual for the model: what it does, what it requires, what it returns.

export const WRITE_DESCRIPTION = `Writes a file in the workspace, replacing it whole if it exists. \
An existing file must be read first (Read) and be unchanged since. Parent directories are created. \
The write is atomic: readers see the old or the new content, never a mix. The result shows a unified diff.`;
