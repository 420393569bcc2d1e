// Idempotency keys in each store (memory, SQLite, PostgreSQL): a key answers the request it was
// first used for and refuses another, keys of different tenants never meet, what the work made is
// settled in the work's own transaction (rolled back with it, refused once the key is another
// attempt's), a key whose holder died is taken again only when nothing was settled under it, and
// keys past their day are swept. On PostgreSQL also: the command fence (a command abandoned by
// its sender is never taken; one taken is never abandoned) and the tenant count held across
// processes until the transaction that counted commits.
import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ClusterNode } from '../../src/cluster/node.js';
import type { Session } from '../../src/contract/schemas.js';
import { MemoryIdempotency, type IdempotencyKeys, type KeyClaim, type KeyState } from '../../src/store/idempotency.js';
import { MemoryStore } from '../../src/store/memory.js';
import { TENANT_LOCK_CLASS } from '../../src/store/pg-schema.js';
import { PostgresStore } from '../../src/store/pg-store.js';
import { SqliteStore } from '../../src/store/sqlite.js';
import type { SessionRecord, Store } from '../../src/store/store.js';
import { createTestDatabase, type TestDatabase } from '../helpers/postgres.js';
import { committed } from '../helpers/commit.js';

type KeyedStore = Store & { idempotency: IdempotencyKeys };

interface Engine {
  name: string;
  /** A store; `again` opens another process's view of the same data (after this one is closed). */
  open(): KeyedStore;
  again(): KeyedStore;
  done(): Promise<void>;
}

const NOW = 1_000_000;
const claim = (over: Partial<KeyClaim> = {}): KeyClaim => ({ tenant: 'acme', key: 'k-1', fingerprint: 'f-1', now: NOW, expiresAt: NOW + 1000, ...over });
const work = (s: KeyState) => {
  if (s.kind !== 'new') throw new Error(`expected a new key, got ${s.kind}`);
  return s.work;
};

function record(id: string): SessionRecord {
  return {
    session: { id, created_at: '2026-01-01T00:00:00.000Z', status: 'active', closed_at: null, rules: [], active_turn_id: null, tenant: 'acme' } as unknown as Session,
    hooks: null,
    modelApiKey: null,
  };
}

let dir: string;
let db: TestDatabase | undefined;
const opened: Store[] = [];

beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'norma-keys-'));
});
afterEach(async () => {
  for (const s of opened.splice(0)) {
    try {
      s.close();
    } catch {
      // closed by the test
    }
  }
  await db?.drop();
  db = undefined;
  await fs.rm(dir, { recursive: true, force: true });
});

const engines: { name: string; make(): Promise<Engine> }[] = [
  {
    name: 'memory',
    make: async () => {
      const s = new MemoryStore();
      return { name: 'memory', open: () => s, again: () => s, done: async () => undefined };
    },
  },
  {
    name: 'sqlite',
    make: async () => {
      const file = path.join(dir, 'norma.db');
      const open = () => {
        const s = new SqliteStore(file);
        opened.push(s);
        return s;
      };
      return { name: 'sqlite', open, again: open, done: async () => undefined };
    },
  },
  {
    name: 'postgres',
    make: async () => {
      db = await createTestDatabase();
      const open = () => {
        const s = new PostgresStore({ url: db!.url, nodeId: 'node-a' });
        opened.push(s);
        return s;
      };
      return { name: 'postgres', open, again: open, done: async () => undefined };
    },
  },
];

