// Encryption at rest end to end: with NORMA_ENCRYPTION_KEY_FILE a data directory holds none of a
// session's secret values or its spill files' text (the same session without it, as a control,
// holds them all); sealed spill files are served whole and by range and still verify; the master
// key is rotated while sessions are live, and only the new key opens the store afterwards; key
// files of the wrong size, others may read, or too weak a passphrase stop start-up.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../helpers/server.js';
import { mcpAddServer } from '../helpers/mcp-http.js';
import { closeFixtures } from '../helpers/http-fixture.js';
import { ContractClient } from '../helpers/contract.js';
import { keysFile, newKey } from '../helpers/tenants.js';

const servers: TestServer[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const t of servers.splice(0)) await t.close();
});
afterAll(async () => {
  await closeFixtures();
  for (const d of dirs) await fs.rm(d, { recursive: true, force: true });
});

async function tempDir(): Promise<string> {
  const d = await fs.mkdtemp(path.join(os.tmpdir(), 'norma-enc-'));
  dirs.push(d);
  return d;
}

async function keyFile(dir: string, name: string, content: Buffer | string = randomBytes(32), mode = 0o600): Promise<string> {
  const f = path.join(dir, name);
  await fs.writeFile(f, content, { mode });
  await fs.chmod(f, mode);
  return f;
}

async function start(dataDir: string, env: Record<string, string>): Promise<TestServer> {
  // On SQLite whatever the run's store: the data directory grepped here is where it keeps everything
  // (the sealed columns on PostgreSQL are read back in evidence-pg.test.ts).
  // The workspaces sit beside the data directory (so grepping it finds no workspace file); removed with it.
  const workspaces = path.join(path.dirname(dataDir), `${path.basename(dataDir)}-ws`);
  if (!dirs.includes(workspaces)) dirs.push(workspaces);
  const t = await startServer({ NORMA_STORE: 'sqlite', NORMA_SANDBOX: 'off', NORMA_EGRESS_ALLOW: '127.0.0.1', NORMA_WORKSPACE_ROOT: workspaces, ...env }, { dataDir });
  servers.push(t);
  return t;
}

async function stop(t: TestServer): Promise<void> {
  servers.splice(servers.indexOf(t), 1);
  await t.close();
}

const SECRETS = {
  model: 'sk-model-key-5f1d0c9e7a',
  hook: 'hook-hmac-secret-2b8e41',
  header: 'Bearer mcp-header-token-93ac17',
  output: 'SPILLED-OUTPUT-MARKER-7d21e6',
};

/** A session holding each kind of secret, and a capped Read whose spill file holds SECRETS.output past the cap. */
let mcpUrl: Promise<string> | undefined;

async function secretSession(t: TestServer): Promise<{ id: string; outputId: string; full: string }> {
  // An MCP server that answers only with the header: the session stores it, with its value.
  mcpUrl ??= mcpAddServer('guarded', (req) => req.headers.authorization === SECRETS.header);
  const res = await t.api.post('/v1/sessions', {
    output_cap_chars: 100,
    checkpoints: false,
    model: { provider: 'anthropic', model: 'claude-sonnet-4-5', base_url: 'http://127.0.0.1:9', api_key: SECRETS.model },
    hooks: { PreToolUse: [{ matcher: 'Write', hooks: [{ type: 'http', url: 'http://127.0.0.1:9/hook', secret: SECRETS.hook }] }] },
    mcp_servers: { remote: { url: await mcpUrl, headers: { Authorization: SECRETS.header } } },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const s = res.body;
  // Past one 64 KiB sealed chunk, in lines Read does not shorten.
  const full = `${'a'.repeat(300)}\n${SECRETS.output}\n${Array.from({ length: 1500 }, (_, i) => `${i} ${'b'.repeat(60)}`).join('\n')}\nend`;
  await fs.writeFile(path.join(s.workspace, 'big.txt'), full);
  const turn = (await t.api.post(`/v1/sessions/${s.id}/turns?wait=10`, { tool_uses: [{ name: 'Read', input: { file_path: 'big.txt' } }] })).body;
  expect(turn.status).toBe('completed');
  return { id: s.id, outputId: turn.results[0].truncation.output_id, full };
}

/** Every file under `dir` that holds `needle`'s bytes. */
async function filesHolding(dir: string, needle: string): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await fs.readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath ?? (entry as unknown as { path: string }).path, entry.name);
    if ((await fs.readFile(file)).includes(Buffer.from(needle))) found.push(path.relative(dir, file));
  }
  return found;
}

