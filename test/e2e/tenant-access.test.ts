// Who may do what, over real HTTP: every /v1 operation × every key scope × the caller's own
// tenant's session and another tenant's. A scope that does not allow the operation is 403
// whatever the session; an allowed one works on its own tenant's session and gets 404 — the
// same 404 a missing session gets — on another tenant's. Listings show the caller's only.
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openApiDoc, type ContractClient } from '../helpers/contract.js';
import { clientFor, newKey, startWithKeys, type KeyedServer } from '../helpers/tenants.js';

const SCOPES = ['read', 'approve', 'write', 'admin'] as const;
type Scope = (typeof SCOPES)[number];
const RANK: Record<Scope, number> = { read: 0, approve: 1, write: 2, admin: 3 };

const keys = {
  acme: Object.fromEntries(SCOPES.map((s) => [s, newKey(`acme_${s}`)])) as Record<Scope, string>,
  beta: { write: newKey('beta_write'), read: newKey('beta_read') },
  gamma: { write: newKey('gamma_write') },
};

let t: KeyedServer;
const api = {} as { acme: Record<Scope, ContractClient>; beta: ContractClient; betaRead: ContractClient; gamma: ContractClient };

/** What a tenant's side of the table works on: sessions for reads, permissions, questions, client-tool requests. */
interface Side {
  api: ContractClient;
  main: string;
  turn: string;
  output: string;
  perm: string;
  question: string;
  clientCall: string;
  permSession: string;
  questionSession: string;
  clientSession: string;
  checkpoint: string;
}
const sides = {} as { own: Side; foreign: Side };

async function settle(c: ContractClient, sid: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const turns = (await c.get(`/v1/sessions/${sid}/turns`)).body.items as { status: string }[];
    if (turns.every((x) => !['running', 'awaiting_permission', 'awaiting_input'].includes(x.status))) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error('turn did not settle');
}

async function pendingPermission(c: ContractClient, sid: string): Promise<string> {
  await settle(c, sid);
  const turn = (await c.post(`/v1/sessions/${sid}/turns?wait=10`, { tool_uses: [{ name: 'Write', input: { file_path: 'w.txt', content: 'x' } }] })).body;
  expect(turn.status).toBe('awaiting_permission');
  return turn.pending[0];
}

async function pendingQuestion(c: ContractClient, sid: string): Promise<string> {
  await settle(c, sid);
  const questions = [{ question: 'Go on?', options: [{ label: 'Yes' }, { label: 'No' }] }];
  const turn = (await c.post(`/v1/sessions/${sid}/turns?wait=10`, { tool_uses: [{ name: 'AskUser', input: { questions } }] })).body;
  expect(turn.status).toBe('awaiting_input');
  return turn.pending[0];
}

const CLIENT_TOOL = { name: 'lookup_order', description: 'Finds an order', input_schema: { type: 'object' } };

async function pendingClientCall(c: ContractClient, sid: string): Promise<string> {
  await settle(c, sid);
  const turn = (await c.post(`/v1/sessions/${sid}/turns?wait=10`, { tool_uses: [{ name: 'lookup_order', input: {} }] })).body;
  expect(turn.status).toBe('awaiting_input');
  return turn.pending[0];
}

async function makeSide(c: ContractClient): Promise<Side> {
  const tools = ['Read', 'Write', 'LS', 'AskUser'];
  const main = (await c.post('/v1/sessions', { tools, output_cap_chars: 100 })).body;
  await fs.writeFile(path.join(main.workspace, 'big.txt'), 'line of text\n'.repeat(100));
  const read = (await c.post(`/v1/sessions/${main.id}/turns?wait=10`, { tool_uses: [{ name: 'Read', input: { file_path: 'big.txt' } }] })).body;
  expect(read.status).toBe('completed');
  const output = read.results[0].truncation.output_id as string;
  const permSession = (await c.post('/v1/sessions', { tools })).body.id as string;
  const questionSession = (await c.post('/v1/sessions', { tools })).body.id as string;
  const clientSession = (await c.post('/v1/sessions', { tools, client_tools: [CLIENT_TOOL] })).body.id as string;
  return {
    api: c,
    main: main.id,
    turn: read.id,
    output,
    permSession,
    questionSession,
    perm: await pendingPermission(c, permSession),
    question: await pendingQuestion(c, questionSession),
    clientSession,
    clientCall: await pendingClientCall(c, clientSession),
    checkpoint: (await c.get(`/v1/sessions/${main.id}/checkpoints`)).body.items[0].id as string,
  };
}

