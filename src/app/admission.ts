// Admission of new turns: at most `maxRunning` turns this server started run at once (a turn holds
// its place until it ends or pauses for a person); beyond that a request waits in a bounded
// queue, at most `maxWaitMs`, and is refused with Retry-After past any bound — never left waiting
// while later requests are served.
// - Fair between tenants: a freed place goes to the tenants with waiting requests in turn (round
//   robin), each tenant's requests first come, first served; one tenant's burst delays another
//   tenant's request by at most one place per tenant ahead of it.
// - Bounded: `maxQueued` requests wait in all (503 beyond), `maxQueuedPerTenant` of one tenant
//   (429 beyond: the tenant's own excess), and none longer than `maxWaitMs` (503).
// - A request whose client went away leaves the queue at once.
import { DomainError } from '../errors.js';

export interface AdmissionOptions {
  maxRunning: number;
  maxQueued: number;
  maxQueuedPerTenant: number;
  maxWaitMs: number;
  now?: () => number;
}

/** A refusal with the seconds a client should wait before trying again. */
export class AdmissionRefused extends DomainError {
  constructor(kind: 'limit' | 'unavailable', message: string, retryAfterS: number) {
    super(kind, message);
    this.retryAfterS = retryAfterS;
  }
}

interface Waiter {
  tenant: string;
  since: number;
  admit(): void;
  refuse(err: DomainError): void;
  timer: NodeJS.Timeout;
}

/** A place taken: given back once (later calls do nothing). */
export interface Place {
  release(): void;
}

export class Admission {
  private running = 0;
  private queued = 0;
  private readonly queues = new Map<string, Waiter[]>();
  /** Tenants with waiting requests, in the order they get the next place. */
  private readonly ring: string[] = [];
  private readonly now: () => number;
  /** Places given back recently (their times), for Retry-After: how fast places free up. */
  private readonly freed: number[] = [];
  /** Counted since start: admitted at once, after waiting, refused (by bound). */
  readonly counts = { immediate: 0, waited: 0, refusedQueueFull: 0, refusedTenantQueue: 0, refusedWait: 0, gone: 0 };

  constructor(private readonly options: AdmissionOptions) {
    this.now = options.now ?? Date.now;
  }

  /**
   * A place for a new turn of `tenant`: at once when one is free and nobody waits, else after the
   * requests before it. Rejects with AdmissionRefused past a bound, or when `signal` aborts.
   */
  enter(tenant: string, signal?: AbortSignal): Promise<Place> {
    if (this.running < this.options.maxRunning && this.queued === 0) {
      this.counts.immediate++;
      return Promise.resolve(this.take());
    }
    if (this.queued >= this.options.maxQueued) {
      this.counts.refusedQueueFull++;
      return Promise.reject(new AdmissionRefused('unavailable', `the server runs ${this.running} turns and ${this.queued} more wait to start, as many as it queues; try again later`, this.retryAfterS()));
    }
    const own = this.queues.get(tenant);
    if ((own?.length ?? 0) >= this.options.maxQueuedPerTenant) {
      this.counts.refusedTenantQueue++;
      return Promise.reject(
        new AdmissionRefused('limit', `tenant ${tenant} has ${own!.length} turns waiting to start on this server, as many as one tenant may queue; try again later`, this.retryAfterS()),
      );
    }
    if (signal?.aborted) return Promise.reject(new DomainError('unavailable', 'the request was abandoned'));
    return new Promise<Place>((resolve, reject) => {
      const waiter: Waiter = {
        tenant,
        since: this.now(),
        admit: () => {
          signal?.removeEventListener('abort', onAbort);
          this.counts.waited++;
          resolve(this.take());
        },
        refuse: (err) => {
          signal?.removeEventListener('abort', onAbort);
          reject(err);
        },
        timer: setTimeout(() => {
          if (!this.remove(waiter)) return;
          this.counts.refusedWait++;
          waiter.refuse(new AdmissionRefused('unavailable', `the turn waited ${this.options.maxWaitMs} ms for one of the server's ${this.options.maxRunning} places to run and got none; try again later`, this.retryAfterS()));
        }, this.options.maxWaitMs),
      };
      waiter.timer.unref();
      const onAbort = (): void => {
        if (!this.remove(waiter)) return;
        this.counts.gone++;
        waiter.refuse(new DomainError('unavailable', 'the request was abandoned while it waited to start'));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      let q = this.queues.get(tenant);
      if (!q) {
        this.queues.set(tenant, (q = []));
        this.ring.push(tenant);
      }
      q.push(waiter);
      this.queued++;
    });
  }

  /** Turns running on places now, requests waiting, and how long the oldest has waited (ms). */
  status(): { running: number; queued: number; oldestWaitMs: number } {
    let oldest = Infinity;
    for (const q of this.queues.values()) if (q[0] && q[0].since < oldest) oldest = q[0].since;
    return { running: this.running, queued: this.queued, oldestWaitMs: oldest === Infinity ? 0 : this.now() - oldest };
  }

  private take(): Place {
    this.running++;
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        this.running--;
        const t = this.now();
        this.freed.push(t);
        while (this.freed.length > 0 && (this.freed.length > 1000 || this.freed[0]! < t - 10_000)) this.freed.shift();
        this.next();
      },
    };
  }

  /** Gives free places to waiting requests, one tenant after another. */
  private next(): void {
    while (this.running < this.options.maxRunning && this.ring.length > 0) {
      const tenant = this.ring.shift()!;
      const q = this.queues.get(tenant)!;
      const waiter = q.shift()!;
      this.queued--;
      if (q.length > 0) this.ring.push(tenant);
      else this.queues.delete(tenant);
      clearTimeout(waiter.timer);
      waiter.admit();
    }
  }

  private remove(waiter: Waiter): boolean {
    const q = this.queues.get(waiter.tenant);
    const i = q?.indexOf(waiter) ?? -1;
    if (!q || i < 0) return false;
    q.splice(i, 1);
    this.queued--;
    clearTimeout(waiter.timer);
    if (q.length === 0) {
      this.queues.delete(waiter.tenant);
      this.ring.splice(this.ring.indexOf(waiter.tenant), 1);
    }
    return true;
  }

  /** What the queue ahead will take to drain at the rate places freed over the last 10 s: 1–30 s. */
  private retryAfterS(): number {
    const t = this.now();
    const recent = this.freed.filter((x) => x >= t - 10_000).length;
    const perS = recent / 10;
    const s = perS > 0 ? Math.ceil((this.queued + 1) / perS) : 5;
    return Math.max(1, Math.min(30, s));
  }
}
