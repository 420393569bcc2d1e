// Rules over real HTTP: remembered and PATCHed rules, pending requests they resolve, rewrites
// that are asked again, invalid rules refused, and the decisions audit trail.
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { HookRegistration } from '../../src/hooks/registry.js';
import { openSse, type SseStream } from '../helpers/sse.js';
import { startServer, type TestServer } from '../helpers/server.js';

let t: TestServer | undefined;
let streams: SseStream[] = [];

afterEach(async () => {
  for (const s of streams) s.close();
  streams = [];
  await t?.close();
  t = undefined;
});

async function start(hooks: HookRegistration[] = []) {
  t = await startServer({}, { hooks });
  return t;
}

async function session(body: object = {}) {
  const res = await t!.api.post('/v1/sessions', body);
  expect(res.status).toBe(201);
  return res.body as { id: string; workspace: string };
}

async function events(sessionId: string) {
  const s = await openSse(`${t!.url}/v1/sessions/${sessionId}/events`);
  streams.push(s);
  return s;
}

const write = (id: string, file_path: string, content = 'x\n') => ({ id, name: 'Write', input: { file_path, content } });

describe('rules that change while a call waits', () => {
  it('a PATCHed allow rule resolves the pending request it covers, and the call runs', async () => {
    await start();
    const s = await session();
    const sse = await events(s.id);
    const turn = await t!.api.post(`/v1/sessions/${s.id}/turns`, { tool_uses: [write('toolu_1', 'notes/a.txt')] });
    const asked = (await sse.waitFor((e) => e.event === 'permission.requested')).data.permission;
    expect(asked.suggestions).toEqual(['Edit(./notes/a.txt)', 'Edit(./notes/**)']);

    const patched = await t!.api.patch(`/v1/sessions/${s.id}`, { add_rules: [{ rule: 'Edit(./notes/**)', behavior: 'allow' }] });
    expect(patched.status).toBe(200);
    expect(patched.body.rules).toMatchObject([{ rule: 'Edit(./notes/**)', behavior: 'allow', source: 'patch' }]);

    const done = await sse.waitFor((e) => e.event === 'turn.completed');
    expect(done.data.turn.results[0]).toMatchObject({ tool_use_id: 'toolu_1', is_error: false });
    expect(await fs.readFile(path.join(s.workspace, 'notes/a.txt'), 'utf8')).toBe('x\n');
    const perm = (await t!.api.get(`/v1/sessions/${s.id}/permissions`)).body.items[0];
    expect(perm).toMatchObject({ id: asked.id, status: 'allowed', resolved_by: 'rule', rules: ['Edit(./notes/**)'] });
    const resolved = sse.events.find((e) => e.event === 'permission.resolved');
    expect(resolved?.data.permission).toMatchObject({ id: asked.id, resolved_by: 'rule' });
    expect(turn.body.id).toBe(done.data.turn.id);
  });

  it('a PATCHed deny rule denies a pending request; a mode change decides one too', async () => {
    await start();
    const s = await session();
    const sse = await events(s.id);
    await t!.api.post(`/v1/sessions/${s.id}/turns`, { tool_uses: [write('toolu_1', 'secrets/a.txt'), write('toolu_2', 'notes/b.txt')] });
    const first = (await sse.waitFor((e) => e.event === 'permission.requested')).data.permission;
    expect(first.tool_use_id).toBe('toolu_1');
    await t!.api.patch(`/v1/sessions/${s.id}`, { add_rules: [{ rule: 'Edit(secrets/**)', behavior: 'deny' }] });
    const second = (await sse.waitFor((e) => e.event === 'permission.requested' && e.data.permission.tool_use_id === 'toolu_2')).data.permission;
    await t!.api.patch(`/v1/sessions/${s.id}`, { permission_mode: 'acceptEdits' });
    const done = await sse.waitFor((e) => e.event === 'turn.completed');
    const [r1, r2] = done.data.turn.results;
    expect(r1).toMatchObject({ is_error: true, content: [{ text: 'Permission denied: denied by rule "Edit(secrets/**)".' }] });
    expect(r2).toMatchObject({ is_error: false });
    const perms = (await t!.api.get(`/v1/sessions/${s.id}/permissions`)).body.items;
    expect(perms.find((p: { id: string }) => p.id === first.id)).toMatchObject({ status: 'denied', resolved_by: 'rule', rules: ['Edit(secrets/**)'] });
    expect(perms.find((p: { id: string }) => p.id === second.id)).toMatchObject({ status: 'allowed', resolved_by: 'rule' });
    await expect(fs.stat(path.join(s.workspace, 'secrets/a.txt'))).rejects.toThrow();
  });

  it('removing an ask rule resolves every request it caused, across concurrent calls', async () => {
    await start();
    const s = await session({ ask_rules: ['Read(secrets/**)'] });
    await fs.mkdir(path.join(s.workspace, 'secrets'));
    await fs.writeFile(path.join(s.workspace, 'secrets/a.txt'), 'A\n');
    await fs.writeFile(path.join(s.workspace, 'secrets/b.txt'), 'B\n');
    const sse = await events(s.id);
    const turn = await t!.api.post(`/v1/sessions/${s.id}/turns`, {
      tool_uses: [
        { id: 'toolu_a', name: 'Read', input: { file_path: 'secrets/a.txt' } },
        { id: 'toolu_b', name: 'Read', input: { file_path: 'secrets/b.txt' } },
      ],
    });
    await sse.waitFor(() => sse.events.filter((e) => e.event === 'permission.requested').length === 2);
    const asked = sse.events.filter((e) => e.event === 'permission.requested').map((e) => e.data.permission);
    // An allow rule cannot beat an ask rule, so nothing is suggested for these asks.
    expect(asked.map((p) => p.suggestions)).toEqual([[], []]);

    const res = await t!.api.patch(`/v1/sessions/${s.id}`, { ask_rules: [] });
    expect(res.status).toBe(200);
    const done = await sse.waitFor((e) => e.event === 'turn.completed');
    expect(done.data.turn.id).toBe(turn.body.id);
    expect(done.data.turn.results.map((r: { is_error: boolean }) => r.is_error)).toEqual([false, false]);
    const perms = (await t!.api.get(`/v1/sessions/${s.id}/permissions`)).body.items;
    expect(perms.map((p: { status: string; resolved_by: string }) => `${p.status}/${p.resolved_by}`)).toEqual(['allowed/rule', 'allowed/rule']);
  });
});

