// Failures that used to leave state behind: a store write refused by a full disk (memory now
// stays exactly as the store is), retention of a workspace still in use, spill files a crash
// left half-written, a lifecycle hook that never answers, and workspaces that belong to
// another session.
import { MemoryStore } from '../../src/store/memory.js';
import fs from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SqliteStore } from '../../src/store/sqlite.js';
import { startServer, type TestServer } from '../helpers/server.js';

let t: TestServer | undefined;
const dirs: string[] = [];
const servers: http.Server[] = [];
afterEach(async () => {
  await t?.close();
  t = undefined;
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
  for (const d of dirs.splice(0)) await fs.rm(d, { recursive: true, force: true });
});

async function fullDisk(): Promise<{ store: SqliteStore; fill(): void; free(): void; dataDir: string }> {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'norma-full-'));
  dirs.push(dataDir);
  const store = new SqliteStore(path.join(dataDir, 'norma.db'));
  const db = (store as unknown as { db: { pragma(s: string, o?: object): unknown } }).db;
  return {
    store,
    dataDir,
    // SQLite's own page limit: the next write that needs a new page fails with SQLITE_FULL.
    fill: () => void db.pragma(`max_page_count = ${db.pragma('page_count', { simple: true }) as number}`),
    free: () => void db.pragma('max_page_count = 1073741823'),
  };
}

describe('a store write that fails leaves memory as the store is', () => {
  it('a turn refused with 507 does not hold the session: once space is back the next turn runs', async () => {
    const disk = await fullDisk();
    t = await startServer({}, { store: disk.store, dataDir: disk.dataDir });
    const s = (await t.api.post('/v1/sessions', { permission_mode: 'bypassPermissions' })).body;
    disk.fill();
    let refused;
    for (let i = 0; i < 50; i++) {
      refused = await t.api.post(`/v1/sessions/${s.id}/turns`, { tool_uses: [{ name: 'Bash', input: { command: `echo ${'p'.repeat(3000)}` } }] });
      if (refused.status !== 202) break;
      await t.api.get(`/v1/sessions/${s.id}/turns/${refused.body.id}?wait=10`);
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(refused!.status).toBe(507);
    expect((await t.api.get(`/v1/sessions/${s.id}`)).body.active_turn_id).toBeNull();
    disk.free();
    const next = await t.api.post(`/v1/sessions/${s.id}/turns?wait=10`, { tool_uses: [{ name: 'LS', input: {} }] });
    expect(next.status).toBe(200);
    expect(next.body.status).toBe('completed');
    await t.close();
    t = undefined;
    disk.store.close();
  });

  it('a session refused with 507 leaves no workspace, no sandbox state, no runtime', async () => {
    const disk = await fullDisk();
    t = await startServer({}, { store: disk.store, dataDir: disk.dataDir });
    const before: string[] = await fs.readdir(t.config.workspaceRoot).catch(() => []);
    disk.fill();
    let refused;
    for (let i = 0; i < 200; i++) {
      refused = await t.api.post('/v1/sessions', { system_prompt: 'p'.repeat(3000) });
      if (refused.status !== 201) break;
      before.push(refused.body.id);
    }
    expect(refused!.status).toBe(507);
    expect((await fs.readdir(t.config.workspaceRoot)).sort()).toEqual([...before].sort());
    const sandboxDirs: string[] = await fs.readdir(path.join(disk.dataDir, 'sandbox')).catch(() => []);
    expect(sandboxDirs.filter((d) => d.startsWith('ses_') && !before.includes(d))).toEqual([]);
    disk.free();
    const ok = await t.api.post('/v1/sessions', {});
    expect(ok.status).toBe(201);
    expect((await t.api.get('/v1/sessions?limit=200')).body.items.map((x: { id: string }) => x.id)).toContain(ok.body.id);
    await t.close();
    t = undefined;
    disk.store.close();
  });

  it('rules changed by a refused PATCH do not apply in memory either', async () => {
    const disk = await fullDisk();
    t = await startServer({}, { store: disk.store, dataDir: disk.dataDir });
    const s = (await t.api.post('/v1/sessions', {})).body;
    await fs.writeFile(path.join(s.workspace, 'a.txt'), 'x');
    disk.fill();
    let patched;
    for (let i = 0; i < 100; i++) {
      patched = await t.api.patch(`/v1/sessions/${s.id}`, { add_rules: [{ rule: `Write(./f${i}-${'q'.repeat(200)})`, behavior: 'allow' }], permission_mode: 'bypassPermissions' });
      if (patched.status !== 200) break;
    }
    expect(patched!.status).toBe(507);
    disk.free();
    // The stored mode is what runs: whatever the stored state says, memory says the same.
    const stored = (await t.api.get(`/v1/sessions/${s.id}`)).body;
    const turn = (await t.api.post(`/v1/sessions/${s.id}/turns?wait=10`, { tool_uses: [{ name: 'Write', input: { file_path: 'new.txt', content: 'x' } }] })).body;
    expect(turn.status).toBe(stored.permission_mode === 'bypassPermissions' ? 'completed' : 'awaiting_permission');
    await t.close();
    t = undefined;
    disk.store.close();
  });
});

describe('nothing is deleted while something live refers to it', () => {
  it('retention keeps a closed session\'s workspace that an active session uses', async () => {
    let now = Date.parse('2026-12-01T00:00:00.000Z');
    const store = new MemoryStore();
    t = await startServer({ NORMA_SESSION_RETENTION_S: '1' }, { clock: () => new Date(now), store });
    const live = (await t.api.post('/v1/sessions', {})).body;
    const old = (await t.api.post('/v1/sessions', {})).body;
    await t.api.delete(`/v1/sessions/${old.id}`);
    // A record (as an earlier version could leave) that claims the live session's workspace.
    const rec = store.getSession(old.id)!;
    rec.session.workspace = live.workspace;
    store.putSession(rec);
    await fs.writeFile(path.join(live.workspace, 'keep.txt'), 'in use');
    now += 5000;
    expect(await t.server.ctx.sweepSessions()).toBe(1);
    expect(await fs.readFile(path.join(live.workspace, 'keep.txt'), 'utf8')).toBe('in use');
    expect((await t.api.get(`/v1/sessions/${old.id}`)).status).toBe(404);
  });
});

describe('start-up reclaims what a crash left', () => {
  it('partial spill files and sandbox state of sessions that are gone', async () => {
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'norma-restart-'));
    dirs.push(dataDir);
    t = await startServer({}, { dataDir });
    const s = (await t.api.post('/v1/sessions', { permission_mode: 'bypassPermissions', output_cap_chars: 100 })).body;
    const turn = (await t.api.post(`/v1/sessions/${s.id}/turns?wait=20`, { tool_uses: [{ name: 'Bash', input: { command: 'seq 1 1000' } }] })).body;
    const outputId = turn.results[0].truncation.output_id as string;
    await t.close();
    t = undefined;
    // What a SIGKILL mid-spill leaves: a partial file beside the finished one; and the state
    // directory of a session the store does not know.
    const outDir = path.join(dataDir, 'outputs', s.id);
    await fs.writeFile(path.join(outDir, '.out_half.partial'), 'x'.repeat(4096));
    await fs.mkdir(path.join(dataDir, 'sandbox', 'ses_gone', 'tmp'), { recursive: true });
    await fs.writeFile(path.join(dataDir, 'sandbox', 'ses_gone', 'tmp', 'big'), 'y'.repeat(4096));
    t = await startServer({}, { dataDir });
    const left = await fs.readdir(outDir);
    expect(left.filter((f) => f.endsWith('.partial'))).toEqual([]);
    expect(left).toContain(`${outputId}.txt`);
    await expect(fs.stat(path.join(dataDir, 'sandbox', 'ses_gone'))).rejects.toThrow();
    expect((await t.api.get(`/v1/sessions/${s.id}/outputs/${outputId}`)).status).toBe(200);
  });
});

