// Runs `fn` as a request would (in a commit watch) and waits for the commits it sent: the value,
// or the first failure. A synchronous store's failure is thrown by `fn` itself; PostgreSQL's comes
// when the database answers the unit of work.
import { CommitWatch, runInCommitWatch } from '../../src/store/commit-watch.js';

export async function committed<T>(fn: () => T): Promise<T> {
  const watch = new CommitWatch();
  const value = runInCommitWatch(watch, fn);
  const failure = await watch.settled();
  if (failure !== undefined) throw failure;
  return value;
}
