// Following a session's events over EventSource with resume: a fresh single-use ticket for every
// (re)connection, `after=<last seq seen>` so the server replays what was missed, events
// delivered once each, in seq order, with no gap. No DOM here: the EventSource, the ticket and
// the session check are handed in, so the bookkeeping runs (and is tested) anywhere.
import { EVENT_TYPES, isLiveOnly } from './events.js';
import type { NormaEvent } from './types.js';

/** The part of an EventSource this uses. */
export interface SourceLike {
  readonly readyState: number;
  addEventListener(type: string, listener: (message: { data: string }) => void): void;
  close(): void;
}

/** EventSource.CLOSED: the browser gave up on the connection (an HTTP error or a 204). */
export const CLOSED = 2;

export type StreamStatus = 'connecting' | 'live' | 'reconnecting' | 'ended' | 'stopped';

export interface ResumeDeps {
  /** POST …/events/tickets → the ticket (good for one open within 60 s). */
  takeTicket(): Promise<string>;
  open(url: string): SourceLike;
  /** GET the session: whether it is closed (asked when a reopen is refused or answers 204). */
  sessionClosed(): Promise<boolean>;
  /** Each durable event once, in seq order, without gaps. */
  onEvent(event: NormaEvent): void;
  /** Live-only events (tool.progress, message.delta) as they come. */
  onLive(event: NormaEvent): void;
  onStatus(status: StreamStatus): void;
  /** A ticket or the session check failed; the stream retries unless `isFatal` says not to. */
  onError(error: unknown): void;
  isFatal(error: unknown): boolean;
  setTimer?: (fn: () => void, ms: number) => unknown;
  clearTimer?: (handle: unknown) => void;
}

export interface ResumeOptions {
  /** Start after this seq (0: from the first event). */
  after?: number;
  minDelayMs?: number;
  maxDelayMs?: number;
}

/** Where the next durable event stands against the last one delivered. */
export type SeqVerdict = 'next' | 'duplicate' | 'gap';

export function seqVerdict(last: number, seq: number): SeqVerdict {
  if (seq <= last) return 'duplicate';
  return seq === last + 1 ? 'next' : 'gap';
}

/** The events URL for one connection. */
export function eventsUrl(base: string, ticket: string, after: number): string {
  return `${base}?ticket=${encodeURIComponent(ticket)}${after > 0 ? `&after=${after}` : ''}`;
}

export class ResumableStream {
  private last: number;
  private delay: number;
  private readonly minDelay: number;
  private readonly maxDelay: number;
  private source: SourceLike | null = null;
  private timer: unknown = null;
  /** Bumped for every connection: callbacks of an older one are ignored. */
  private generation = 0;
  private done = false;
  /** The `last` at which a gap was refetched once: the same gap again is accepted (see handle). */
  private gapRefetchedAt: number | null = null;
  private readonly setTimer: (fn: () => void, ms: number) => unknown;
  private readonly clearTimer: (handle: unknown) => void;

  constructor(
    private readonly base: string,
    private readonly deps: ResumeDeps,
    options: ResumeOptions = {},
  ) {
    this.last = options.after ?? 0;
    this.minDelay = options.minDelayMs ?? 500;
    this.maxDelay = options.maxDelayMs ?? 5000;
    this.delay = this.minDelay;
    this.setTimer = deps.setTimer ?? ((fn, ms) => setTimeout(fn, ms));
    this.clearTimer = deps.clearTimer ?? ((h) => clearTimeout(h as ReturnType<typeof setTimeout>));
  }

  /** The seq of the last durable event delivered. */
  get lastSeq(): number {
    return this.last;
  }

  start(): void {
    void this.connect();
  }

  /** Stops for good (the view went away). */
  stop(): void {
    this.finish('stopped');
  }

  private finish(status: 'ended' | 'stopped'): void {
    if (this.done) return;
    this.done = true;
    this.generation++;
    this.source?.close();
    this.source = null;
    if (this.timer !== null) this.clearTimer(this.timer);
    this.timer = null;
    this.deps.onStatus(status);
  }

  private async connect(): Promise<void> {
    if (this.done) return;
    const generation = ++this.generation;
    this.deps.onStatus(this.last > 0 ? 'reconnecting' : 'connecting');
    let ticket: string;
    try {
      ticket = await this.deps.takeTicket();
    } catch (error) {
      if (generation === this.generation) this.failed(error);
      return;
    }
    if (generation !== this.generation) return;
    const source = this.deps.open(eventsUrl(this.base, ticket, this.last));
    this.source = source;
    let received = false;
    const current = () => generation === this.generation;
    source.addEventListener('open', () => {
      if (!current()) return;
      this.delay = this.minDelay;
      this.deps.onStatus('live');
    });
    for (const type of EVENT_TYPES) {
      source.addEventListener(type, (message) => {
        if (!current()) return;
        received = true;
        this.handle(message.data);
      });
    }
    source.addEventListener('error', () => {
      if (!current()) return;
      // Refused (a spent ticket, a 4xx) or a 204 (a closed session with nothing left): the
      // browser gave up at once. Read before close(), which sets CLOSED too.
      const refused = !received && source.readyState === CLOSED;
      // The browser would retry by itself, with the spent ticket: close and reopen ourselves.
      this.drop();
      // Refused: ask whether the session is closed before trying again.
      if (refused) void this.checkThenRetry(this.generation);
      else this.retry();
    });
  }

  private drop(): void {
    this.generation++;
    this.source?.close();
    this.source = null;
  }

  private handle(data: string): void {
    let event: NormaEvent;
    try {
      event = JSON.parse(data) as NormaEvent;
    } catch {
      return;
    }
    if (isLiveOnly(event)) {
      if (event.type === 'stream.end') {
        // The server ends this stream (shutdown, a slow reader, a revoked key): reopen after `last`.
        this.drop();
        this.retry();
      } else this.deps.onLive(event);
      return;
    }
    const verdict = seqVerdict(this.last, event.seq);
    if (verdict === 'duplicate') return;
    if (verdict === 'gap' && this.gapRefetchedAt !== this.last) {
      // Something was missed: refetch from the last contiguous seq at once.
      this.gapRefetchedAt = this.last;
      this.drop();
      void this.connect();
      return;
    }
    // 'next', or the same gap after a refetch: the missing seq is of a type this page does not
    // listen for (a newer server); accepting the jump beats reconnecting forever.
    this.last = event.seq;
    this.gapRefetchedAt = null;
    this.delay = this.minDelay;
    this.deps.onEvent(event);
    if (event.type === 'session.closed') this.finish('ended');
  }

  private async checkThenRetry(generation: number): Promise<void> {
    let closed: boolean;
    try {
      closed = await this.deps.sessionClosed();
    } catch (error) {
      if (generation === this.generation) this.failed(error);
      return;
    }
    if (generation !== this.generation || this.done) return;
    if (closed) this.finish('ended');
    else this.retry();
  }

  private failed(error: unknown): void {
    if (this.done) return;
    this.deps.onError(error);
    if (this.deps.isFatal(error)) this.finish('stopped');
    else this.retry();
  }

  private retry(): void {
    if (this.done) return;
    this.deps.onStatus('reconnecting');
    const wait = this.delay;
    this.delay = Math.min(this.maxDelay, this.delay * 2);
    if (this.timer !== null) this.clearTimer(this.timer);
    this.timer = this.setTimer(() => {
      this.timer = null;
      void this.connect();
    }, wait);
  }
}
