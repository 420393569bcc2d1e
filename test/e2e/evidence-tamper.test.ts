// Tampering with the stored trail: with the server stopped, the real SQLite file and spill files
// are changed the ways a writer with access to them could (an edited event, a deleted one, a
// reordered pair, a whole chain rewritten with fresh hashes, a cut tail, an edited decision, an
// output record's digest changed, a spill file replaced, a signed head forged); after a restart
// GET …/verify names what broke for each, and an untouched session still verifies.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../helpers/server.js';
import { chainHash, GENESIS } from '../../src/evidence/chain.js';
import { runVerifyCli } from '../../src/evidence/verify-cli.js';

let dataDir: string;
const servers: TestServer[] = [];
afterAll(async () => {
  for (const t of servers) await t.close();
  if (dataDir) await fs.rm(dataDir, { recursive: true, force: true });
});

async function session(t: TestServer): Promise<{ id: string; outputId: string }> {
  const s = (await t.api.post('/v1/sessions', { output_cap_chars: 100, permission_mode: 'acceptEdits' })).body;
  await fs.writeFile(path.join(s.workspace, 'big.txt'), Array.from({ length: 200 }, (_, i) => `line ${i}`).join('\n'));
  const read = (await t.api.post(`/v1/sessions/${s.id}/turns?wait=10`, { tool_uses: [{ name: 'Read', input: { file_path: 'big.txt' } }] })).body;
  for (const n of [1, 2, 3]) {
    expect((await t.api.post(`/v1/sessions/${s.id}/turns?wait=10`, { tool_uses: [{ name: 'Write', input: { file_path: `f${n}.txt`, content: `${n}` } }] })).body.status).toBe('completed');
  }
  // The export signs the head as it is now.
  expect((await fetch(`${t.url}/v1/sessions/${s.id}/export`)).status).toBe(200);
  return { id: s.id, outputId: read.results[0].truncation.output_id };
}

type Row = { seq: number; data: string };

