// A real server process on a real SQLite file, killed with SIGKILL at awkward moments, then
// started again on the same data directory. After the restart every tool_use has exactly one
// tool_result (or still waits on its stored permission request), and the event log is whole.
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { launchServer, type ServerProcess } from '../helpers/server-process.js';
import { openSse, type SseMessage } from '../helpers/sse.js';

let children: ChildProcess[] = [];
let dirs: string[] = [];

afterEach(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  await Promise.all(children.map((c) => (c.exitCode === null && c.signalCode === null ? new Promise((r) => c.once('exit', r)) : null)));
  children = [];
  await Promise.all(dirs.map((d) => fs.rm(d, { recursive: true, force: true })));
  dirs = [];
});

type Running = ServerProcess;

async function launch(dataDir: string): Promise<Running> {
  const r = await launchServer({ NORMA_DATA_DIR: dataDir });
  children.push(r.child);
  return r;
}

async function kill(r: Running): Promise<void> {
  await r.kill();
}

async function newDataDir(): Promise<string> {
  const d = await fs.mkdtemp(path.join(os.tmpdir(), 'norma-crash-'));
  dirs.push(d);
  return d;
}

/** Every durable event of the session from seq 1, read through a fresh SSE stream until `until`. */
async function allEvents(r: Running, sessionId: string, until: (e: SseMessage) => boolean): Promise<SseMessage[]> {
  const s = await openSse(`${r.url}/v1/sessions/${sessionId}/events`, { lastEventId: '0' });
  try {
    await s.waitFor(until, 15_000);
    return s.events.filter((e) => e.id !== undefined);
  } finally {
    s.close();
  }
}

function expectWholeLog(events: SseMessage[]): void {
  const seqs = events.map((e) => Number(e.id));
  expect(seqs).toEqual(seqs.map((_, i) => i + 1));
}