for (const engine of engines) {
  describe(`idempotency keys: ${engine.name}`, () => {
    it('the first request takes the key; the same one again is in flight, then replayed; another request is a mismatch', async () => {
      const e = await engine.make();
      const keys = e.open().idempotency;
      const w = work(keys.claim(claim()));
      expect(keys.claim(claim())).toEqual({ kind: 'in_flight' });
      keys.finish(w, { status: 201, headers: { location: '/v1/sessions/ses_1' }, body: { id: 'ses_1' } });
      expect(keys.claim(claim())).toEqual({ kind: 'replay', response: { status: 201, headers: { location: '/v1/sessions/ses_1' }, body: { id: 'ses_1' } } });
      expect(keys.claim(claim({ fingerprint: 'f-2' }))).toEqual({ kind: 'mismatch' });
      // Another tenant's key of the same text is its own.
      expect(keys.claim(claim({ tenant: 'other' })).kind).toBe('new');
    });

    it('a failed request frees its key unless its work was settled; a settle rolls back with its transaction', async () => {
      const e = await engine.make();
      const store = e.open();
      const keys = store.idempotency;
      const w = work(keys.claim(claim()));
      keys.release(w);
      const w2 = work(keys.claim(claim()));
      if (engine.name !== 'memory') {
        // The work fails after settling: nothing of it, the settle included, is kept.
        expect(() =>
          store.transaction(() => {
            store.putSession(record('ses_gone'));
            keys.settle(w2, { id: 'ses_gone' });
            throw new Error('the disk is full');
          }),
        ).toThrow('the disk is full');
        expect(store.getSession('ses_gone')).toBeUndefined();
        expect(keys.claim(claim())).toEqual({ kind: 'in_flight' });
      }
      store.transaction(() => {
        store.putSession(record('ses_kept'));
        keys.settle(w2, { id: 'ses_kept' });
      });
      // What came after the work failed: a retry gets what the work made, not new work.
      keys.release(w2);
      expect(keys.claim(claim())).toEqual({ kind: 'made', value: { id: 'ses_kept' } });
    });

    it('a settle for a key another attempt holds fails the transaction of the work', async () => {
      const e = await engine.make();
      const store = e.open();
      const keys = store.idempotency;
      const w = work(keys.claim(claim()));
      keys.release(w);
      work(keys.claim(claim()));
      await expect(
        committed(() =>
          store.transaction(() => {
            store.putSession(record('ses_late'));
            keys.settle(w, { id: 'ses_late' });
          }),
        ),
      ).rejects.toThrow(/Idempotency-Key "k-1" is no longer this request's|was taken/);
      if (engine.name !== 'memory') expect(store.getSession('ses_late')).toBeUndefined();
    });

    if (engine.name !== 'memory') {
      it('after the holding process is gone: a key without a settled value is taken again, one with a value answers with it', async () => {
        const e = await engine.make();
        const first = e.open();
        const unsettled = work(first.idempotency.claim(claim({ key: 'unsettled' })));
        const settled = work(first.idempotency.claim(claim({ key: 'settled' })));
        first.transaction(() => {
          first.putSession(record('ses_made'));
          first.idempotency.settle(settled, { id: 'ses_made' });
        });
        expect(first.idempotency.claim(claim({ key: 'unsettled' }))).toEqual({ kind: 'in_flight' });
        first.close();
        const second = e.again();
        const retaken = work(second.idempotency.claim(claim({ key: 'unsettled' })));
        expect(retaken.token).not.toBe(unsettled.token);
        expect(second.idempotency.claim(claim({ key: 'settled' }))).toEqual({ kind: 'made', value: { id: 'ses_made' } });
        // The dead attempt's settle can no longer land.
        await expect(committed(() => second.transaction(() => second.idempotency.settle(unsettled, { id: 'ses_x' })))).rejects.toThrow();
      });
    }

    it('keys past their expiry are swept, and a claim after it starts afresh', async () => {
      const e = await engine.make();
      const keys = e.open().idempotency;
      const w = work(keys.claim(claim()));
      keys.finish(w, { status: 200, headers: {}, body: 1 });
      expect(keys.claim(claim({ now: NOW + 2000, expiresAt: NOW + 3000 })).kind).toBe('new');
      work(keys.claim(claim({ key: 'k-2' })));
      expect(keys.sweep(NOW + 5000)).toBe(2);
      expect(keys.claim(claim({ now: NOW + 5000, expiresAt: NOW + 6000 })).kind).toBe('new');
    });
  });
}

describe('stores without keys of their own', () => {
  it('an in-memory book answers the same way', () => {
    const keys = new MemoryIdempotency();
    const w = work(keys.claim(claim()));
    expect(keys.claim(claim({ fingerprint: 'other' }))).toEqual({ kind: 'mismatch' });
    keys.finish(w, { status: 200, headers: {}, body: 'x' });
    expect(keys.claim(claim()).kind).toBe('replay');
  });
});

describe('PostgreSQL: commands and tenant limits across processes', () => {
  let node: ClusterNode | undefined;
  afterEach(async () => {
    await node?.close();
    node = undefined;
  });

  async function joined(): Promise<{ store: PostgresStore; node: ClusterNode }> {
    db = await createTestDatabase();
    const store = new PostgresStore({ url: db.url, nodeId: 'owner' });
    opened.push(store);
    node = await ClusterNode.join({ url: db.url, nodeId: 'owner', onSignal: () => undefined, onLost: () => undefined, log: { warn: () => undefined, info: () => undefined } });
    return { store, node };
  }

  it('a command its sender abandoned is never taken; one taken is never abandoned; an expired one is not taken', async () => {
    const { store, node: n } = await joined();
    const gone = await n.sendCommand('ses_1', 'turns.start', {}, 60_000, 'tok-gone');
    expect(await n.abandonCommand('tok-gone', '{"ok":false}')).toMatchObject({ id: gone, state: 'abandoned', outcome: '{"ok":false}' });
    expect(store.transaction(() => store.claimCommand(gone))).toBe(false);
    expect(await n.claimCommand(gone)).toBe(false);
    expect(await n.openCommands(['ses_1'])).toEqual([]);

    const taken = await n.sendCommand('ses_1', 'turns.start', {}, 60_000, 'tok-taken');
    store.transaction(() => {
      expect(store.claimCommand(taken)).toBe(true);
      store.completeCommand(taken, '{"ok":true,"value":1}');
    });
    expect(await n.abandonCommand('tok-taken', '{"ok":false}')).toMatchObject({ id: taken, state: 'done', outcome: '{"ok":true,"value":1}' });

    // Taken in a transaction that rolls back: pending again, and then the sender's to abandon.
    const rolled = await n.sendCommand('ses_1', 'sessions.patch', {}, 60_000, 'tok-rolled');
    expect(() =>
      store.transaction(() => {
        store.claimCommand(rolled);
        throw new Error('refused');
      }),
    ).toThrow('refused');
    expect((await n.openCommands(['ses_1'])).map((c) => c.id)).toEqual([rolled]);
    expect(await n.abandonCommand('tok-rolled', '{"ok":false}')).toMatchObject({ state: 'abandoned' });

    const expired = await n.sendCommand('ses_1', 'turns.start', {}, 1, 'tok-expired');
    await new Promise((r) => setTimeout(r, 20));
    expect(await n.openCommands(['ses_1'])).toEqual([]);
    expect(store.transaction(() => store.claimCommand(expired))).toBe(false);

    // An insert whose reply was lost: the sender's token takes the command's place, abandoned, so a late insert fails.
    expect(await n.abandonCommand('tok-lost', '{"ok":false}', { sessionId: 'ses_1', kind: 'turns.start' })).toMatchObject({ state: 'abandoned' });
    await expect(n.sendCommand('ses_1', 'turns.start', {}, 60_000, 'tok-lost')).rejects.toThrow(/duplicate key/);
  });

  it('the tenant count taken inside a transaction waits for another process\'s transaction that holds the tenant, and sees what it added', async () => {
    const { store } = await joined();
    // Another process adds a session of the tenant under the tenant's lock and commits 600 ms later.
    const script = `
      const pg = require('pg');
      (async () => {
        const c = new pg.Client({ connectionString: process.argv[1] });
        await c.connect();
        await c.query('BEGIN');
        await c.query('SELECT pg_advisory_xact_lock(${TENANT_LOCK_CLASS}, hashtext($1))', ['acme']);
        await c.query("INSERT INTO sessions (id, tenant, created_at, status, data) VALUES ('ses_other', 'acme', 'x', 'active', '{}')");
        console.log('held');
        await new Promise((r) => setTimeout(r, 600));
        await c.query('COMMIT');
        await c.end();
      })();`;
    const child = spawn(process.execPath, ['-e', script, db!.url], { cwd: process.cwd(), stdio: ['ignore', 'pipe', 'inherit'] });
    const exited = new Promise((r) => child.once('exit', r));
    try {
      await new Promise<void>((resolve) => child.stdout!.on('data', (d) => String(d).includes('held') && resolve()));
      // Unheld, the count does not wait: the other session is not committed yet.
      expect(store.countSessions('acme')).toBe(0);
      const started = Date.now();
      const held = store.transaction(() => store.countSessionsHeld('acme'));
      expect(held).toBe(1);
      expect(Date.now() - started).toBeGreaterThan(300);
    } finally {
      child.kill();
      await exited;
    }
  });
});
