// Per-session command hooks over HTTP, run in the real process sandbox: exit-status semantics,
// the JSON fields they may print, timeouts, matchers and `if`, lifecycle events, and the
// hook.completed / hook.failed audit events.
import { createHmac } from 'node:crypto';
import fs from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { signBody } from '../../src/hooks/http.js';
import { afterEach, describe, expect, it } from 'vitest';
import { openSse, type SseStream } from '../helpers/sse.js';
import { startServer, type TestServer } from '../helpers/server.js';

let t: TestServer | undefined;
let streams: SseStream[] = [];
let servers: http.Server[] = [];
afterEach(async () => {
  for (const s of streams) s.close();
  streams = [];
  for (const s of servers) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
  servers = [];
  await t?.close();
  t = undefined;
});

type Hooks = Record<string, { matcher?: string; if?: string; hooks: ({ type: 'command'; command: string; timeout_s?: number; on_failure?: 'block' | 'continue' } | { type: 'http'; url: string; timeout_s?: number; secret?: string })[] }[]>;

async function session(hooks: Hooks, extra: object = {}) {
  t ??= await startServer();
  const res = await t.api.post('/v1/sessions', { hooks, ...extra });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: string; workspace: string; hook_events: string[] };
}

async function turn(sessionId: string, toolUses: object[]) {
  const res = await t!.api.post(`/v1/sessions/${sessionId}/turns?wait=60`, { tool_uses: toolUses });
  expect(res.status).toBe(200);
  return res.body;
}

async function allEvents(sessionId: string) {
  const s = await openSse(`${t!.url}/v1/sessions/${sessionId}/events`, { lastEventId: '0' });
  streams.push(s);
  await new Promise((r) => setTimeout(r, 150));
  return s.events;
}

const text = (r: { content: { text: string }[] }) => r.content.map((c) => c.text).join('\n');
const write = (file_path: string, content = 'x') => ({ name: 'Write', input: { file_path, content } });

