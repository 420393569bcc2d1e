// A request's answer waits for the commits of the work it did: each request runs in a
// CommitWatch (AsyncLocalStorage), a store that commits without waiting (PostgreSQL) adds each
// commit it sends to the watch of the request that made it, and the answer is sent once they have
// all committed, or as a 503 when one of them did not (nothing of that unit is stored, and nothing
// of it was delivered). A synchronous store's commits have happened before the handler returns.
import { AsyncLocalStorage } from 'node:async_hooks';

export class CommitWatch {
  private readonly commits: Promise<unknown>[] = [];
  private failure: unknown = undefined;
  private closed = false;

  add(commit: Promise<void>): void {
    // A turn that goes on after the answer was sent makes commits no answer waits for.
    if (this.closed) return;
    this.commits.push(
      commit.catch((err: unknown) => {
        this.failure ??= err;
      }),
    );
  }

  /** Takes no more commits; true when there is nothing to wait for (none was added). */
  closeIfIdle(): boolean {
    if (this.commits.length > 0 || this.failure !== undefined) return false;
    this.closed = true;
    return true;
  }

  /** Resolves once every commit added so far has been answered: the first failure, or undefined. */
  async settled(): Promise<unknown> {
    this.closed = true;
    while (this.commits.length > 0) await Promise.all(this.commits.splice(0));
    return this.failure;
  }
}

const watches = new AsyncLocalStorage<CommitWatch>();

/** Runs `fn` (and everything it starts) in `watch`. */
export function runInCommitWatch<T>(watch: CommitWatch, fn: () => T): T {
  return watches.run(watch, fn);
}

/** Adds a commit to the watch of the work running now, if any. */
export function watchCommit(commit: Promise<void>): void {
  watches.getStore()?.add(commit);
}