interface Row {
  method: string;
  /** The operation's path in openapi.json. */
  template: string;
  access: Scope;
  /** Status on the caller's own session. */
  ok: number;
  request(side: Side): Promise<{ path: string; body?: unknown }>;
  /** After a successful call on the own side: put back what it used up. */
  after?(side: Side): Promise<void>;
}

const S = (p: string) => `/v1/sessions/{session_id}${p}`;
const ROWS: Row[] = [
  { method: 'GET', template: S(''), access: 'read', ok: 200, request: async (s) => ({ path: `/v1/sessions/${s.main}` }) },
  { method: 'PATCH', template: S(''), access: 'write', ok: 200, request: async (s) => ({ path: `/v1/sessions/${s.main}`, body: { ask_rules: [] } }) },
  {
    method: 'DELETE',
    template: S(''),
    access: 'write',
    ok: 204,
    // A session of its own for every call: closing is what is tested.
    request: async (s) => ({ path: `/v1/sessions/${(await s.api.post('/v1/sessions', {})).body.id}` }),
  },
  { method: 'GET', template: S('/tools'), access: 'read', ok: 200, request: async (s) => ({ path: `/v1/sessions/${s.main}/tools` }) },
  { method: 'GET', template: S('/export'), access: 'read', ok: 200, request: async (s) => ({ path: `/v1/sessions/${s.main}/export` }) },
  { method: 'GET', template: S('/verify'), access: 'read', ok: 200, request: async (s) => ({ path: `/v1/sessions/${s.main}/verify` }) },
  {
    method: 'POST',
    template: S('/turns'),
    access: 'write',
    ok: 200,
    request: async (s) => ({ path: `/v1/sessions/${s.main}/turns?wait=10`, body: { tool_uses: [{ name: 'LS', input: { path: '.' } }] } }),
  },
  { method: 'GET', template: S('/turns'), access: 'read', ok: 200, request: async (s) => ({ path: `/v1/sessions/${s.main}/turns` }) },
  { method: 'GET', template: S('/turns/{turn_id}'), access: 'read', ok: 200, request: async (s) => ({ path: `/v1/sessions/${s.main}/turns/${s.turn}` }) },
  // The turn has ended: the cancel reaches the turn and says so (409), past the key and tenant checks.
  { method: 'POST', template: S('/turns/{turn_id}/cancel'), access: 'write', ok: 409, request: async (s) => ({ path: `/v1/sessions/${s.main}/turns/${s.turn}/cancel` }) },
  { method: 'GET', template: S('/permissions'), access: 'read', ok: 200, request: async (s) => ({ path: `/v1/sessions/${s.permSession}/permissions?status=pending` }) },
  { method: 'GET', template: S('/permissions/{permission_id}'), access: 'read', ok: 200, request: async (s) => ({ path: `/v1/sessions/${s.permSession}/permissions/${s.perm}` }) },
  {
    method: 'POST',
    template: S('/permissions/{permission_id}'),
    access: 'approve',
    ok: 200,
    request: async (s) => ({ path: `/v1/sessions/${s.permSession}/permissions/${s.perm}`, body: { behavior: 'deny', message: 'not now' } }),
    after: async (s) => {
      s.perm = await pendingPermission(s.api, s.permSession);
    },
  },
  { method: 'GET', template: S('/decisions'), access: 'read', ok: 200, request: async (s) => ({ path: `/v1/sessions/${s.permSession}/decisions` }) },
  { method: 'GET', template: S('/hook-runs'), access: 'read', ok: 200, request: async (s) => ({ path: `/v1/sessions/${s.main}/hook-runs` }) },
  { method: 'GET', template: S('/egress'), access: 'read', ok: 200, request: async (s) => ({ path: `/v1/sessions/${s.main}/egress` }) },
  { method: 'GET', template: S('/mcp/requests'), access: 'read', ok: 200, request: async (s) => ({ path: `/v1/sessions/${s.main}/mcp/requests` }) },
  { method: 'GET', template: S('/mcp'), access: 'read', ok: 200, request: async (s) => ({ path: `/v1/sessions/${s.main}/mcp` }) },
  { method: 'GET', template: S('/questions'), access: 'read', ok: 200, request: async (s) => ({ path: `/v1/sessions/${s.questionSession}/questions` }) },
  { method: 'GET', template: S('/questions/{question_id}'), access: 'read', ok: 200, request: async (s) => ({ path: `/v1/sessions/${s.questionSession}/questions/${s.question}` }) },
  {
    method: 'POST',
    template: S('/questions/{question_id}'),
    access: 'approve',
    ok: 200,
    request: async (s) => ({ path: `/v1/sessions/${s.questionSession}/questions/${s.question}`, body: { dismiss: true } }),
    after: async (s) => {
      s.question = await pendingQuestion(s.api, s.questionSession);
    },
  },
  { method: 'GET', template: S('/client-tools'), access: 'read', ok: 200, request: async (s) => ({ path: `/v1/sessions/${s.clientSession}/client-tools?status=pending` }) },
  { method: 'GET', template: S('/client-tools/{request_id}'), access: 'read', ok: 200, request: async (s) => ({ path: `/v1/sessions/${s.clientSession}/client-tools/${s.clientCall}` }) },
  {
    method: 'POST',
    template: S('/client-tools/{request_id}'),
    access: 'write',
    ok: 200,
    request: async (s) => ({ path: `/v1/sessions/${s.clientSession}/client-tools/${s.clientCall}`, body: { content: 'found' } }),
    after: async (s) => {
      s.clientCall = await pendingClientCall(s.api, s.clientSession);
    },
  },
  { method: 'GET', template: S('/todos'), access: 'read', ok: 200, request: async (s) => ({ path: `/v1/sessions/${s.main}/todos` }) },
  { method: 'GET', template: S('/memory'), access: 'read', ok: 200, request: async (s) => ({ path: `/v1/sessions/${s.main}/memory` }) },
  { method: 'GET', template: S('/skills'), access: 'read', ok: 200, request: async (s) => ({ path: `/v1/sessions/${s.main}/skills` }) },
  { method: 'GET', template: S('/checkpoints'), access: 'read', ok: 200, request: async (s) => ({ path: `/v1/sessions/${s.main}/checkpoints` }) },
  { method: 'GET', template: S('/checkpoints/{checkpoint_id}'), access: 'read', ok: 200, request: async (s) => ({ path: `/v1/sessions/${s.main}/checkpoints/${s.checkpoint}` }) },
  { method: 'GET', template: S('/changes'), access: 'read', ok: 200, request: async (s) => ({ path: `/v1/sessions/${s.main}/changes?from=${s.checkpoint}` }) },
  { method: 'GET', template: S('/turns/{turn_id}/changes'), access: 'read', ok: 200, request: async (s) => ({ path: `/v1/sessions/${s.main}/turns/${s.turn}/changes` }) },
  { method: 'POST', template: S('/rewind'), access: 'write', ok: 200, request: async (s) => ({ path: `/v1/sessions/${s.main}/rewind`, body: { to: s.checkpoint, dry_run: true } }) },
  // The session has no model: compacting it is the documented 400, for a key that may ask.
  { method: 'POST', template: S('/compact'), access: 'write', ok: 400, request: async (s) => ({ path: `/v1/sessions/${s.main}/compact`, body: {} }) },
  { method: 'POST', template: S('/fork'), access: 'write', ok: 201, request: async (s) => ({ path: `/v1/sessions/${s.main}/fork`, body: { at: s.checkpoint } }) },
  { method: 'GET', template: S('/outputs'), access: 'read', ok: 200, request: async (s) => ({ path: `/v1/sessions/${s.main}/outputs` }) },
  { method: 'GET', template: S('/outputs/{output_id}'), access: 'read', ok: 200, request: async (s) => ({ path: `/v1/sessions/${s.main}/outputs/${s.output}` }) },
  { method: 'GET', template: S('/events'), access: 'read', ok: 200, request: async (s) => ({ path: `/v1/sessions/${s.main}/events` }) },
  { method: 'POST', template: S('/events/tickets'), access: 'read', ok: 201, request: async (s) => ({ path: `/v1/sessions/${s.main}/events/tickets` }) },
];

