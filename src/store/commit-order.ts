// What runs after a unit of work commits (Store.afterCommit: delivering its events, adopting its
// state in memory), run in the order the units were made, per session. A unit whose commit is
// answered later (PostgreSQL's, which the server does not wait for) holds back the callbacks of
// the units after it that touch the same sessions, so a session's events are delivered in seq order
// whatever order the database answers in; units of other sessions are not held. A unit that did
// not commit runs none of its callbacks.

interface Unit {
  /** The sessions it touched; empty: it follows every unit before it. */
  keys: string[];
  callbacks: (() => void)[];
  /** Undefined until its commit is answered. */
  ok: boolean | undefined;
}

/** The key of units that touched no session (each follows everything before it). */
const EVERY = '\u0000every';

export class CommitOrder {
  private readonly queues = new Map<string, Unit[]>();

  constructor(private readonly failed: (err: unknown) => void) {}

  /** Adds a unit in the order of making; `settle` says how its commit ended. */
  add(keys: readonly string[], callbacks: (() => void)[]): { settle(ok: boolean): void } {
    const unit: Unit = { keys: [...new Set(keys.length > 0 ? keys : [EVERY, ...this.queues.keys()])], callbacks, ok: undefined };
    // A unit of no session follows every unit queued now (and the units of those sessions made
    // after it follow it).
    for (const key of unit.keys) {
      let q = this.queues.get(key);
      if (!q) this.queues.set(key, (q = []));
      q.push(unit);
    }
    return {
      settle: (ok) => {
        if (unit.ok !== undefined) return;
        unit.ok = ok;
        this.drain(unit.keys);
      },
    };
  }

  /** Units waiting for their commit or for one before them. */
  get waiting(): number {
    let n = 0;
    for (const q of this.queues.values()) n += q.length;
    return n;
  }

  /** Runs every unit that is answered and first in all its queues, starting from `start`'s queues. */
  private drain(start: readonly string[]): void {
    // Re-entrant: a callback's own unit that commits at once runs its callbacks before the
    // callback returns, as a synchronous store does; this loop checks each head again.
    const todo = [...start];
    while (todo.length > 0) {
      const key = todo.pop()!;
      const head = this.queues.get(key)?.[0];
      if (!head || head.ok === undefined || !head.keys.every((k) => this.queues.get(k)?.[0] === head)) continue;
      for (const k of head.keys) {
        const q = this.queues.get(k)!;
        q.shift();
        if (q.length === 0) this.queues.delete(k);
        else todo.push(k);
      }
      if (head.ok) for (const f of head.callbacks) this.call(f);
    }
  }

  private call(f: () => void): void {
    try {
      f();
    } catch (err) {
      // One callback's failure does not keep the others (later units' events) from running.
      this.failed(err);
    }
  }
}
