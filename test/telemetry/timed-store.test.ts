// The timing wrapper hands on what the store it wraps has of the Store's optional parts (reads
// that do not wait, waiting for a session's commits, forgetting a session), exactly as it has
// them: a part the inner store lacks stays absent, so callers that test for it behave as with the
// inner store itself.
import { Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { MemoryStore } from '../../src/store/memory.js';
import type { LaterReads, Store } from '../../src/store/store.js';
import { TimedStore } from '../../src/telemetry/timed-store.js';

const histogram = () => new Histogram({ name: 'op_seconds', help: 'h', labelNames: ['operation'] as const, registers: [new Registry()] });

describe('TimedStore', () => {
  it('has no optional part its store lacks', () => {
    const timed = new TimedStore(new MemoryStore(), histogram());
    expect(timed.later).toBeUndefined();
    expect(timed.whenCommitted).toBeUndefined();
    expect(timed.forget).toBeUndefined();
  });

  it('hands on the optional parts its store has', async () => {
    const inner = new MemoryStore() as MemoryStore & { later?: LaterReads; whenCommitted?: Store['whenCommitted']; forget?: Store['forget'] };
    const forgotten: string[] = [];
    let release: () => void = () => undefined;
    const committed = new Promise<void>((r) => (release = r));
    const later = { lastSeq: async () => 7 } as unknown as LaterReads;
    inner.later = later;
    inner.whenCommitted = () => committed;
    inner.forget = (id) => forgotten.push(id);
    const timed = new TimedStore(inner, histogram());
    expect(timed.later).toBe(later);
    expect(await timed.later!.lastSeq('ses_x')).toBe(7);
    let done = false;
    const waiting = timed.whenCommitted!('ses_x').then(() => (done = true));
    await Promise.resolve();
    expect(done).toBe(false);
    release();
    await waiting;
    expect(done).toBe(true);
    timed.forget!('ses_y');
    expect(forgotten).toEqual(['ses_y']);
  });
});
