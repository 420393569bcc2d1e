// What an answer may add is bounded by the answering key's scope, over real HTTP. A key that may
// change the session's rules and mode (PATCH: `write`) may remember any rule and choose any mode
// within the tenant's policy when it approves; a key that may only answer (`approve`) may
// remember only the rules the request itself suggests, and may end plan mode only into the mode
// before it or a stricter one. Anything else is 403 naming what was refused, and nothing is
// resolved: the request stays pending, and a proper answer goes through afterwards. An approval's
// `updated_input` is validated and evaluated again; a question's answer adds nothing at all.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ContractClient } from '../helpers/contract.js';
import { createTestDatabase } from '../helpers/postgres.js';
import { closeAll, startServer, type TestServer } from '../helpers/server.js';
import { clientFor, keysFile, newKey, startWithKeys, type KeyedServer } from '../helpers/tenants.js';

const keys = { write: newKey('w'), approve: newKey('a'), admin: newKey('m') };
let t: KeyedServer;
let writer: ContractClient;
let approver: ContractClient;
let admin: ContractClient;

beforeAll(async () => {
  t = await startWithKeys([
    { key: keys.write, tenant: 'acme', scopes: ['write'], name: 'acme-write' },
    { key: keys.approve, tenant: 'acme', scopes: ['approve'], name: 'acme-approve' },
    { key: keys.admin, tenant: 'acme', scopes: ['admin'], name: 'acme-admin' },
  ]);
  writer = clientFor(t.url, keys.write);
  approver = clientFor(t.url, keys.approve);
  admin = clientFor(t.url, keys.admin);
}, 60_000);

afterAll(async () => {
  await t?.close();
});

