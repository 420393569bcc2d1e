// Client tools: what is refused, each as a problem+json and with nothing made or run — bad
// declarations at session creation, and answers that are not for this caller, this session or
// this moment (another tenant's key, another session, a second answer, a body that is not an answer).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientFor, newKey, startWithKeys, type KeyedServer } from '../helpers/tenants.js';
import type { ContractClient } from '../helpers/contract.js';

const LOOKUP = {
  name: 'lookup_order',
  description: 'Finds an order in the client\'s own database by its id.',
  input_schema: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
};

const keys = { acme: newKey('acme_write'), beta: newKey('beta_write') };
let t: KeyedServer;
let acme: ContractClient;
let beta: ContractClient;
beforeAll(async () => {
  t = await startWithKeys([
    { key: keys.acme, tenant: 'acme', scopes: ['write'] },
    { key: keys.beta, tenant: 'beta', scopes: ['write'] },
  ]);
  acme = clientFor(t.url, keys.acme);
  beta = clientFor(t.url, keys.beta);
});
afterAll(async () => {
  await t?.close();
});

const problemText = (res: { body: { detail?: string; errors?: { message: string }[] } }) => [res.body.detail ?? '', ...(res.body.errors ?? []).map((e) => e.message)].join('\n');

/** A session of `c`'s tenant with a call of the client tool waiting for an answer. */
async function waiting(c: ContractClient): Promise<{ sid: string; turnId: string; requestId: string }> {
  const s = (await c.post('/v1/sessions', { tools: ['Read'], client_tools: [LOOKUP] })).body;
  const turn = (await c.post(`/v1/sessions/${s.id}/turns?wait=10`, { tool_uses: [{ name: 'lookup_order', input: { id: 'A-1' } }] })).body;
  expect(turn.status).toBe('awaiting_input');
  return { sid: s.id, turnId: turn.id, requestId: turn.pending[0] };
}

describe('declaring client tools', () => {
  const deep = (levels: number): Record<string, unknown> => (levels === 0 ? { type: 'string' } : { type: 'object', properties: { a: deep(levels - 1) } });
  const cases: [string, unknown, string][] = [
    ['a built-in tool\'s name', [{ ...LOOKUP, name: 'Bash' }], 'client_tools[0].name: "Bash" is the name of a built-in tool'],
    ['a name of the permission requests that are not calls', [{ ...LOOKUP, name: 'Network' }], 'client_tools[0].name: "Network" is the name of a built-in tool'],
    ['an MCP tool\'s name', [{ ...LOOKUP, name: 'mcp__db__lookup' }], 'client_tools[0].name: "mcp__db__lookup" is in the namespace of MCP servers\' tools'],
    ['a name twice', [LOOKUP, { ...LOOKUP, description: 'again' }], 'client_tools[1].name: "lookup_order" is declared twice'],
    ['a name that is not a tool name', [{ ...LOOKUP, name: 'look up!' }], '/client_tools/0/name'],
    ['a schema of something other than an object', [{ ...LOOKUP, input_schema: { type: 'string' } }], 'client_tools[0].input_schema: the input schema must describe an object'],
    ['a schema that is not JSON Schema', [{ ...LOOKUP, input_schema: { type: 'object', properties: 5 } }], 'client_tools[0].input_schema: the input schema does not compile'],
    ['a schema of an unknown dialect', [{ ...LOOKUP, input_schema: { $schema: 'https://example.com/mine', type: 'object' } }], 'is not one this server validates'],
    ['a schema nested too deep', [{ ...LOOKUP, input_schema: deep(20) }], 'client_tools[0].input_schema: nests deeper than 32 levels'],
    ['a schema too large', [{ ...LOOKUP, input_schema: { type: 'object', description: 'x'.repeat(70_000) } }], 'bytes; at most 65536 are taken'],
    ['a description too long', [{ ...LOOKUP, description: 'x'.repeat(10_001) }], '/client_tools/0/description'],
    ['no description', [{ name: 'lookup_order', input_schema: LOOKUP.input_schema }], 'description'],
    ['too many tools', Array.from({ length: 65 }, (_, i) => ({ ...LOOKUP, name: `tool_${i}` })), '/client_tools'],
    ['not a list', { lookup_order: LOOKUP }, '/client_tools'],
  ];
  it.each(cases)('%s is a 400 naming the problem; nothing is created', async (_what, clientTools, named) => {
    const count = async () => (await acme.get('/v1/sessions?limit=200')).body.items.length;
    const before = await count();
    const res = await acme.post('/v1/sessions', { client_tools: clientTools });
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(problemText(res) + JSON.stringify(res.body.errors ?? [])).toContain(named);
    expect(await count()).toBe(before);
  });

  it('a fork keeps them; PATCH cannot change them', async () => {
    const s = (await acme.post('/v1/sessions', { client_tools: [LOOKUP] })).body;
    const fork = (await acme.post(`/v1/sessions/${s.id}/fork`, {})).body;
    expect(fork.client_tools).toEqual(['lookup_order']);
    expect((await acme.get(`/v1/sessions/${fork.id}/tools`)).body.find((x: { name: string }) => x.name === 'lookup_order')).toMatchObject({ client: true });
    expect((await acme.patch(`/v1/sessions/${s.id}`, { client_tools: [] })).status).toBe(400);
  });
});

