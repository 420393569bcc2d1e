// Secrets out of text: whole, as long runs of their characters, and in the forms a peer may encode them in, wherever they are.
import { describe, expect, it } from 'vitest';
import { Redactor, redactSecrets, RUN } from '../src/redact.js';
import { encodedEchoes, leaked } from './helpers/secret-echoes.js';

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

// A key with the characters encoders treat differently: `/`, `+`, `=` (percent, JSON `\/`, base64url).
const K = 'sk-ant-api03-Zq8v/Lm2Xr7+TnB4wKs9PdYc1HgFj6UeA0oR=';

describe('redactSecrets, encoded forms', () => {
  for (const [name, echo] of Object.entries(encodedEchoes(K))) {
    it(`redacts the key ${name}`, () => {
      const text = `error: invalid key ${echo} (request req_123)`;
      const out = redactSecrets(text, [K]);
      expect(out).toContain('[redacted]');
      expect(leaked(out, K)).toEqual([]);
      expect(out.startsWith('error: invalid key ')).toBe(true);
      expect(out.endsWith(' (request req_123)')).toBe(true);
    });
  }

  it('redacts a run of an encoded form: 42 of the key\'s characters, base64- and hex-encoded', () => {
    const part = K.slice(0, 42);
    for (const echo of [Buffer.from(part).toString('base64'), Buffer.from(part).toString('hex'), encodeURIComponent(part)]) {
      const out = redactSecrets(`key=${echo};`, [K]);
      expect(leaked(out, K), echo).toEqual([]);
    }
  });

  it('leaves unrelated encoded text alone: digests, ids, other base64', () => {
    const digest = 'sha256=9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08';
    const other = Buffer.from('a different secret value entirely').toString('base64');
    const text = `${digest} ${other} req_2rj8sGt8ioi7sVmwnql7pg "quoted" + "text"`;
    expect(redactSecrets(text, [K])).toBe(text);
  });

  it('redacts a secret shorter than 8 characters only as written, never in an encoded form', () => {
    const short = 'pa55wd!';
    const hex = Buffer.from(short).toString('hex');
    const b64 = Buffer.from(short).toString('base64');
    expect(redactSecrets(`${short} ${hex} ${b64}`, [short])).toBe(`[redacted] ${hex} ${b64}`);
    // At 8 characters, the encoded forms count, whole.
    const eight = 'pa55wd!x';
    expect(redactSecrets(`${Buffer.from(eight).toString('hex')} ${Buffer.from(eight).toString('base64')}`, [eight])).toBe('[redacted] [redacted]');
  });

  it('does the work once per set of secrets and stays fast on a large text', () => {
    const secrets = Array.from({ length: 10 }, (_, i) => `${K}${i}`);
    const r = new Redactor(secrets);
    const text = `${'lorem ipsum dolor sit amet, "quoted" + "joined" 0123456789abcdef '.repeat(1000)}${Buffer.from(secrets[7]!).toString('base64')}`;
    const started = performance.now();
    const out = r.redact(text);
    const ms = performance.now() - started;
    expect(out.endsWith('[redacted]')).toBe(true);
    expect(out.length).toBeLessThan(text.length);
    console.log(`redacting ${text.length} characters against ${secrets.length} secrets took ${ms.toFixed(1)} ms`);
    expect(ms).toBeLessThan(500);
  });
});

describe('Redactor', () => {
  it('redacts every string of a JSON value, keys and other values kept', () => {
    const r = new Redactor([K]);
    const value = { reason: `denied: ${Buffer.from(K).toString('base64')}`, n: 3, nested: [{ text: encodeURIComponent(K) }, true, null] };
    expect(r.redactDeep(value)).toEqual({ reason: 'denied: [redacted]', n: 3, nested: [{ text: '[redacted]' }, true, null] });
  });

  it('combines with more secrets, and with none is a no-op', () => {
    const other = 'hook-secret-0123456789';
    const r = new Redactor([K]).with([other, undefined, K]);
    expect(r.secrets).toEqual([K, other]);
    expect(r.redact(`${Buffer.from(other).toString('hex')}`)).toBe('[redacted]');
    expect(Redactor.NONE.redact('anything')).toBe('anything');
    expect(Redactor.NONE.empty).toBe(true);
  });
});
