// The event log and live bus: per-session sequence numbers, durable append through the
// store, live fan-out, and gap-free, duplicate-free replay-then-live subscriptions.
import type { EventInput, NormaEvent } from '../contract/events.js';
import { LIVE_ONLY_EVENTS } from '../contract/events.js';
import { chained } from '../evidence/chain.js';
import type { Clock } from '../ids.js';
import type { Store } from '../store/store.js';

export type EventListener = (event: NormaEvent) => void;

export interface Subscription {
  close(): void;
}

const REPLAY_PAGE = 500;

export class EventLog {
  private readonly listeners = new Map<string, Set<EventListener>>();
  /** Told of every durable event of every session once it committed (metrics, log lines). */
  private readonly observers: EventListener[] = [];
  private streams = 0;
  /**
   * Sessions with listeners here: the seq every listener has (events up to it were delivered to
   * all of them). Events another node appends are read on from it when a notification says so.
   */
  private readonly seen = new Map<string, number>();
  private readonly reading = new Set<string>();

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
  ) {}

  /**
   * Emits an event: durable types get the next seq and are stored before anyone sees them;
   * live-only types repeat the last durable seq and are only delivered to live listeners.
   */
  emit(sessionId: string, input: EventInput): NormaEvent {
    const live = LIVE_ONLY_EVENTS.has(input.type);
    const last = this.store.lastSeq(sessionId);
    let event = {
      ...input,
      session_id: sessionId,
      seq: live ? last : last + 1,
      time: this.clock().toISOString(),
    } as NormaEvent;
    if (!live) {
      // Chained to the event before it (evidence/chain.ts): the hash is part of what is stored,
      // delivered and exported, and the store's order is the chain's.
      event = chained(event, this.store.lastEventHash(sessionId));
      this.store.appendEvent(event);
    }
    // Inside a store transaction, listeners see the event once it has committed (never one
    // that was rolled back); live-only events are not part of any transaction.
    const deliver = () => {
      if (!live) this.tell(event);
      const set = this.listeners.get(sessionId);
      if (!set) return;
      if (!live && event.seq > (this.seen.get(sessionId) ?? 0)) this.seen.set(sessionId, event.seq);
      for (const listener of [...set]) listener(event);
    };
    if (live) deliver();
    else this.store.afterCommit(deliver);
    return event;
  }

  lastSeq(sessionId: string): number {
    return this.store.lastSeq(sessionId);
  }

  /**
   * Another node committed the session's event `seq` (replicas: a database notification): the
   * session's listeners here get what they have not had yet, read from the store, in order.
   * Reads of one session do not overlap; notifications that come meanwhile are served by the
   * read in progress or one after it.
   */
  wake(sessionId: string, seq: number): void {
    this.nudge();
    if (!this.listeners.has(sessionId) || seq <= (this.seen.get(sessionId) ?? 0)) return;
    if (this.reading.has(sessionId)) {
      this.again.add(sessionId);
      return;
    }
    this.reading.add(sessionId);
    const later = this.store.later;
    if (later) void this.readOnLater(sessionId, later);
    else setImmediate(() => this.readOn(sessionId));
  }

  /**
   * A listener of events committed by another node (afterSeq: what it has already): it hears what
   * comes after, read without holding the server's thread where the store allows. Unlike
   * subscribe it replays nothing synchronously: the gap is read like a notification's.
   */
  listen(sessionId: string, afterSeq: number, deliver: EventListener): Subscription {
    let set = this.listeners.get(sessionId);
    if (!set) this.listeners.set(sessionId, (set = new Set()));
    set.add(deliver);
    const seen = this.seen.get(sessionId);
    this.seen.set(sessionId, seen === undefined ? afterSeq : Math.min(seen, afterSeq));
    this.wake(sessionId, Number.MAX_SAFE_INTEGER);
    return { close: () => this.unlisten(sessionId, deliver) };
  }

  private unlisten(sessionId: string, listener: EventListener): void {
    const s = this.listeners.get(sessionId);
    if (!s) return;
    s.delete(listener);
    if (s.size === 0) {
      this.listeners.delete(sessionId);
      this.seen.delete(sessionId);
    }
  }

  /** readOn with reads the server does not wait for. */
  private async readOnLater(sessionId: string, later: NonNullable<Store['later']>): Promise<void> {
    try {
      for (;;) {
        this.again.delete(sessionId);
        const from = this.seen.get(sessionId);
        if (!this.listeners.has(sessionId) || from === undefined) return;
        const page = await later.eventsAfter(sessionId, from, REPLAY_PAGE);
        for (const event of page) {
          const set = this.listeners.get(sessionId);
          if (!set) return;
          // Listeners drop what they had already (a subscriber added meanwhile replayed it).
          this.seen.set(sessionId, Math.max(this.seen.get(sessionId) ?? 0, event.seq));
          for (const listener of [...set]) listener(event);
        }
        if (page.length < REPLAY_PAGE && !this.again.has(sessionId)) return;
      }
    } catch {
      // The store cannot be read now: the next notification or check reads on from the same seq.
    } finally {
      this.reading.delete(sessionId);
    }
  }

  /** Sessions someone listens to here now. */
  listened(): string[] {
    return [...this.listeners.keys()];
  }

  /** Every session listened to here reads on (notifications may have been missed). */
  wakeAll(): void {
    this.nudge();
    for (const sessionId of this.listeners.keys()) this.wake(sessionId, Number.MAX_SAFE_INTEGER);
  }

  private readonly again = new Set<string>();

  private readOn(sessionId: string): void {
    try {
      for (;;) {
        this.again.delete(sessionId);
        const set = this.listeners.get(sessionId);
        const from = this.seen.get(sessionId);
        if (!set || from === undefined) return;
        const page = this.store.eventsAfter(sessionId, from, REPLAY_PAGE);
        for (const event of page) {
          this.seen.set(sessionId, event.seq);
          for (const listener of [...set]) listener(event);
        }
        if (page.length < REPLAY_PAGE && !this.again.has(sessionId)) return;
      }
    } catch {
      // The store cannot be read now: the next notification or check reads on from the same seq.
    } finally {
      this.reading.delete(sessionId);
    }
  }

  /**
   * `observer` is told of every durable event of every session, once it has committed (never one
   * that was rolled back), before the session's subscribers: the one point metrics and the
   * domain log lines are derived from.
   */
  observe(observer: EventListener): void {
    this.observers.push(observer);
  }

  /** Event streams open now (paced subscriptions: each is one SSE client). */
  get openStreams(): number {
    return this.streams;
  }

  /** `fn` runs whenever an event may have committed (here or, by a notification, elsewhere): tenant streams read on. */
  onCommit(fn: () => void): void {
    this.nudges.push(fn);
  }

  private readonly nudges: (() => void)[] = [];

  private nudge(): void {
    for (const fn of this.nudges) fn();
  }

  private tell(event: NormaEvent): void {
    this.nudge();
    for (const observer of this.observers) {
      try {
        observer(event);
      } catch {
        // Counting or logging an event never fails the work that emitted it.
      }
    }
  }

  /**
   * Delivers every durable event with seq > afterSeq in order, then live events.
   * The live listener is attached before the replay starts and buffers; events already
   * delivered by the replay are skipped, so there is no gap and no duplicate even when
   * events are emitted while the replay runs.
   */
  /**
   * Like subscribe, but the replay waits for the consumer: whenever `room()` says the consumer
   * is full (a promise; null while there is room), the replay awaits it and then reads on from
   * the store, so replaying a long history never piles up in memory. After the read that
   * reaches the end of the log the live subscription attaches with no await in between, so
   * there is no gap; `onLive` is called then.
   */
  subscribePaced(
    sessionId: string,
    afterSeq: number,
    deliver: EventListener,
    room: () => Promise<void> | null,
    onLive: () => void = () => undefined,
  ): Subscription {
    let closed = false;
    let live: Subscription | undefined;
    this.streams++;
    void (async () => {
      let delivered = afterSeq;
      for (;;) {
        if (closed) return;
        const page = this.store.eventsAfter(sessionId, delivered, REPLAY_PAGE);
        let wait: Promise<void> | null = null;
        for (const event of page) {
          if (closed) return;
          deliver(event);
          delivered = event.seq;
          wait = room();
          if (wait) break;
        }
        if (wait) {
          await wait;
          continue;
        }
        if (page.length < REPLAY_PAGE) break;
      }
      if (closed) return;
      live = this.subscribe(sessionId, delivered, deliver);
      onLive();
    })();
    return {
      close: () => {
        if (!closed) this.streams--;
        closed = true;
        live?.close();
      },
    };
  }

  subscribe(sessionId: string, afterSeq: number, deliver: EventListener): Subscription {
    let replaying = true;
    let delivered = afterSeq;
    const buffered: NormaEvent[] = [];
    const forward = (event: NormaEvent): void => {
      if (LIVE_ONLY_EVENTS.has(event.type)) {
        if (!replaying) deliver(event);
        return;
      }
      if (event.seq <= delivered) return;
      delivered = event.seq;
      deliver(event);
    };
    const listener: EventListener = (event) => {
      if (replaying) buffered.push(event);
      else forward(event);
    };
    let set = this.listeners.get(sessionId);
    if (!set) this.listeners.set(sessionId, (set = new Set()));
    set.add(listener);

    // From the session's last event on (a watcher of what comes next), there is nothing to read back.
    if (delivered < this.store.lastSeq(sessionId)) {
      for (;;) {
        const page = this.store.eventsAfter(sessionId, delivered, REPLAY_PAGE);
        for (const event of page) forward(event);
        if (page.length < REPLAY_PAGE) break;
      }
    }
    replaying = false;
    for (const event of buffered.splice(0)) forward(event);
    // Every listener of the session has what this one has at least up to here (see wake).
    const seen = this.seen.get(sessionId);
    this.seen.set(sessionId, seen === undefined ? delivered : Math.min(seen, delivered));

    return { close: () => this.unlisten(sessionId, listener) };
  }
}
