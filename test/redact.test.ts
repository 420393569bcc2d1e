// Secrets out of text: whole, and as long runs of their characters, wherever they are.
import { describe, expect, it } from 'vitest';
import { redactSecrets, RUN } from '../src/redact.js';

const KEY = 'sk-test-0123456789abcdefghijklmnopqrstuvwxyzAB';

describe('redactSecrets', () => {
  it('replaces the whole secret, every time it appears', () => {
    expect(redactSecrets(`a ${KEY} b ${KEY}`, [KEY])).toBe('a [redacted] b [redacted]');
  });

  it('replaces a run of at least RUN characters copied from the secret, anywhere', () => {
    expect(redactSecrets(`key=${KEY.slice(0, 42)}"`, [KEY])).toBe('key=[redacted]"');
    expect(redactSecrets(`…${KEY.slice(10, 10 + RUN)}…`, [KEY])).toBe('…[redacted]…');
    // Two pieces from different places of the key, separated by other text.
    expect(redactSecrets(`${KEY.slice(0, 12)} and ${KEY.slice(30)}`, [KEY])).toBe('[redacted] and [redacted]');
  });

  it('leaves shorter runs and unrelated text alone, and ignores secrets too short to matter', () => {
    expect(redactSecrets(`x${KEY.slice(5, 5 + RUN - 1)}x`, [KEY])).toBe(`x${KEY.slice(5, 5 + RUN - 1)}x`);
    expect(redactSecrets('nothing to see', [KEY, undefined, null, 'abc'])).toBe('nothing to see');
    expect(redactSecrets('short abcd key', ['abcd'])).toBe('short [redacted] key');
  });

  it('redacts every secret given, overlapping ones included', () => {
    const other = 'tok-ZYXWVUTSRQPONMLKJIHGFE';
    expect(redactSecrets(`${other.slice(2)} ${KEY}`, [KEY, other])).toBe('[redacted] [redacted]');
  });
});