describe('lifecycle requests answer within NORMA_LIFECYCLE_TIMEOUT_S', () => {
  it('a SessionEnd http hook that never answers does not hold DELETE; the run is recorded as stopped', async () => {
    const hang = http.createServer(() => undefined); // never answers
    servers.push(hang);
    await new Promise<void>((r) => hang.listen(0, '127.0.0.2', r));
    const port = (hang.address() as { port: number }).port;
    t = await startServer({ NORMA_EGRESS_ALLOW: '127.0.0.2', NORMA_LIFECYCLE_TIMEOUT_S: '1' });
    const s = (await t.api.post('/v1/sessions', { hooks: { SessionEnd: [{ hooks: [{ type: 'http', url: `http://127.0.0.2:${port}/end`, timeout_s: 120 }] }] } })).body;
    const started = Date.now();
    expect((await t.api.delete(`/v1/sessions/${s.id}`)).status).toBe(204);
    const took = Date.now() - started;
    expect(took).toBeLessThan(10_000);
    const runs = (await t.api.get(`/v1/sessions/${s.id}/hook-runs`)).body.items;
    expect(runs).toMatchObject([{ event: 'SessionEnd', outcome: 'failed', error: expect.stringContaining('NORMA_LIFECYCLE_TIMEOUT_S') }]);
    expect((await t.api.get(`/v1/sessions/${s.id}`)).body.status).toBe('closed');
  });

  it('a SessionStart command hook that sleeps does not hold session creation', async () => {
    t = await startServer({ NORMA_LIFECYCLE_TIMEOUT_S: '1' });
    const started = Date.now();
    const res = await t.api.post('/v1/sessions', { hooks: { SessionStart: [{ hooks: [{ type: 'command', command: 'sleep 30', timeout_s: 60 }] }] } });
    expect(res.status).toBe(201);
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});

describe('a workspace the server made belongs to its session', () => {
  it('no other session may name it, a directory inside it, a link to it, or the root around them', async () => {
    t = await startServer();
    const a = (await t.api.post('/v1/sessions', {})).body;
    await fs.mkdir(path.join(a.workspace, 'sub'));
    const root = t.config.workspaceRoot;
    await fs.symlink(a.workspace, path.join(root, 'alias'));
    await fs.mkdir(path.join(root, 'mine'));
    for (const workspace of [a.id, a.workspace, `${a.id}/sub`, path.join(a.workspace, 'sub'), 'alias', '.', root]) {
      const res = await t.api.post('/v1/sessions', { workspace });
      expect(res.status, workspace).toBe(400);
    }
    expect((await t.api.post('/v1/sessions', { workspace: 'ses_abc' })).status).toBe(400);
    const named = await t.api.post('/v1/sessions', { workspace: 'mine' });
    expect(named.status).toBe(201);
    expect((await t.api.post('/v1/sessions', { workspace: a.id })).body.detail).toContain('a workspace the server made for a session; it belongs to that session only');
  });
});
