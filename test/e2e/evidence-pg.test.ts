// The evidence chain on PostgreSQL with replicas: a session's chain is appended by one replica,
// then by another that took the session over, and verifies as one chain on either; rows edited,
// deleted or reordered in the database, and a chain rewritten past a signed head, are named by
// verify on a replica that never ran the session. With encryption at rest on, the sessions table
// holds sealed values only. Verification reads what has committed.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../helpers/postgres.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { chainHash, GENESIS } from '../../src/evidence/chain.js';

let db: TestDatabase;
let dataDir: string;
let keyDir: string;
const inProcess: TestServer[] = [];

beforeAll(async () => {
  db = await createTestDatabase();
  dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'norma-evidence-pg-'));
  keyDir = await fs.mkdtemp(path.join(os.tmpdir(), 'norma-evidence-pg-keys-'));
  await fs.writeFile(path.join(keyDir, 'master.key'), randomBytes(32), { mode: 0o600 });
});
afterAll(async () => {
  await Promise.all(inProcess.splice(0).map((t) => t.close()));
  await db?.drop();
  await fs.rm(dataDir, { recursive: true, force: true });
  await fs.rm(keyDir, { recursive: true, force: true });
});

async function replica(id: string): Promise<TestServer> {
  const t = await startServer(
    { NORMA_STORE: 'postgres', NORMA_DATABASE_URL: db.url, NORMA_NODE_ID: id, NORMA_SANDBOX: 'off', NORMA_ENCRYPTION_KEY_FILE: path.join(keyDir, 'master.key') },
    { dataDir },
  );
  inProcess.push(t);
  return t;
}

async function stop(t: TestServer): Promise<void> {
  inProcess.splice(inProcess.indexOf(t), 1);
  await t.close();
}

const turn = (file: string) => ({ tool_uses: [{ name: 'Write', input: { file_path: file, content: file } }, { name: 'LS', input: { path: '.' } }] });

describe('the chain on PostgreSQL replicas', { timeout: 60_000 }, () => {
  it('two replicas append to one chain; tampered rows are named by verify on a third', async () => {
    const [a, b] = [await replica('a'), await replica('b')];
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) {
      const s = (await a.api.post('/v1/sessions', { permission_mode: 'acceptEdits', model: { provider: 'anthropic', model: 'claude-sonnet-4-5', api_key: `sk-sealed-${i}` } })).body;
      ids.push(s.id);
      expect((await a.api.post(`/v1/sessions/${s.id}/turns?wait=20`, turn('one.txt'))).body.status).toBe('completed');
    }
    // A goes away; B takes its sessions over and appends to their chains.
    await stop(a);
    for (const id of ids) {
      let status: string | undefined;
      for (let tries = 0; tries < 100 && status !== 'completed'; tries++) {
        const r = await b.api.post(`/v1/sessions/${id}/turns?wait=20`, turn('two.txt'));
        status = r.body.status;
        if (status !== 'completed') await new Promise((res) => setTimeout(res, 200));
      }
      expect(status).toBe('completed');
    }
    const c = await replica('c');
    for (const id of ids) {
      const v = (await c.api.get(`/v1/sessions/${id}/verify`)).body;
      expect(v, id).toMatchObject({ ok: true, unchained: 0 });
      expect(v.events).toBeGreaterThan(10);
    }
    // The export signs each head (on C, which runs none of them).
    for (const id of ids) expect((await fetch(`${c.url}/v1/sessions/${id}/export`)).status).toBe(200);
    // Sealed at rest: the model keys are not in the table.
    for (const row of await db.query('SELECT model_api_key FROM sessions')) expect(String(row.model_api_key)).toMatch(/^nenc1\.dk_/);

    const [edited, deleted, reordered, rewritten, untouched, erased] = ids as [string, string, string, string, string, string];
    await db.query(`UPDATE events SET data = jsonb_set(data::jsonb, '{time}', '"2000-01-01T00:00:00.000Z"')::text WHERE session_id = $1 AND seq = 4`, [edited]);
    await db.query('DELETE FROM events WHERE session_id = $1 AND seq = 5', [deleted]);
    await db.query(
      `UPDATE events e SET data = o.data FROM events o WHERE e.session_id = $1 AND o.session_id = $1 AND ((e.seq = 6 AND o.seq = 7) OR (e.seq = 7 AND o.seq = 6))`,
      [reordered],
    );
    const rewrite = async (id: string) => {
      let prev = GENESIS;
      for (const row of await db.query('SELECT seq, data FROM events WHERE session_id = $1 ORDER BY seq', [id])) {
        const e = JSON.parse(String(row.data));
        if (Number(row.seq) === 3) e.time = '2000-01-01T00:00:00.000Z';
        e.hash = chainHash(prev, e);
        prev = e.hash;
        await db.query('UPDATE events SET data = $1 WHERE session_id = $2 AND seq = $3', [JSON.stringify(e), id, row.seq]);
      }
    };
    await rewrite(rewritten);
    // Rewritten, and the stored signed head that would show it removed: the head C signed at the
    // export, which it keeps, still does.
    await rewrite(erased);
    await db.query('DELETE FROM signed_heads WHERE session_id = $1', [erased]);
    const verify = async (id: string) => (await c.api.get(`/v1/sessions/${id}/verify`)).body;
    expect(await verify(untouched)).toMatchObject({ ok: true });
    expect((await verify(edited)).first_broken).toMatchObject({ part: 'events', seq: 4, reason: expect.stringMatching(/event 4 does not match its hash/) });
    expect((await verify(deleted)).first_broken).toMatchObject({ part: 'events', seq: 5, reason: expect.stringMatching(/event 5 is missing/) });
    expect((await verify(reordered)).first_broken).toMatchObject({ part: 'events', seq: 6 });
    expect((await verify(rewritten)).first_broken).toMatchObject({ part: 'signed_head', reason: expect.stringMatching(/rewritten/) });
    expect((await verify(erased)).first_broken).toMatchObject({ part: 'signed_head', reason: expect.stringMatching(/signed head was removed from the store/) });
    // Neither is signed over again.
    for (const id of [rewritten, erased]) expect((await fetch(`${c.url}/v1/sessions/${id}/export`)).status, id).toBe(409);
    expect((await fetch(`${c.url}/v1/sessions/${untouched}/export`)).status).toBe(200);
  });
});