describe('remember', () => {
  it('adds session rules; a later call they cover runs unasked, and the decisions say which rule allowed it', async () => {
    await start();
    const s = await session();
    const sse = await events(s.id);
    const turn = await t!.api.post(`/v1/sessions/${s.id}/turns`, { tool_uses: [write('toolu_1', 'notes/a.txt'), write('toolu_2', 'notes/b.txt')] });
    const asked = (await sse.waitFor((e) => e.event === 'permission.requested')).data.permission;
    const answer = await t!.api.post(`/v1/sessions/${s.id}/permissions/${asked.id}`, { behavior: 'allow', remember: [asked.suggestions[1]] });
    expect(answer.body).toMatchObject({ status: 'allowed', resolved_by: 'client', remember: ['Edit(./notes/**)'] });
    const done = await sse.waitFor((e) => e.event === 'turn.completed');
    expect(done.data.turn.results.map((r: { is_error: boolean }) => r.is_error)).toEqual([false, false]);
    expect(sse.events.filter((e) => e.event === 'permission.requested')).toHaveLength(1);

    const got = await t!.api.get(`/v1/sessions/${s.id}`);
    expect(got.body.rules).toMatchObject([{ rule: 'Edit(./notes/**)', behavior: 'allow', source: 'remember' }]);

    const decisions = (await t!.api.get(`/v1/sessions/${s.id}/decisions?turn_id=${turn.body.id}`)).body;
    expect(decisions.next_after).toBeNull();
    expect(decisions.items.map((d: { tool_use_id: string; behavior: string; decided_by: string }) => `${d.tool_use_id}:${d.behavior}:${d.decided_by}`)).toEqual([
      'toolu_1:ask:mode',
      'toolu_1:allow:person',
      'toolu_1:allow:rule', // evaluated again after the approval: the remembered rule now allows it
      'toolu_2:allow:rule',
    ]);
    expect(decisions.items[1]).toMatchObject({ permission_id: asked.id });
    expect(decisions.items[3]).toMatchObject({ rules: ['Edit(./notes/**)'], mode: 'default', input_source: 'call' });
    for (const d of decisions.items) expect(d.input_digest).toMatch(/^[0-9a-f]{64}$/);
    // The digest identifies the exact input: both decisions about toolu_1 are about the same one.
    expect(decisions.items[0].input_digest).toBe(decisions.items[1].input_digest);
    expect(decisions.items[0].input_digest).not.toBe(decisions.items[3].input_digest);
  });

  it('an invalid remembered rule is refused with 400 naming it, and the request stays pending', async () => {
    await start();
    const s = await session();
    const sse = await events(s.id);
    await t!.api.post(`/v1/sessions/${s.id}/turns`, { tool_uses: [write('toolu_1', 'a.txt')] });
    const asked = (await sse.waitFor((e) => e.event === 'permission.requested')).data.permission;
    const bad = await t!.api.post(`/v1/sessions/${s.id}/permissions/${asked.id}`, { behavior: 'allow', remember: ['Edit(../up)'] });
    expect(bad.status).toBe(400);
    expect(bad.body.detail).toContain('"Edit(../up)"');
    expect(bad.body.detail).toContain('".." is not allowed');
    const still = await t!.api.get(`/v1/sessions/${s.id}/permissions?status=pending`);
    expect(still.body.items.map((p: { id: string }) => p.id)).toEqual([asked.id]);
  });
});

