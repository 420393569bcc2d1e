// Checkpoints against what could break them: a restart between a checkpoint and a rewind; a
// rewind a crash cut off, finished at the next start; a directory swapped for a link into another
// session's workspace before a rewind; a checkpoint store no sandboxed command can read; a store
// that cannot be written (the call still runs, and says it cannot be undone); a fork past the
// tenant's max_sessions; another tenant's checkpoint ids; a tenant's disk budget shared by its
// sessions, measured again from disk after a restart.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SessionCheckpoints } from '../../src/checkpoints/session.js';
import { newId } from '../../src/ids.js';
import { closeAll, startServer, type TestServer } from '../helpers/server.js';
import { clientFor, newKey, startWithKeys, type KeyedServer } from '../helpers/tenants.js';

let servers: (TestServer | KeyedServer)[] = [];
afterEach(async () => {
  await closeAll(servers);
  servers = [];
});
async function start(dataDir?: string): Promise<TestServer> {
  const t = await startServer({}, dataDir ? { dataDir } : {});
  servers.push(t);
  return t;
}
type Api = TestServer['api'];

async function session(api: Api) {
  const res = await api.post('/v1/sessions', { allowed_tools: ['Write', 'Edit', 'Bash'] });
  expect(res.status).toBe(201);
  return res.body as { id: string; workspace: string };
}

async function turn(api: Api, sid: string, toolUses: { id?: string; name: string; input: unknown }[]) {
  const res = await api.post(`/v1/sessions/${sid}/turns?wait=10`, { tool_uses: toolUses });
  expect(res.body.status, JSON.stringify(res.body)).toBe('completed');
  for (const r of res.body.results) expect(r.is_error ?? false, JSON.stringify(r)).toBe(false);
  return res.body as { id: string; results: { is_error?: boolean; content: { text: string }[] }[] };
}

const exported = async (api: Api, sid: string, type: string) =>
  ((await api.get(`/v1/sessions/${sid}/export`)).body.events as Record<string, any>[]).filter((e) => e.type === type);