describe('command hooks: exit status', () => {
  it('exit 2 blocks the call with stderr as the reason; the decision and the event say which hook', async () => {
    const s = await session({ PreToolUse: [{ matcher: 'Write', hooks: [{ type: 'command', command: 'echo "no writes today" >&2; exit 2' }] }] }, { permission_mode: 'bypassPermissions' });
    expect(s.hook_events).toEqual(['PreToolUse']);
    const done = await turn(s.id, [write('a.txt')]);
    expect(text(done.results[0])).toBe('Blocked by PreToolUse hook: no writes today');
    await expect(fs.access(path.join(s.workspace, 'a.txt'))).rejects.toThrow();
    const decisions = (await t!.api.get(`/v1/sessions/${s.id}/decisions`)).body.items;
    expect(decisions.at(-1)).toMatchObject({ behavior: 'deny', decided_by: 'hook', reason: 'no writes today' });
    const ev = (await allEvents(s.id)).find((e) => e.event === 'hook.completed');
    expect(ev?.data).toMatchObject({ hook: 'hooks.PreToolUse[0].hooks[0]', kind: 'command', event: 'PreToolUse', outcome: 'blocked', decision: 'deny', tool_use_id: done.tool_uses[0].id });
  });

  it('another non-zero status, or output that is not JSON, is reported without blocking', async () => {
    const s = await session(
      {
        PreToolUse: [
          { hooks: [{ type: 'command', command: 'echo broken >&2; exit 1' }] },
          { hooks: [{ type: 'command', command: 'echo "this is not json"' }] },
        ],
      },
      { permission_mode: 'bypassPermissions' },
    );
    const done = await turn(s.id, [write('a.txt', 'kept')]);
    expect(done.results[0].is_error).toBe(false);
    expect(await fs.readFile(path.join(s.workspace, 'a.txt'), 'utf8')).toBe('kept');
    const failed = (await allEvents(s.id)).filter((e) => e.event === 'hook.failed').map((e) => e.data);
    expect(failed).toMatchObject([
      { hook: 'hooks.PreToolUse[0].hooks[0]', outcome: 'error', error: 'exited with status 1: broken' },
      { hook: 'hooks.PreToolUse[1].hooks[0]', outcome: 'error', error: expect.stringContaining('not a JSON object') },
    ]);
  });

  it('with on_failure "continue", a hook that fails does not block the call', async () => {
    const s = await session({ PreToolUse: [{ hooks: [{ type: 'command', command: 'sleep 30', timeout_s: 0.3, on_failure: 'continue' }] }] }, { permission_mode: 'bypassPermissions' });
    const done = await turn(s.id, [write('a.txt', 'went on')]);
    expect(done.results[0].is_error).toBe(false);
    expect(await fs.readFile(path.join(s.workspace, 'a.txt'), 'utf8')).toBe('went on');
    expect((await allEvents(s.id)).find((e) => e.event === 'hook.failed')?.data).toMatchObject({ outcome: 'failed', error: 'timed out after 300 ms' });
  });

  it('cancelling the turn stops a running hook and its processes', async () => {
    const s = await session({ PreToolUse: [{ hooks: [{ type: 'command', command: 'sleep 2; echo late > late.txt' }] }] }, { permission_mode: 'bypassPermissions' });
    const started = (await t!.api.post(`/v1/sessions/${s.id}/turns`, { tool_uses: [{ name: 'LS', input: { path: '.' } }] })).body;
    await new Promise((r) => setTimeout(r, 300));
    const cancelled = await t!.api.post(`/v1/sessions/${s.id}/turns/${started.id}/cancel`);
    expect(cancelled.body.status).toBe('cancelled');
    await new Promise((r) => setTimeout(r, 2500));
    await expect(fs.access(path.join(s.workspace, 'late.txt'))).rejects.toThrow();
    const failed = (await allEvents(s.id)).find((e) => e.event === 'hook.failed');
    expect(failed?.data).toMatchObject({ outcome: 'failed', error: 'cancelled with the turn' });
  });

  it('a hook that sleeps past its timeout is killed and blocks the call (fail-closed)', async () => {
    const s = await session({ PreToolUse: [{ hooks: [{ type: 'command', command: 'sleep 30', timeout_s: 0.5 }] }] }, { permission_mode: 'bypassPermissions' });
    const t0 = Date.now();
    const done = await turn(s.id, [write('a.txt')]);
    expect(Date.now() - t0).toBeLessThan(10_000);
    expect(text(done.results[0])).toBe('Blocked by PreToolUse hook: hook hooks.PreToolUse[0].hooks[0] failed (timed out after 500 ms); the call is blocked');
    const failed = (await allEvents(s.id)).find((e) => e.event === 'hook.failed');
    expect(failed?.data).toMatchObject({ outcome: 'failed', error: 'timed out after 500 ms' });
  });
});