async function untilSettled(sid: string, turnId: string): Promise<any> {
  for (let i = 0; i < 400; i++) {
    const turn = (await writer.get(`/v1/sessions/${sid}/turns/${turnId}`)).body;
    if (!['running', 'awaiting_permission', 'awaiting_input'].includes(turn.status)) return turn;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error('turn did not settle');
}

/** A Write the writer posts: the turn as it is once it settled or paused. */
async function write(sid: string, file: string, content = 'x'): Promise<any> {
  const r = await writer.post(`/v1/sessions/${sid}/turns?wait=10`, { tool_uses: [{ name: 'Write', input: { file_path: file, content } }] });
  expect(r.status).toBe(200);
  return r.body;
}

async function pausedWrite(sid: string, file: string): Promise<{ turn: any; perm: any }> {
  const turn = await write(sid, file);
  expect(turn.status).toBe('awaiting_permission');
  const perm = (await writer.get(`/v1/sessions/${sid}/permissions/${turn.pending[0]}`)).body;
  return { turn, perm };
}

async function session(body: object = {}): Promise<any> {
  const r = await writer.post('/v1/sessions', body);
  expect(r.status).toBe(201);
  return r.body;
}

/** 403 problem+json whose detail names `what`; the request is still pending, the turn still waits. */
async function refused(res: { status: number; headers: Headers; body: any }, sid: string, turnId: string, permId: string, what: string) {
  expect(res.status).toBe(403);
  expect(res.headers.get('content-type')).toContain('application/problem+json');
  expect(res.body.type).toBe('urn:norma:problem:forbidden');
  expect(res.body.detail).toContain(JSON.stringify(what));
  const perm = (await writer.get(`/v1/sessions/${sid}/permissions/${permId}`)).body;
  expect(perm.status).toBe('pending');
  expect(perm.answered_by).toBeUndefined();
  const turn = (await writer.get(`/v1/sessions/${sid}/turns/${turnId}`)).body;
  expect(turn.status).toBe('awaiting_permission');
  expect(turn.pending).toEqual([permId]);
}

describe('remembering rules with an approval', () => {
  it('an approve-only key may remember only the rules the request suggests; anything else is 403 and resolves nothing', async () => {
    const s = await session();
    const { turn, perm } = await pausedWrite(s.id, 'notes/a.txt');
    expect(perm.suggestions.length).toBeGreaterThan(0);
    // The same key may not add a rule by PATCH: an approval is not another door to it.
    expect((await approver.patch(`/v1/sessions/${s.id}`, { add_rules: [{ rule: '*', behavior: 'allow' }] })).status).toBe(403);

    const answer = (remember: string[]) => approver.post(`/v1/sessions/${s.id}/permissions/${perm.id}`, { behavior: 'allow', remember });
    // Everything; a whole tool (another one, this one); a tool with any specifier; a rule for a file
    // this call does not touch; a rule narrower than a suggested one but not offered; a suggestion
    // with a wide rule beside it (all or nothing).
    const dir = perm.suggestions.find((r: string) => r.endsWith('/**)'));
    const cases: [string[], string][] = [
      [['*'], '*'],
      [['Bash'], 'Bash'],
      [['Bash(*)'], 'Bash(*)'],
      [['Write'], 'Write'],
      [['Edit(./other.txt)'], 'Edit(./other.txt)'],
      [[perm.suggestions[0], '*'], '*'],
    ];
    if (dir) cases.push([[dir.replace('/**)', '/sub/**)')], dir.replace('/**)', '/sub/**)')]);
    for (const [remember, named] of cases) {
      const r = await answer(remember);
      await refused(r, s.id, turn.id, perm.id, named);
      expect(r.body.detail).toContain('acme-approve');
    }
    expect((await writer.get(`/v1/sessions/${s.id}`)).body.rules).toEqual([]);

    // The request is answered properly after all that, remembering a suggestion.
    const ok = await answer([perm.suggestions[0]]);
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ status: 'allowed', resolved_by: 'client', answered_by: 'acme-approve', remember: [perm.suggestions[0]] });
    expect((await untilSettled(s.id, turn.id)).status).toBe('completed');
    expect(await fs.readFile(path.join(s.workspace, 'notes/a.txt'), 'utf8')).toBe('x');
    expect((await writer.get(`/v1/sessions/${s.id}`)).body.rules).toMatchObject([{ rule: perm.suggestions[0], behavior: 'allow', source: 'remember' }]);

    // The effects: the same file is now allowed by the remembered rule; another one still asks.
    expect((await write(s.id, 'notes/a.txt', 'y')).status).toBe('completed');
    const other = await write(s.id, 'elsewhere.txt');
    expect(other.status).toBe('awaiting_permission');
    await writer.post(`/v1/sessions/${s.id}/permissions/${other.pending[0]}`, { behavior: 'deny' });
    await untilSettled(s.id, other.id);
  });

  it('the console\'s login of an approve-only key is bound the same way', async () => {
    const s = await session();
    const { turn, perm } = await pausedWrite(s.id, 'c.txt');
    const login = await fetch(`${t.url}/console/session`, {
      method: 'POST',
      headers: { 'x-norma-console': '1', 'content-type': 'application/json' },
      body: JSON.stringify({ key: keys.approve }),
    });
    expect(login.status).toBe(201);
    const cookie = String(login.headers.get('set-cookie')).split(';')[0]!;
    const page = new ContractClient(t.url);
    const headers = { 'x-norma-console': '1', cookie };
    const wide = await page.post(`/v1/sessions/${s.id}/permissions/${perm.id}`, { behavior: 'allow', remember: ['*'] }, { headers });
    await refused(wide, s.id, turn.id, perm.id, '*');
    const ok = await page.post(`/v1/sessions/${s.id}/permissions/${perm.id}`, { behavior: 'allow', remember: [perm.suggestions[0]] }, { headers });
    expect(ok.status).toBe(200);
    await untilSettled(s.id, turn.id);
  });

  it('a key that may change the session\'s rules (write, admin) may remember what PATCH would let it add', async () => {
    for (const [c, name] of [
      [writer, 'acme-write'],
      [admin, 'acme-admin'],
    ] as const) {
      const s = await session();
      const { turn, perm } = await pausedWrite(s.id, 'first.txt');
      const ok = await c.post(`/v1/sessions/${s.id}/permissions/${perm.id}`, { behavior: 'allow', remember: ['*'] });
      expect(ok.status).toBe(200);
      expect(ok.body).toMatchObject({ status: 'allowed', answered_by: name, remember: ['*'] });
      expect((await untilSettled(s.id, turn.id)).status).toBe('completed');
      // The rule is in force: the next call runs without asking.
      expect((await write(s.id, 'second.txt')).status).toBe('completed');
    }
  });
});

