// Regular expressions written outside the server (a hook's tool matcher, a model's Monitor
// pattern) run with JavaScript's backtracking engine, where a pattern like `(a|a)*$` takes hours
// on 40 characters. They are compiled here (a syntax error is reported at once, compiling is
// linear) and matched in a worker thread with a deadline (worker.ts): a match that passes it
// fails with Overrun, and the event loop never waits on it. JavaScript's full syntax and
// semantics are kept (a linear engine would refuse back-references and look-arounds).
import { BoundedWorker } from './worker.js';
import type { ThreadJob } from './thread.js';

/** The longest one match (over all the lines given to it) may take. */
export const REGEX_DEADLINE_MS = 1000;
/** Matches waiting for the thread before more are refused. */
export const MAX_QUEUED_MATCHES = 64;

let thread: BoundedWorker | undefined;
const regexThread = (): BoundedWorker => (thread ??= new BoundedWorker({ name: 'pattern matching', deadlineMs: REGEX_DEADLINE_MS, maxQueued: MAX_QUEUED_MATCHES }));

/** A pattern from outside, checked for syntax now and matched off the event loop. */
export class UntrustedRegex {
  readonly source: string;
  readonly flags: string;

  /** Throws the engine's SyntaxError for a pattern that is not valid. */
  constructor(source: string, flags = '') {
    // Compiled here only to check the syntax (V8 parses now, matches never here).
    const re = new RegExp(source, flags);
    this.source = re.source;
    this.flags = re.flags.replace(/[gy]/g, '');
  }

  /** The index of the first line the pattern matches, or -1; rejects with Overrun or Busy. */
  firstMatch(lines: string[], opts: { signal?: AbortSignal; deadlineMs?: number } = {}): Promise<number> {
    if (lines.length === 0) return Promise.resolve(-1);
    return regexThread().run<number>({ kind: 'regex-lines', source: this.source, flags: this.flags, lines } satisfies ThreadJob, opts);
  }

  /** Whether the pattern matches `text`. */
  async test(text: string, opts: { signal?: AbortSignal; deadlineMs?: number } = {}): Promise<boolean> {
    return (await this.firstMatch([text], opts)) === 0;
  }
}

/** Stops the matching thread (server shutdown); a later match starts a new one. */
export async function closeUntrustedRegex(): Promise<void> {
  const t = thread;
  thread = undefined;
  await t?.close();
}
