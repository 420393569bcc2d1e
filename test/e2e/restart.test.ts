// Durability within one test process: a graceful shutdown and a new server on the same data
// directory. (test/e2e/crash.test.ts kills a real process with SIGKILL.)
import { INTERNAL } from '../../src/app/scope.js';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openSse, type SseStream } from '../helpers/sse.js';
import { startServer, type TestServer, closeAll } from '../helpers/server.js';

let dataDir: string;
let servers: TestServer[] = [];
let streams: SseStream[] = [];

async function boot(env: Record<string, string> = {}): Promise<TestServer> {
  const t = await startServer({ NORMA_SHUTDOWN_GRACE_S: '2', ...env }, { dataDir });
  servers.push(t);
  return t;
}
async function events(t: TestServer, sessionId: string, lastEventId?: string) {
  const s = await openSse(`${t.url}/v1/sessions/${sessionId}/events`, lastEventId !== undefined ? { lastEventId } : {});
  streams.push(s);
  return s;
}

afterEach(async () => {
  for (const s of streams) s.close();
  streams = [];
  await closeAll(servers);
  if (dataDir) await fs.rm(dataDir, { recursive: true, force: true });
});

describe('a graceful restart', () => {
  it('keeps a paused turn paused; after the restart the answer continues it from that call', async () => {
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'norma-restart-'));
    const a = await boot();
    const s = (await a.api.post('/v1/sessions', {})).body;
    const sse = await events(a, s.id);
    const turn = (
      await a.api.post(`/v1/sessions/${s.id}/turns?wait=30`, {
        tool_uses: [
          { id: 'toolu_r', name: 'Write', input: { file_path: 'before.txt', content: 'x' } },
          { id: 'toolu_w', name: 'Write', input: { file_path: 'after.txt', content: 'resumed\n' } },
        ],
      })
    ).body;
    expect(turn.status).toBe('awaiting_permission');
    const first = (await a.api.get(`/v1/sessions/${s.id}/permissions?status=pending`)).body.items[0];
    await a.api.post(`/v1/sessions/${s.id}/permissions/${first.id}`, { behavior: 'deny', message: 'not this one' });
    await sse.waitFor((e) => e.event === 'permission.requested' && e.data.permission.tool_use_id === 'toolu_w');
    const asked = (await a.api.get(`/v1/sessions/${s.id}/permissions?status=pending`)).body.items[0];

    await a.close();
    // The stream ended with a notice saying where to resume.
    const end = await sse.waitFor((e) => e.event === 'stream.end');
    expect(end.data).toMatchObject({ reason: 'shutdown', resume_after: Number(sse.events.filter((e) => e.id !== undefined).at(-1)!.id) });

    const b = await boot();
    const again = await b.api.get(`/v1/sessions/${s.id}/turns/${turn.id}`);
    expect(again.body).toMatchObject({ status: 'awaiting_permission', pending: [asked.id] });
    expect(again.body.results).toHaveLength(1);
    const pending = (await b.api.get(`/v1/sessions/${s.id}/permissions?status=pending`)).body.items;
    expect(pending.map((p: { id: string }) => p.id)).toEqual([asked.id]);

    const resumedSse = await events(b, s.id, String(end.data.resume_after));
    await resumedSse.waitFor((e) => e.event === 'turn.resumed');
    const answer = await b.api.post(`/v1/sessions/${s.id}/permissions/${asked.id}`, { behavior: 'allow' });
    expect(answer.status).toBe(200);
    const done = await resumedSse.waitFor((e) => e.event === 'turn.completed');
    expect(done.data.turn.results.map((r: { tool_use_id: string; is_error: boolean }) => `${r.tool_use_id}:${r.is_error}`)).toEqual([
      'toolu_r:true',
      'toolu_w:false',
    ]);
    expect(await fs.readFile(path.join(s.workspace, 'after.txt'), 'utf8')).toBe('resumed\n');
    // No second permission.requested for the same call: the answer went to the stored request.
    const all = await events(b, s.id, '0');
    await all.waitFor((e) => e.event === 'turn.completed');
    expect(all.events.filter((e) => e.event === 'permission.requested').map((e) => e.data.permission.tool_use_id)).toEqual(['toolu_r', 'toolu_w']);
    const seqs = all.events.map((e) => Number(e.id));
    expect(seqs).toEqual(seqs.map((_, i) => i + 1));
    expect(resumedSse.events.map((e) => Number(e.id))).toEqual(seqs.slice(end.data.resume_after));
  });

  it('a running call gets the grace period; one still running after it is interrupted and the turn says so', async () => {
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'norma-restart-'));
    const a = await boot({ NORMA_SHUTDOWN_GRACE_S: '1' });
    const s = (await a.api.post('/v1/sessions', { permission_mode: 'bypassPermissions' })).body;
    const sse = await events(a, s.id);
    const turn = (
      await a.api.post(`/v1/sessions/${s.id}/turns`, {
        tool_uses: [
          { id: 'toolu_sleep', name: 'Bash', input: { command: 'sleep 30' } },
          { id: 'toolu_next', name: 'Write', input: { file_path: 'never.txt', content: 'x' } },
        ],
      })
    ).body;
    await sse.waitFor((e) => e.event === 'tool.started');
    const t0 = Date.now();
    await a.close();
    expect(Date.now() - t0).toBeLessThan(10_000);
    const ended = await sse.waitFor((e) => e.event === 'turn.interrupted');
    expect(ended.data.turn.results.map((r: { is_error: boolean; content: { text: string }[] }) => [r.is_error, r.content[0]!.text.split(':')[0]])).toEqual([
      [true, 'Interrupted'],
      [true, 'Interrupted'],
    ]);

    const b = await boot();
    const got = await b.api.get(`/v1/sessions/${s.id}/turns/${turn.id}`);
    expect(got.body).toMatchObject({ status: 'interrupted', error: { code: 'server_shutdown' } });
    expect((await b.api.get(`/v1/sessions/${s.id}`)).body).toMatchObject({ status: 'active', active_turn_id: null });
    const next = await b.api.post(`/v1/sessions/${s.id}/turns?wait=30`, { tool_uses: [{ name: 'Write', input: { file_path: 'later.txt', content: 'ok' } }] });
    expect(next.body.status).toBe('completed');
    await expect(fs.access(path.join(s.workspace, 'never.txt'))).rejects.toThrow();
  });

  it('refuses new turns while shutting down, and keeps decisions, rules and outputs', async () => {
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'norma-restart-'));
    const a = await boot();
    const s = (await a.api.post('/v1/sessions', { permission_mode: 'bypassPermissions', output_cap_chars: 100 })).body;
    await a.api.patch(`/v1/sessions/${s.id}`, { add_rules: [{ rule: 'Edit(./docs/**)', behavior: 'allow' }] });
    await fs.writeFile(path.join(s.workspace, 'big.txt'), 'y'.repeat(5000));
    const r = await a.api.post(`/v1/sessions/${s.id}/turns?wait=30`, { tool_uses: [{ name: 'Read', input: { file_path: 'big.txt' } }] });
    const truncation = r.body.results[0].truncation;
    const outputId = truncation.output_id;
    const closing = a.close();
    // Shutdown has begun (synchronously): the service refuses new turns from now on.
    expect(() => a.server.ctx.app.turns.start(INTERNAL, s.id, { tool_uses: [{ name: 'LS', input: { path: '.' } }] })).toThrow(
      expect.objectContaining({ kind: 'unavailable', message: expect.stringContaining('shutting down') }),
    );
    await closing;

    const b = await boot();
    const again = (await b.api.get(`/v1/sessions/${s.id}`)).body;
    expect(again.rules).toMatchObject([{ rule: 'Edit(./docs/**)', behavior: 'allow', source: 'patch' }]);
    expect((await b.api.get(`/v1/sessions/${s.id}/decisions`)).body.items).toHaveLength(1);
    const out = await b.api.get(`/v1/sessions/${s.id}/outputs/${outputId}`);
    expect(out.status).toBe(200);
    expect([...(out.body as string)].length).toBe(truncation.total_chars);
    expect(out.headers.get('etag')).toBe(`"${truncation.sha256}"`);
  });

  it('with NORMA_STORE=memory nothing survives, and readiness says so', async () => {
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'norma-restart-'));
    const a = await boot({ NORMA_STORE: 'memory' });
    const ready = (await a.api.get('/readyz')).body;
    expect(ready.checks.find((c: { name: string }) => c.name === 'store').detail).toContain('does not survive a restart');
    const s = (await a.api.post('/v1/sessions', {})).body;
    await a.close();
    const b = await boot({ NORMA_STORE: 'memory' });
    expect((await b.api.get(`/v1/sessions/${s.id}`)).status).toBe(404);
    const durable = await boot({ NORMA_STORE: 'sqlite' });
    expect((await durable.api.get('/readyz')).body.checks.find((c: { name: string }) => c.name === 'store').detail).toBe(
      `SQLite ${path.join(dataDir, 'norma.db')}`,
    );
  });

  it('permission_timeout_s counts across the restart: a request that expired meanwhile is denied at once', async () => {
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'norma-restart-'));
    const a = await boot();
    const s = (await a.api.post('/v1/sessions', { permission_timeout_s: 1 })).body;
    const turn = (await a.api.post(`/v1/sessions/${s.id}/turns?wait=30`, { tool_uses: [{ id: 'toolu_1', name: 'Write', input: { file_path: 'x.txt', content: 'x' } }] })).body;
    expect(turn.status).toBe('awaiting_permission');
    await a.close();
    await new Promise((r) => setTimeout(r, 1200));
    const b = await boot();
    const done = (await b.api.get(`/v1/sessions/${s.id}/turns/${turn.id}?wait=30`)).body;
    expect(done.status).toBe('completed');
    expect(done.results[0]).toMatchObject({ is_error: true, content: [{ text: 'Permission denied by the user: no answer within 1 s' }] });
    const perm = (await b.api.get(`/v1/sessions/${s.id}/permissions`)).body.items[0];
    expect(perm).toMatchObject({ status: 'denied', resolved_by: 'timeout' });
  });

  it('a session\'s own hooks: SessionEnd at shutdown, SessionStart again with "resume", and they keep running', async () => {
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'norma-restart-'));
    const a = await boot();
    const log = 'cat >> hooks.log; echo >> hooks.log'; // one JSON input per line
    const s = (
      await a.api.post('/v1/sessions', {
        permission_mode: 'bypassPermissions',
        hooks: {
          SessionStart: [{ hooks: [{ type: 'command', command: log }] }],
          SessionEnd: [{ hooks: [{ type: 'command', command: log }] }],
          PreToolUse: [{ hooks: [{ type: 'command', command: log }] }],
        },
      })
    ).body;
    await a.close();
    const b = await boot();
    const done = await b.api.post(`/v1/sessions/${s.id}/turns?wait=30`, { tool_uses: [{ name: 'LS', input: { path: '.' } }] });
    expect(done.body.status).toBe('completed');
    const inputs = (await fs.readFile(path.join(s.workspace, 'hooks.log'), 'utf8')).trim().split('\n').map((l) => JSON.parse(l));
    expect(inputs.map((i) => [i.hook_event_name, i.reason ?? null, i.session_id])).toEqual([
      ['SessionStart', null, s.id],
      ['SessionEnd', 'server shutdown', s.id],
      ['SessionStart', 'resume', s.id],
      ['PreToolUse', null, s.id],
    ]);
  });

  it('a session hook that can no longer be installed after a restart is reported in the session warnings', async () => {
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'norma-restart-'));
    const a = await boot();
    const ws = path.join(a.config.workspaceRoot, 'project');
    await fs.mkdir(ws, { recursive: true });
    const script = path.join(ws, 'hook.sh');
    await fs.writeFile(script, '#!/bin/sh\nexit 0\n', { mode: 0o755 });
    const s = (await a.api.post('/v1/sessions', { workspace: ws, hooks: { PreToolUse: [{ hooks: [{ type: 'command', command: script }] }] } })).body;
    expect(s.hook_events).toEqual(['PreToolUse']);
    await a.close();
    await fs.rm(script);
    const b = await boot();
    const again = (await b.api.get(`/v1/sessions/${s.id}`)).body;
    expect(again.warnings).toContainEqual(expect.stringContaining('after a restart these hooks could not be installed again: hooks.PreToolUse[0].hooks[0].command: command not found'));
  });
});