describe('command hooks: what they print', () => {
  it('get the event as JSON on stdin, in the workspace', async () => {
    const s = await session({ PreToolUse: [{ hooks: [{ type: 'command', command: 'cat > hook-input.json' }] }] }, { permission_mode: 'bypassPermissions' });
    const done = await turn(s.id, [{ id: 'toolu_in', name: 'LS', input: { path: '.' } }]);
    expect(done.results[0].is_error).toBe(false);
    const got = JSON.parse(await fs.readFile(path.join(s.workspace, 'hook-input.json'), 'utf8'));
    expect(got).toMatchObject({
      hook_event_name: 'PreToolUse',
      session_id: s.id,
      turn_id: done.id,
      cwd: s.workspace,
      permission_mode: 'bypassPermissions',
      tool_name: 'LS',
      tool_input: { path: '.' },
      tool_use_id: 'toolu_in',
    });
  });

  it('a rewrite out of what the rules allowed is asked again, showing the rewritten input', async () => {
    const rewrite = `echo '{"hookSpecificOutput":{"updatedInput":{"file_path":"secrets/a.txt","content":"x"}}}'`;
    const s = await session({ PreToolUse: [{ matcher: 'Write', hooks: [{ type: 'command', command: rewrite }] }] }, { allowed_tools: ['Edit(./notes/**)'] });
    const sse = await openSse(`${t!.url}/v1/sessions/${s.id}/events`);
    streams.push(sse);
    await t!.api.post(`/v1/sessions/${s.id}/turns`, { tool_uses: [write('notes/a.txt')] });
    const asked = (await sse.waitFor((e) => e.event === 'permission.requested')).data.permission;
    expect(asked.input).toEqual({ file_path: 'secrets/a.txt', content: 'x' });
    await t!.api.post(`/v1/sessions/${s.id}/permissions/${asked.id}`, { behavior: 'deny' });
    const done = await sse.waitFor((e) => e.event === 'turn.completed');
    expect(text(done.data.turn.results[0])).toBe('Permission denied by the user.');
    const rewritten = sse.events.find((e) => e.event === 'hook.completed');
    expect(rewritten?.data.rewrite_digest).toMatch(/^[0-9a-f]{64}$/);
  });

  it('permissionDecision "ask" puts a call before a person even in bypassPermissions; "allow" changes nothing', async () => {
    const s = await session(
      {
        PreToolUse: [
          { matcher: 'Write', hooks: [{ type: 'command', command: `echo '{"permissionDecision":"ask","reason":"writes are reviewed"}'` }] },
          { matcher: 'LS', hooks: [{ type: 'command', command: `echo '{"decision":"allow"}'` }] },
        ],
      },
      { permission_mode: 'bypassPermissions' },
    );
    const paused = await turn(s.id, [{ name: 'LS', input: { path: '.' } }, write('a.txt')]);
    expect(paused.status).toBe('awaiting_permission');
    expect(paused.results).toHaveLength(1);
    const perm = (await t!.api.get(`/v1/sessions/${s.id}/permissions?status=pending`)).body.items[0];
    expect(perm.reason).toContain('writes are reviewed');
    await t!.api.post(`/v1/sessions/${s.id}/permissions/${perm.id}`, { behavior: 'allow' });
    const done = (await t!.api.get(`/v1/sessions/${s.id}/turns/${paused.id}?wait=30`)).body;
    expect(done.results.map((r: { is_error: boolean }) => r.is_error)).toEqual([false, false]);
    const decisions = (await t!.api.get(`/v1/sessions/${s.id}/decisions`)).body.items;
    expect(decisions.some((d: { decided_by: string; behavior: string }) => d.decided_by === 'hook' && d.behavior === 'ask')).toBe(true);
  });

  it('PostToolUse can replace what the model sees and add context; the truncation record stays', async () => {
    const s = await session(
      { PostToolUse: [{ matcher: 'Read', hooks: [{ type: 'command', command: `echo '{"updatedOutput":"[redacted]","additionalContext":"the file was redacted by policy"}'` }] }] },
      { output_cap_chars: 100 },
    );
    await fs.writeFile(path.join(s.workspace, 'secret.txt'), 'token=hunter2\n'.repeat(50));
    const done = await turn(s.id, [{ name: 'Read', input: { file_path: 'secret.txt' } }]);
    expect(done.results[0].content).toEqual([
      { type: 'text', text: '[redacted]' },
      { type: 'text', text: 'the file was redacted by policy' },
    ]);
    expect(done.results[0].truncation).toMatchObject({ total_chars: expect.any(Number) });
  });

  it('continue:false stops the turn: later calls are not run and the turn says why', async () => {
    const s = await session(
      { PostToolUse: [{ matcher: 'LS', hooks: [{ type: 'command', command: `echo '{"continue":false,"stopReason":"enough listing"}'` }] }] },
      { permission_mode: 'bypassPermissions' },
    );
    const done = await turn(s.id, [{ name: 'LS', input: { path: '.' } }, write('never.txt')]);
    expect(done).toMatchObject({ status: 'cancelled', error: { code: 'stopped_by_hook' } });
    expect(done.error.message).toContain('enough listing');
    expect(done.results[0].is_error).toBe(false);
    expect(text(done.results[1])).toMatch(/^Cancelled: hook hooks\.PostToolUse\[0\]\.hooks\[0\] stopped the turn: enough listing/);
    await expect(fs.access(path.join(s.workspace, 'never.txt'))).rejects.toThrow();
  });
});