describe('rule validation at configuration time', () => {
  it('session creation names every bad rule and its field; nothing is created', async () => {
    await start();
    const res = await t!.api.post('/v1/sessions', {
      allowed_tools: ['Bash(npm test)', 'Read(~/x)'],
      disallowed_tools: ['WebFetch(example.com)'],
      ask_rules: ['TaskStop(task_1)', 'Foo*'],
    });
    expect(res.status).toBe(400);
    const errors: string[] = res.body.errors.map((e: { message?: string; detail?: string } | string) => (typeof e === 'string' ? e : e.message ?? e.detail ?? ''));
    const all = JSON.stringify(res.body);
    expect(all).toContain('allowed_tools[1]: invalid rule \\"Read(~/x)\\"');
    expect(all).toContain('disallowed_tools[0]: invalid rule \\"WebFetch(example.com)\\"');
    expect(all).toContain('ask_rules[0]: invalid rule \\"TaskStop(task_1)\\"');
    expect(all).toContain('ask_rules[1]: invalid rule \\"Foo*\\"');
    expect(errors.length).toBe(4);
    expect((await t!.api.get('/v1/sessions')).body.items).toEqual([]);
  });

  it('PATCH refuses a bad rule with 400 and changes nothing', async () => {
    await start();
    const s = await session({ allowed_tools: ['Read'] });
    const res = await t!.api.patch(`/v1/sessions/${s.id}`, { allowed_tools: ['Edit'], add_rules: [{ rule: 'Bash(FOO=1)', behavior: 'allow' }] });
    expect(res.status).toBe(400);
    expect(res.body.detail).toContain('add_rules[0]: invalid rule "Bash(FOO=1)"');
    expect(res.body.errors).toEqual([expect.objectContaining({ location: 'body', path: '/add_rules/0' })]);
    expect((await t!.api.get(`/v1/sessions/${s.id}`)).body).toMatchObject({ allowed_tools: ['Read'], rules: [] });
  });
});

