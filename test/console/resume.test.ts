// The console's event stream: a new ticket for every connection, resume after the last seq,
// deduplication, gap refetch, backoff, and when it stops (session.closed, a 204 on a closed
// session, a fatal ticket error). EventSource, tickets and timers are fakes.
import { describe, expect, it } from 'vitest';
import { ResumableStream, eventsUrl, seqVerdict, type SourceLike, type StreamStatus } from '../../console/src/lib/resume.js';
import { ApiError } from '../../console/src/lib/problem.js';
import type { NormaEvent } from '../../console/src/lib/types.js';

class FakeSource implements SourceLike {
  readyState = 0;
  closed = false;
  private readonly listeners = new Map<string, ((m: { data: string }) => void)[]>();
  constructor(readonly url: string) {}
  addEventListener(type: string, listener: (m: { data: string }) => void): void {
    this.listeners.set(type, [...(this.listeners.get(type) ?? []), listener]);
  }
  close(): void {
    this.closed = true;
    this.readyState = 2;
  }
  emit(type: string, data = ''): void {
    for (const l of this.listeners.get(type) ?? []) l({ data });
  }
  open(): void {
    this.readyState = 1;
    this.emit('open');
  }
  send(e: { type: string; seq: number; [k: string]: unknown }): void {
    this.emit(e.type, JSON.stringify(e));
  }
  fail(readyState: number): void {
    this.readyState = readyState;
    this.emit('error');
  }
}

const ev = (seq: number, type = 'tool.started'): { type: string; seq: number; session_id: string; time: string } => ({
  type,
  seq,
  session_id: 'ses_1',
  time: new Date(1_700_000_000_000 + seq).toISOString(),
});

const flush = () => new Promise((r) => setTimeout(r, 0));

function harness(opts: { closed?: boolean; ticketErrors?: unknown[] } = {}) {
  const sources: FakeSource[] = [];
  const timers: { fn: () => void; ms: number; cleared: boolean }[] = [];
  const delivered: number[] = [];
  const live: NormaEvent[] = [];
  const statuses: StreamStatus[] = [];
  const errors: unknown[] = [];
  let tickets = 0;
  let checks = 0;
  const ticketErrors = [...(opts.ticketErrors ?? [])];
  const stream = new ResumableStream('/v1/sessions/ses_1/events', {
    takeTicket: async () => {
      const err = ticketErrors.shift();
      if (err) throw err;
      return `t${++tickets}`;
    },
    open: (url) => {
      const s = new FakeSource(url);
      sources.push(s);
      return s;
    },
    sessionClosed: async () => {
      checks++;
      return opts.closed ?? false;
    },
    onEvent: (e) => delivered.push(e.seq),
    onLive: (e) => live.push(e),
    onStatus: (s) => statuses.push(s),
    onError: (e) => errors.push(e),
    isFatal: (e) => e instanceof ApiError && [401, 403, 404].includes(e.status),
    setTimer: (fn, ms) => {
      const t = { fn, ms, cleared: false };
      timers.push(t);
      return t;
    },
    clearTimer: (h) => {
      (h as { cleared: boolean }).cleared = true;
    },
  });
  const pendingTimers = () => timers.filter((t) => !t.cleared);
  /** Runs the timers due now (each once) and lets the ticket promises settle. */
  const tick = async () => {
    const due = pendingTimers();
    for (const t of due) t.cleared = true;
    for (const t of due) t.fn();
    await flush();
  };
  return { stream, sources, timers, pendingTimers, tick, delivered, live, statuses, errors, tickets: () => tickets, checks: () => checks };
}

describe('seq bookkeeping', () => {
  it('tells the next seq from duplicates and gaps', () => {
    expect(seqVerdict(0, 1)).toBe('next');
    expect(seqVerdict(5, 6)).toBe('next');
    expect(seqVerdict(5, 5)).toBe('duplicate');
    expect(seqVerdict(5, 2)).toBe('duplicate');
    expect(seqVerdict(5, 7)).toBe('gap');
  });

  it('builds the URL with the ticket and, once something was seen, after=', () => {
    expect(eventsUrl('/v1/sessions/s/events', 'abc', 0)).toBe('/v1/sessions/s/events?ticket=abc');
    expect(eventsUrl('/v1/sessions/s/events', 'a-b_c', 12)).toBe('/v1/sessions/s/events?ticket=a-b_c&after=12');
  });
});

