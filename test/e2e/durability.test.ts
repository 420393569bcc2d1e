// Export, session retention, a full disk, and a subscriber that reads too slowly.
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { assertComponent } from '../helpers/contract.js';
import { openSse } from '../helpers/sse.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { SqliteStore } from '../../src/store/sqlite.js';

let t: TestServer | undefined;
let extraDirs: string[] = [];
afterEach(async () => {
  await t?.close();
  t = undefined;
  await Promise.all(extraDirs.map((d) => fs.rm(d, { recursive: true, force: true })));
  extraDirs = [];
});

describe('GET /v1/sessions/{id}/export', () => {
  it('is one JSON document with the session, turns and results, requests, decisions, outputs and every event', async () => {
    t = await startServer();
    const s = (await t.api.post('/v1/sessions', { output_cap_chars: 100 })).body;
    await fs.writeFile(path.join(s.workspace, 'a.txt'), 'z'.repeat(500));
    const turn = (
      await t.api.post(`/v1/sessions/${s.id}/turns?wait=30`, {
        tool_uses: [
          { id: 'toolu_r', name: 'Read', input: { file_path: 'a.txt' } },
          { id: 'toolu_w', name: 'Write', input: { file_path: 'b.txt', content: 'b' } },
        ],
      })
    ).body;
    await t.api.post(`/v1/sessions/${s.id}/permissions/${turn.pending[0]}`, { behavior: 'deny' });
    await t.api.get(`/v1/sessions/${s.id}/turns/${turn.id}?wait=30`);

    const res = await t.api.get(`/v1/sessions/${s.id}/export`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-disposition')).toContain(`${s.id}.json`);
    const doc = res.body;
    assertComponent('SessionExport', doc);
    expect(doc).toMatchObject({ format: 'norma.session-export', version: 1, session: { id: s.id } });
    expect(doc.turns).toHaveLength(1);
    expect(doc.turns[0].results.map((r: { tool_use_id: string }) => r.tool_use_id)).toEqual(['toolu_r', 'toolu_w']);
    expect(doc.permissions).toMatchObject([{ id: turn.pending[0], status: 'denied' }]);
    expect(doc.decisions.map((d: { decided_by: string }) => d.decided_by)).toEqual(['read_only', 'mode', 'person']);
    expect(doc.outputs).toHaveLength(1);
    const seqs = doc.events.map((e: { seq: number }) => e.seq);
    expect(seqs).toEqual(seqs.map((_: number, i: number) => i + 1));
    expect(doc.events.at(-1).type).toBe('turn.completed');
    expect((await t.api.get('/v1/sessions/ses_missing/export')).status).toBe(404);
  });

  // 1,280 Write calls, each with its checkpoints before and after.
  it('streams a long event log page by page, whole and in order', { timeout: 60_000 }, async () => {
    t = await startServer();
    const s = (await t.api.post('/v1/sessions', { permission_mode: 'bypassPermissions' })).body;
    const calls = Array.from({ length: 256 }, (_, i) => ({ name: 'Write', input: { file_path: `f${i}.txt`, content: 'x' } }));
    for (let i = 0; i < 5; i++) {
      const r = await t.api.post(`/v1/sessions/${s.id}/turns?wait=60`, { tool_uses: calls });
      expect(r.body.status).toBe('completed');
    }
    const doc = (await t.api.get(`/v1/sessions/${s.id}/export`)).body;
    expect(doc.events.length).toBeGreaterThan(2500); // more than two pages
    const seqs = doc.events.map((e: { seq: number }) => e.seq);
    expect(seqs).toEqual(seqs.map((_: number, i: number) => i + 1));
    expect(doc.decisions).toHaveLength(5 * 256);
  });
});

describe('session retention', () => {
  it('removes closed sessions past NORMA_SESSION_RETENTION_S with their files and server-made workspace; open ones stay', async () => {
    let now = Date.parse('2026-12-01T00:00:00.000Z');
    t = await startServer({ NORMA_SESSION_RETENTION_S: '3600' }, { clock: () => new Date(now) });
    const old = (await t.api.post('/v1/sessions', { output_cap_chars: 100, permission_mode: 'bypassPermissions' })).body;
    const open = (await t.api.post('/v1/sessions', {})).body;
    await fs.writeFile(path.join(old.workspace, 'a.txt'), 'x'.repeat(500));
    const read = await t.api.post(`/v1/sessions/${old.id}/turns?wait=30`, { tool_uses: [{ name: 'Read', input: { file_path: 'a.txt' } }] });
    const outputId = read.body.results[0].truncation.output_id;
    expect((await t.api.delete(`/v1/sessions/${old.id}`)).status).toBe(204);

    now += 30 * 60_000; // half the retention: nothing goes
    expect(await t.server.ctx.sweepSessions()).toBe(0);
    expect((await t.api.get(`/v1/sessions/${old.id}/outputs/${outputId}`)).status).toBe(200);

    now += 31 * 60_000;
    expect(await t.server.ctx.sweepSessions()).toBe(1);
    expect((await t.api.get(`/v1/sessions/${old.id}`)).status).toBe(404);
    await expect(fs.access(old.workspace)).rejects.toThrow();
    await expect(fs.access(path.join(t.dataDir, 'outputs', old.id))).rejects.toThrow();
    expect((await t.api.get(`/v1/sessions/${open.id}`)).body.status).toBe('active');
    await expect(fs.access(open.workspace)).resolves.toBeUndefined();
  });

  it('never removes a workspace the client brought', async () => {
    let now = Date.parse('2026-12-01T00:00:00.000Z');
    t = await startServer({ NORMA_SESSION_RETENTION_S: '1' }, { clock: () => new Date(now) });
    const mine = path.join(t.config.workspaceRoot, 'client-project');
    await fs.mkdir(mine, { recursive: true });
    await fs.writeFile(path.join(mine, 'keep.txt'), 'keep');
    const s = (await t.api.post('/v1/sessions', { workspace: mine })).body;
    expect(s.workspace_owned).toBe(false);
    await t.api.delete(`/v1/sessions/${s.id}`);
    now += 5000;
    expect(await t.server.ctx.sweepSessions()).toBe(1);
    expect(await fs.readFile(path.join(mine, 'keep.txt'), 'utf8')).toBe('keep');
  });
});

describe('a full disk', () => {
  it('fails the request with 507 problem+json, stores nothing of it, and loses nothing stored before', async () => {
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'norma-full-'));
    extraDirs.push(dataDir);
    const store = new SqliteStore(path.join(dataDir, 'norma.db'));
    t = await startServer({}, { store, dataDir });
    const before = (await t.api.post('/v1/sessions', {})).body;
    // SQLite's own page limit: the next write that needs a new page fails with SQLITE_FULL.
    const db = (store as unknown as { db: { pragma(s: string, o?: object): unknown } }).db;
    const pages = db.pragma('page_count', { simple: true }) as number;
    db.pragma(`max_page_count = ${pages}`);
    let full;
    for (let i = 0; i < 200; i++) {
      full = await t.api.post('/v1/sessions', { system_prompt: 'p'.repeat(3000) });
      if (full.status !== 201) break;
    }
    expect(full!.status).toBe(507);
    expect(full!.headers.get('content-type')).toContain('application/problem+json');
    expect(full!.body).toMatchObject({ type: 'urn:norma:problem:insufficient-storage', status: 507 });
    expect(full!.body.detail).toContain('nothing of this request was stored');
    // What was committed before is still there and readable.
    expect((await t.api.get(`/v1/sessions/${before.id}`)).body.status).toBe('active');
    db.pragma('max_page_count = 1073741823');
    expect((await t.api.post('/v1/sessions', {})).status).toBe(201);
    await t.close();
    t = undefined;
    store.close();
  });
});