describe('rewrites never widen', () => {
  // A PreToolUse hook that moves every Write into secrets/.
  const redirect: HookRegistration = {
    event: 'PreToolUse',
    matcher: 'Write',
    callback: (i) => ({ updatedInput: { ...(i.tool_input as object), file_path: `secrets/${path.basename((i.tool_input as { file_path: string }).file_path)}` } }),
  };

  it('a hook rewrite out of what a rule allowed is asked again, showing the rewritten input', async () => {
    await start([redirect]);
    const s = await session({ allowed_tools: ['Edit(./notes/**)'] });
    const sse = await events(s.id);
    const turn = await t!.api.post(`/v1/sessions/${s.id}/turns`, { tool_uses: [write('toolu_1', 'notes/a.txt')] });
    const asked = (await sse.waitFor((e) => e.event === 'permission.requested')).data.permission;
    expect(asked.input).toEqual({ file_path: 'secrets/a.txt', content: 'x\n' });
    await t!.api.post(`/v1/sessions/${s.id}/permissions/${asked.id}`, { behavior: 'deny', message: 'not there' });
    const done = await sse.waitFor((e) => e.event === 'turn.completed');
    expect(done.data.turn.results[0]).toMatchObject({ is_error: true, content: [{ text: 'Permission denied by the user: not there' }] });
    await expect(fs.stat(path.join(s.workspace, 'secrets/a.txt'))).rejects.toThrow();
    await expect(fs.stat(path.join(s.workspace, 'notes/a.txt'))).rejects.toThrow();

    const d = (await t!.api.get(`/v1/sessions/${s.id}/decisions?tool_use_id=toolu_1`)).body.items;
    expect(d.map((x: { behavior: string; decided_by: string; input_source: string }) => `${x.behavior}:${x.decided_by}:${x.input_source}`)).toEqual([
      'allow:rule:call',
      'ask:mode:hook',
      'deny:person:hook',
    ]);
    expect(d[0].rules).toEqual(['Edit(./notes/**)']);
    expect(d[1].input_digest).not.toBe(d[0].input_digest);
    expect(turn.body.id).toBe(d[0].turn_id);
  });

  it('a hook rewrite into a denied path is denied without asking', async () => {
    await start([redirect]);
    const s = await session({ allowed_tools: ['Edit(./notes/**)'], disallowed_tools: ['Edit(secrets/**)'] });
    const res = await t!.api.post(`/v1/sessions/${s.id}/turns?wait=30`, { tool_uses: [write('toolu_1', 'notes/a.txt')] });
    expect(res.body.status).toBe('completed');
    expect(res.body.results[0]).toMatchObject({ is_error: true, content: [{ text: 'Permission denied: denied by rule "Edit(secrets/**)".' }] });
    expect((await t!.api.get(`/v1/sessions/${s.id}/permissions`)).body.items).toEqual([]);
  });

  it('an approval whose updated_input leaves what the person saw is evaluated again', async () => {
    await start();
    const s = await session({ disallowed_tools: ['Edit(secrets/**)'] });
    const sse = await events(s.id);
    await t!.api.post(`/v1/sessions/${s.id}/turns`, { tool_uses: [write('toolu_1', 'notes/a.txt')] });
    const asked = (await sse.waitFor((e) => e.event === 'permission.requested')).data.permission;
    await t!.api.post(`/v1/sessions/${s.id}/permissions/${asked.id}`, { behavior: 'allow', updated_input: { file_path: 'secrets/a.txt', content: 'x' } });
    const done = await sse.waitFor((e) => e.event === 'turn.completed');
    expect(done.data.turn.results[0].content[0].text).toBe('Permission denied: denied by rule "Edit(secrets/**)".');
    const d = (await t!.api.get(`/v1/sessions/${s.id}/decisions`)).body.items;
    expect(d.at(-1)).toMatchObject({ behavior: 'deny', decided_by: 'rule', input_source: 'approval', rules: ['Edit(secrets/**)'] });
  });
});

describe('the decisions listing', () => {
  it('pages with after/limit, filters by turn and call, and 404s an unknown session', async () => {
    await start();
    const s = await session({ permission_mode: 'bypassPermissions' });
    for (let i = 0; i < 3; i++) {
      const r = await t!.api.post(`/v1/sessions/${s.id}/turns?wait=30`, { tool_uses: [write(`toolu_${i}`, `f${i}.txt`)] });
      expect(r.body.status).toBe('completed');
    }
    const page1 = (await t!.api.get(`/v1/sessions/${s.id}/decisions?limit=2`)).body;
    expect(page1.items.map((d: { seq: number }) => d.seq)).toEqual([1, 2]);
    expect(page1.next_after).toBe(2);
    const page2 = (await t!.api.get(`/v1/sessions/${s.id}/decisions?limit=2&after=2`)).body;
    expect(page2.items.map((d: { seq: number; tool_use_id: string }) => `${d.seq}:${d.tool_use_id}`)).toEqual(['3:toolu_2']);
    expect(page2.next_after).toBeNull();
    expect(page2.items[0]).toMatchObject({ behavior: 'allow', decided_by: 'mode', mode: 'bypassPermissions', reason: 'bypassPermissions mode' });
    const one = (await t!.api.get(`/v1/sessions/${s.id}/decisions?tool_use_id=toolu_1`)).body.items;
    expect(one.map((d: { seq: number }) => d.seq)).toEqual([2]);
    const missing = await t!.api.get('/v1/sessions/ses_nope/decisions');
    expect(missing.status).toBe(404);
    const bad = await t!.api.get(`/v1/sessions/${s.id}/decisions?limit=0`);
    expect(bad.status).toBe(400);
  });
});

describe('rules naming no tool of the session', () => {
  it('are kept (a tool may come later) but reported in the session warnings', async () => {
    await start();
    const res = await t!.api.post('/v1/sessions', { allowed_tools: ['Bsh', 'Read', 'mcp__srv__x', '*'], disallowed_tools: ['WebFetch'] });
    expect(res.status).toBe(201);
    expect(res.body.allowed_tools).toEqual(['Bsh', 'Read', 'mcp__srv__x', '*']);
    const warnings = res.body.warnings.filter((w: string) => w.includes('names no tool'));
    expect(warnings).toEqual([
      'allowed_tools: rule "Bsh" names no tool of this session',
      'disallowed_tools: rule "WebFetch" names no tool of this session',
    ]);
  });
});
