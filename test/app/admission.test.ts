// Turn admission: a bounded number run at once, the rest wait first come first served per tenant
// and in turn between tenants, nobody waits past the bound, and every refusal says when to retry.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Admission, AdmissionRefused, type Place } from '../../src/app/admission.js';
import { DomainError } from '../../src/errors.js';

const opts = { maxRunning: 2, maxQueued: 6, maxQueuedPerTenant: 4, maxWaitMs: 5_000 };

describe('Admission', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('admits at once up to its places, then queues; a freed place goes to the tenants in turn, each first come first served', async () => {
    const a = new Admission({ ...opts, maxQueued: 20, maxQueuedPerTenant: 10 });
    const running = [await a.enter('t1'), await a.enter('t1')];
    const order: string[] = [];
    const places: Place[] = [];
    const wait = (tenant: string, tag: string) =>
      void a.enter(tenant).then((p) => {
        order.push(tag);
        places.push(p);
      });
    // A burst of one tenant, then one request of each of two others.
    for (let i = 1; i <= 5; i++) wait('big', `big${i}`);
    wait('small', 'small1');
    wait('other', 'other1');
    wait('small', 'small2');
    expect(a.status()).toMatchObject({ running: 2, queued: 8 });
    running[0]!.release();
    running[0]!.release(); // twice gives back one place
    await Promise.resolve();
    expect(order).toEqual(['big1']);
    for (let i = 0; i < 7; i++) {
      places.shift()!.release();
      await Promise.resolve();
    }
    // The burst's later requests go behind the other tenants' first ones; each tenant in its own order.
    expect(order).toEqual(['big1', 'small1', 'other1', 'big2', 'small2', 'big3', 'big4', 'big5']);
    expect(a.status()).toMatchObject({ queued: 0, oldestWaitMs: 0 });
    expect(a.counts).toMatchObject({ immediate: 2, waited: 8 });
  });

  it('refuses past its bounds with Retry-After: the whole queue 503, one tenant\'s share 429, the wait 503', async () => {
    const a = new Admission(opts);
    await a.enter('t1');
    await a.enter('t1');
    const waiting = [1, 2, 3, 4].map(() => a.enter('greedy'));
    const tenantFull = await a.enter('greedy').catch((e: unknown) => e);
    expect(tenantFull).toBeInstanceOf(AdmissionRefused);
    expect((tenantFull as AdmissionRefused).kind).toBe('limit');
    expect((tenantFull as AdmissionRefused).retryAfterS).toBeGreaterThanOrEqual(1);
    const others = [a.enter('x'), a.enter('y')];
    const full = await a.enter('z').catch((e: unknown) => e);
    expect(full).toBeInstanceOf(AdmissionRefused);
    expect((full as AdmissionRefused).kind).toBe('unavailable');
    expect((full as Error).message).toMatch(/as many as it queues/);
    // Nobody waits longer than the bound: each is refused at it, oldest first, with a retry time.
    vi.advanceTimersByTime(4_999);
    expect(a.status()).toMatchObject({ queued: 6, oldestWaitMs: 4_999 });
    vi.advanceTimersByTime(1);
    const outcomes = await Promise.allSettled([...waiting, ...others]);
    for (const o of outcomes) {
      expect(o.status).toBe('rejected');
      const err = (o as PromiseRejectedResult).reason as AdmissionRefused;
      expect(err.kind).toBe('unavailable');
      expect(err.message).toMatch(/waited 5000 ms/);
      expect(err.retryAfterS).toBeGreaterThanOrEqual(1);
      expect(err.retryAfterS).toBeLessThanOrEqual(30);
    }
    expect(a.counts).toMatchObject({ refusedQueueFull: 1, refusedTenantQueue: 1, refusedWait: 6 });
    expect(a.status()).toMatchObject({ running: 2, queued: 0 });
  });

  it('a request whose client went away leaves the queue, and the next one gets the place', async () => {
    const a = new Admission(opts);
    const p1 = await a.enter('t');
    await a.enter('t');
    const ac = new AbortController();
    const gone = a.enter('t', ac.signal).catch((e: unknown) => e);
    const next = a.enter('t');
    ac.abort();
    expect(await gone).toBeInstanceOf(DomainError);
    p1.release();
    await expect(next).resolves.toBeDefined();
    expect(a.counts.gone).toBe(1);
    const already = new AbortController();
    already.abort();
    await expect(a.enter('t', already.signal)).rejects.toThrow(/abandoned/);
  });

  it('under a random load of many tenants nobody is overtaken by more than one request per other tenant', async () => {
    const a = new Admission({ maxRunning: 3, maxQueued: 10_000, maxQueuedPerTenant: 10_000, maxWaitMs: 60_000 });
    let seed = 42;
    const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    const tenants = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'];
    const admitted: { tenant: string; n: number }[] = [];
    const places: Place[] = [];
    const asked: { tenant: string; n: number }[] = [];
    /** How many were admitted when each request was made. */
    const servedBefore = new Map<number, number>();
    for (let i = 0; i < 600; i++) {
      const tenant = tenants[Math.floor(rand() * rand() * tenants.length)]!; // skewed: a few tenants ask most
      const req = { tenant, n: i };
      asked.push(req);
      servedBefore.set(i, admitted.length);
      void a.enter(tenant).then((p) => {
        admitted.push(req);
        places.push(p);
      });
      await Promise.resolve();
      if (rand() < 0.5 && places.length > 0) places.splice(Math.floor(rand() * places.length), 1)[0]!.release();
      await Promise.resolve();
    }
    while (admitted.length < asked.length) {
      places.shift()!.release();
      await Promise.resolve();
    }
    // Per tenant, first come first served.
    for (const t of tenants) {
      const mine = admitted.filter((x) => x.tenant === t).map((x) => x.n);
      expect(mine).toEqual([...mine].sort((x, y) => x - y));
    }
    // Round robin: a request with k of its own tenant's still waiting ahead of it is admitted within
    // k + 1 rounds, so no other tenant's later request overtakes it more than k + 1 times.
    const position = new Map(admitted.map((x, i) => [x.n, i]));
    let waitedBehindOthers = 0;
    for (const r of asked) {
      const ownAhead = asked.filter((o) => o.tenant === r.tenant && o.n < r.n && position.get(o.n)! >= servedBefore.get(r.n)!).length;
      const perTenant = new Map<string, number>();
      for (const o of asked) {
        if (o.n > r.n && o.tenant !== r.tenant && position.get(o.n)! < position.get(r.n)!) perTenant.set(o.tenant, (perTenant.get(o.tenant) ?? 0) + 1);
      }
      for (const n of perTenant.values()) expect(n).toBeLessThanOrEqual(ownAhead + 1);
      if (perTenant.size > 0) waitedBehindOthers++;
    }
    // The load did make requests wait behind other tenants' (the property above was exercised).
    expect(waitedBehindOthers).toBeGreaterThan(50);
  });
});