describe('a subscriber that reads too slowly', () => {
  it('is told where to resume and cut off, without holding the rest in memory', async () => {
    t = await startServer({}, { configure: (c) => void (c.sseMaxBufferBytes = 64 * 1024) });
    const s = (await t.api.post('/v1/sessions', { permission_mode: 'bypassPermissions' })).body;
    await fs.writeFile(path.join(s.workspace, 'big.txt'), `${'q'.repeat(1000)}\n`.repeat(25));
    // A raw client that sends the request, then does not read.
    const url = new URL(t.url);
    const sock = net.connect(Number(url.port), url.hostname);
    await new Promise((r) => sock.once('connect', r));
    sock.write(`GET /v1/sessions/${s.id}/events HTTP/1.1\r\nHost: ${url.host}\r\nAccept: text/event-stream\r\n\r\n`);
    sock.pause(); // no 'data' listener yet: nothing is read, the kernel buffers fill, then the server's
    const calls = Array.from({ length: 64 }, () => ({ name: 'Read', input: { file_path: 'big.txt' } }));
    for (let i = 0; i < 3; i++) expect((await t.api.post(`/v1/sessions/${s.id}/turns?wait=60`, { tool_uses: calls })).body.status).toBe('completed');
    const chunks: Buffer[] = [];
    // The response ends (last chunk) once the client has read what was queued before the notice.
    const ended = new Promise<void>((resolve) =>
      sock.on('data', (d: Buffer) => {
        chunks.push(d);
        if (Buffer.concat(chunks).toString('utf8').endsWith('\r\n0\r\n\r\n')) resolve();
      }),
    );
    sock.resume();
    await ended;
    sock.destroy();
    const text = Buffer.concat(chunks).toString('utf8');
    const blocks = text.split('\n\n').filter((b) => b.includes('event: '));
    const last = blocks.at(-1)!;
    expect(last).toContain('event: stream.end');
    const notice = JSON.parse(/data: (.*)/.exec(last)![1]!);
    assertComponent('Event', notice);
    const ids = [...text.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]));
    expect(notice).toMatchObject({ reason: 'overflow', resume_after: ids.at(-1) });
    expect(ids.at(-1)).toBeLessThan(t.server.ctx.events.lastSeq(s.id));
    // Resuming from there delivers the rest, gapless.
    const resumed = await openSse(`${t.url}/v1/sessions/${s.id}/events`, { lastEventId: String(notice.resume_after) });
    await resumed.waitFor(() => resumed.events.filter((e) => e.event === 'turn.completed').length >= 1 && Number(resumed.events.at(-1)?.id) === t!.server.ctx.events.lastSeq(s.id));
    resumed.close();
    expect(Number(resumed.events[0]!.id)).toBe(notice.resume_after + 1);
  });
});
