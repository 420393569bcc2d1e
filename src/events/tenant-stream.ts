// One stream of every session of a tenant (API.md "An inbox for people": GET /v1/events). Its
// order is the store's tenant log (the order events of the tenant's sessions committed, whichever
// replica committed them) and its cursor is the store's, so a reconnection resumes exactly where
// the last delivered event was. Each subscriber reads the log from its own cursor, paced by its
// own socket: a slow one never holds the others, nor piles events up in memory. A commit here, a
// notification from another replica, or a periodic check wakes the readers (several wakes in one
// tick make one read each).
import type { NormaEvent } from '../contract/events.js';
import { DomainError } from '../errors.js';
import type { Store, TenantEvent } from '../store/store.js';

const PAGE = 500;
/** How often readers look again without a wake (a missed notification, a commit held back). */
const POLL_MS = 1_000;
/** Streams one tenant may have open at once, and all tenants together. */
export const MAX_TENANT_STREAMS = 100;
export const MAX_STREAMS = 1_000;

export interface TenantSubscription {
  close(): void;
}

interface Reader {
  tenant: string;
  cursor: string;
  deliver: (event: NormaEvent, cursor: string) => void;
  room: () => Promise<void> | null;
  reading: boolean;
  again: boolean;
  closed: boolean;
}

export class TenantStreams {
  private readonly readers = new Map<string, Set<Reader>>();
  private count = 0;
  private scheduled = false;
  private poll: NodeJS.Timeout | undefined;

  constructor(private readonly store: Store) {}

  /** Where a stream opened now starts: after everything committed so far. */
  head(tenant: string): Promise<string> | string {
    return this.store.later?.tenantHead ? this.store.later.tenantHead(tenant) : this.store.tenantHead(tenant);
  }

  /** Whether `cursor` is one this store makes (a malformed one is the client's error). */
  validCursor(cursor: string): boolean {
    return this.store.validTenantCursor(cursor);
  }

  /** Refuses (a `limit` error) when the tenant or the server has as many streams open as allowed. */
  assertRoom(tenant: string): void {
    if ((this.readers.get(tenant)?.size ?? 0) >= MAX_TENANT_STREAMS) throw new DomainError('limit', `the tenant has ${MAX_TENANT_STREAMS} event streams open; close one first`);
    if (this.count >= MAX_STREAMS) throw new DomainError('limit', `the server has ${MAX_STREAMS} tenant event streams open; try again later`);
  }

  /** Delivers every event of the tenant's sessions after `cursor`, in the log's order, then as they commit. */
  subscribe(tenant: string, cursor: string, deliver: Reader['deliver'], room: Reader['room']): TenantSubscription {
    this.assertRoom(tenant);
    const mine = this.readers.get(tenant);
    const reader: Reader = { tenant, cursor, deliver, room, reading: false, again: false, closed: false };
    let set = mine;
    if (!set) this.readers.set(tenant, (set = new Set()));
    set.add(reader);
    this.count++;
    this.poll ??= setInterval(() => this.wake(), POLL_MS).unref();
    void this.pump(reader);
    return {
      close: () => {
        if (reader.closed) return;
        reader.closed = true;
        this.count--;
        const s = this.readers.get(tenant);
        s?.delete(reader);
        if (s && s.size === 0) this.readers.delete(tenant);
        if (this.count === 0 && this.poll) {
          clearInterval(this.poll);
          this.poll = undefined;
        }
      },
    };
  }

  /** Something committed (here or on another replica): every reader reads on, once per tick. */
  wake(): void {
    if (this.count === 0 || this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      for (const set of this.readers.values()) for (const r of set) void this.pump(r);
    });
  }

  /** Open streams (metrics, tests). */
  get open(): number {
    return this.count;
  }

  private async pump(r: Reader): Promise<void> {
    if (r.reading) {
      r.again = true;
      return;
    }
    r.reading = true;
    try {
      for (;;) {
        r.again = false;
        const page = await this.read(r.tenant, r.cursor);
        for (const { event, cursor } of page) {
          if (r.closed) return;
          r.deliver(event, cursor);
          r.cursor = cursor;
          const wait = r.room();
          if (wait) {
            await wait;
            r.again = true;
            break;
          }
        }
        if (r.closed || (page.length < PAGE && !r.again)) return;
      }
    } catch {
      // The store cannot be read now: the next wake or poll reads on from the same cursor.
    } finally {
      r.reading = false;
    }
  }

  private read(tenant: string, cursor: string): Promise<TenantEvent[]> | TenantEvent[] {
    const later = this.store.later;
    return later?.tenantEventsAfter ? later.tenantEventsAfter(tenant, cursor, PAGE) : this.store.tenantEventsAfter(tenant, cursor, PAGE);
  }
}
