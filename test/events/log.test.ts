// The event log: per-session seq, durable vs live-only, and replay-then-live with no gap
// and no duplicate even when events are emitted during the replay.
import { describe, expect, it } from 'vitest';
import type { NormaEvent } from '../../src/contract/events.js';
import { EventLog } from '../../src/events/log.js';
import { MemoryStore } from '../../src/store/memory.js';

const clock = () => new Date('2026-01-01T00:00:00Z');
const closed = (reason: string) => ({ type: 'session.closed' as const, reason });
const progress = (chunk: string) => ({ type: 'tool.progress' as const, turn_id: 't', tool_use_id: 'u', chunk });

describe('EventLog', () => {
  it('numbers durable events 1, 2, 3… per session and stamps session and time', () => {
    const log = new EventLog(new MemoryStore(), clock);
    const a = log.emit('s1', closed('a'));
    const b = log.emit('s1', closed('b'));
    const c = log.emit('s2', closed('c'));
    expect([a.seq, b.seq, c.seq]).toEqual([1, 2, 1]);
    expect(a).toMatchObject({ session_id: 's1', time: '2026-01-01T00:00:00.000Z', type: 'session.closed' });
  });

  it('live-only events repeat the last seq, are not stored and are not replayed', () => {
    const store = new MemoryStore();
    const log = new EventLog(store, clock);
    log.emit('s', closed('1'));
    const p = log.emit('s', progress('x'));
    expect(p.seq).toBe(1);
    expect(store.lastSeq('s')).toBe(1);
    const replayed: NormaEvent[] = [];
    log.subscribe('s', 0, (e) => replayed.push(e)).close();
    expect(replayed.map((e) => e.type)).toEqual(['session.closed']);
  });

  it('replays after a given seq, then delivers live events, then stops after close()', () => {
    const log = new EventLog(new MemoryStore(), clock);
    for (let i = 1; i <= 5; i++) log.emit('s', closed(String(i)));
    const got: number[] = [];
    const sub = log.subscribe('s', 3, (e) => got.push(e.seq));
    expect(got).toEqual([4, 5]);
    log.emit('s', closed('6'));
    sub.close();
    log.emit('s', closed('7'));
    expect(got).toEqual([4, 5, 6]);
  });

  it('events emitted while the replay is delivering arrive once, in order, with no gap', () => {
    const log = new EventLog(new MemoryStore(), clock);
    for (let i = 1; i <= 1200; i++) log.emit('s', closed(String(i)));
    const got: number[] = [];
    let emittedDuringReplay = 0;
    log.subscribe('s', 0, (e) => {
      got.push(e.seq);
      // Emit from inside delivery during the replay (spans several replay pages).
      if (e.seq % 100 === 0 && emittedDuringReplay < 10) {
        emittedDuringReplay++;
        log.emit('s', closed(`during-${e.seq}`));
      }
    });
    log.emit('s', closed('after'));
    const total = 1200 + emittedDuringReplay + 1;
    expect(emittedDuringReplay).toBe(10);
    expect(got).toEqual(Array.from({ length: total }, (_, i) => i + 1));
  });

  it('a subscriber does not receive live-only events of the replay window, only later ones', () => {
    const log = new EventLog(new MemoryStore(), clock);
    log.emit('s', closed('1'));
    const got: string[] = [];
    const sub = log.subscribe('s', 0, (e) => got.push(e.type));
    log.emit('s', progress('live'));
    sub.close();
    expect(got).toEqual(['session.closed', 'tool.progress']);
  });

  it('the store refuses an out-of-order append', () => {
    const store = new MemoryStore();
    expect(() => store.appendEvent({ type: 'session.closed', reason: 'x', session_id: 's', seq: 2, time: 't' })).toThrow(/out of order/);
  });
});

describe('EventLog.subscribePaced', () => {
  it('waits whenever the consumer is full, keeps reading from the store, then goes live without gap or duplicate', async () => {
    const log = new EventLog(new MemoryStore(), clock);
    for (let i = 0; i < 1200; i++) log.emit('s', closed(String(i)));
    const got: number[] = [];
    let release: (() => void) | undefined;
    let waits = 0;
    const sub = log.subscribePaced(
      's',
      0,
      (e) => got.push(e.seq),
      // Full after every 100 events; the test lets it go on, emitting more meanwhile.
      () => (got.length % 100 === 0 ? new Promise<void>((r) => ((release = r), waits++)) : null),
    );
    let extra = 0;
    while (got.length < 1250) {
      await new Promise((r) => setImmediate(r));
      if (extra < 50) log.emit('s', closed(`live ${extra++}`));
      release?.();
      release = undefined;
    }
    sub.close();
    expect(waits).toBeGreaterThanOrEqual(12);
    expect(got).toEqual(Array.from({ length: 1250 }, (_, i) => i + 1));
    log.emit('s', closed('after close'));
    await new Promise((r) => setImmediate(r));
    expect(got).toHaveLength(1250);
  });

  it('reports when it goes live, and a close during the replay stops it', async () => {
    const log = new EventLog(new MemoryStore(), clock);
    for (let i = 0; i < 3; i++) log.emit('s', closed(String(i)));
    const order: string[] = [];
    log.subscribePaced('s', 1, (e) => order.push(`e${e.seq}`), () => null, () => order.push('live'));
    await new Promise((r) => setImmediate(r));
    log.emit('s', closed('x'));
    expect(order).toEqual(['e2', 'e3', 'live', 'e4']);

    const got: number[] = [];
    const sub = log.subscribePaced('s', 0, (e) => got.push(e.seq), () => new Promise<void>(() => undefined));
    sub.close();
    await new Promise((r) => setImmediate(r));
    log.emit('s', closed('y'));
    expect(got).toEqual([1]);
  });
});
