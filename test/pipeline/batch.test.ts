import { describe, it, expect } from 'vitest';
import { partitionCalls } from '../../src/pipeline/batch.js';

interface Call {
  id: string;
  parallelSafe: boolean;
}

/** `S1 U2 S3` → calls; `S` = parallel-safe, `U` = unsafe. */
function calls(spec: string): Call[] {
  return spec
    .split(' ')
    .filter((s) => s !== '')
    .map((s) => ({ id: s, parallelSafe: s.startsWith('S') }));
}
const ids = (groups: Call[][]) => groups.map((g) => g.map((c) => c.id).join(',')).join(' | ');

describe('partitionCalls', () => {
  const cases: { name: string; spec: string; groups: string }[] = [
    { name: 'no calls', spec: '', groups: '' },
    { name: 'one safe call', spec: 'S1', groups: 'S1' },
    { name: 'one unsafe call', spec: 'U1', groups: 'U1' },
    { name: 'consecutive safe calls form one group', spec: 'S1 S2 S3', groups: 'S1,S2,S3' },
    { name: 'unsafe calls are each alone', spec: 'U1 U2 U3', groups: 'U1 | U2 | U3' },
    { name: 'an unsafe call splits safe runs', spec: 'S1 S2 U3 S4 S5', groups: 'S1,S2 | U3 | S4,S5' },
    { name: 'unsafe first, then a safe run', spec: 'U1 S2 S3', groups: 'U1 | S2,S3' },
    { name: 'safe run, then unsafe last', spec: 'S1 S2 U3', groups: 'S1,S2 | U3' },
    { name: 'alternating', spec: 'S1 U2 S3 U4 S5', groups: 'S1 | U2 | S3 | U4 | S5' },
    { name: 'safe call after an unsafe one never joins it', spec: 'U1 S2', groups: 'U1 | S2' },
    { name: 'unsafe call after a safe one never joins it', spec: 'S1 U2', groups: 'S1 | U2' },
    { name: 'mixed long sequence', spec: 'U1 U2 S3 S4 S5 U6 S7 U8 U9 S10 S11', groups: 'U1 | U2 | S3,S4,S5 | U6 | S7 | U8 | U9 | S10,S11' },
  ];

  it.each(cases)('$name: $spec → $groups', ({ spec, groups }) => {
    const input = calls(spec);
    const out = partitionCalls(input);
    expect(ids(out)).toBe(groups);
    // Order is preserved and nothing is lost or duplicated.
    expect(out.flat()).toEqual(input);
    // No empty groups; every multi-call group is all safe.
    for (const g of out) {
      expect(g.length).toBeGreaterThan(0);
      if (g.length > 1) expect(g.every((c) => c.parallelSafe)).toBe(true);
    }
  });

  it('returns the very same call objects and leaves the input untouched', () => {
    const input = calls('S1 U2 S3');
    const snapshot = [...input];
    const out = partitionCalls(input);
    expect(out[0]![0]).toBe(input[0]);
    expect(out[1]![0]).toBe(input[1]);
    expect(out[2]![0]).toBe(input[2]);
    expect(input).toEqual(snapshot);
    expect(input).toHaveLength(3);
  });
});
