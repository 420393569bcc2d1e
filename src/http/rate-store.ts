// The counters of requests_per_minute when replicas share a PostgreSQL database: a store for
// @fastify/rate-limit whose counts live in the database (one fixed window per tenant), so a
// tenant's limit holds across every replica instead of once per replica.

export type CountRequest = (key: string, now: number, windowMs: number) => { count: number; ttl: number };

type Callback = (err: Error | null, res?: { current: number; ttl: number }) => void;

/** A store class as @fastify/rate-limit constructs it (`new Store(options)`), counting through `count`. */
export function sharedRateStore(count: CountRequest, now: () => number) {
  return class SharedRateStore {
    incr(key: string, cb: Callback, timeWindow: number): void {
      let res: { count: number; ttl: number };
      try {
        res = count(key, now(), timeWindow);
      } catch (err) {
        cb(err as Error);
        return;
      }
      cb(null, { current: res.count, ttl: res.ttl });
    }

    child(): SharedRateStore {
      return new SharedRateStore();
    }
  };
}