describe('the mode an ExitPlanMode approval switches to', () => {
  async function planSession(mode?: string): Promise<{ s: any; exit: any }> {
    const s = await session({ tools: ['Write', 'EnterPlanMode', 'ExitPlanMode'], ...(mode ? { permission_mode: mode } : {}) });
    const enter = (await writer.post(`/v1/sessions/${s.id}/turns?wait=10`, { tool_uses: [{ name: 'EnterPlanMode', input: {} }] })).body;
    expect(enter.status).toBe('completed');
    const exit = (await writer.post(`/v1/sessions/${s.id}/turns?wait=10`, { tool_uses: [{ name: 'ExitPlanMode', input: { plan: '1. write', next_mode: 'bypassPermissions' } }] })).body;
    expect(exit.status).toBe('awaiting_permission');
    return { s, exit };
  }
  const modeOf = async (sid: string) => (await writer.get(`/v1/sessions/${sid}`)).body.permission_mode;

  it('an approve-only key may not choose a mode looser than the one before plan mode; the request waits for a proper answer', async () => {
    const { s, exit } = await planSession();
    const permId = exit.pending[0];
    for (const mode of ['bypassPermissions', 'acceptEdits']) {
      const r = await approver.post(`/v1/sessions/${s.id}/permissions/${permId}`, { behavior: 'allow', mode });
      await refused(r, s.id, exit.id, permId, mode);
      expect(r.body.detail).toContain('"default"');
      expect(await modeOf(s.id)).toBe('plan');
    }
    const ok = await approver.post(`/v1/sessions/${s.id}/permissions/${permId}`, { behavior: 'allow' });
    expect(ok.status).toBe(200);
    expect((await untilSettled(s.id, exit.id)).status).toBe('completed');
    // Back in the mode before plan mode (the model's own next_mode was not taken): a write still asks.
    expect(await modeOf(s.id)).toBe('default');
    const next = await write(s.id, 'after-plan.txt');
    expect(next.status).toBe('awaiting_permission');
    await writer.post(`/v1/sessions/${s.id}/permissions/${next.pending[0]}`, { behavior: 'deny' });
    await untilSettled(s.id, next.id);
  });

  it('returning to a looser mode a writer chose before plan mode is no widening; a stricter one is fine too', async () => {
    const { s, exit } = await planSession('acceptEdits');
    const permId = exit.pending[0];
    const r = await approver.post(`/v1/sessions/${s.id}/permissions/${permId}`, { behavior: 'allow', mode: 'bypassPermissions' });
    await refused(r, s.id, exit.id, permId, 'bypassPermissions');
    expect((await approver.post(`/v1/sessions/${s.id}/permissions/${permId}`, { behavior: 'allow', mode: 'acceptEdits' })).status).toBe(200);
    await untilSettled(s.id, exit.id);
    expect(await modeOf(s.id)).toBe('acceptEdits');

    const again = await planSession();
    expect((await approver.post(`/v1/sessions/${again.s.id}/permissions/${again.exit.pending[0]}`, { behavior: 'allow', mode: 'dontAsk' })).status).toBe(200);
    await untilSettled(again.s.id, again.exit.id);
    expect(await modeOf(again.s.id)).toBe('dontAsk');
  });

  it('a key that may PATCH the mode may choose any mode within the tenant\'s policy', async () => {
    const { s, exit } = await planSession();
    const ok = await writer.post(`/v1/sessions/${s.id}/permissions/${exit.pending[0]}`, { behavior: 'allow', mode: 'bypassPermissions' });
    expect(ok.status).toBe(200);
    await untilSettled(s.id, exit.id);
    expect(await modeOf(s.id)).toBe('bypassPermissions');
    expect((await write(s.id, 'bypassed.txt')).status).toBe('completed');
  });
});

describe('an approval\'s updated_input', () => {
  it('is validated and evaluated again: an approve key cannot rewrite a call past a deny rule', async () => {
    const s = await session({ disallowed_tools: ['Edit(./secret/**)'] });
    const { turn, perm } = await pausedWrite(s.id, 'notes/ok.txt');
    const ok = await approver.post(`/v1/sessions/${s.id}/permissions/${perm.id}`, { behavior: 'allow', updated_input: { file_path: 'secret/key.txt', content: 'x' } });
    expect(ok.status).toBe(200);
    const done = await untilSettled(s.id, turn.id);
    expect(done.results[0].is_error).toBe(true);
    expect(done.results[0].content[0].text).toContain('Permission denied');
    await expect(fs.stat(path.join(s.workspace, 'secret/key.txt'))).rejects.toThrow();
    const decisions = (await writer.get(`/v1/sessions/${s.id}/decisions?turn_id=${turn.id}`)).body.items;
    expect(decisions.at(-1)).toMatchObject({ behavior: 'deny', input_source: 'approval' });

    // An input the tool does not accept is refused as such, and nothing runs.
    const second = await pausedWrite(s.id, 'notes/ok.txt');
    expect((await approver.post(`/v1/sessions/${s.id}/permissions/${second.perm.id}`, { behavior: 'allow', updated_input: { file_path: 5 } })).status).toBe(200);
    const bad = await untilSettled(s.id, second.turn.id);
    expect(bad.results[0].is_error).toBe(true);
    expect(bad.results[0].content[0].text).toContain('updated_input');
    await expect(fs.stat(path.join(s.workspace, 'notes/ok.txt'))).rejects.toThrow();
  });
});

