// Awaits an operation that must be refused by the path sandbox and returns the rule it broke.
import { expect } from 'vitest';
import { PathRefusal } from '../../src/sandbox/paths.js';

export async function refusal(p: Promise<unknown>): Promise<string> {
  const err = await p.then(
    () => {
      throw new Error('expected a refusal');
    },
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(PathRefusal);
  return (err as PathRefusal).rule;
}
