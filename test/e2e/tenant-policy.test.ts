// A tenant's policy over real HTTP: limits its sessions cannot loosen — the loosest mode,
// deny rules PATCH cannot remove, hooks every session runs, how many sessions and unfinished
// turns at once, requests per minute — shown on the session and named by decisions; and what
// a tenant's sessions share (memory stores) or may not reach (another tenant's workspaces).
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ContractClient } from '../helpers/contract.js';
import { clientFor, newKey, startWithKeys, type KeyedServer, type KeySpec } from '../helpers/tenants.js';
import { closeAll } from '../helpers/server.js';

let servers: KeyedServer[] = [];
afterEach(async () => {
  await closeAll(servers);
});

async function boot(specs: KeySpec[], env: Record<string, string> = {}): Promise<KeyedServer> {
  const t = await startWithKeys(specs, env);
  servers.push(t);
  return t;
}

const text = (r: { content: { text?: string }[] }) => r.content.map((c) => c.text ?? '').join('');

async function untilSettled(c: ContractClient, sid: string, turnId: string): Promise<any> {
  for (let i = 0; i < 200; i++) {
    const turn = (await c.get(`/v1/sessions/${sid}/turns/${turnId}`)).body;
    if (!['running', 'awaiting_permission', 'awaiting_input'].includes(turn.status)) return turn;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error('turn did not settle');
}

describe('max_permission_mode', () => {
  it('refuses a looser mode at creation, in PATCH and in an ExitPlanMode approval; stricter ones are fine', async () => {
    const key = newKey('a');
    const t = await boot([{ key, tenant: 'acme', scopes: ['admin'], policy: { max_permission_mode: 'acceptEdits' } }]);
    const c = clientFor(t.url, key);
    const loose = await c.post('/v1/sessions', { permission_mode: 'bypassPermissions' });
    expect(loose.status).toBe(403);
    expect(loose.body.detail).toBe('the policy of tenant acme does not allow this: permission_mode "bypassPermissions" is looser than the tenant\'s max_permission_mode "acceptEdits"');
    const s = (await c.post('/v1/sessions', { permission_mode: 'acceptEdits', tools: ['Write', 'EnterPlanMode', 'ExitPlanMode'] })).body;
    expect(s.policy).toMatchObject({ max_permission_mode: 'acceptEdits' });
    expect((await c.patch(`/v1/sessions/${s.id}`, { permission_mode: 'bypassPermissions' })).status).toBe(403);
    expect((await c.patch(`/v1/sessions/${s.id}`, { permission_mode: 'default' })).body.permission_mode).toBe('default');

    // Plan mode and back: the approval may not name a looser mode.
    await c.post(`/v1/sessions/${s.id}/turns?wait=10`, { tool_uses: [{ name: 'EnterPlanMode', input: {} }] });
    const exit = (await c.post(`/v1/sessions/${s.id}/turns?wait=10`, { tool_uses: [{ name: 'ExitPlanMode', input: { plan: '1. write' } }] })).body;
    expect(exit.status).toBe('awaiting_permission');
    const refused = await c.post(`/v1/sessions/${s.id}/permissions/${exit.pending[0]}`, { behavior: 'allow', mode: 'bypassPermissions' });
    expect(refused.status).toBe(403);
    const ok = await c.post(`/v1/sessions/${s.id}/permissions/${exit.pending[0]}`, { behavior: 'allow', mode: 'acceptEdits' });
    expect(ok.status).toBe(200);
    await untilSettled(c, s.id, exit.id);
    expect((await c.get(`/v1/sessions/${s.id}`)).body.permission_mode).toBe('acceptEdits');
  });

  it('a session that names no mode gets the default one, or the maximum when that is stricter', async () => {
    const key = newKey('p');
    const t = await boot([{ key, tenant: 'planners', scopes: ['write'], policy: { max_permission_mode: 'plan' } }]);
    const c = clientFor(t.url, key);
    const s = (await c.post('/v1/sessions', { tools: ['Write', 'Read'] })).body;
    expect(s.permission_mode).toBe('plan');
    const turn = (await c.post(`/v1/sessions/${s.id}/turns?wait=10`, { tool_uses: [{ name: 'Write', input: { file_path: 'a.txt', content: 'x' } }] })).body;
    expect(turn.results[0].is_error).toBe(true);
    expect(text(turn.results[0])).toContain('plan mode');
  });
});

describe('disallowed_tools', () => {
  it('deny every session of the tenant, whatever its mode and allow rules; PATCH cannot remove them; decisions say "policy"', async () => {
    const key = newKey('d');
    const policy = { disallowed_tools: ['Write(blocked/**)', 'LS'] };
    const t = await boot([{ key, tenant: 'acme', scopes: ['write'], policy }]);
    const c = clientFor(t.url, key);
    const s = (await c.post('/v1/sessions', { tools: ['Write', 'LS', 'Read'], permission_mode: 'bypassPermissions', allowed_tools: ['Write', 'LS'] })).body;
    expect(s.policy).toEqual({ max_permission_mode: null, disallowed_tools: policy.disallowed_tools, hook_events: [], max_sessions: null, max_running_turns: null, requests_per_minute: null, max_checkpoint_bytes: null, max_usd_per_day: null, secret_names: [] });
    // The session's own lists do not carry them, so nothing a client changes there removes them.
    expect(s.disallowed_tools).toEqual([]);
    await c.patch(`/v1/sessions/${s.id}`, { disallowed_tools: [], allowed_tools: ['*'], add_rules: [{ rule: 'LS', behavior: 'allow' }] });
    const turn = (
      await c.post(`/v1/sessions/${s.id}/turns?wait=10`, {
        tool_uses: [
          { name: 'Write', input: { file_path: 'blocked/a.txt', content: 'x' } },
          { name: 'Write', input: { file_path: 'fine/a.txt', content: 'x' } },
          { name: 'LS', input: { path: '.' } },
        ],
      })
    ).body;
    expect(turn.results.map((r: { is_error: boolean }) => r.is_error)).toEqual([true, false, true]);
    expect(text(turn.results[0])).toContain('tenant\'s policy');
    await expect(fs.stat(path.join(s.workspace, 'blocked', 'a.txt'))).rejects.toThrow();
    const decisions = (await c.get(`/v1/sessions/${s.id}/decisions`)).body.items;
    expect(decisions.map((d: { decided_by: string; rules: string[] }) => [d.decided_by, d.rules])).toEqual([
      ['policy', ['Write(blocked/**)']],
      ['mode', []],
      ['policy', ['LS']],
    ]);
  });

  it('a reload that adds a deny rule decides a request waiting for a person at once', async () => {
    const key = newKey('r');
    const t = await boot([{ key, tenant: 'acme', scopes: ['write'] }]);
    const c = clientFor(t.url, key);
    const s = (await c.post('/v1/sessions', { tools: ['Write'] })).body;
    expect(s.policy).toBeNull();
    const turn = (await c.post(`/v1/sessions/${s.id}/turns?wait=10`, { tool_uses: [{ name: 'Write', input: { file_path: 'a.txt', content: 'x' } }] })).body;
    expect(turn.status).toBe('awaiting_permission');
    await t.keys.write([{ key, tenant: 'acme', scopes: ['write'], policy: { disallowed_tools: ['Write'] } }]);
    expect(await t.server.reloadKeys()).toMatchObject({ ok: true, changedPolicies: ['acme'] });
    const done = await untilSettled(c, s.id, turn.id);
    expect(done.results[0].is_error).toBe(true);
    const perm = (await c.get(`/v1/sessions/${s.id}/permissions`)).body.items[0];
    expect(perm).toMatchObject({ status: 'denied', resolved_by: 'rule', rules: ['Write'] });
    expect((await c.get(`/v1/sessions/${s.id}`)).body.policy.disallowed_tools).toEqual(['Write']);
  });
});

describe('tenant hooks', () => {
  it('run for every session of the tenant, after the operator\'s and before the session\'s own', async () => {
    const key = newKey('h');
    const other = newKey('o');
    const hooks = { PreToolUse: [{ matcher: 'Write', hooks: [{ type: 'command', command: 'echo "the tenant keeps no .env files" >&2; exit 2' }] }] };
    const t = await boot([
      { key, tenant: 'acme', scopes: ['write'], policy: { hooks } },
      { key: other, tenant: 'beta', scopes: ['write'] },
    ]);
    const c = clientFor(t.url, key);
    const s = (await c.post('/v1/sessions', { tools: ['Write'], permission_mode: 'acceptEdits' })).body;
    expect(s.policy.hook_events).toEqual(['PreToolUse']);
    const turn = (await c.post(`/v1/sessions/${s.id}/turns?wait=10`, { tool_uses: [{ name: 'Write', input: { file_path: 'a.txt', content: 'x' } }] })).body;
    expect(text(turn.results[0])).toBe('Blocked by PreToolUse hook: the tenant keeps no .env files');
    const runs = (await c.get(`/v1/sessions/${s.id}/hook-runs`)).body.items;
    expect(runs[0]).toMatchObject({ hook: 'policy(acme).hooks.PreToolUse[0].hooks[0]', outcome: 'blocked' });
    // Another tenant's session runs none of them.
    const b = clientFor(t.url, other);
    const bs = (await b.post('/v1/sessions', { tools: ['Write'], permission_mode: 'acceptEdits' })).body;
    const bt = (await b.post(`/v1/sessions/${bs.id}/turns?wait=10`, { tool_uses: [{ name: 'Write', input: { file_path: 'a.txt', content: 'x' } }] })).body;
    expect(bt.results[0].is_error).toBe(false);
  });
});

describe('tenant hooks after a reload', () => {
  it('reach the live sessions of the tenant from their next turn, and go when the policy drops them', async () => {
    const key = newKey('h');
    const t = await boot([{ key, tenant: 'acme', scopes: ['write'] }]);
    const c = clientFor(t.url, key);
    const s = (await c.post('/v1/sessions', { tools: ['Write'], permission_mode: 'acceptEdits' })).body;
    const write = async (name: string) =>
      (await c.post(`/v1/sessions/${s.id}/turns?wait=10`, { tool_uses: [{ name: 'Write', input: { file_path: name, content: 'x' } }] })).body.results[0];
    expect((await write('a.txt')).is_error).toBe(false);
    const hooks = { PreToolUse: [{ matcher: 'Write', hooks: [{ type: 'command', command: 'echo "frozen by the tenant" >&2; exit 2' }] }] };
    await t.keys.write([{ key, tenant: 'acme', scopes: ['write'], policy: { hooks } }]);
    expect((await t.server.reloadKeys()).ok).toBe(true);
    expect((await c.get(`/v1/sessions/${s.id}`)).body.policy.hook_events).toEqual(['PreToolUse']);
    expect(text(await write('b.txt'))).toBe('Blocked by PreToolUse hook: frozen by the tenant');
    await t.keys.write([{ key, tenant: 'acme', scopes: ['write'] }]);
    expect((await t.server.reloadKeys()).ok).toBe(true);
    expect((await write('c.txt')).is_error).toBe(false);
  });
});

describe('max_sessions and max_running_turns', () => {
  it('counts the tenant\'s active sessions, concurrent creations included; closing one makes room', async () => {
    const key = newKey('s');
    const other = newKey('o');
    const t = await boot([
      { key, tenant: 'small', scopes: ['write'], policy: { max_sessions: 2 } },
      { key: other, tenant: 'big', scopes: ['write'] },
    ]);
    const c = clientFor(t.url, key);
    const results = await Promise.all([0, 1, 2, 3].map(() => c.post('/v1/sessions', {})));
    expect(results.map((r) => r.status).sort()).toEqual([201, 201, 429, 429]);
    const refused = results.find((r) => r.status === 429)!;
    expect(refused.body.detail).toContain('max_sessions (2)');
    expect(refused.headers.get('content-type')).toContain('application/problem+json');
    // Another tenant is not counted.
    expect((await clientFor(t.url, other).post('/v1/sessions', {})).status).toBe(201);
    const created = results.filter((r) => r.status === 201).map((r) => r.body.id);
    await c.delete(`/v1/sessions/${created[0]}`);
    expect((await c.post('/v1/sessions', {})).status).toBe(201);
    // A refused creation left nothing behind.
    expect((await c.get('/v1/sessions')).body.items).toHaveLength(3);
  });

  it('counts unfinished turns across the tenant\'s sessions; a paused turn holds its place until answered', async () => {
    const key = newKey('t');
    const t = await boot([{ key, tenant: 'acme', scopes: ['write'], policy: { max_running_turns: 1 } }]);
    const c = clientFor(t.url, key);
    const a = (await c.post('/v1/sessions', { tools: ['Write', 'LS'] })).body;
    const b = (await c.post('/v1/sessions', { tools: ['Write', 'LS'] })).body;
    const paused = (await c.post(`/v1/sessions/${a.id}/turns?wait=10`, { tool_uses: [{ name: 'Write', input: { file_path: 'a.txt', content: 'x' } }] })).body;
    expect(paused.status).toBe('awaiting_permission');
    const refused = await c.post(`/v1/sessions/${b.id}/turns`, { tool_uses: [{ name: 'LS', input: { path: '.' } }] });
    expect(refused.status).toBe(429);
    expect(refused.body.detail).toContain('max_running_turns (1)');
    expect((await c.get(`/v1/sessions/${b.id}/turns`)).body.items).toEqual([]);
    await c.post(`/v1/sessions/${a.id}/permissions/${paused.pending[0]}`, { behavior: 'allow' });
    await untilSettled(c, a.id, paused.id);
    const ran = await c.post(`/v1/sessions/${b.id}/turns?wait=10`, { tool_uses: [{ name: 'LS', input: { path: '.' } }] });
    expect(ran.status).toBe(200);
    expect(ran.body.status).toBe('completed');
  });
});

describe('requests_per_minute', () => {
  it('429 problem+json with Retry-After past the tenant\'s budget, shared by its keys; other tenants go on', async () => {
    const [k1, k2, other] = [newKey('1'), newKey('2'), newKey('o')];
    const t = await boot([
      { key: k1, tenant: 'metered', scopes: ['read'], policy: { requests_per_minute: 5 } },
      { key: k2, tenant: 'metered', scopes: ['write'] },
      { key: other, tenant: 'free', scopes: ['read'] },
    ]);
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) statuses.push((await clientFor(t.url, k1).get('/v1/sessions')).status);
    for (let i = 0; i < 2; i++) statuses.push((await clientFor(t.url, k2).get('/v1/sessions')).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200]);
    const over = await clientFor(t.url, k2).get('/v1/sessions');
    expect(over.status).toBe(429);
    expect(over.headers.get('content-type')).toContain('application/problem+json');
    expect(over.body).toMatchObject({ status: 429, type: 'urn:norma:problem:too-many-requests' });
    expect(over.body.detail).toContain('requests_per_minute');
    const retryAfter = Number(over.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    for (let i = 0; i < 8; i++) expect((await clientFor(t.url, other).get('/v1/sessions')).status).toBe(200);
  });
});

