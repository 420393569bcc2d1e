// The order in which committed units' callbacks run: per session in the order the units were made,
// whatever order their commits are answered in; a unit that did not commit runs none; units of
// other sessions are not held back; a unit of no session follows everything before it.
import { describe, expect, it } from 'vitest';
import { CommitOrder } from '../../src/store/commit-order.js';

describe('CommitOrder', () => {
  it('runs a session\'s callbacks in the order its units were made, holds no other session, and drops a failed unit\'s', () => {
    const ran: string[] = [];
    const errors: unknown[] = [];
    const order = new CommitOrder((e) => errors.push(e));
    const a1 = order.add(['a'], [() => ran.push('a1')]);
    const a2 = order.add(['a'], [() => ran.push('a2')]);
    const b1 = order.add(['b'], [() => ran.push('b1')]);
    const a3 = order.add(['a'], [() => ran.push('a3'), () => {
      throw new Error('boom');
    }, () => ran.push('a3 after the throw')]);
    // Answered out of order: a2 first; it waits for a1. b1 does not wait for a.
    a2.settle(true);
    b1.settle(true);
    expect(ran).toEqual(['b1']);
    a3.settle(true);
    expect(ran).toEqual(['b1']);
    a1.settle(false); // did not commit: its callbacks never run, the next ones do
    expect(ran).toEqual(['b1', 'a2', 'a3', 'a3 after the throw']);
    expect(errors).toHaveLength(1);
    expect(order.waiting).toBe(0);
  });

  it('a unit of two sessions waits for both; a unit of none follows everything made before it', () => {
    const ran: string[] = [];
    const order = new CommitOrder(() => undefined);
    const a = order.add(['a'], [() => ran.push('a')]);
    const b = order.add(['b'], [() => ran.push('b')]);
    const ab = order.add(['a', 'b'], [() => ran.push('ab')]);
    const none = order.add([], [() => ran.push('none')]);
    const c = order.add(['c'], [() => ran.push('c')]);
    ab.settle(true);
    none.settle(true);
    c.settle(true);
    expect(ran).toEqual(['c']);
    b.settle(true);
    expect(ran).toEqual(['c', 'b']);
    a.settle(true);
    expect(ran).toEqual(['c', 'b', 'a', 'ab', 'none']);
    // Settled twice: the second is ignored.
    a.settle(false);
    expect(order.waiting).toBe(0);
  });

  it('a callback that commits a unit of its own at once runs it before returning, as a synchronous store does', () => {
    const ran: string[] = [];
    const order = new CommitOrder(() => undefined);
    order.add(['a'], [() => {
      order.add(['a'], [() => ran.push('inner')]).settle(true);
      ran.push('outer');
    }]).settle(true);
    expect(ran).toEqual(['inner', 'outer']);
  });
});
