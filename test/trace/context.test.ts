// W3C trace context: which traceparent headers are continued, what an outbound request carries,
// and that the trace follows the work through promises and timers.
import { describe, expect, it } from 'vitest';
import { currentTrace, newTrace, outboundTraceHeaders, parseTraceparent, runInTrace, traceFromHeaders, withTraceHeaders } from '../../src/trace/context.js';

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT = '00f067aa0ba902b7';
const VALID = `00-${TRACE}-${PARENT}-01`;
const OUTBOUND = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

describe('parseTraceparent', () => {
  it('takes a version-00 header as the spec writes it', () => {
    expect(parseTraceparent(VALID)).toEqual({ traceId: TRACE, parentId: PARENT, flags: '01' });
    expect(parseTraceparent(`00-${TRACE}-${PARENT}-00`)).toEqual({ traceId: TRACE, parentId: PARENT, flags: '00' });
  });

  it.each([
    ['upper-case hex', `00-${TRACE.toUpperCase()}-${PARENT}-01`],
    ['an all-zero trace id', `00-${'0'.repeat(32)}-${PARENT}-01`],
    ['an all-zero parent id', `00-${TRACE}-${'0'.repeat(16)}-01`],
    ['version ff', `ff-${TRACE}-${PARENT}-01`],
    ['another version', `01-${TRACE}-${PARENT}-01`],
    ['a short trace id', `00-${TRACE.slice(1)}-${PARENT}-01`],
    ['a long parent id', `00-${TRACE}-${PARENT}0-01`],
    ['extra fields on version 00', `${VALID}-extra`],
    ['no flags', `00-${TRACE}-${PARENT}`],
    ['non-hex characters', `00-${TRACE.slice(0, 31)}g-${PARENT}-01`],
    ['an empty value', ''],
  ])('refuses %s', (_what, header) => {
    expect(parseTraceparent(header)).toBeNull();
  });
});

describe('traceFromHeaders', () => {
  it('continues a valid traceparent and keeps its tracestate', () => {
    expect(traceFromHeaders({ traceparent: VALID, tracestate: 'vendor=abc,other=1' })).toEqual({ traceId: TRACE, parentId: PARENT, flags: '01', state: 'vendor=abc,other=1' });
  });

  it('starts a new trace for an invalid or missing traceparent, dropping the tracestate', () => {
    for (const headers of [{}, { traceparent: 'garbage', tracestate: 'vendor=abc' }, { traceparent: `00-${'0'.repeat(32)}-${PARENT}-01` }]) {
      const t = traceFromHeaders(headers);
      expect(t.traceId).toMatch(/^[0-9a-f]{32}$/);
      expect(t.traceId).not.toBe('0'.repeat(32));
      expect(t.parentId).toBeNull();
      expect(t.state).toBeUndefined();
    }
    // Every request of its own: no two new traces share an id.
    expect(traceFromHeaders({}).traceId).not.toBe(traceFromHeaders({}).traceId);
  });

  it('drops a tracestate that could not be passed on as it is', () => {
    expect(traceFromHeaders({ traceparent: VALID, tracestate: 'x'.repeat(513) }).state).toBeUndefined();
    expect(traceFromHeaders({ traceparent: VALID, tracestate: 'a=\u00e9' }).state).toBeUndefined();
  });
});

describe('outbound headers', () => {
  it('carry the trace id and flags with a fresh span id per request, and the tracestate', () => {
    const trace = traceFromHeaders({ traceparent: VALID, tracestate: 'vendor=abc' });
    const spans = new Set<string>();
    for (let i = 0; i < 50; i++) {
      const h = outboundTraceHeaders(trace);
      const m = OUTBOUND.exec(h.traceparent!)!;
      expect(m[1]).toBe(TRACE);
      expect(m[3]).toBe('01');
      expect(m[2]).not.toBe(PARENT);
      expect(m[2]).not.toBe('0'.repeat(16));
      spans.add(m[2]!);
      expect(h.tracestate).toBe('vendor=abc');
    }
    expect(spans.size).toBe(50);
  });

  it('replace any traceparent or tracestate a caller set, whatever its spelling', () => {
    const h = runInTrace(traceFromHeaders({ traceparent: VALID }), () =>
      withTraceHeaders({ TraceParent: `00-${'1'.repeat(32)}-${'2'.repeat(16)}-01`, TRACESTATE: 'evil=1', authorization: 'Bearer x' }),
    );
    expect(Object.keys(h).sort()).toEqual(['authorization', 'traceparent']);
    expect(OUTBOUND.exec(h.traceparent!)![1]).toBe(TRACE);
  });

  it('outside any trace, make a trace of their own', () => {
    expect(currentTrace()).toBeUndefined();
    const a = OUTBOUND.exec(outboundTraceHeaders().traceparent!)!;
    const b = OUTBOUND.exec(outboundTraceHeaders().traceparent!)!;
    expect(a[1]).not.toBe(b[1]);
  });
});

describe('runInTrace', () => {
  it('follows the work through awaits and timers, and not into work started elsewhere', async () => {
    const a = newTrace();
    const b = newTrace();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const work = runInTrace(a, async () => {
      await gate; // resolved from b's context below: the continuation stays in a
      const afterGate = currentTrace();
      const inTimer = await new Promise((r) => setTimeout(() => r(currentTrace()), 1));
      return { afterGate, inTimer };
    });
    runInTrace(b, () => release());
    const seen = await work;
    expect(seen.afterGate).toBe(a);
    expect(seen.inTimer).toBe(a);
    expect(currentTrace()).toBeUndefined();
  });
});