describe('what a tenant\'s sessions share, and what they cannot reach', () => {
  it('a named memory store is shared within a tenant only', async () => {
    const [a, b] = [newKey('a'), newKey('b')];
    const t = await boot([
      { key: a, tenant: 'acme', scopes: ['write'] },
      { key: b, tenant: 'beta', scopes: ['write'] },
    ]);
    const ca = clientFor(t.url, a);
    const cb = clientFor(t.url, b);
    const body = { tools: ['Memory'], memory_store: 'team', permission_mode: 'bypassPermissions' };
    const s1 = (await ca.post('/v1/sessions', body)).body;
    const s2 = (await ca.post('/v1/sessions', body)).body;
    const s3 = (await cb.post('/v1/sessions', body)).body;
    await ca.post(`/v1/sessions/${s1.id}/turns?wait=10`, { tool_uses: [{ name: 'Memory', input: { command: 'create', path: '/memories/plan.md', file_text: 'acme secret\n' } }] });
    const same = (await ca.post(`/v1/sessions/${s2.id}/turns?wait=10`, { tool_uses: [{ name: 'Memory', input: { command: 'view', path: '/memories/plan.md' } }] })).body;
    expect(text(same.results[0])).toContain('acme secret');
    const other = (await cb.post(`/v1/sessions/${s3.id}/turns?wait=10`, { tool_uses: [{ name: 'Memory', input: { command: 'view', path: '/memories/plan.md' } }] })).body;
    expect(other.results[0].is_error).toBe(true);
    expect(JSON.stringify(other)).not.toContain('acme secret');
    expect((await cb.get(`/v1/sessions/${s3.id}/memory`)).body.items).toEqual([]);
  });

  it('a tenant\'s workspaces lie in its own tree: no other tenant may name one, not even through a link', async () => {
    const [a, b, admin] = [newKey('a'), newKey('b'), 'token-of-the-default-tenant-0123456789'];
    const t = await boot(
      [
        { key: a, tenant: 'acme', scopes: ['write'] },
        { key: b, tenant: 'beta', scopes: ['write'] },
      ],
      { NORMA_TOKEN: admin },
    );
    const ca = clientFor(t.url, a);
    const cb = clientFor(t.url, b);
    const mine = (await ca.post('/v1/sessions', {})).body;
    expect(mine.workspace).toBe(path.join(await fs.realpath(t.config.workspaceRoot), 'tenants', 'acme', mine.id));
    // acme makes a directory of its own and a link to it in beta's reach is of no use to beta.
    const shared = path.join(await fs.realpath(t.config.workspaceRoot), 'tenants', 'acme', 'project');
    await fs.mkdir(shared, { recursive: true });
    const betaRoot = path.join(await fs.realpath(t.config.workspaceRoot), 'tenants', 'beta');
    await fs.mkdir(betaRoot, { recursive: true });
    await fs.symlink(shared, path.join(betaRoot, 'link'));
    expect((await ca.post('/v1/sessions', { workspace: 'project' })).status).toBe(201);
    for (const w of [shared, 'link', path.join(betaRoot, 'link'), '../acme/project']) {
      const r = await cb.post('/v1/sessions', { workspace: w });
      expect(r.status, w).toBe(400);
      expect(r.body.detail).toMatch(/workspace: .* (is not a directory under|does not exist)/);
    }
    // The default tenant (NORMA_TOKEN) owns the root but not the tenants' tree.
    const d = await clientFor(t.url, admin).post('/v1/sessions', { workspace: shared });
    expect(d.status).toBe(400);
    expect(d.body.detail).toContain('other tenants\' workspaces');
  });
});
