// Bash's manual for the model: what it does, the sandbox it runs in, its timeouts.

/** Bash's description, stating its default and longest timeout (given in milliseconds, stated in seconds). */
export function bashDescription(limits: { defaultTimeoutMs: number; maxTimeoutMs: number }): string {
  return `Runs a shell command in the session workspace inside a sandbox: the workspace is writable, \
the system is read-only, there is no network (unless the session allows it) and no host environment. \
stdout and stderr are returned interleaved, with the exit status. \
Default timeout ${limits.defaultTimeoutMs / 1000} s, at most ${limits.maxTimeoutMs / 1000} s.`;
}