describe('the hook-run listing', () => {
  it('lists every run of the session with outcome, decision and errors, paged by seq', async () => {
    const s = await session(
      {
        PreToolUse: [
          { matcher: 'LS', hooks: [{ type: 'command', command: `echo '{"decision":"allow"}'` }, { type: 'command', command: 'exit 1' }] },
          { matcher: 'Write', hooks: [{ type: 'command', command: 'echo no >&2; exit 2' }] },
        ],
      },
      { permission_mode: 'bypassPermissions' },
    );
    await turn(s.id, [{ name: 'LS', input: { path: '.' } }, write('a.txt')]);
    const all = (await t!.api.get(`/v1/sessions/${s.id}/hook-runs`)).body;
    expect(all.next_after).toBeNull();
    expect(all.items.map((r: { type: string; hook: string; outcome: string }) => `${r.type} ${r.hook} ${r.outcome}`)).toEqual([
      'hook.completed hooks.PreToolUse[0].hooks[0] ok',
      'hook.failed hooks.PreToolUse[0].hooks[1] error',
      'hook.completed hooks.PreToolUse[1].hooks[0] blocked',
    ]);
    expect(all.items[0]).toMatchObject({ decision: 'allow', kind: 'command', event: 'PreToolUse' });
    const page = (await t!.api.get(`/v1/sessions/${s.id}/hook-runs?limit=1&after=${all.items[0].seq}`)).body;
    expect(page.items.map((r: { seq: number }) => r.seq)).toEqual([all.items[1].seq]);
    expect(page.next_after).toBe(all.items[1].seq);
    expect((await t!.api.get('/v1/sessions/ses_none/hook-runs')).status).toBe(404);
  });
});

describe('order within one event', () => {
  it('hooks run in configuration order; a block ends the chain; the last rewrite wins', async () => {
    const s = await session(
      {
        PreToolUse: [
          { matcher: 'LS', hooks: [{ type: 'command', command: 'echo first >> order.txt' }, { type: 'command', command: 'echo second >> order.txt; exit 2' }] },
          { matcher: 'LS', hooks: [{ type: 'command', command: 'echo never >> order.txt' }] },
          {
            matcher: 'Write',
            hooks: [
              { type: 'command', command: `echo '{"updatedInput":{"file_path":"one.txt","content":"1"}}'` },
              { type: 'command', command: 'true' },
              { type: 'command', command: `echo '{"updatedInput":{"file_path":"two.txt","content":"2"}}'` },
            ],
          },
        ],
      },
      { permission_mode: 'bypassPermissions' },
    );
    const done = await turn(s.id, [{ name: 'LS', input: { path: '.' } }, write('zero.txt')]);
    expect(done.results[0].is_error).toBe(true);
    expect((await fs.readFile(path.join(s.workspace, 'order.txt'), 'utf8')).trim().split('\n')).toEqual(['first', 'second']);
    expect(done.results[1].is_error).toBe(false);
    expect(await fs.readFile(path.join(s.workspace, 'two.txt'), 'utf8')).toBe('2');
    await expect(fs.access(path.join(s.workspace, 'one.txt'))).rejects.toThrow();
    await expect(fs.access(path.join(s.workspace, 'zero.txt'))).rejects.toThrow();
  });
});

