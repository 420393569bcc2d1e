// Write's manual for the model: what it does, what it requires, what it returns, and why Edit is
// the tool for partial changes.

export const WRITE_DESCRIPTION = `Writes a file in the workspace, replacing it whole if it exists. \
An existing file must be read first (Read) and be unchanged since. Parent directories are created. \
The write is atomic: readers see the old or the new content, never a mix. The result shows a unified diff.

Use it to create a new file, or to rewrite an existing one whose content changes almost entirely.

Do not use it for a change to part of an existing file: use Edit (or MultiEdit for several changes), which sends \
only the changed text. Do not create or change files through Bash (echo, cat with a here-document, tee) either.`;
