// The evidence primitives on their own: RFC 8785 canonical JSON (the RFC's own examples), signed
// heads bound to their fields and key, and sealed values bound to their place and tenant, whose
// data keys survive a master key rotation and are forgotten when a transaction rolls back.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/evidence/canonical.js';
import { EncryptionKeyError, MasterKey, Sealer } from '../../src/evidence/encryption.js';
import { keyIdOf, SigningKey, verifyHead } from '../../src/evidence/signing.js';
import { MemoryKeys } from '../../src/store/keys.js';

const now = () => '2026-12-07T00:00:00.000Z';

describe('canonical JSON (RFC 8785)', () => {
  it('sorts members by UTF-16 code units and writes numbers and strings as ECMAScript does', () => {
    // RFC 8785 §3.2.3's sorting example and §3.2.2's number and string examples.
    expect(canonicalJson({ '\u20ac': 'Euro Sign', '\r': 'Carriage Return', '\ufb33': 'Hebrew Letter Dalet With Dagesh', '1': 'One', '\ud83d\ude00': 'Emoji: Grinning Face', '\u0080': 'Control', '\u00f6': 'Latin Small Letter O With Diaeresis' })).toBe(
      '{"\\r":"Carriage Return","1":"One","\u0080":"Control","\u00f6":"Latin Small Letter O With Diaeresis","\u20ac":"Euro Sign","\ud83d\ude00":"Emoji: Grinning Face","\ufb33":"Hebrew Letter Dalet With Dagesh"}',
    );
    expect(canonicalJson({ numbers: [333333333.33333329, 1e30, 4.5, 0.002, 1e-27], string: '€$\u000f\nA\'B"\\\\"/', literals: [null, true, false] })).toBe(
      '{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\\u000f\\nA\'B\\"\\\\\\\\\\"/"}',
    );
    expect(canonicalJson({ b: undefined, a: [undefined, -0] })).toBe('{"a":[null,0]}');
    expect(() => canonicalJson({ n: Number.NaN })).toThrow(/no encoding/);
    expect(() => canonicalJson({ n: 10n })).toThrow(/bigint/);
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    expect(() => canonicalJson(cycle)).toThrow(/cycle/);
    let deep: unknown = 1;
    for (let i = 0; i < 2000; i++) deep = [deep];
    expect(() => canonicalJson(deep)).toThrow(/nested deeper than 1000/);
  });
});

describe('signed heads', () => {
  it('verify under their key only, and only with the fields signed', () => {
    const key = SigningKey.ephemeral();
    const head = key.sign({ session_id: 'ses_a', events: { seq: 3, hash: 'a'.repeat(64) }, decisions: { seq: 0, hash: '0'.repeat(64) }, signed_at: now(), key_id: key.keyId });
    expect(key.keyId).toBe(keyIdOf(key.publicJwk));
    expect(verifyHead(head, key.publicJwk)).toBe(true);
    expect(verifyHead({ ...head, events: { seq: 4, hash: head.events.hash } }, key.publicJwk)).toBe(false);
    expect(verifyHead({ ...head, session_id: 'ses_b' }, key.publicJwk)).toBe(false);
    expect(verifyHead({ ...head, signed_at: '2030-01-01T00:00:00.000Z' }, key.publicJwk)).toBe(false);
    expect(verifyHead(head, SigningKey.ephemeral().publicJwk)).toBe(false);
    expect(verifyHead({ ...head, signature: 'not base64 !' }, key.publicJwk)).toBe(false);
  });
});

describe('sealed values', () => {
  const keysStore = () => new MemoryKeys(() => ({ events: { seq: 0, hash: null }, decisions: { seq: 0, hash: null } }));

  it('open only in their place and tenant; a value stored before encryption reads as it is', () => {
    const sealer = new Sealer(MasterKey.of(randomBytes(32)), keysStore(), now);
    const sealed = sealer.seal('acme', 'model_api_key:ses_1', 'sk-secret');
    expect(sealed).toMatch(/^nenc1\.dk_[A-Za-z0-9_-]{16}\./);
    expect(sealed).not.toContain('sk-secret');
    expect(sealer.open('acme', 'model_api_key:ses_1', sealed)).toBe('sk-secret');
    expect(() => sealer.open('acme', 'model_api_key:ses_2', sealed)).toThrow(/does not open/);
    expect(() => sealer.open('other', 'model_api_key:ses_1', sealed)).toThrow(/does not open/);
    const flipped = sealed.slice(0, -2) + (sealed.at(-2) === 'A' ? 'B' : 'A') + sealed.at(-1);
    expect(() => sealer.open('acme', 'model_api_key:ses_1', flipped)).toThrow(EncryptionKeyError);
    expect(() => sealer.open('acme', 'x', 'nenc1.dk_AAAAAAAAAAAAAAAA.AAAA')).toThrow(/which the store does not have/);
    expect(sealer.open('acme', 'x', 'plain from before')).toBe('plain from before');
    // Each tenant has its own data key.
    expect(sealer.dataKey('acme').id).not.toBe(sealer.dataKey('other').id);
  });

  it('a rotation re-wraps every data key; only the new master key opens them afterwards', () => {
    const store = keysStore();
    const first = MasterKey.of(randomBytes(32));
    const sealer = new Sealer(first, store, now);
    const values = ['acme', 'other', 'third'].map((t) => [t, sealer.seal(t, 'p', `value of ${t}`)] as const);
    const next = MasterKey.of(randomBytes(32));
    expect(sealer.rotate(next)).toBe(3);
    expect(sealer.rotate(next)).toBe(0);
    expect(store.dataKeys().every((r) => r.master_key_id === next.id)).toBe(true);
    const fresh = new Sealer(next, store, now);
    expect(fresh.checkAll()).toBe(3);
    for (const [t, v] of values) expect(fresh.open(t, 'p', v)).toBe(`value of ${t}`);
    expect(() => new Sealer(first, store, now).checkAll()).toThrow(new RegExp(`wrapped by master key ${next.id}, and NORMA_ENCRYPTION_KEY_FILE holds ${first.id}`));
  });

  it('a replica meeting a data key wrapped by a newer master key reads the key file again', () => {
    const store = keysStore();
    const old = MasterKey.of(randomBytes(32));
    const next = MasterKey.of(randomBytes(32));
    const rotating = new Sealer(old, store, now);
    const sealed = rotating.seal('acme', 'p', 'v');
    rotating.rotate(next);
    let file = old;
    const stale = new Sealer(old, store, now, () => file);
    expect(() => stale.open('acme', 'p', sealed)).toThrow(/wrapped by master key/);
    file = next;
    expect(stale.open('acme', 'p', sealed)).toBe('v');
    expect(stale.masterKeyId).toBe(next.id);
  });

  it('after a rollback, a data key made in it is not used again', () => {
    const store = keysStore();
    const sealer = new Sealer(MasterKey.of(randomBytes(32)), store, now);
    const before = sealer.dataKey('acme').id;
    // The store lost the row (the transaction that stored it rolled back).
    (store as unknown as { data: Map<string, unknown> }).data.clear();
    sealer.rolledBack();
    const after = sealer.dataKey('acme').id;
    expect(after).not.toBe(before);
    expect(store.dataKeys().map((r) => r.id)).toEqual([after]);
  });
});