describe('selecting calls and lifecycle events', () => {
  it('matchers (names, regular expressions) and "if" rules decide which calls a hook sees', async () => {
    const mark = (name: string) => ({ type: 'command' as const, command: `echo ${name} >> hook-log.txt` });
    const s = await session(
      {
        PreToolUse: [
          { matcher: 'Write|Edit', hooks: [mark('names')] },
          { matcher: 'L.', hooks: [mark('regex')] },
          { matcher: 'Write', if: 'Edit(secrets/**)', hooks: [mark('if')] },
        ],
      },
      { permission_mode: 'bypassPermissions' },
    );
    await turn(s.id, [write('a.txt'), write('secrets/b.txt'), { name: 'LS', input: { path: '.' } }, { name: 'Glob', input: { pattern: '*' } }]);
    const log = (await fs.readFile(path.join(s.workspace, 'hook-log.txt'), 'utf8')).trim().split('\n');
    expect(log).toEqual(['names', 'names', 'if', 'regex']);
  });

  it('SessionStart and SessionEnd command hooks fire once each, on create and on close', async () => {
    const s = await session({
      // Each writes the event name it read from its JSON input, and its reason if any.
      SessionStart: [{ hooks: [{ type: 'command', command: `echo "$(sed -n 's/.*"hook_event_name":"\\([A-Za-z]*\\)".*/\\1/p')" >> life.txt` }] }],
      SessionEnd: [{ hooks: [{ type: 'command', command: `echo "$(sed -n 's/.*"hook_event_name":"\\([A-Za-z]*\\)".*"reason":"\\([^"]*\\)".*/\\1 \\2/p')" >> life.txt` }] }],
    });
    expect((await t!.api.delete(`/v1/sessions/${s.id}`)).status).toBe(204);
    expect((await t!.api.delete(`/v1/sessions/${s.id}`)).status).toBe(204);
    expect((await fs.readFile(path.join(s.workspace, 'life.txt'), 'utf8')).trim().split('\n')).toEqual(['SessionStart', 'SessionEnd closed by the client']);
  });
});

describe('hook configuration errors', () => {
  it('are a 400 naming each hook and problem; nothing is created', async () => {
    t = await startServer();
    const res = await t.api.post('/v1/sessions', {
      hooks: {
        PreToolUse: [{ if: 'Bash(', hooks: [{ type: 'command', command: '/no/such/hook.sh' }] }],
        SessionStart: [{ matcher: 'Write', hooks: [{ type: 'http', url: 'gopher://example.com/hook' }] }],
      },
    });
    expect(res.status).toBe(400);
    const detail: string = res.body.detail;
    expect(detail).toContain('hooks.PreToolUse[0].if: invalid rule "Bash("');
    expect(detail).toContain('hooks.PreToolUse[0].hooks[0].command: command not found: /no/such/hook.sh');
    expect(detail).toContain('hooks.SessionStart[0].matcher: SessionStart hooks see no tool call');
    expect(detail).toContain('hooks.SessionStart[0].hooks[0].url: gopher: URLs are not allowed');
    const unknown = await t.api.post('/v1/sessions', { hooks: { BeforeEverything: [] } });
    expect(unknown.status).toBe(400);
    expect((await t.api.get('/v1/sessions')).body.items).toEqual([]);
  });

  it('NORMA_SESSION_HOOKS=off refuses them', async () => {
    t = await startServer({ NORMA_SESSION_HOOKS: 'off' });
    const res = await t.api.post('/v1/sessions', { hooks: { PreToolUse: [{ hooks: [{ type: 'command', command: 'true' }] }] } });
    expect(res.status).toBe(400);
    expect(res.body.detail).toContain('NORMA_SESSION_HOOKS=off');
  });
});

