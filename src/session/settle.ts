// Waiting for a turn to reach a state: each waiter's condition is checked whenever the turn says it
// may have changed (notify), and a waiter gives up after its time.
export class SettleWaiters {
  private readonly waiters = new Set<() => void>();

  /** The turn's state may have changed: every waiter checks its condition. */
  notify(): void {
    for (const w of [...this.waiters]) w();
  }

  /** Resolves when `condition` holds (checked at every notification), or after `ms`. */
  until(condition: () => boolean, ms: number): Promise<void> {
    if (condition() || ms <= 0) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.waiters.delete(check);
        resolve();
      };
      const check = () => {
        if (condition()) done();
      };
      const timer = setTimeout(done, ms);
      timer.unref();
      this.waiters.add(check);
    });
  }
}
