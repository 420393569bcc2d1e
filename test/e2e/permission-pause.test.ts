// The permission pause over real HTTP and a real SSE client: ask → approve / deny / interrupt /
// cancel / timeout, and every tool_use answered by exactly one tool_result.
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSse, type SseStream } from '../helpers/sse.js';
import { startServer, type TestServer } from '../helpers/server.js';

let t: TestServer;
let streams: SseStream[] = [];

beforeEach(async () => {
  t = await startServer();
});
afterEach(async () => {
  for (const s of streams) s.close();
  streams = [];
  await t.close();
});

async function session(body: object = {}) {
  const res = await t.api.post('/v1/sessions', body);
  expect(res.status).toBe(201);
  return res.body as { id: string; workspace: string };
}

async function events(sessionId: string, lastEventId?: string) {
  const s = await openSse(`${t.url}/v1/sessions/${sessionId}/events`, lastEventId !== undefined ? { lastEventId } : {});
  streams.push(s);
  return s;
}

describe('the permission pause', () => {
  it('asks over SSE, and an approval runs the call and pairs its result', async () => {
    const s = await session();
    const sse = await events(s.id);
    const post = await t.api.post(`/v1/sessions/${s.id}/turns`, {
      tool_uses: [{ id: 'toolu_w1', name: 'Write', input: { file_path: 'notes/hello.txt', content: 'hello\n' } }],
    });
    expect(post.status).toBe(202);
    expect(post.body.status).toBe('running');

    const asked = await sse.waitFor((e) => e.event === 'permission.requested');
    const perm = asked.data.permission;
    expect(perm).toMatchObject({ tool: 'Write', tool_use_id: 'toolu_w1', status: 'pending', turn_id: post.body.id });
    expect(perm.input).toEqual({ file_path: 'notes/hello.txt', content: 'hello\n' });
    expect(perm.suggestions.length).toBeGreaterThan(0);

    const paused = await t.api.get(`/v1/sessions/${s.id}/turns/${post.body.id}`);
    expect(paused.body.status).toBe('awaiting_permission');
    expect(paused.body.pending).toEqual([perm.id]);
    const pendingList = await t.api.get(`/v1/sessions/${s.id}/permissions?status=pending`);
    expect(pendingList.body.items.map((p: { id: string }) => p.id)).toEqual([perm.id]);
    // Nothing was written before the approval.
    await expect(fs.stat(path.join(s.workspace, 'notes/hello.txt'))).rejects.toThrow();

    const answer = await t.api.post(`/v1/sessions/${s.id}/permissions/${perm.id}`, { behavior: 'allow' });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ id: perm.id, status: 'allowed', resolved_by: 'client' });

    const done = await sse.waitFor((e) => e.event === 'turn.completed');
    expect(done.data.turn.results).toHaveLength(1);
    expect(done.data.turn.results[0]).toMatchObject({ tool_use_id: 'toolu_w1', is_error: false });
    expect(await fs.readFile(path.join(s.workspace, 'notes/hello.txt'), 'utf8')).toBe('hello\n');

    const order = sse.events.map((e) => e.event);
    expect(order).toEqual([
      'session.created',
      'turn.started',
      'permission.requested',
      'permission.resolved',
      'tool.started',
      'tool.completed',
      'turn.completed',
    ]);
    const seqs = sse.events.map((e) => Number(e.id));
    expect(seqs).toEqual(seqs.map((_, i) => i + 1));
  });

  it('a denial becomes an is_error result with the message, and the turn completes', async () => {
    const s = await session();
    const sse = await events(s.id);
    const post = await t.api.post(`/v1/sessions/${s.id}/turns`, {
      tool_uses: [
        { id: 'a', name: 'Write', input: { file_path: 'x.txt', content: 'x' } },
        { id: 'b', name: 'LS', input: { path: '.' } },
      ],
    });
    const asked = await sse.waitFor((e) => e.event === 'permission.requested');
    await t.api.post(`/v1/sessions/${s.id}/permissions/${asked.data.permission.id}`, {
      behavior: 'deny',
      message: 'not in this directory',
    });
    await sse.waitFor((e) => e.event === 'turn.completed');
    const turn = (await t.api.get(`/v1/sessions/${s.id}/turns/${post.body.id}`)).body;
    expect(turn.status).toBe('completed');
    expect(turn.results.map((r: { tool_use_id: string }) => r.tool_use_id)).toEqual(['a', 'b']);
    expect(turn.results[0].is_error).toBe(true);
    expect(turn.results[0].content[0].text).toContain('not in this directory');
    expect(turn.results[1].is_error).toBe(false);
    await expect(fs.stat(path.join(s.workspace, 'x.txt'))).rejects.toThrow();
  });

  it('a denial with interrupt stops the rest of the turn, each call still answered', async () => {
    const s = await session();
    const sse = await events(s.id);
    const post = await t.api.post(`/v1/sessions/${s.id}/turns`, {
      tool_uses: [
        { id: 'a', name: 'Write', input: { file_path: 'a.txt', content: 'a' } },
        { id: 'b', name: 'Write', input: { file_path: 'b.txt', content: 'b' } },
      ],
    });
    const asked = await sse.waitFor((e) => e.event === 'permission.requested');
    await t.api.post(`/v1/sessions/${s.id}/permissions/${asked.data.permission.id}`, { behavior: 'deny', interrupt: true });
    const ended = await sse.waitFor((e) => e.event === 'turn.cancelled');
    expect(ended.data.turn.error.code).toBe('interrupted');
    const turn = (await t.api.get(`/v1/sessions/${s.id}/turns/${post.body.id}`)).body;
    expect(turn.status).toBe('cancelled');
    expect(turn.results.map((r: { tool_use_id: string; is_error: boolean }) => [r.tool_use_id, r.is_error])).toEqual([
      ['a', true],
      ['b', true],
    ]);
    // The second call never asked.
    expect(sse.events.filter((e) => e.event === 'permission.requested')).toHaveLength(1);
    expect(sse.events.filter((e) => e.event === 'tool.completed')).toHaveLength(2);
  });

  it('cancel resolves the pending request as cancelled and answers every call', async () => {
    const s = await session();
    const sse = await events(s.id);
    const post = await t.api.post(`/v1/sessions/${s.id}/turns`, {
      tool_uses: [
        { id: 'w', name: 'Write', input: { file_path: 'c.txt', content: 'c' } },
        { id: 'r', name: 'Read', input: { file_path: 'c.txt' } },
      ],
    });
    const asked = await sse.waitFor((e) => e.event === 'permission.requested');
    const cancel = await t.api.post(`/v1/sessions/${s.id}/turns/${post.body.id}/cancel`);
    expect(cancel.status).toBe(200);
    expect(cancel.body.status).toBe('cancelled');
    expect(cancel.body.results).toHaveLength(2);
    expect(cancel.body.results.every((r: { is_error: boolean; content: { text: string }[] }) => r.is_error && r.content[0]!.text.startsWith('Cancelled'))).toBe(true);

    const resolved = await sse.waitFor((e) => e.event === 'permission.resolved');
    expect(resolved.data.permission).toMatchObject({ id: asked.data.permission.id, status: 'cancelled', resolved_by: 'cancel' });
    await sse.waitFor((e) => e.event === 'turn.cancelled');

    const late = await t.api.post(`/v1/sessions/${s.id}/permissions/${asked.data.permission.id}`, { behavior: 'allow' });
    expect(late.status).toBe(409);
    expect(late.body.detail).toContain('already resolved (cancelled)');
    // Cancelling again is harmless; the session takes a new turn.
    expect((await t.api.post(`/v1/sessions/${s.id}/turns/${post.body.id}/cancel`)).status).toBe(200);
    expect((await t.api.post(`/v1/sessions/${s.id}/turns`, { tool_uses: [{ name: 'LS', input: { path: '.' } }] })).status).toBe(202);
  });

  it('permission_timeout_s denies an unanswered request', async () => {
    const s = await session({ permission_timeout_s: 0.2 });
    const sse = await events(s.id);
    await t.api.post(`/v1/sessions/${s.id}/turns`, {
      tool_uses: [{ id: 'w', name: 'Write', input: { file_path: 't.txt', content: 't' } }],
    });
    const resolved = await sse.waitFor((e) => e.event === 'permission.resolved');
    expect(resolved.data.permission).toMatchObject({ status: 'denied', resolved_by: 'timeout' });
    const done = await sse.waitFor((e) => e.event === 'turn.completed');
    expect(done.data.turn.results[0].is_error).toBe(true);
    expect(done.data.turn.results[0].content[0].text).toMatch(/no answer within 0.2 s/);
  });

  it('a request without a timeout stays pending', async () => {
    const s = await session();
    const post = await t.api.post(`/v1/sessions/${s.id}/turns?wait=0.3`, {
      tool_uses: [{ name: 'Write', input: { file_path: 'p.txt', content: 'p' } }],
    });
    expect(post.status).toBe(200);
    expect(post.body.status).toBe('awaiting_permission');
    await new Promise((r) => setTimeout(r, 300));
    const pending = await t.api.get(`/v1/sessions/${s.id}/permissions?status=pending`);
    expect(pending.body.items).toHaveLength(1);
  });

  it('updated_input is validated again: an invalid one fails the call, not the server', async () => {
    const s = await session();
    const post = await t.api.post(`/v1/sessions/${s.id}/turns?wait=5`, {
      tool_uses: [{ id: 'w', name: 'Write', input: { file_path: 'u.txt', content: 'u' } }],
    });
    const permId = post.body.pending[0];
    await t.api.post(`/v1/sessions/${s.id}/permissions/${permId}`, {
      behavior: 'allow',
      updated_input: { file_path: 'u.txt', content: 42 },
    });
    const turn = (await t.api.get(`/v1/sessions/${s.id}/turns/${post.body.id}?wait=5`)).body;
    expect(turn.status).toBe('completed');
    expect(turn.results[0].is_error).toBe(true);
    expect(turn.results[0].content[0].text).toMatch(/Invalid updated_input \(from the approval\) for Write: input\.content: must be string/);
    await expect(fs.stat(path.join(s.workspace, 'u.txt'))).rejects.toThrow();
  });

  it('updated_input runs instead of the original input', async () => {
    const s = await session();
    const post = await t.api.post(`/v1/sessions/${s.id}/turns?wait=5`, {
      tool_uses: [{ id: 'w', name: 'Write', input: { file_path: 'orig.txt', content: 'o' } }],
    });
    await t.api.post(`/v1/sessions/${s.id}/permissions/${post.body.pending[0]}`, {
      behavior: 'allow',
      updated_input: { file_path: 'changed.txt', content: 'c' },
    });
    const turn = (await t.api.get(`/v1/sessions/${s.id}/turns/${post.body.id}?wait=5`)).body;
    expect(turn.results[0].is_error).toBe(false);
    expect(await fs.readFile(path.join(s.workspace, 'changed.txt'), 'utf8')).toBe('c');
    await expect(fs.stat(path.join(s.workspace, 'orig.txt'))).rejects.toThrow();
  });

  it('remember adds a session rule, so the next call of that tool runs without asking', async () => {
    const s = await session();
    const first = await t.api.post(`/v1/sessions/${s.id}/turns?wait=5`, {
      tool_uses: [{ name: 'Write', input: { file_path: 'r1.txt', content: '1' } }],
    });
    const answered = await t.api.post(`/v1/sessions/${s.id}/permissions/${first.body.pending[0]}`, {
      behavior: 'allow',
      remember: ['Write'],
    });
    expect(answered.body.remember).toEqual(['Write']);
    await t.api.get(`/v1/sessions/${s.id}/turns/${first.body.id}?wait=5`);
    const sessionNow = (await t.api.get(`/v1/sessions/${s.id}`)).body;
    expect(sessionNow.rules).toMatchObject([{ rule: 'Write', behavior: 'allow', source: 'remember' }]);

    const second = await t.api.post(`/v1/sessions/${s.id}/turns?wait=5`, {
      tool_uses: [{ name: 'Write', input: { file_path: 'r2.txt', content: '2' } }],
    });
    expect(second.body.status).toBe('completed');
    expect(second.body.results[0].is_error).toBe(false);
    expect(await fs.readFile(path.join(s.workspace, 'r2.txt'), 'utf8')).toBe('2');
  });

  it('remember with an invalid rule is a 400 and leaves the request pending', async () => {
    const s = await session();
    const post = await t.api.post(`/v1/sessions/${s.id}/turns?wait=5`, {
      tool_uses: [{ name: 'Write', input: { file_path: 'z.txt', content: 'z' } }],
    });
    const bad = await t.api.post(`/v1/sessions/${s.id}/permissions/${post.body.pending[0]}`, {
      behavior: 'allow',
      remember: ['Write(unclosed'],
    });
    expect(bad.status).toBe(400);
    expect(bad.body.detail).toContain('Write(unclosed');
    const perm = (await t.api.get(`/v1/sessions/${s.id}/permissions?status=pending`)).body.items;
    expect(perm).toHaveLength(1);
  });

  it('read-only calls run in parallel while a mutating call waits for its answer', async () => {
    const s = await session();
    await fs.writeFile(path.join(s.workspace, 'in.txt'), 'one\ntwo\n');
    const post = await t.api.post(`/v1/sessions/${s.id}/turns?wait=5`, {
      tool_uses: [
        { id: 'r1', name: 'Read', input: { file_path: 'in.txt' } },
        { id: 'l1', name: 'LS', input: { path: '.' } },
        { id: 'w1', name: 'Write', input: { file_path: 'out.txt', content: 'x' } },
        { id: 'r2', name: 'Read', input: { file_path: 'out.txt' } },
      ],
    });
    expect(post.body.status).toBe('awaiting_permission');
    expect(post.body.results.map((r: { tool_use_id: string }) => r.tool_use_id)).toEqual(['r1', 'l1']);
    await t.api.post(`/v1/sessions/${s.id}/permissions/${post.body.pending[0]}`, { behavior: 'allow' });
    const turn = (await t.api.get(`/v1/sessions/${s.id}/turns/${post.body.id}?wait=5`)).body;
    expect(turn.results.map((r: { tool_use_id: string }) => r.tool_use_id)).toEqual(['r1', 'l1', 'w1', 'r2']);
    // r2 ran after w1 (order kept for the mutating call): it sees the written file.
    expect(turn.results[3].content[0].text).toBe('     1\tx');
  });
});
