// Norma as an MCP server, driven by the MCP SDK's own Client over Streamable HTTP: an MCP session
// is a Norma session; tools/list is what the session exposes; tools/call runs a direct turn through
// the whole pipeline; a Write that asks is answered through elicitation, or in the REST API while
// the client waits; cancellation, progress, spill files as resources; the session taken up again
// after a restart.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { startServer, type TestServer } from '../helpers/server.js';

const servers: TestServer[] = [];
const clients: Client[] = [];
const dirs: string[] = [];

afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close().catch(() => {})));
  await Promise.all(servers.splice(0).map((s) => s.close()));
  await Promise.all(dirs.splice(0).map((d) => fs.rm(d, { recursive: true, force: true })));
});

async function start(env: Record<string, string> = {}, dataDir?: string): Promise<TestServer> {
  const t = await startServer({ NORMA_SANDBOX: 'off', ...env }, dataDir ? { dataDir } : {});
  servers.push(t);
  return t;
}

type Elicit = (params: { message: string; requestedSchema: { properties: Record<string, unknown> } }, signal: AbortSignal) => Promise<ElicitResult>;

async function connect(t: TestServer, opts: { elicit?: Elicit; query?: string; headers?: Record<string, string>; sessionId?: string; answers?: string[] } = {}) {
  const client = new Client({ name: 'sdk-test-client', version: '1.0.0' }, { capabilities: opts.elicit ? { elicitation: { form: {} } } : {} });
  if (opts.elicit) {
    const elicit = opts.elicit;
    client.setRequestHandler(ElicitRequestSchema, async (req, extra) => elicit(req.params as never, extra.signal));
  }
  const transport = new StreamableHTTPClientTransport(new URL(`${t.url}/mcp${opts.query ?? ''}`), {
    requestInit: { headers: opts.headers ?? {} },
    ...(opts.sessionId ? { sessionId: opts.sessionId } : {}),
    // How each POST was answered: `<status> <content type>`.
    ...(opts.answers
      ? {
          fetch: async (url: string | URL, init?: RequestInit) => {
            const res = await fetch(url, init);
            if (init?.method === 'POST') opts.answers!.push(`${res.status} ${res.headers.get('content-type')?.split(';')[0] ?? '-'}`);
            return res;
          },
        }
      : {}),
  });
  await client.connect(transport);
  clients.push(client);
  return { client, transport };
}

const textOf = (r: object) => ((r as { content?: unknown }).content as { type: string; text?: string }[]).filter((b) => b.type === 'text').map((b) => b.text).join('');