/** HEAD runs its GET's route: the same access, the same 404 for another tenant's session (without a body). */
const HEAD_ROWS: Row[] = ROWS.filter((r) => r.method === 'GET' && !r.template.endsWith('/events')).map((r) => ({ ...r, method: 'HEAD', after: undefined }));
const ALL_ROWS = [...ROWS, ...HEAD_ROWS];

/** Status of one call; the event stream is opened and closed at once (its status is what counts). */
async function call(c: ContractClient, method: string, p: string, body?: unknown): Promise<{ status: number; body: any }> {
  if (p.endsWith('/events')) {
    const ac = new AbortController();
    const key = (c as unknown as { token: string }).token;
    const res = await fetch(c.baseUrl + p, { headers: { authorization: `Bearer ${key}` }, signal: ac.signal });
    const status = res.status;
    const text = status === 200 ? '' : await res.text();
    ac.abort();
    return { status, body: text ? JSON.parse(text) : null };
  }
  const r = await c.request(method, p, body);
  return { status: r.status, body: r.body };
}

beforeAll(async () => {
  t = await startWithKeys([
    ...SCOPES.map((s) => ({ key: keys.acme[s], tenant: 'acme', scopes: [s], name: `acme-${s}` })),
    { key: keys.beta.write, tenant: 'beta', scopes: ['write'] },
    { key: keys.beta.read, tenant: 'beta', scopes: ['read'] },
    { key: keys.gamma.write, tenant: 'gamma', scopes: ['write', 'approve'] },
  ]);
  api.acme = Object.fromEntries(SCOPES.map((s) => [s, clientFor(t.url, keys.acme[s])])) as Record<Scope, ContractClient>;
  api.beta = clientFor(t.url, keys.beta.write);
  api.betaRead = clientFor(t.url, keys.beta.read);
  api.gamma = clientFor(t.url, keys.gamma.write);
  sides.own = await makeSide(api.acme.admin);
  sides.foreign = await makeSide(api.beta);
}, 60_000);

