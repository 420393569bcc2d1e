// Bash's manual for the model: what it does, the sandbox it runs in, its timeouts, and which tools
// to use instead for file work and for stateful or interactive shells.

/** Bash's description, stating its default and longest timeout (given in milliseconds, stated in seconds). */
export function bashDescription(limits: { defaultTimeoutMs: number; maxTimeoutMs: number }): string {
  return `Runs a shell command in the session workspace inside a sandbox: the workspace is writable, \
the system is read-only, there is no network (unless the session allows it) and no host environment. \
stdout and stderr are returned interleaved, with the exit status. \
Default timeout ${limits.defaultTimeoutMs / 1000} s, at most ${limits.maxTimeoutMs / 1000} s.

Use it to run programs: tests, builds, linters, scripts. Each call is a new \`/bin/bash -c\` with \
no input (stdin is /dev/null): a directory change or variable does not carry over to the next call, so chain steps \
with "&&" in one command. For a server, a watcher or anything slower than the timeout, set \`run_in_background\` \
and follow it with TaskOutput or Monitor.

Do not use it to read, search, list or edit files (cat, head, grep, rg, find, ls, sed, echo >): use Read, \
Grep, Glob, LS, Edit and Write. Do not use it for interactive programs that wait for input: use ShellOpen if you have it.`;
}