describe('checkpoints under attack and failure', () => {
  it('survive a restart: the list, the changes and a rewind work on the next server', async () => {
    const first = await start();
    const s = await session(first.api);
    const tr = await turn(first.api, s.id, [{ name: 'Bash', input: { command: 'mkdir -p src && echo one > src/a.txt' } }]);
    const before = (await first.api.get(`/v1/sessions/${s.id}/checkpoints`)).body.items;
    const dataDir = first.dataDir;
    await first.server.close();
    servers = servers.filter((x) => x !== first);
    const second = await startServer({}, { dataDir });
    servers.push(second);
    try {
      expect((await second.api.get(`/v1/sessions/${s.id}/checkpoints`)).body.items).toEqual(before);
      expect((await second.api.get(`/v1/sessions/${s.id}/turns/${tr.id}/changes`)).body.files.map((f: { path: string }) => f.path)).toEqual(['src/a.txt']);
      const done = await second.api.post(`/v1/sessions/${s.id}/rewind`, { to: tr.id });
      expect(done.status, JSON.stringify(done.body)).toBe(200);
      expect(done.body.deleted).toEqual(['src', 'src/a.txt']);
      await expect(fs.stat(path.join(s.workspace, 'src'))).rejects.toThrow();
    } finally {
      await fs.rm(dataDir, { recursive: true, force: true });
    }
  });

  it('a rewind a crash cut off is finished at the next start, evented as recovered', async () => {
    const first = await start();
    const s = await session(first.api);
    // Made by the session's commands, so they are the sandbox user's to change.
    await turn(first.api, s.id, [{ name: 'Bash', input: { command: 'echo a0 > a.txt && echo b0 > b.txt' } }]);
    const tr = await turn(first.api, s.id, [{ name: 'Bash', input: { command: 'echo a1 > a.txt && echo b1 > b.txt && echo c > c.txt' } }]);
    const dataDir = first.dataDir;
    await first.server.close();
    servers = servers.filter((x) => x !== first);
    try {
      // What a server that died halfway through the rewind leaves: the journal, one file restored.
      const { checkpoints: cp } = await SessionCheckpoints.openWriter({
        dir: path.join(dataDir, 'checkpoints', s.id),
        root: s.workspace,
        limits: { maxFileBytes: 1 << 20, maxEntries: 1000, maxSessionBytes: 1 << 30 },
        newId,
        clock: () => new Date(),
      });
      const real = cp.content;
      let n = 0;
      cp.content = async (sha) => {
        if (++n === 2) throw new Error('killed');
        return real(sha);
      };
      await expect(cp.rewind(cp.resolve(tr.id, 'before')!, () => true, { force: false, by: 'key_x', check: () => undefined })).rejects.toThrow('killed');
      await cp.close();

      const second = await startServer({}, { dataDir });
      servers.push(second);
      expect(await fs.readFile(path.join(s.workspace, 'a.txt'), 'utf8')).toBe('a0\n');
      expect(await fs.readFile(path.join(s.workspace, 'b.txt'), 'utf8')).toBe('b0\n');
      await expect(fs.stat(path.join(s.workspace, 'c.txt'))).rejects.toThrow();
      const [rewound] = await exported(second.api, s.id, 'workspace.rewound');
      expect(rewound).toMatchObject({ recovered: true, by: 'key_x', restored: ['a.txt', 'b.txt'], deleted: ['c.txt'] });
    } finally {
      await fs.rm(dataDir, { recursive: true, force: true });
    }
  });

  it('a directory swapped for a link into another session\'s workspace: the rewind writes nothing there', async () => {
    const t = await start();
    const a = await session(t.api);
    const b = await session(t.api);
    await turn(t.api, a.id, [{ name: 'Bash', input: { command: 'mkdir -p d/e && echo mine > d/e/f.txt' } }]);
    const tr = await turn(t.api, a.id, [{ name: 'Bash', input: { command: 'rm -r d' } }]);
    // At every component: d itself, and d/e below a real d.
    for (const [at, inside] of [['d', ''], ['d/e', 'd']] as const) {
      await fs.rm(path.join(a.workspace, 'd'), { recursive: true, force: true });
      if (inside) await fs.mkdir(path.join(a.workspace, inside));
      await fs.symlink(b.workspace, path.join(a.workspace, at));
      const r = await t.api.post(`/v1/sessions/${a.id}/rewind`, { to: tr.id, force: true });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      expect(await fs.readdir(b.workspace)).toEqual([]);
      expect((await fs.lstat(path.join(a.workspace, at))).isDirectory()).toBe(true);
      expect(await fs.readFile(path.join(a.workspace, 'd/e/f.txt'), 'utf8')).toBe('mine\n');
    }
  });

  it('no sandboxed command reads the checkpoint store; a store that cannot be written leaves the call running and says it cannot be undone', async () => {
    const t = await start();
    const s = await session(t.api);
    await turn(t.api, s.id, [{ name: 'Write', input: { file_path: 'x.txt', content: 'secret-ish\n' } }]);
    const store = path.join(t.dataDir, 'checkpoints', s.id);
    const peek = await turn(t.api, s.id, [{ name: 'Bash', input: { command: `ls ${store} 2>&1; cat ${store}/log.jsonl 2>&1; echo done` } }]);
    const out = peek.results[0]!.content.map((c) => c.text).join('');
    expect(out).toContain('No such file or directory');
    expect(out).not.toContain('ckpt_');

    // The log cannot be appended to any more (a directory in its place).
    await fs.rm(path.join(store, 'log.jsonl'));
    await fs.mkdir(path.join(store, 'log.jsonl'));
    const tr = await turn(t.api, s.id, [{ id: 'w2', name: 'Write', input: { file_path: 'y.txt', content: 'y\n' } }]);
    expect(tr.results[0]!.is_error ?? false).toBe(false);
    expect(await fs.readFile(path.join(s.workspace, 'y.txt'), 'utf8')).toBe('y\n');
    const [completed] = (await exported(t.api, s.id, 'tool.completed')).filter((e) => e.tool_use_id === 'w2');
    expect(completed!.changes).toMatchObject({ checkpoint_id: null, undoable: false });
    expect(completed!.changes.warnings[0]).toContain('cannot be undone');
  });

  it('a fork counts against max_sessions; another tenant\'s session and checkpoint ids are 404', async () => {
    const key = newKey('s');
    const other = newKey('o');
    const t = await startWithKeys([
      { key, tenant: 'small', scopes: ['write'], policy: { max_sessions: 1 } },
      { key: other, tenant: 'big', scopes: ['write'] },
    ]);
    servers.push(t);
    const c = clientFor(t.url, key);
    const o = clientFor(t.url, other);
    const s = (await c.post('/v1/sessions', {})).body;
    await c.post(`/v1/sessions/${s.id}/turns?wait=10`, { tool_uses: [{ name: 'LS', input: {} }] });
    const ckpt = (await c.get(`/v1/sessions/${s.id}/checkpoints`)).body.items[0].id;
    const refused = await c.post(`/v1/sessions/${s.id}/fork`, { at: ckpt });
    expect(refused.status).toBe(429);
    expect(refused.body.detail).toContain('max_sessions (1)');
    expect((await c.get('/v1/sessions')).body.items).toHaveLength(1); // nothing half-made

    const mine = (await o.post('/v1/sessions', {})).body;
    await o.post(`/v1/sessions/${mine.id}/turns?wait=10`, { tool_uses: [{ name: 'LS', input: {} }] });
    expect((await o.get(`/v1/sessions/${s.id}/checkpoints`)).status).toBe(404);
    expect((await o.post(`/v1/sessions/${s.id}/fork`, {})).status).toBe(404);
    expect((await o.post(`/v1/sessions/${mine.id}/rewind`, { to: ckpt })).status).toBe(404);
    expect((await o.post(`/v1/sessions/${mine.id}/fork`, { at: ckpt })).status).toBe(404);
    expect((await o.get(`/v1/sessions/${mine.id}/changes?from=${ckpt}`)).status).toBe(404);
  });

  it('a tenant\'s max_checkpoint_bytes is shared by its sessions, counted from disk after a restart, and binds no other tenant', async () => {
    const key = newKey('b');
    const other = newKey('u');
    const specs = [
      { key, tenant: 'metered', scopes: ['write' as const], policy: { max_checkpoint_bytes: 300_000 } },
      { key: other, tenant: 'free', scopes: ['write' as const] },
    ];
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'norma-ckpt-budget-'));
    try {
      const t = await startWithKeys(specs, {}, { dataDir });
      servers.push(t);
      const c = clientFor(t.url, key);
      const o = clientFor(t.url, other);
      // Random bytes do not compress: each such file costs its size in the store.
      const write = async (cl: typeof c, sid: string, file: string, bytes: number, id: string) => {
        const r = await cl.post(`/v1/sessions/${sid}/turns?wait=10`, { tool_uses: [{ id, name: 'Bash', input: { command: `head -c ${bytes} /dev/urandom > ${file}` } }] });
        expect(r.body.status).toBe('completed');
      };
      const changesOf = async (cl: typeof c, sid: string, id: string) =>
        ((await cl.get(`/v1/sessions/${sid}/export`)).body.events as Record<string, any>[]).find((e) => e.type === 'tool.completed' && e.tool_use_id === id)!.changes;
      const a = (await c.post('/v1/sessions', { allowed_tools: ['Bash'] })).body;
      expect(a.policy.max_checkpoint_bytes).toBe(300_000);
      await write(c, a.id, 'a.bin', 200_000, 'a1');
      await write(c, a.id, 'a2.txt', 10, 'a2');
      expect(await changesOf(c, a.id, 'a2')).toMatchObject({ undoable: true, warnings: [] });

      // A second session of the tenant: 200 KB more would take the two past 300 KB.
      const b = (await c.post('/v1/sessions', { allowed_tools: ['Bash'] })).body;
      await write(c, b.id, 'b.bin', 200_000, 'b1');
      await write(c, b.id, 'b2.txt', 10, 'b2');
      const overB = await changesOf(c, b.id, 'b2');
      expect(overB.undoable).toBe(false);
      expect(overB.warnings[0]).toMatch(/^1 file\(s\) over the tenant's checkpoint budget of 300000 bytes \(max_checkpoint_bytes\) were not captured/);
      const items = (await c.get(`/v1/sessions/${b.id}/checkpoints`)).body.items as { complete: boolean }[];
      expect(items.at(-1)!.complete).toBe(false);

      // Another tenant is not bound by it.
      const f = (await o.post('/v1/sessions', { allowed_tools: ['Bash'] })).body;
      await write(o, f.id, 'f.bin', 400_000, 'f1');
      await write(o, f.id, 'f2.txt', 10, 'f2');
      expect(await changesOf(o, f.id, 'f2')).toMatchObject({ undoable: true, warnings: [] });

      // After a restart nothing is counted in memory: the stores on disk are measured.
      await t.close();
      servers = servers.filter((x) => x !== t);
      const t2 = await startWithKeys(specs, {}, { dataDir });
      servers.push(t2);
      const c2 = clientFor(t2.url, key);
      const d = (await c2.post('/v1/sessions', { allowed_tools: ['Bash'] })).body;
      await write(c2, d.id, 'd.bin', 120_000, 'd1');
      await write(c2, d.id, 'd2.txt', 10, 'd2');
      expect((await changesOf(c2, d.id, 'd2')).warnings[0]).toMatch(/over the tenant's checkpoint budget of 300000 bytes/);
      // What fits still does.
      await write(c2, d.id, 'small.txt', 10, 'd3');
      expect((await c2.get(`/v1/sessions/${d.id}/turns/${(await c2.get(`/v1/sessions/${d.id}/turns`)).body.items.at(-1).id}/changes`)).body.files).toMatchObject([{ path: 'small.txt', status: 'added' }]);
    } finally {
      await closeAll(servers);
      servers = [];
      await fs.rm(dataDir, { recursive: true, force: true });
    }
  });
});