afterAll(async () => {
  await t?.close();
});

describe('the access table', () => {
  it('covers every /v1 operation of the contract', () => {
    const documented = new Set<string>();
    for (const [template, ops] of Object.entries(openApiDoc.paths)) {
      if (!template.startsWith('/v1/')) continue;
      for (const method of Object.keys(ops)) documented.add(`${method.toUpperCase()} ${template}`);
    }
    const tabled = new Set([...ALL_ROWS.map((r) => `${r.method} ${r.template}`), 'POST /v1/sessions', 'GET /v1/sessions', 'HEAD /v1/sessions', 'GET /v1/pending', 'HEAD /v1/pending', 'GET /v1/events', 'POST /v1/events/tickets', 'GET /v1/signing-key', 'HEAD /v1/signing-key', 'POST /v1/encryption/rotate']);
    expect([...tabled].sort()).toEqual([...documented].sort());
  });

  it('route × scope × own/foreign session → 2xx (or the route\'s own answer) / 403 / 404', async () => {
    const outcomes: string[] = [];
    const expected: string[] = [];
    for (const row of ALL_ROWS) {
      for (const scope of SCOPES) {
        for (const sideName of ['own', 'foreign'] as const) {
          const side = sides[sideName];
          const allowed = RANK[scope] >= RANK[row.access];
          const want = !allowed ? 403 : sideName === 'own' ? row.ok : 404;
          const { path: p, body } = await row.request(side);
          const res = await call(api.acme[scope], row.method, p, body);
          outcomes.push(`${row.method} ${row.template} ${scope} ${sideName} → ${res.status}`);
          expected.push(`${row.method} ${row.template} ${scope} ${sideName} → ${want}`);
          if (res.status === 403 && row.method !== 'HEAD') expect(res.body.detail).toContain(`this needs "${row.access}"`);
          if (res.status === 404 && row.method !== 'HEAD') expect(res.body.detail).toMatch(/^session ses_[\w-]+ does not exist$/);
          if (res.status === row.ok && sideName === 'own' && row.after) await row.after(side);
        }
      }
    }
    expect(outcomes).toEqual(expected);
    expect(outcomes).toHaveLength(ALL_ROWS.length * SCOPES.length * 2);
  }, 120_000);

  it('creating a session needs write; the session belongs to the key\'s tenant and shows it', async () => {
    for (const scope of SCOPES) {
      const res = await api.acme[scope].post('/v1/sessions', {});
      expect(res.status, scope).toBe(RANK[scope] >= RANK.write ? 201 : 403);
      if (res.status === 201) {
        expect(res.body).toMatchObject({ tenant: 'acme', policy: null });
        await api.acme.admin.delete(`/v1/sessions/${res.body.id}`);
      }
    }
  });

  it('a listing shows the caller\'s tenant\'s sessions only, for every scope, page by page', async () => {
    const acmeIds = new Set<string>();
    for (let cursor: string | null = null, first = true; first || cursor; first = false) {
      const page: any = (await api.acme.read.get(`/v1/sessions?limit=2${cursor ? `&cursor=${cursor}` : ''}`)).body;
      for (const s of page.items) {
        expect(s.tenant).toBe('acme');
        acmeIds.add(s.id);
      }
      cursor = page.next_cursor;
    }
    expect(acmeIds.has(sides.own.main)).toBe(true);
    expect(acmeIds.has(sides.foreign.main)).toBe(false);
    const beta = (await api.betaRead.get('/v1/sessions?limit=200')).body.items.map((s: { id: string }) => s.id);
    expect(beta).toContain(sides.foreign.main);
    expect(beta.some((id: string) => acmeIds.has(id))).toBe(false);
    expect((await api.gamma.get('/v1/sessions')).body.items).toEqual([]);
  });

  it('the inbox shows the caller\'s tenant\'s pending requests and questions only, for every scope', async () => {
    for (const scope of SCOPES) {
      const items = (await api.acme[scope].get('/v1/pending?limit=200')).body.items as { kind: string; session: { id: string } }[];
      const sessions = new Set(items.map((i) => i.session.id));
      expect(sessions.has(sides.own.permSession), scope).toBe(true);
      expect(sessions.has(sides.own.questionSession), scope).toBe(true);
      expect(sessions.has(sides.foreign.permSession), scope).toBe(false);
      expect(sessions.has(sides.foreign.questionSession), scope).toBe(false);
    }
    const beta = (await api.betaRead.get('/v1/pending')).body.items as { session: { id: string } }[];
    expect(beta.map((i) => i.session.id).sort()).toEqual([sides.foreign.permSession, sides.foreign.questionSession].sort());
    expect((await api.gamma.get('/v1/pending')).body).toEqual({ items: [], next_cursor: null });
    // The tenant stream and its tickets: every scope may follow its own tenant's.
    for (const scope of SCOPES) {
      expect((await api.acme[scope].post('/v1/events/tickets')).status, scope).toBe(201);
      const ac = new AbortController();
      const res = await fetch(`${t.url}/v1/events`, { headers: { authorization: `Bearer ${keys.acme[scope]}` }, signal: ac.signal });
      expect(res.status, scope).toBe(200);
      ac.abort();
    }
  });

  it('another tenant\'s session is answered exactly as a missing one', async () => {
    const foreign = await api.acme.admin.get(`/v1/sessions/${sides.foreign.main}`);
    const missing = await api.acme.admin.get('/v1/sessions/ses_doesnotexist000000000');
    expect(foreign.status).toBe(404);
    expect(missing.status).toBe(404);
    const shape = (b: any) => ({ ...b, detail: b.detail.replace(/ses_[\w-]+/, 'ses_X'), instance: b.instance.replace(/ses_[\w-]+/, 'ses_X') });
    expect(shape(foreign.body)).toEqual(shape(missing.body));
    expect([...foreign.headers.keys()].sort()).toEqual([...missing.headers.keys()].sort());
  });

  it('an approve key answers a permission request and nothing else; the approval goes on', async () => {
    const c = api.acme.approve;
    const s = sides.own;
    expect((await c.post(`/v1/sessions/${s.permSession}/turns`, { tool_uses: [] })).status).toBe(403);
    expect((await c.patch(`/v1/sessions/${s.permSession}`, { permission_mode: 'bypassPermissions' })).status).toBe(403);
    expect((await c.delete(`/v1/sessions/${s.permSession}`)).status).toBe(403);
    const pending = (await c.get(`/v1/sessions/${s.permSession}/permissions?status=pending`)).body;
    expect(pending.items.map((p: { id: string }) => p.id)).toEqual([s.perm]);
    const answered = await c.post(`/v1/sessions/${s.permSession}/permissions/${s.perm}`, { behavior: 'allow' });
    expect(answered.body).toMatchObject({ status: 'allowed', resolved_by: 'client', answered_by: 'acme-approve' });
    await settle(c, s.permSession);
    const turns = (await c.get(`/v1/sessions/${s.permSession}/turns`)).body.items;
    expect(turns.at(-1).status).toBe('completed');
    expect(turns.at(-1).results[0].is_error).toBe(false);
    s.perm = await pendingPermission(api.acme.admin, s.permSession);
  });

  it('unknown, malformed and missing keys are 401 with a Bearer challenge; public probes stay open', async () => {
    const unknown = await clientFor(t.url, newKey('nobody')).get('/v1/sessions');
    expect(unknown.status).toBe(401);
    expect(unknown.body.detail).toBe('unknown API key');
    expect(unknown.headers.get('www-authenticate')).toBe('Bearer realm="norma"');
    const none = await fetch(`${t.url}/v1/sessions`);
    expect(none.status).toBe(401);
    const basic = await fetch(`${t.url}/v1/sessions`, { headers: { authorization: `Basic ${Buffer.from('a:b').toString('base64')}` } });
    expect(basic.status).toBe(401);
    expect(((await basic.json()) as { detail: string }).detail).toContain('Bearer <key>');
    expect((await fetch(`${t.url}/healthz`)).status).toBe(200);
  });
});