describe('ResumableStream', () => {
  it('opens with a ticket, delivers events in seq order once each', async () => {
    const h = harness();
    h.stream.start();
    await flush();
    expect(h.sources).toHaveLength(1);
    expect(h.sources[0]!.url).toBe('/v1/sessions/ses_1/events?ticket=t1');
    h.sources[0]!.open();
    expect(h.statuses.at(-1)).toBe('live');
    for (const seq of [1, 2, 2, 1, 3]) h.sources[0]!.send(ev(seq));
    expect(h.delivered).toEqual([1, 2, 3]);
    expect(h.stream.lastSeq).toBe(3);
  });

  it('listens for every named event type, not only unnamed messages', async () => {
    const h = harness();
    h.stream.start();
    await flush();
    h.sources[0]!.send(ev(1, 'permission.requested'));
    h.sources[0]!.send(ev(2, 'question.asked'));
    h.sources[0]!.send(ev(3, 'hook.failed'));
    expect(h.delivered).toEqual([1, 2, 3]);
  });

  it('on an error closes the source itself and reopens with a new ticket after the last seq', async () => {
    const h = harness();
    h.stream.start();
    await flush();
    const first = h.sources[0]!;
    first.open();
    first.send(ev(1));
    first.send(ev(2));
    first.fail(0); // the browser would retry with the spent ticket
    expect(first.closed).toBe(true);
    expect(h.pendingTimers().map((t) => t.ms)).toEqual([500]);
    expect(h.sources).toHaveLength(1);
    await h.tick();
    expect(h.tickets()).toBe(2);
    expect(h.sources[1]!.url).toBe('/v1/sessions/ses_1/events?ticket=t2&after=2');
    // The replay overlaps what was seen: no duplicate, no gap.
    for (const seq of [2, 3, 4]) h.sources[1]!.send(ev(seq));
    expect(h.delivered).toEqual([1, 2, 3, 4]);
    // Events of the old source after it was dropped are ignored.
    first.send(ev(5));
    expect(h.delivered).toEqual([1, 2, 3, 4]);
  });

  it('backs off 0.5 s doubling to 5 s, and starts again at 0.5 s after an event', async () => {
    const h = harness();
    h.stream.start();
    await flush();
    const waits: number[] = [];
    for (let i = 0; i < 6; i++) {
      h.sources.at(-1)!.fail(0);
      waits.push(h.pendingTimers()[0]!.ms);
      await h.tick();
    }
    expect(waits).toEqual([500, 1000, 2000, 4000, 5000, 5000]);
    h.sources.at(-1)!.send(ev(1));
    h.sources.at(-1)!.fail(0);
    expect(h.pendingTimers()[0]!.ms).toBe(500);
  });

  it('refetches from the last contiguous seq when a gap appears', async () => {
    const h = harness();
    h.stream.start();
    await flush();
    const s = h.sources[0]!;
    s.send(ev(1));
    s.send(ev(2));
    s.send(ev(4));
    expect(h.delivered).toEqual([1, 2]);
    expect(s.closed).toBe(true);
    await flush();
    expect(h.sources[1]!.url).toContain('&after=2');
    h.sources[1]!.send(ev(3));
    h.sources[1]!.send(ev(4));
    expect(h.delivered).toEqual([1, 2, 3, 4]);
  });

  it('accepts the same gap after one refetch (a type it does not listen for) instead of looping', async () => {
    const h = harness();
    h.stream.start();
    await flush();
    h.sources[0]!.send(ev(1));
    h.sources[0]!.send(ev(3));
    await flush();
    expect(h.sources).toHaveLength(2);
    h.sources[1]!.send(ev(3));
    expect(h.delivered).toEqual([1, 3]);
    expect(h.sources).toHaveLength(2);
  });

  it('stops after session.closed', async () => {
    const h = harness();
    h.stream.start();
    await flush();
    h.sources[0]!.send(ev(1));
    h.sources[0]!.send(ev(2, 'session.closed'));
    expect(h.statuses.at(-1)).toBe('ended');
    expect(h.sources[0]!.closed).toBe(true);
    h.sources[0]!.fail(2);
    await h.tick();
    expect(h.sources).toHaveLength(1);
    expect(h.pendingTimers()).toHaveLength(0);
  });

  it('a refused reopen (204) of a closed session: checks the session and stops', async () => {
    const h = harness({ closed: true });
    h.stream.start();
    await flush();
    h.sources[0]!.send(ev(1));
    h.sources[0]!.fail(0);
    await h.tick();
    // The reopen answers 204: error with readyState CLOSED and no message.
    h.sources[1]!.fail(2);
    await flush();
    expect(h.checks()).toBe(1);
    expect(h.statuses.at(-1)).toBe('ended');
    expect(h.pendingTimers()).toHaveLength(0);
  });

  it('a refused open of a session that is still active: retries with a new ticket', async () => {
    const h = harness({ closed: false });
    h.stream.start();
    await flush();
    h.sources[0]!.fail(2);
    await flush();
    expect(h.checks()).toBe(1);
    expect(h.pendingTimers()).toHaveLength(1);
    await h.tick();
    expect(h.sources).toHaveLength(2);
    expect(h.tickets()).toBe(2);
  });

  it('reopens after a stream.end notice', async () => {
    const h = harness();
    h.stream.start();
    await flush();
    h.sources[0]!.send(ev(1));
    h.sources[0]!.send({ ...ev(1, 'stream.end'), reason: 'shutdown', resume_after: 1 });
    expect(h.sources[0]!.closed).toBe(true);
    await h.tick();
    expect(h.sources[1]!.url).toContain('&after=1');
    expect(h.live).toHaveLength(0);
  });

  it('hands live-only events on without touching the seq order', async () => {
    const h = harness();
    h.stream.start();
    await flush();
    const s = h.sources[0]!;
    s.send(ev(1));
    s.send({ ...ev(1, 'tool.progress'), chunk: 'x' });
    s.send({ ...ev(1, 'message.delta'), text: 'y' });
    s.send(ev(2));
    expect(h.delivered).toEqual([1, 2]);
    expect(h.live.map((e) => e.type)).toEqual(['tool.progress', 'message.delta']);
  });

  it('retries a failed ticket, stops on a fatal one', async () => {
    const h = harness({ ticketErrors: [new ApiError(0, 'offline'), new ApiError(401, 'ended')] });
    h.stream.start();
    await flush();
    expect(h.errors).toHaveLength(1);
    expect(h.pendingTimers()).toHaveLength(1);
    await h.tick();
    expect(h.errors).toHaveLength(2);
    expect(h.statuses.at(-1)).toBe('stopped');
    expect(h.pendingTimers()).toHaveLength(0);
    expect(h.sources).toHaveLength(0);
  });

  it('stop() closes the source and cancels a pending reconnect', async () => {
    const h = harness();
    h.stream.start();
    await flush();
    h.sources[0]!.fail(0);
    expect(h.pendingTimers()).toHaveLength(1);
    h.stream.stop();
    expect(h.pendingTimers()).toHaveLength(0);
    expect(h.statuses.at(-1)).toBe('stopped');
  });
});