describe('SIGKILL and restart', () => {
  it('during a paused permission: the turn still waits, and the answer continues it', async () => {
    const dataDir = await newDataDir();
    const a = await launch(dataDir);
    const s = (await a.api.post('/v1/sessions', {})).body;
    const turn = (
      await a.api.post(`/v1/sessions/${s.id}/turns?wait=30`, {
        tool_uses: [{ id: 'toolu_1', name: 'Write', input: { file_path: 'kept.txt', content: 'after the crash\n' } }],
      })
    ).body;
    expect(turn.status).toBe('awaiting_permission');
    const asked = turn.pending[0];
    await kill(a);

    const b = await launch(dataDir);
    const paused = (await b.api.get(`/v1/sessions/${s.id}/turns/${turn.id}`)).body;
    expect(paused).toMatchObject({ status: 'awaiting_permission', pending: [asked], results: [] });
    const ok = await b.api.post(`/v1/sessions/${s.id}/permissions/${asked}`, { behavior: 'allow' });
    expect(ok.body).toMatchObject({ status: 'allowed', resolved_by: 'client' });
    const done = (await b.api.get(`/v1/sessions/${s.id}/turns/${turn.id}?wait=30`)).body;
    expect(done.status).toBe('completed');
    expect(done.results).toMatchObject([{ tool_use_id: 'toolu_1', is_error: false }]);
    expect(await fs.readFile(path.join(s.workspace, 'kept.txt'), 'utf8')).toBe('after the crash\n');
    const events = await allEvents(b, s.id, (e) => e.event === 'turn.completed');
    expectWholeLog(events);
    expect(events.map((e) => e.event)).toEqual([
      'session.created',
      'turn.started',
      'permission.requested',
      'turn.resumed',
      'permission.resolved',
      'tool.started',
      'tool.completed',
      'turn.completed',
    ]);
    await kill(b);
  }, 60_000);

  it('during a running Bash: it gets an interrupted result, the next call a not-run result, the turn ends interrupted', async () => {
    const dataDir = await newDataDir();
    const a = await launch(dataDir);
    const s = (await a.api.post('/v1/sessions', { permission_mode: 'bypassPermissions' })).body;
    const sse = await openSse(`${a.url}/v1/sessions/${s.id}/events`);
    const turn = (
      await a.api.post(`/v1/sessions/${s.id}/turns`, {
        tool_uses: [
          { id: 'toolu_sleep', name: 'Bash', input: { command: 'echo started; sleep 60' } },
          { id: 'toolu_read', name: 'Read', input: { file_path: 'x.txt' } },
        ],
      })
    ).body;
    await sse.waitFor((e) => e.event === 'tool.progress' && String(e.data.chunk).includes('started'), 15_000);
    sse.close();
    await kill(a);

    const b = await launch(dataDir);
    const ended = (await b.api.get(`/v1/sessions/${s.id}/turns/${turn.id}`)).body;
    expect(ended).toMatchObject({ status: 'interrupted', pending: [], error: { code: 'server_restart' } });
    expect(ended.results.map((r: { tool_use_id: string; is_error: boolean; content: { text: string }[] }) => [r.tool_use_id, r.is_error, r.content[0]!.text])).toEqual([
      ['toolu_sleep', true, 'Interrupted: the server restarted while this call was running; it may have partly run.'],
      ['toolu_read', true, 'Not run: the server restarted before this call started.'],
    ]);
    const events = await allEvents(b, s.id, (e) => e.event === 'turn.interrupted');
    expectWholeLog(events);
    expect(events.filter((e) => e.event === 'tool.completed').map((e) => e.data.tool_use_id)).toEqual(['toolu_sleep', 'toolu_read']);
    // The session goes on.
    expect((await b.api.get(`/v1/sessions/${s.id}`)).body).toMatchObject({ status: 'active', active_turn_id: null });
    const next = await b.api.post(`/v1/sessions/${s.id}/turns?wait=30`, { tool_uses: [{ name: 'Bash', input: { command: 'echo again' } }] });
    expect(next.body.results[0]).toMatchObject({ is_error: false });
    await kill(b);
  }, 60_000);

  it('during heavy event emission: the log stays gapless and every tool_use is answered exactly once', async () => {
    const dataDir = await newDataDir();
    const a = await launch(dataDir);
    const s = (await a.api.post('/v1/sessions', { permission_mode: 'bypassPermissions' })).body;
    await fs.writeFile(path.join(s.workspace, 'f.txt'), 'line\n');
    // 255 parallel Reads, then a call that cannot finish before the kill.
    const calls: { id: string; name: string; input: object }[] = Array.from({ length: 255 }, (_, i) => ({ id: `toolu_${i}`, name: 'Read', input: { file_path: 'f.txt' } }));
    calls.push({ id: 'toolu_last', name: 'Bash', input: { command: 'sleep 60' } });
    const sse = await openSse(`${a.url}/v1/sessions/${s.id}/events`);
    const posted = await a.api.post(`/v1/sessions/${s.id}/turns`, { tool_uses: calls });
    expect(posted.status).toBe(202);
    const turn = posted.body;
    // Kill somewhere in the middle of the stream of tool.started / tool.completed events.
    await sse.waitFor(() => sse.events.filter((e) => e.event === 'tool.completed').length >= 30, 15_000);
    sse.close();
    await kill(a);

    const b = await launch(dataDir);
    const ended = (await b.api.get(`/v1/sessions/${s.id}/turns/${turn.id}`)).body;
    expect(ended.status).toBe('interrupted');
    expect(ended.results.at(-1).content[0].text).toMatch(/^(Interrupted|Not run): the server restarted/);
    expect(ended.results.map((r: { tool_use_id: string }) => r.tool_use_id)).toEqual(calls.map((c) => c.id));
    const events = await allEvents(b, s.id, (e) => e.event === 'turn.interrupted');
    expectWholeLog(events);
    const completed = events.filter((e) => e.event === 'tool.completed').map((e) => e.data.tool_use_id as string);
    expect(new Set(completed).size).toBe(completed.length);
    expect(completed.sort()).toEqual(calls.map((c) => c.id).sort());
    await kill(b);
  }, 60_000);
});
