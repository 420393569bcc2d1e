// What a store writes of a chained record (recordJson): the canonical JSON the hash was taken over,
// with the hash added, so a record is encoded once. It must read back as the same value, hash as
// stored, and fall back to plain JSON for anything chained() did not just make.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/evidence/canonical.js';
import { chained, chainHash, GENESIS, recordJson } from '../../src/evidence/chain.js';
import { SqliteStore } from '../../src/store/sqlite.js';

const event = () => ({
  type: 'tool.completed',
  session_id: 'ses_a',
  seq: 1,
  time: '2026-01-01T00:00:00.000Z',
  result: { content: [{ type: 'text', text: 'line "one"\n\ttab \u2028 \ud83d\ude00' }], is_error: false, n: -0, big: 1e21, small: 5e-7 },
  zeta: undefined,
  alpha: [1, 'two', null, { b: 2, a: 1 }],
});

describe('recordJson', () => {
  it('is the canonical JSON hashed, with the hash last, and reads back as the same value', () => {
    const r = chained(event(), 'f'.repeat(64));
    const stored = recordJson(r);
    expect(stored).toBe(`${canonicalJson(r, 'hash').slice(0, -1)},"hash":"${r.hash}"}`);
    const back = JSON.parse(stored) as typeof r;
    expect(back).toEqual(JSON.parse(JSON.stringify(r)));
    // What verify recomputes from the stored row is the stored hash.
    expect(chainHash('f'.repeat(64), back)).toBe(r.hash);
    expect(r.hash).toBe(createHash('sha256').update(`${'f'.repeat(64)}\n${canonicalJson(event())}`).digest('hex'));
  });

  it('is JSON.stringify for a record chained() did not make, or whose hash was changed since', () => {
    const plain = event();
    expect(recordJson(plain)).toBe(JSON.stringify(plain));
    const r = chained(event(), null);
    (r as { hash: string }).hash = 'not a hash';
    expect(recordJson(r)).toBe(JSON.stringify(r));
    const copy = { ...chained(event(), null) };
    expect(recordJson(copy)).toBe(JSON.stringify(copy));
    // An empty record still makes an object.
    const empty = chained({}, GENESIS);
    expect(JSON.parse(recordJson(empty))).toEqual({ hash: empty.hash });
  });

  it('is what the SQLite store keeps, and the store reads the event back whole', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'norma-chain-record-'));
    const store = new SqliteStore(path.join(dir, 'db.sqlite'));
    try {
      const session = { id: 'ses_a', created_at: '2026-01-01T00:00:00.000Z', status: 'active', closed_at: null, rules: [], active_turn_id: null, tenant: 'acme' };
      store.putSession({ session, hooks: null, modelApiKey: null } as never);
      const r = chained(event(), store.lastEventHash('ses_a'));
      store.appendEvent(r as never);
      const [back] = store.eventsAfter('ses_a', 0, 10);
      expect(back).toEqual(JSON.parse(JSON.stringify(r)));
      expect(chainHash(GENESIS, back!)).toBe(r.hash);
      expect(store.lastEventHash('ses_a')).toBe(r.hash);
    } finally {
      store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