describe('/mcp with the MCP SDK client', { timeout: 60_000 }, () => {
  it('opens a session, lists its tools and runs a call through the pipeline', async () => {
    const t = await start();
    const answers: string[] = [];
    const { client, transport } = await connect(t, { answers });
    const sessionId = transport.sessionId!.split('.')[0]!;
    const session = (await t.api.get(`/v1/sessions/${sessionId}`)).body;
    expect(session.status).toBe('active');
    const { tools } = await client.listTools();
    const rest = (await t.api.get(`/v1/sessions/${sessionId}/tools`)).body as { name: string }[];
    expect(tools.map((x) => x.name).sort()).toEqual(rest.map((x) => x.name).sort());
    expect(tools.find((x) => x.name === 'LS')?.inputSchema.type).toBe('object');

    await fs.writeFile(path.join(session.workspace, 'hello.txt'), 'hi');
    const listed = await client.callTool({ name: 'LS', arguments: { path: '.' } });
    expect(listed.isError).toBe(false);
    expect(textOf(listed)).toContain('hello.txt');
    // initialize, notifications/initialized, tools/list and the call: each answered at once, as JSON.
    expect(answers).toEqual(['200 application/json', '202 -', '200 application/json', '200 application/json']);
    // A direct turn of the session, recorded as any other.
    const turns = JSON.stringify((await t.api.get(`/v1/sessions/${sessionId}/turns`)).body);
    expect(turns).toContain('"LS"');

    // A tool the session does not expose: an MCP error, and no turn.
    const before = JSON.stringify((await t.api.get(`/v1/sessions/${sessionId}/turns`)).body);
    await expect(client.callTool({ name: 'NoSuchTool', arguments: {} })).rejects.toThrow(/Unknown tool/);
    expect(JSON.stringify((await t.api.get(`/v1/sessions/${sessionId}/turns`)).body)).toBe(before);

    // Invalid input: the pipeline's validation, as an error result.
    const bad = await client.callTool({ name: 'Read', arguments: { nope: 1 } });
    expect(bad.isError).toBe(true);

    // DELETE ends the MCP session and closes the session made for it.
    await transport.terminateSession();
    await expect.poll(async () => (await t.api.get(`/v1/sessions/${sessionId}`)).body.status).toBe('closed');
  });

  it('asks through elicitation: an allow runs the Write and remembers the chosen rule; a decline denies', async () => {
    const t = await start();
    const forms: { message: string; requestedSchema: { properties: Record<string, unknown> } }[] = [];
    let answer: ElicitResult | 'remember' = { action: 'accept', content: { decision: 'allow' } };
    const { client, transport } = await connect(t, {
      elicit: async (params) => {
        forms.push(params);
        if (answer !== 'remember') return answer;
        // The rule the form offers (for this file).
        const offered = (params.requestedSchema.properties.remember as { enum: string[] }).enum;
        return { action: 'accept', content: { decision: 'allow', remember: offered.at(-1)! } };
      },
    });
    const sessionId = transport.sessionId!.split('.')[0]!;
    const workspace = (await t.api.get(`/v1/sessions/${sessionId}`)).body.workspace as string;
    const wrote = await client.callTool({ name: 'Write', arguments: { file_path: 'a.txt', content: 'one' } });
    expect(wrote.isError).toBe(false);
    expect(await fs.readFile(path.join(workspace, 'a.txt'), 'utf8')).toBe('one');
    expect(forms).toHaveLength(1);
    expect(forms[0]!.message).toMatch(/Write asks for permission/);
    const props = forms[0]!.requestedSchema.properties as Record<string, { enum?: string[] }>;
    expect(props.decision!.enum).toEqual(['allow', 'deny']);
    const permissions = (await t.api.get(`/v1/sessions/${sessionId}/permissions`)).body.items as { status: string; resolved_by: string }[];
    expect(permissions).toEqual([expect.objectContaining({ status: 'allowed', resolved_by: 'client' })]);

    // A declined form is a denial; nothing is written.
    answer = { action: 'decline' };
    const denied = await client.callTool({ name: 'Write', arguments: { file_path: 'b.txt', content: 'two' } });
    expect(denied.isError).toBe(true);
    await expect(fs.stat(path.join(workspace, 'b.txt'))).rejects.toThrow();

    // Allowed with the suggested rule remembered: writing the file again does not ask.
    expect((props.remember as { enum?: string[] } | undefined)?.enum?.length).toBeGreaterThan(0);
    answer = 'remember';
    expect((await client.callTool({ name: 'Write', arguments: { file_path: 'c.txt', content: 'three' } })).isError).toBe(false);
    const asked = forms.length;
    expect((await client.callTool({ name: 'Write', arguments: { file_path: 'c.txt', content: 'four' } })).isError).toBe(false);
    expect(forms.length).toBe(asked);
    expect(await fs.readFile(path.join(workspace, 'c.txt'), 'utf8')).toBe('four');
    expect((await t.api.get(`/v1/sessions/${sessionId}`)).body.rules).toEqual([expect.objectContaining({ rule: 'Edit(./c.txt)', behavior: 'allow' })]);

    // An answer that does not fit the form answers nothing: the request stays pending until the REST API answers it.
    answer = { action: 'accept', content: { decision: 'maybe' } };
    const misfit = client.callTool({ name: 'Write', arguments: { file_path: 'e.txt', content: 'five' } });
    let pending: { id: string }[] = [];
    await expect.poll(async () => (pending = (await t.api.get(`/v1/sessions/${sessionId}/permissions?status=pending`)).body.items).length).toBe(1);
    await expect.poll(() => forms.length).toBe(asked + 1);
    expect((await t.api.get(`/v1/sessions/${sessionId}/permissions/${pending[0]!.id}`)).body.status).toBe('pending');
    expect((await t.api.post(`/v1/sessions/${sessionId}/permissions/${pending[0]!.id}`, { behavior: 'allow' })).status).toBe(200);
    expect((await misfit).isError).toBe(false);
  });

  it('an ask is answerable in the REST API while the client waits; the client\'s form is withdrawn', async () => {
    const t = await start();
    let asked = false;
    let withdrawn!: () => void;
    const gone = new Promise<void>((resolve) => (withdrawn = resolve));
    const { client, transport } = await connect(t, {
      // A person who never answers in the client: the form waits until it is withdrawn.
      elicit: (_params, signal) =>
        new Promise<ElicitResult>((_resolve, reject) => {
          asked = true;
          signal.addEventListener('abort', () => {
            withdrawn();
            reject(new Error('withdrawn'));
          });
        }),
    });
    const sessionId = transport.sessionId!.split('.')[0]!;
    const call = client.callTool({ name: 'Write', arguments: { file_path: 'x.txt', content: 'x' } });
    let pending: { id: string }[] = [];
    await expect.poll(async () => (pending = (await t.api.get(`/v1/sessions/${sessionId}/permissions?status=pending`)).body.items).length).toBe(1);
    // The first answer wins: the REST API's.
    expect((await t.api.post(`/v1/sessions/${sessionId}/permissions/${pending[0]!.id}`, { behavior: 'deny', message: 'not now' })).status).toBe(200);
    const result = await call;
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/not now/);
    expect(asked).toBe(true);
    await gone; // the server cancelled its elicitation request
  });

  it('without elicitation the call waits for the REST answer; cancelling the MCP request cancels the turn', async () => {
    const t = await start();
    const { client, transport } = await connect(t);
    const sessionId = transport.sessionId!.split('.')[0]!;
    const call = client.callTool({ name: 'Write', arguments: { file_path: 'y.txt', content: 'y' } });
    let pending: { id: string }[] = [];
    await expect.poll(async () => (pending = (await t.api.get(`/v1/sessions/${sessionId}/permissions?status=pending`)).body.items).length).toBe(1);
    expect((await t.api.post(`/v1/sessions/${sessionId}/permissions/${pending[0]!.id}`, { behavior: 'allow' })).status).toBe(200);
    expect((await call).isError).toBe(false);

    const abort = new AbortController();
    const cancelled = client.callTool({ name: 'Write', arguments: { file_path: 'z.txt', content: 'z' } }, undefined, { signal: abort.signal }).catch((e: Error) => e);
    await expect.poll(async () => (await t.api.get(`/v1/sessions/${sessionId}/permissions?status=pending`)).body.items.length).toBe(1);
    abort.abort();
    expect(await cancelled).toBeInstanceOf(Error);
    await expect.poll(async () => {
      const turns = (await t.api.get(`/v1/sessions/${sessionId}/turns`)).body.items as { status: string }[];
      return turns.at(-1)?.status;
    }).toBe('cancelled');
    expect((await t.api.get(`/v1/sessions/${sessionId}/permissions?status=pending`)).body.items).toEqual([]);
  });

  it('progress becomes notifications/progress; a capped result links its spill file, readable as a resource', async () => {
    const t = await start({ NORMA_SANDBOX: 'bwrap' });
    const made = (await t.api.post('/v1/sessions', { allowed_tools: ['Bash'] })).body;
    const answers: string[] = [];
    const { client } = await connect(t, { query: `?session=${made.id}`, answers });
    const progress: string[] = [];
    const result = await client.callTool(
      { name: 'Bash', arguments: { command: 'for i in 1 2 3; do echo step$i; sleep 0.2; done; seq 1 100000' } },
      undefined,
      { onprogress: (p) => void progress.push(p.message ?? '') },
    );
    expect(result.isError).toBe(false);
    expect(progress.join('')).toContain('step1');
    // Progress came before the result: the call was answered as a stream.
    expect(answers.at(-1)).toBe('200 text/event-stream');
    const link = (result.content as { type: string; uri?: string }[]).find((b) => b.type === 'resource_link');
    expect(link?.uri).toMatch(new RegExp(`^norma://sessions/${made.id}/outputs/out_`));
    const { resources } = await client.listResources();
    expect(resources.map((r) => r.uri)).toContain(link!.uri);
    const read = await client.readResource({ uri: link!.uri! });
    const text = (read.contents[0] as { text: string }).text;
    expect(text.split('\n').filter((l) => /^\d+$/.test(l))).toHaveLength(100000);
    // Only this session's outputs: another session's, or anything else, is not a resource here.
    await expect(client.readResource({ uri: link!.uri!.replace(made.id, 'ses_other') })).rejects.toThrow(/Resource not found/);
    await expect(client.readResource({ uri: 'file:///etc/passwd' })).rejects.toThrow(/Resource not found/);
    await expect(client.readResource({ uri: `norma://sessions/${made.id}/outputs/out_missing` })).rejects.toThrow(/Resource not found/);
  });

  it('calls sent together run one after the other; a call while a REST turn runs says so', async () => {
    const t = await start();
    const { client, transport } = await connect(t);
    const sessionId = transport.sessionId!.split('.')[0]!;
    const results = await Promise.all([1, 2, 3].map(() => client.callTool({ name: 'LS', arguments: { path: '.' } })));
    expect(results.map((r) => r.isError)).toEqual([false, false, false]);
    expect((await t.api.get(`/v1/sessions/${sessionId}/turns`)).body.items).toHaveLength(3);
    // A REST turn waits for a person: the MCP call does not run meanwhile.
    const rest = (await t.api.post(`/v1/sessions/${sessionId}/turns?wait=5`, { tool_uses: [{ name: 'Write', input: { file_path: 'r.txt', content: 'r' } }] })).body;
    expect(rest.status).toBe('awaiting_permission');
    const busy = await client.callTool({ name: 'LS', arguments: { path: '.' } });
    expect(busy.isError).toBe(true);
    expect(textOf(busy)).toMatch(/did not run: .*one turn runs at a time/);
    expect((await t.api.get(`/v1/sessions/${sessionId}/turns`)).body.items).toHaveLength(4);
  });

  it('a question (AskUser) is a form of its options; the answers come back as the call\'s result', async () => {
    const t = await start();
    const forms: { properties: Record<string, { type: string; enum?: string[]; items?: { enum: string[] }; title?: string }> }[] = [];
    let content: Record<string, unknown> = { q1: 'Blue', q2: ['Cats', 'Dogs'] };
    const sessionId = (await t.api.post('/v1/sessions', { tools: ['AskUser', 'LS'] })).body.id as string;
    const { client } = await connect(t, {
      query: `?session=${sessionId}`,
      elicit: async (params) => {
        forms.push(params.requestedSchema as never);
        return { action: 'accept', content: content as never };
      },
    });
    const questions = [
      { question: 'Which colour?', options: [{ label: 'Blue' }, { label: 'Red' }] },
      { question: 'Which pets?', options: [{ label: 'Cats' }, { label: 'Dogs' }, { label: 'Fish' }], multiSelect: true },
    ];
    const answered = await client.callTool({ name: 'AskUser', arguments: { questions } });
    expect(answered.isError).toBe(false);
    expect(textOf(answered)).toContain('"Which colour?": "Blue"');
    expect(textOf(answered)).toContain('"Which pets?": "Cats", "Dogs"');
    expect(forms[0]!.properties.q1).toMatchObject({ type: 'string', title: 'Which colour?', enum: ['Blue', 'Red'] });
    expect(forms[0]!.properties.q2).toMatchObject({ type: 'array', items: { enum: ['Cats', 'Dogs', 'Fish'] } });
    // A label that was not offered is not an answer: the question is dismissed in the REST API instead.
    content = { q1: 'Green', q2: ['Cats'] };
    const call = client.callTool({ name: 'AskUser', arguments: { questions } });
    await expect.poll(() => forms.length).toBe(2);
    let pending: { id: string }[] = [];
    await expect.poll(async () => (pending = (await t.api.get(`/v1/sessions/${sessionId}/questions?status=pending`)).body.items).length).toBe(1);
    expect((await t.api.post(`/v1/sessions/${sessionId}/questions/${pending[0]!.id}`, { dismiss: true, message: 'later' })).status).toBe(200);
    const dismissed = await call;
    expect(dismissed.isError).toBe(true);
    expect(textOf(dismissed)).toMatch(/dismissed/);
  });

  it('deferred tools stay deferred: SearchExtraTools is listed, the deferred tool is not, and calling it runs nothing', async () => {
    const t = await start();
    const sessionId = (await t.api.post('/v1/sessions', { deferred_tools: ['Grep'] })).body.id as string;
    const { client } = await connect(t, { query: `?session=${sessionId}` });
    const names = (await client.listTools()).tools.map((x) => x.name);
    expect(names).toContain('SearchExtraTools');
    expect(names).not.toContain('Grep');
    await expect(client.callTool({ name: 'Grep', arguments: { pattern: 'x' } })).rejects.toThrow(/Unknown tool/);
    expect((await t.api.get(`/v1/sessions/${sessionId}/turns`)).body.items).toEqual([]);
    // Found and unlocked through SearchExtraTools, it is listed and callable.
    const found = await client.callTool({ name: 'SearchExtraTools', arguments: { query: 'select:Grep' } });
    expect(found.isError).toBe(false);
    await expect.poll(async () => (await client.listTools()).tools.map((x) => x.name)).toContain('Grep');
  });
});