describe('answering a client-tool request', () => {
  it('another tenant\'s key and another session get 404; the request stays pending', async () => {
    const { sid, requestId } = await waiting(acme);
    const other = (await acme.post('/v1/sessions', { client_tools: [LOOKUP] })).body.id;
    const foreign = await beta.post(`/v1/sessions/${sid}/client-tools/${requestId}`, { content: 'from beta' });
    expect(foreign.status).toBe(404);
    expect(foreign.body.detail).toMatch(/^session ses_[\w-]+ does not exist$/);
    expect((await beta.get(`/v1/sessions/${sid}/client-tools`)).status).toBe(404);
    const wrongSession = await acme.post(`/v1/sessions/${other}/client-tools/${requestId}`, { content: 'elsewhere' });
    expect(wrongSession.status).toBe(404);
    expect(wrongSession.body.detail).toContain(requestId);
    expect((await acme.get(`/v1/sessions/${sid}/client-tools/${requestId}`)).body.status).toBe('pending');
  });

  it('a body that is not an answer is a 400, an image too large too; a second answer is a 409', async () => {
    const { sid, turnId, requestId } = await waiting(acme);
    const url = `/v1/sessions/${sid}/client-tools/${requestId}`;
    for (const body of [{}, { content: 5 }, { text: 'x' }, { content: 'x', extra: true }, { content: [{ type: 'video', url: 'x' }] }, { content: 'x', is_error: 'yes' }]) {
      const res = await acme.post(url, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    }
    const huge = { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'A'.repeat(5 * 1024 * 1024 + 4) } };
    const tooLarge = await acme.post(url, { content: [huge] });
    expect(tooLarge.status).toBe(400);
    expect(problemText(tooLarge)).toContain('content[0]: the image is');
    expect((await acme.get(url)).body.status).toBe('pending');
    expect((await acme.post(url, { content: 'found' })).status).toBe(200);
    const again = await acme.post(url, { content: 'found again' });
    expect(again.status).toBe(409);
    expect(again.body.detail).toContain('already resolved (answered)');
    expect((await acme.get(`/v1/sessions/${sid}/turns/${turnId}?wait=10`)).body.results[0].content).toEqual([{ type: 'text', text: 'found' }]);
  });

  it('an Idempotency-Key makes a retried answer safe: the same answer again, nothing answered twice', async () => {
    const { sid, requestId } = await waiting(acme);
    const url = `${t.url}/v1/sessions/${sid}/client-tools/${requestId}`;
    const post = () =>
      fetch(url, { method: 'POST', headers: { authorization: `Bearer ${keys.acme}`, 'content-type': 'application/json', 'idempotency-key': `answer-${requestId}` }, body: JSON.stringify({ content: 'once' }) });
    const first = await post();
    expect(first.status).toBe(200);
    const second = await post();
    expect(second.status).toBe(200);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(await second.json()).toEqual(await first.json());
  });

  it('the inbox does not list client-tool requests: they are the client\'s, not a person\'s', async () => {
    await waiting(acme);
    const items = (await acme.get('/v1/pending?limit=200')).body.items as { kind: string }[];
    expect(items.every((i) => i.kind === 'permission' || i.kind === 'question')).toBe(true);
    expect(items).toEqual([]);
  });
});