describe('http hooks', () => {
  // A hook endpoint on 127.0.0.2: reachable only because the operator allowlists that address.
  async function endpoint(answer: (body: any, headers: http.IncomingHttpHeaders) => { status?: number; body?: string; delayMs?: number }) {
    const seen: { body: any; headers: http.IncomingHttpHeaders; raw: string }[] = [];
    const server = http.createServer((req, res) => {
      let raw = '';
      req.on('data', (d) => (raw += d));
      req.on('end', () => {
        const body = JSON.parse(raw);
        seen.push({ body, headers: req.headers, raw });
        const a = answer(body, req.headers);
        setTimeout(() => {
          res.writeHead(a.status ?? 200, { 'content-type': 'application/json' });
          res.end(a.body ?? '');
        }, a.delayMs ?? 0);
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.2', r));
    servers.push(server);
    return { url: `http://127.0.0.2:${(server.address() as { port: number }).port}/hook`, seen };
  }

  it('POSTs the event, signed, and a deny it answers blocks the call', async () => {
    const ep = await endpoint(() => ({ body: JSON.stringify({ decision: 'deny', reason: 'the policy service says no' }) }));
    t = await startServer({ NORMA_EGRESS_ALLOW: '127.0.0.2' });
    const s = await session({ PreToolUse: [{ matcher: 'Write', hooks: [{ type: 'http', url: ep.url, secret: 'a-shared-secret' }] }] }, { permission_mode: 'bypassPermissions' });
    const done = await turn(s.id, [write('a.txt')]);
    expect(text(done.results[0])).toBe('Blocked by PreToolUse hook: the policy service says no');
    expect(ep.seen).toHaveLength(1);
    const { body, headers, raw } = ep.seen[0]!;
    expect(body).toMatchObject({ hook_event_name: 'PreToolUse', session_id: s.id, tool_name: 'Write', tool_input: { file_path: 'a.txt', content: 'x' } });
    const ts = headers['x-norma-timestamp'] as string;
    const expected = `sha256=${createHmac('sha256', 'a-shared-secret').update(`${ts}.${raw}`).digest('hex')}`;
    expect(headers['x-norma-signature']).toBe(expected);
    expect(signBody('a-shared-secret', ts, raw)).toBe(expected);
    // The secret is never echoed back.
    expect(JSON.stringify((await t.api.get(`/v1/sessions/${s.id}`)).body)).not.toContain('a-shared-secret');
    // The hook's request is evidence like a tool's: who sent it, for which call, where it went, what came back.
    const egress = (await t.api.get(`/v1/sessions/${s.id}/egress`)).body.items;
    expect(egress).toHaveLength(1);
    expect(egress[0]).toMatchObject({
      hook: 'hooks.PreToolUse[0].hooks[0]',
      tool: 'Write',
      tool_use_id: done.results[0].tool_use_id,
      turn_id: done.id,
      method: 'POST',
      url: ep.url,
      address: '127.0.0.2',
      status: 200,
      bytes: Buffer.byteLength(JSON.stringify({ decision: 'deny', reason: 'the policy service says no' })),
    });
  });

  it('a target the egress guard refuses fails closed, naming the rule; a non-2xx answer does not block', async () => {
    const ok = await endpoint(() => ({ status: 500, body: 'oops' }));
    t = await startServer({ NORMA_EGRESS_ALLOW: '127.0.0.2' });
    const s = await session(
      {
        PreToolUse: [
          { matcher: 'LS', hooks: [{ type: 'http', url: ok.url }] },
          { matcher: 'Write', hooks: [{ type: 'http', url: 'http://127.0.0.1:9/hook' }] },
        ],
      },
      { permission_mode: 'bypassPermissions' },
    );
    const done = await turn(s.id, [{ name: 'LS', input: { path: '.' } }, write('a.txt')]);
    expect(done.results[0].is_error).toBe(false);
    expect(text(done.results[1])).toContain('refused by the egress guard: 127.0.0.1: loopback addresses are not allowed');
    const failed = (await allEvents(s.id)).filter((e) => e.event === 'hook.failed').map((e) => e.data);
    expect(failed).toMatchObject([
      { kind: 'http', outcome: 'error', error: 'answered HTTP 500: oops' },
      { kind: 'http', outcome: 'failed' },
    ]);
    const egress = (await t.api.get(`/v1/sessions/${s.id}/egress`)).body.items;
    expect(egress.map((e: { hook: string; status: number | null; error?: string }) => [e.hook, e.status, e.error ?? null])).toEqual([
      ['hooks.PreToolUse[0].hooks[0]', 500, null],
      ['hooks.PreToolUse[1].hooks[0]', null, '127.0.0.1: loopback addresses are not allowed (NORMA_EGRESS_ALLOW can open specific ones)'],
    ]);
  });

  it('a slow endpoint is cut at the hook timeout', async () => {
    const slow = await endpoint(() => ({ delayMs: 5000, body: '{}' }));
    t = await startServer({ NORMA_EGRESS_ALLOW: '127.0.0.2' });
    const s = await session({ PreToolUse: [{ hooks: [{ type: 'http', url: slow.url, timeout_s: 0.3 }] }] }, { permission_mode: 'bypassPermissions' });
    const t0 = Date.now();
    const done = await turn(s.id, [{ name: 'LS', input: { path: '.' } }]);
    expect(Date.now() - t0).toBeLessThan(4000);
    expect(text(done.results[0])).toContain('timed out after 300 ms');
  });

  it('a URL that is not http(s) or carries credentials is refused at creation', async () => {
    t = await startServer();
    const res = await t.api.post('/v1/sessions', {
      hooks: { PostToolUse: [{ hooks: [{ type: 'http', url: 'file:///etc/passwd' }, { type: 'http', url: 'https://user:pw@example.com/x' }] }] },
    });
    expect(res.status).toBe(400);
    expect(res.body.detail).toContain('hooks.PostToolUse[0].hooks[0].url: file: URLs are not allowed');
    expect(res.body.detail).toContain('hooks.PostToolUse[0].hooks[1].url: URLs with credentials');
  });
});

describe('operator hooks from NORMA_HOOKS_FILE', () => {
  it('run for every session before its own, even with NORMA_SESSION_HOOKS=off', async () => {
    const dir = await fs.mkdtemp(path.join((await import('node:os')).tmpdir(), 'norma-hookfile-'));
    try {
      const file = path.join(dir, 'hooks.json');
      await fs.writeFile(
        file,
        JSON.stringify({ PreToolUse: [{ matcher: 'Write', if: 'Edit(*.env)', hooks: [{ type: 'command', command: 'echo "env files are managed elsewhere" >&2; exit 2' }] }] }),
      );
      t = await startServer({ NORMA_HOOKS_FILE: file, NORMA_SESSION_HOOKS: 'off' });
      const s = (await t.api.post('/v1/sessions', { permission_mode: 'bypassPermissions' })).body;
      const done = await turn(s.id, [write('.env', 'A=1'), write('ok.txt')]);
      expect(text(done.results[0])).toBe('Blocked by PreToolUse hook: env files are managed elsewhere');
      expect(done.results[1].is_error).toBe(false);
      const ev = (await allEvents(s.id)).find((e) => e.event === 'hook.completed');
      expect(ev?.data).toMatchObject({ hook: 'NORMA_HOOKS_FILE.PreToolUse[0].hooks[0]', outcome: 'blocked' });
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  });

  it('take http hooks too: a URL and a time in a file pass the same format checks as in the API', async () => {
    const dir = await fs.mkdtemp(path.join((await import('node:os')).tmpdir(), 'norma-hookfile-'));
    try {
      const file = path.join(dir, 'hooks.json');
      await fs.writeFile(file, JSON.stringify({ PostToolUse: [{ hooks: [{ type: 'http', url: 'http://127.0.0.1:9/audit', timeout_s: 1, on_failure: 'continue' }] }] }));
      t = await startServer({ NORMA_HOOKS_FILE: file, NORMA_EGRESS_ALLOW: '127.0.0.1' });
      expect((await t.api.get('/healthz')).status).toBe(200);
      await t.close();
      t = undefined;
      await fs.writeFile(file, JSON.stringify({ PostToolUse: [{ hooks: [{ type: 'http', url: 'not a url' }] }] }));
      await expect(startServer({ NORMA_HOOKS_FILE: file })).rejects.toThrow(/NORMA_HOOKS_FILE .*hooks\.json: \/PostToolUse\/0\/hooks\/0/);
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  });

  it('a bad file stops start-up, naming the hook and the problem', async () => {
    const dir = await fs.mkdtemp(path.join((await import('node:os')).tmpdir(), 'norma-hookfile-'));
    try {
      const file = path.join(dir, 'hooks.json');
      await fs.writeFile(file, JSON.stringify({ PostToolUse: [{ matcher: '(', hooks: [{ type: 'command', command: 'true' }] }] }));
      await expect(startServer({ NORMA_HOOKS_FILE: file })).rejects.toThrow(/NORMA_HOOKS_FILE\.PostToolUse\[0\]\.matcher: invalid regular expression/);
      await fs.writeFile(file, '{"PreToolUse": 3}');
      await expect(startServer({ NORMA_HOOKS_FILE: file })).rejects.toThrow(/NORMA_HOOKS_FILE .*hooks\.json: \/PreToolUse/);
      await expect(startServer({ NORMA_HOOKS_FILE: path.join(dir, 'missing.json') })).rejects.toThrow(/ENOENT/);
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  });
});

describe('command hooks around the model loop (prompt turns)', () => {
  const script = (replies: object[]) => ({ model: { provider: 'scripted', model: 'demo', script: replies } });

  it('UserPromptSubmit: the hook reads the prompt on stdin; exit 2 refuses it with stderr as the reason', async () => {
    const s = await session(
      { UserPromptSubmit: [{ hooks: [{ type: 'command', command: 'grep -q password && { echo "prompts must not carry passwords" >&2; exit 2; }; exit 0' }] }] },
      script([{ content: [{ type: 'text', text: 'fine' }] }]),
    );
    const refused = (await t!.api.post(`/v1/sessions/${s.id}/turns?wait=60`, { prompt: 'my password is hunter2' })).body;
    expect(refused).toMatchObject({ status: 'failed', error: { code: 'prompt_blocked' }, model_calls: 0 });
    expect(refused.error.message).toContain('prompts must not carry passwords');
    const ok = (await t!.api.post(`/v1/sessions/${s.id}/turns?wait=60`, { prompt: 'hello' })).body;
    expect(ok).toMatchObject({ status: 'completed', model_calls: 1 });
    const runs = (await allEvents(s.id)).filter((e) => e.event.startsWith('hook.') && e.data.event === 'UserPromptSubmit');
    expect(runs.map((e) => e.data.outcome)).toEqual(['blocked', 'ok']);
  });

  it('Stop: a hook printing {"decision":"block"} keeps the model going once; stop_hook_active tells it so', async () => {
    const s = await session(
      {
        Stop: [
          {
            hooks: [
              {
                type: 'command',
                command: 'grep -q \'"stop_hook_active":true\' && exit 0; echo \'{"decision":"block","reason":"Summarise before stopping."}\'',
              },
            ],
          },
        ],
      },
      script([{ content: [{ type: 'text', text: 'done' }] }, { content: [{ type: 'text', text: 'Summary: done.' }] }]),
    );
    const turn = (await t!.api.post(`/v1/sessions/${s.id}/turns?wait=60`, { prompt: 'work' })).body;
    expect(turn).toMatchObject({ status: 'completed', model_calls: 2 });
    expect(turn.messages[2]).toEqual({ role: 'user', content: [{ type: 'text', text: 'Summarise before stopping.' }] });
  });

  it('SubagentStart: a command hook gets the agent fields', async () => {
    const s = await session(
      { SubagentStart: [{ hooks: [{ type: 'command', command: 'cat > seen.json' }] }] },
      {
        tools: ['LS', 'Agent'],
        model: {
          provider: 'scripted',
          model: 'demo',
          script: [{ content: [{ type: 'tool_use', id: 'toolu_a', name: 'Agent', input: { description: 'd', prompt: 'look around' } }] }, { content: [{ type: 'text', text: 'ok' }] }],
          subagent_script: [{ content: [{ type: 'text', text: 'nothing here' }] }],
        },
      },
    );
    const turn = (await t!.api.post(`/v1/sessions/${s.id}/turns?wait=60`, { prompt: 'go' })).body;
    expect(turn.status).toBe('completed');
    expect(turn.results[0].content[0].text).toBe('nothing here');
    // The hook runs in the workspace (the sandbox's writable directory).
    const seen = JSON.parse(await fs.readFile(path.join(s.workspace, 'seen.json'), 'utf8'));
    expect(seen).toMatchObject({ hook_event_name: 'SubagentStart', agent_id: 'agent_toolu_a', agent_type: 'general-purpose', prompt: 'look around', turn_id: turn.id });
  });
});