describe('a tampered SQLite file and spill directory', () => {
  it('verify names the first broken link of each kind of change', async () => {
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'norma-tamper-'));
    const first = await startServer({ NORMA_STORE: 'sqlite', NORMA_SANDBOX: 'off' }, { dataDir });
    const names = ['untouched', 'edited', 'deleted', 'reordered', 'rewritten', 'cut', 'decision', 'record', 'spill', 'head', 'stranger'] as const;
    const s: Record<string, { id: string; outputId: string }> = {};
    for (const n of names) s[n] = await session(first);
    await first.close();

    const db = new Database(path.join(dataDir, 'norma.db'));
    const events = (id: string) => db.prepare('SELECT seq, data FROM events WHERE session_id = ? ORDER BY seq').all(id) as Row[];
    const setEvent = db.prepare('UPDATE events SET data = ? WHERE session_id = ? AND seq = ?');
    const last = events(s.cut!.id).length;
    expect(last).toBeGreaterThan(12);

    setEvent.run(JSON.stringify({ ...JSON.parse(events(s.edited!.id)[4]!.data), time: '2000-01-01T00:00:00.000Z' }), s.edited!.id, 5);
    db.prepare('DELETE FROM events WHERE session_id = ? AND seq = 6').run(s.deleted!.id);
    const [a, b] = [events(s.reordered!.id)[6]!, events(s.reordered!.id)[7]!];
    setEvent.run(b.data, s.reordered!.id, 7);
    setEvent.run(a.data, s.reordered!.id, 8);
    // A writer without the signing key rewrites the whole chain after its edit, hash by hash.
    let prev = GENESIS;
    for (const row of events(s.rewritten!.id)) {
      const e = JSON.parse(row.data);
      if (row.seq === 5) e.time = '2000-01-01T00:00:00.000Z';
      e.hash = chainHash(prev, e);
      prev = e.hash;
      setEvent.run(JSON.stringify(e), s.rewritten!.id, row.seq);
    }
    db.prepare('DELETE FROM events WHERE session_id = ? AND seq > ?').run(s.cut!.id, last - 3);
    db.prepare(`UPDATE decisions SET data = json_set(data, '$.reason', 'nothing to see') WHERE session_id = ? AND seq = 2`).run(s.decision!.id);
    db.prepare(`UPDATE outputs SET data = json_set(data, '$.sha256', ?) WHERE session_id = ?`).run('0'.repeat(64), s.record!.id);
    db.prepare(`UPDATE signed_heads SET data = json_set(data, '$.signed_at', '2000-01-01T00:00:00.000Z') WHERE session_id = ?`).run(s.head!.id);
    // A head said to be signed by a key the server never had.
    db.prepare(`UPDATE signed_heads SET data = json_set(data, '$.key_id', 'not-a-key-of-ours') WHERE session_id = ?`).run(s.stranger!.id);
    db.close();
    const spill = path.join(dataDir, 'outputs', s.spill!.id, `${s.spill!.outputId}.txt`);
    const bytes = await fs.readFile(spill);
    bytes[0] = bytes[0]! ^ 1;
    await fs.writeFile(spill, bytes);

    const t = await startServer({ NORMA_STORE: 'sqlite', NORMA_SANDBOX: 'off' }, { dataDir });
    servers.push(t);
    const verify = async (n: (typeof names)[number]) => (await t.api.get(`/v1/sessions/${s[n]!.id}/verify`)).body;
    expect(await verify('untouched')).toMatchObject({ ok: true });
    const cases: [(typeof names)[number], string, number | undefined, RegExp][] = [
      ['edited', 'events', 5, /event 5 does not match its hash/],
      ['deleted', 'events', 6, /event 6 is missing/],
      ['reordered', 'events', 7, /event 7/],
      // The chain holds again after the rewrite: only the signed head (over its last event) tells.
      ['rewritten', 'signed_head', last, new RegExp(`event ${last}'s hash is not the one signed .*rewritten`)],
      ['cut', 'signed_head', last - 2, new RegExp(`events end at ${last - 3}, but a head signed at .* covers ${last}: events were removed`)],
      ['decision', 'decisions', 2, /decision 2 does not match its hash/],
      ['record', 'outputs', undefined, /record says sha256 0{64}, but event \d+ claims/],
      ['spill', 'outputs', undefined, /file has sha256 [0-9a-f]{64}, but event \d+ claims .*the file was changed/],
      ['head', 'signed_head', undefined, /signature does not verify/],
      ['stranger', 'signed_head', undefined, /names key not-a-key-of-ours, which this server does not know/],
    ];
    for (const [n, part, seq, reason] of cases) {
      const v = await verify(n);
      expect(v.ok, n).toBe(false);
      expect(v.first_broken, n).toMatchObject({ part, ...(seq !== undefined ? { seq } : {}) });
      expect(v.first_broken.reason, n).toMatch(reason);
    }
    // The export refuses to sign over a chain that no longer holds the head signed before; the
    // others are exported as they are, and the offline verifier names what broke.
    for (const n of ['rewritten', 'cut', 'head', 'stranger'] as const) {
      const r = await t.api.get(`/v1/sessions/${s[n]!.id}/export`);
      expect(r.status, n).toBe(409);
      expect(r.body.detail, n).toMatch(/is not exported: .*(changed|removed); GET .*\/verify says where/);
    }
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'norma-tamper-exports-'));
    try {
      const keys = path.join(dir, 'keys.json');
      await fs.writeFile(keys, JSON.stringify((await t.api.get('/v1/signing-key')).body));
      const offline: [(typeof names)[number], string, RegExp][] = [
        ['untouched', '', /^verified/],
        ['edited', 'events at seq 5', /does not match its hash/],
        ['deleted', 'events at seq 6', /missing/],
        ['reordered', 'events at seq 7', /./],
        ['decision', 'decisions at seq 2', /does not match its hash/],
        ['record', 'outputs at seq 4', /claims/],
        ['spill', 'outputs', /sha256/],
      ];
      for (const [n, part, reason] of offline) {
        const file = path.join(dir, `${n}.json`);
        await fs.writeFile(file, Buffer.from(await (await fetch(`${t.url}/v1/sessions/${s[n]!.id}/export`)).arrayBuffer()));
        const outputs = path.join(dir, `${n}-outputs`);
        await fs.mkdir(outputs);
        await fs.writeFile(path.join(outputs, s[n]!.outputId), Buffer.from(await (await fetch(`${t.url}/v1/sessions/${s[n]!.id}/outputs/${s[n]!.outputId}`)).arrayBuffer()));
        let out = '';
        const code = await runVerifyCli([file, '--key', keys, '--outputs', outputs], { out: (x) => (out += `${x}\n`), err: (x) => (out += `${x}\n`) });
        expect(code, `${n}: ${out}`).toBe(part === '' ? 0 : 1);
        if (part !== '') expect(out, n).toContain(`FAILED (${part})`);
        expect(out, n).toMatch(reason);
      }
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
    // A plain spill file is served as it is now; only verify (and a client checking Repr-Digest) tells it changed.
    const served = await fetch(`${t.url}/v1/sessions/${s.spill!.id}/outputs/${s.spill!.outputId}`);
    expect(Buffer.from(await served.arrayBuffer()).equals(bytes)).toBe(true);
  });
});