describe('encryption at rest', () => {
  it('keeps secret values and spill text out of the data directory; without it they are there (control)', async () => {
    const keys = await tempDir();
    for (const on of [true, false]) {
      const dataDir = await tempDir();
      const t = await start(dataDir, on ? { NORMA_ENCRYPTION_KEY_FILE: await keyFile(keys, 'master.key') } : {});
      const { id, outputId, full } = await secretSession(t);
      // Served whole and by range, as written.
      const url = `${t.url}/v1/sessions/${id}/outputs/${outputId}`;
      const whole = await (await fetch(url)).text();
      expect(whole.includes(SECRETS.output)).toBe(true);
      const bytes = Buffer.from(whole);
      for (const [from, to] of [[0, 0], [290, 340], [65_530, 65_545], [bytes.length - 10, bytes.length - 1]] as const) {
        const part = await fetch(url, { headers: { range: `bytes=${from}-${to}` } });
        expect(part.status).toBe(206);
        expect(part.headers.get('content-range')).toBe(`bytes ${from}-${to}/${bytes.length}`);
        expect(Buffer.from(await part.arrayBuffer()).equals(bytes.subarray(from, to + 1))).toBe(true);
      }
      expect(whole.length).toBeGreaterThan(full.length); // Read numbers the lines
      expect((await t.api.get(`/v1/sessions/${id}/verify`)).body).toMatchObject({ ok: true, outputs: { claimed: 1, files_checked: 1 } });
      const readyz = (await t.api.get('/readyz')).body.checks.find((c: { name: string }) => c.name === 'encryption');
      expect(readyz.detail).toMatch(on ? /^on: spill files and stored secrets/ : /^off/);
      await stop(t);
      for (const [what, value] of Object.entries(SECRETS)) {
        const holding = await filesHolding(dataDir, value);
        if (on) expect(holding, what).toEqual([]);
        else expect(holding.length, what).toBeGreaterThan(0);
      }
    }
  });

  it('rotates the master key while sessions are live; afterwards only the new key opens the store', async () => {
    const keys = await tempDir();
    const dataDir = await tempDir();
    const master = await keyFile(keys, 'master.key');
    const t = await start(dataDir, { NORMA_ENCRYPTION_KEY_FILE: master });
    const before = await secretSession(t);
    expect((await t.api.post('/v1/encryption/rotate')).status).toBe(409); // the file still holds the key in use
    const oldKey = await fs.readFile(master);
    const oldCopy = await keyFile(keys, 'old.key', oldKey);
    await fs.writeFile(master, randomBytes(32));
    const rotated = await t.api.post('/v1/encryption/rotate');
    expect(rotated.status).toBe(200);
    expect(rotated.body).toMatchObject({ rewrapped: 1, key_id: expect.stringMatching(/^mk_/), previous_key_id: expect.stringMatching(/^mk_/) });
    expect(rotated.body.key_id).not.toBe(rotated.body.previous_key_id);
    // The live session goes on: its old output reads, a new one is written and read.
    expect(await (await fetch(`${t.url}/v1/sessions/${before.id}/outputs/${before.outputId}`)).text()).toContain(SECRETS.output);
    const again = (await t.api.post(`/v1/sessions/${before.id}/turns?wait=10`, { tool_uses: [{ name: 'Read', input: { file_path: 'big.txt' } }] })).body;
    expect(await (await fetch(`${t.url}/v1/sessions/${before.id}/outputs/${again.results[0].truncation.output_id}`)).text()).toContain(SECRETS.output);
    const other = await secretSession(t); // a session of the same tenant made after the rotation
    await stop(t);

    // The old key no longer opens the store; nor does no key at all.
    await expect(start(dataDir, { NORMA_ENCRYPTION_KEY_FILE: oldCopy })).rejects.toThrow(/was wrapped by master key mk_\w+, and NORMA_ENCRYPTION_KEY_FILE holds mk_\w+/);
    await expect(start(dataDir, {})).rejects.toThrow(/holds data sealed by encryption at rest, and NORMA_ENCRYPTION_KEY_FILE is not set/);
    const after = await start(dataDir, { NORMA_ENCRYPTION_KEY_FILE: master });
    for (const s of [before, other]) {
      expect((await after.api.get(`/v1/sessions/${s.id}`)).status).toBe(200);
      expect(await (await fetch(`${after.url}/v1/sessions/${s.id}/outputs/${s.outputId}`)).text()).toContain(SECRETS.output);
      expect((await after.api.get(`/v1/sessions/${s.id}/verify`)).body.ok).toBe(true);
    }
  });

  it('refuses key files of the wrong size, that others may read, or with a weak passphrase; takes hex and passphrases', async () => {
    const keys = await tempDir();
    const cases: [Buffer | string, number, RegExp][] = [
      [randomBytes(31), 0o600, /holds 31 bytes: it must hold exactly 32 random bytes/],
      [randomBytes(33), 0o600, /holds 33 bytes/],
      ['', 0o600, /holds 0 bytes/],
      [randomBytes(32), 0o640, /may be read by others \(mode 0640\)/],
      ['passphrase:too short', 0o600, /passphrase is shorter than 16 characters/],
      ['z'.repeat(64), 0o600, /holds 64 bytes/],
    ];
    for (const [i, [content, mode, message]] of cases.entries()) {
      const dataDir = await tempDir();
      await expect(start(dataDir, { NORMA_ENCRYPTION_KEY_FILE: await keyFile(keys, `bad${i}.key`, content, mode) })).rejects.toThrow(message);
    }
    await expect(start(await tempDir(), { NORMA_ENCRYPTION_KEY_FILE: path.join(keys, 'absent.key') })).rejects.toThrow(/cannot be opened: ENOENT/);
    await fs.symlink(await keyFile(keys, 'target.key'), path.join(keys, 'link.key'));
    await expect(start(await tempDir(), { NORMA_ENCRYPTION_KEY_FILE: path.join(keys, 'link.key') })).rejects.toThrow(/cannot be opened: ELOOP/);
    for (const content of [`${randomBytes(32).toString('hex')}\n`, 'passphrase:correct horse battery staple']) {
      const dataDir = await tempDir();
      const t = await start(dataDir, { NORMA_ENCRYPTION_KEY_FILE: await keyFile(keys, `good-${content.length}.key`, content) });
      const { id, outputId } = await secretSession(t);
      expect(await (await fetch(`${t.url}/v1/sessions/${id}/outputs/${outputId}`)).text()).toContain(SECRETS.output);
      await stop(t);
      expect(await filesHolding(dataDir, SECRETS.output)).toEqual([]);
    }
  });

  it('a changed sealed spill file fails to serve and to verify; only the operator rotates', async () => {
    const keys = await tempDir();
    const acme = newKey('acme');
    const operator = newKey('operator');
    const file = await keysFile([
      { key: acme, tenant: 'acme', scopes: ['admin'], name: 'acme' },
      { key: operator, tenant: 'default', scopes: ['admin'], name: 'operator' },
    ]);
    try {
      const dataDir = await tempDir();
      const t = await start(dataDir, { NORMA_ENCRYPTION_KEY_FILE: await keyFile(keys, 'master.key'), NORMA_API_KEYS_FILE: file.file });
      const asAcme = new ContractClient(t.url, acme);
      // A tenant's admin key is not the operator's: 403, and nothing is rotated.
      const refused = await asAcme.post('/v1/encryption/rotate');
      expect(refused.status).toBe(403);
      expect((await new ContractClient(t.url, operator).post('/v1/encryption/rotate')).status).toBe(409);

      const s = (await asAcme.post('/v1/sessions', { output_cap_chars: 100, checkpoints: false })).body;
      await fs.writeFile(path.join(s.workspace, 'big.txt'), Array.from({ length: 3000 }, (_, i) => `${i} ${'c'.repeat(60)}`).join('\n'));
      const turn = (await asAcme.post(`/v1/sessions/${s.id}/turns?wait=10`, { tool_uses: [{ name: 'Read', input: { file_path: 'big.txt' } }] })).body;
      const outputId = turn.results[0].truncation.output_id;
      const spill = path.join(dataDir, 'outputs', s.id, `${outputId}.txt`);
      const sealed = await fs.readFile(spill);
      expect(sealed.subarray(0, 8).toString()).toBe('NORMASF1');
      sealed[sealed.length - 100] = sealed[sealed.length - 100]! ^ 1; // inside the last chunk
      await fs.writeFile(spill, sealed);
      const v = (await asAcme.get(`/v1/sessions/${s.id}/verify`)).body;
      expect(v.first_broken).toMatchObject({ part: 'outputs', reason: expect.stringMatching(/failed authentication/) });
      // The first chunk still serves by range; the whole file stops short of the changed chunk.
      const head = await fetch(`${t.url}/v1/sessions/${s.id}/outputs/${outputId}`, { headers: { authorization: `Bearer ${acme}`, range: 'bytes=0-99' } });
      expect(head.status).toBe(206);
      expect((await head.text()).startsWith('     1\t0 ccc')).toBe(true);
      const whole = await fetch(`${t.url}/v1/sessions/${s.id}/outputs/${outputId}`, { headers: { authorization: `Bearer ${acme}` } });
      await expect(whole.arrayBuffer()).rejects.toThrow();
    } finally {
      await file.remove();
    }
  });
});