describe('a question\'s answer', () => {
  it('adds nothing to the session: an answer carrying rules or a mode is refused and the question still waits', async () => {
    const s = await session({ tools: ['Write', 'AskUser'] });
    const questions = [{ question: 'Go on?', options: [{ label: 'Yes' }, { label: 'No' }] }];
    const turn = (await writer.post(`/v1/sessions/${s.id}/turns?wait=10`, { tool_uses: [{ name: 'AskUser', input: { questions } }] })).body;
    expect(turn.status).toBe('awaiting_input');
    const qid = turn.pending[0];
    for (const extra of [{ remember: ['*'] }, { mode: 'bypassPermissions' }]) {
      const r = await approver.post(`/v1/sessions/${s.id}/questions/${qid}`, { answers: { 'Go on?': 'Yes' }, ...extra });
      expect(r.status).toBe(400);
      expect((await writer.get(`/v1/sessions/${s.id}/questions/${qid}`)).body.status).toBe('pending');
    }
    const ok = await approver.post(`/v1/sessions/${s.id}/questions/${qid}`, { answers: { 'Go on?': 'Yes' } });
    expect(ok.status).toBe(200);
    expect((await untilSettled(s.id, turn.id)).status).toBe('completed');
    const after = (await writer.get(`/v1/sessions/${s.id}`)).body;
    expect(after.rules).toEqual([]);
    expect(after.permission_mode).toBe('default');
  });
});

describe('an answer through another replica', () => {
  it('is bounded on the node that runs the session, with the scope the answering node sent', async () => {
    const db = await createTestDatabase();
    const f = await keysFile([
      { key: keys.write, tenant: 'acme', scopes: ['write'], name: 'acme-write' },
      { key: keys.approve, tenant: 'acme', scopes: ['approve'], name: 'acme-approve' },
    ]);
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'norma-answer-replicas-'));
    const nodes: TestServer[] = [];
    try {
      const env = { NORMA_STORE: 'postgres', NORMA_DATABASE_URL: db.url, NORMA_SANDBOX: 'off', NORMA_API_KEYS_FILE: f.file };
      nodes.push(await startServer({ ...env, NORMA_NODE_ID: 'ans-a' }, { dataDir }));
      nodes.push(await startServer({ ...env, NORMA_NODE_ID: 'ans-b' }, { dataDir }));
      const [a, b] = nodes as [TestServer, TestServer];
      const w = clientFor(a.url, keys.write);
      const s = (await w.post('/v1/sessions', {})).body;
      const turn = (await w.post(`/v1/sessions/${s.id}/turns?wait=10`, { tool_uses: [{ name: 'Write', input: { file_path: 'r.txt', content: 'r' } }] })).body;
      expect(turn.status).toBe('awaiting_permission');
      const permId = turn.pending[0];
      const perm = (await w.get(`/v1/sessions/${s.id}/permissions/${permId}`)).body;
      const onB = clientFor(b.url, keys.approve);
      const wide = await onB.post(`/v1/sessions/${s.id}/permissions/${permId}`, { behavior: 'allow', remember: ['*'] });
      expect(wide.status).toBe(403);
      expect(wide.body.detail).toContain('"*"');
      expect((await w.get(`/v1/sessions/${s.id}/permissions/${permId}`)).body.status).toBe('pending');
      const ok = await onB.post(`/v1/sessions/${s.id}/permissions/${permId}`, { behavior: 'allow', remember: [perm.suggestions[0]] });
      expect(ok.status).toBe(200);
      expect(ok.body).toMatchObject({ status: 'allowed', answered_by: 'acme-approve' });
    } finally {
      await closeAll(nodes);
      await fs.rm(dataDir, { recursive: true, force: true });
      await f.remove();
      await db.drop();
    }
  });
});
