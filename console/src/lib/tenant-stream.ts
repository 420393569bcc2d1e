// Following the tenant's stream of all its sessions (GET /v1/events) over EventSource: a fresh
// single-use ticket for every (re)connection, `after=<the last id seen>` so nothing is missed
// between two connections, and only the event types asked for. No DOM here: the EventSource and
// the ticket are handed in, so the bookkeeping runs (and is tested) anywhere.
import { CLOSED, type SourceLike, type StreamStatus } from './resume.js';
import type { NormaEvent } from './types.js';

/** The part of an EventSource message this uses (`lastEventId`: the block's `id:`). */
export interface TenantMessage {
  data: string;
  lastEventId?: string;
}

export interface TenantSource extends Omit<SourceLike, 'addEventListener'> {
  addEventListener(type: string, listener: (message: TenantMessage) => void): void;
}

export interface TenantStreamDeps {
  /** POST /v1/events/tickets → the ticket. */
  takeTicket(): Promise<string>;
  open(url: string): TenantSource;
  onEvent(event: NormaEvent): void;
  onStatus(status: StreamStatus): void;
  onError(error: unknown): void;
  isFatal(error: unknown): boolean;
  setTimer?: (fn: () => void, ms: number) => unknown;
  clearTimer?: (handle: unknown) => void;
}

/** The stream's URL for one connection. */
export function tenantEventsUrl(base: string, ticket: string, types: readonly string[], after: string | null): string {
  const q = [`ticket=${encodeURIComponent(ticket)}`, ...types.map((t) => `type=${encodeURIComponent(t)}`)];
  if (after !== null) q.push(`after=${encodeURIComponent(after)}`);
  return `${base}?${q.join('&')}`;
}

export class TenantStream {
  private cursor: string | null = null;
  private source: TenantSource | null = null;
  private timer: unknown = null;
  private generation = 0;
  private done = false;
  private delay: number;
  private readonly setTimer: (fn: () => void, ms: number) => unknown;
  private readonly clearTimer: (handle: unknown) => void;

  constructor(
    private readonly base: string,
    private readonly types: readonly string[],
    private readonly deps: TenantStreamDeps,
    private readonly minDelayMs = 500,
    private readonly maxDelayMs = 5000,
  ) {
    this.delay = minDelayMs;
    this.setTimer = deps.setTimer ?? ((fn, ms) => setTimeout(fn, ms));
    this.clearTimer = deps.clearTimer ?? ((h) => clearTimeout(h as ReturnType<typeof setTimeout>));
  }

  /** The id of the last event delivered (null: none yet). */
  get lastId(): string | null {
    return this.cursor;
  }

  start(): void {
    void this.connect();
  }

  stop(): void {
    if (this.done) return;
    this.done = true;
    this.generation++;
    this.source?.close();
    this.source = null;
    if (this.timer !== null) this.clearTimer(this.timer);
    this.timer = null;
    this.deps.onStatus('stopped');
  }

  private async connect(): Promise<void> {
    if (this.done) return;
    const generation = ++this.generation;
    this.deps.onStatus(this.cursor === null ? 'connecting' : 'reconnecting');
    let ticket: string;
    try {
      ticket = await this.deps.takeTicket();
    } catch (error) {
      if (generation !== this.generation) return;
      this.deps.onError(error);
      if (this.deps.isFatal(error)) this.stop();
      else this.retry();
      return;
    }
    if (generation !== this.generation) return;
    const source = this.deps.open(tenantEventsUrl(this.base, ticket, this.types, this.cursor));
    this.source = source;
    const current = () => generation === this.generation;
    source.addEventListener('open', () => {
      if (!current()) return;
      this.delay = this.minDelayMs;
      this.deps.onStatus('live');
    });
    for (const type of this.types) {
      source.addEventListener(type, (message) => {
        if (!current()) return;
        if (message.lastEventId) this.cursor = message.lastEventId;
        let event: NormaEvent;
        try {
          event = JSON.parse(message.data) as NormaEvent;
        } catch {
          return;
        }
        this.deps.onEvent(event);
      });
    }
    // The server ended the stream (shutdown, a revoked key): reconnect from the last id.
    source.addEventListener('stream.end', () => {
      if (!current()) return;
      source.close();
      this.retry();
    });
    source.addEventListener('error', () => {
      if (!current()) return;
      // The browser would reconnect with the spent ticket: a fresh one instead.
      if (source.readyState !== CLOSED) source.close();
      this.retry();
    });
  }

  private retry(): void {
    if (this.done) return;
    this.generation++;
    this.source = null;
    const wait = this.delay;
    this.delay = Math.min(this.maxDelayMs, this.delay * 2);
    this.deps.onStatus('reconnecting');
    this.timer = this.setTimer(() => {
      this.timer = null;
      void this.connect();
    }, wait);
  }
}
