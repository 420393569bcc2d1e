// Grep's manual for the model: what it does, its output modes and filters, its limits, and why a
// grep or rg run through Bash is the wrong tool.

/** Grep's description, stating how many output lines it shows by default. */
export function grepDescription(limits: { defaultMaxLines: number }): string {
  return `Searches file contents in the workspace with a regular expression (ripgrep syntax). \
output_mode: "files_with_matches" (default; paths), "content" (matching lines as path:line:text, with -A/-B/-C context and -n), \
or "count" (path:N). \
Searches every file under \`path\` including hidden ones (.gitignore is not applied; .git is skipped; binary files and symlinks are skipped). \
Filter files with \`glob\` (e.g. "*.ts", "!*.min.js") or \`type\` (e.g. "py"). Use multiline for patterns spanning lines. \
Results are sorted by path; head_limit caps the output lines (default ${limits.defaultMaxLines}).

Use it to find where a name, string or pattern occurs, then Read the files it reports (in "content" mode at the \
line numbers shown). Escape regex characters you mean literally, e.g. "interface\\{\\}" or "foo\\(".

Do not use it to find files by name (use Glob), and do not run grep or rg through Bash: this tool applies the \
session's permission rules and keeps its output bounded. For an open-ended search that needs several rounds of \
Glob and Grep, use Agent if you have it.`;
}
