// The committed OpenAPI document against the real server, judged by a third party: Stoplight
// Prism in proxy mode (`prism proxy openapi/openapi.json <server>`) forwards every request of a
// scenario that reaches every operation of the document, and validates each request and
// response against it. Prism reports what does not match in the `sl-violations` header; the
// scenario collects them all and expects none, and expects every operationId exercised.
//
// Two servers, each behind its own Prism: one with a key (the `bearer` scheme, event tickets,
// the console login) and a keyless loopback one (the document's `{}` security alternative).
// Everything is on loopback; Prism reaches nothing else.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchServer, type ServerProcess } from './helpers/server-process.js';
import { checkResponse } from './helpers/contract.js';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const documentPath = path.join(root, 'openapi', 'openapi.json');
const TOKEN = 'prism-test-token-0123456789abcdef';

type Json = Record<string, unknown>;
interface Operation {
  id: string;
  method: string;
  template: string;
  pattern: RegExp;
  params: number;
}

/** Every operation of the document, the ones with fewer parameters first (a literal segment wins over a parameter). */
async function documentOperations(): Promise<Operation[]> {
  const doc = JSON.parse(await fs.readFile(documentPath, 'utf8')) as { paths: Record<string, Record<string, { operationId: string }>> };
  const ops: Operation[] = [];
  for (const [template, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      const pattern = new RegExp(`^${template.replace(/[.]/g, '\\.').replace(/\{[^}]+\}/g, '[^/]+')}$`);
      ops.push({ id: op.operationId, method: method.toUpperCase(), template, pattern, params: (template.match(/\{/g) ?? []).length });
    }
  }
  return ops.sort((a, b) => a.params - b.params);
}

/** A free loopback port (Prism takes a fixed one). */
async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

interface Prism {
  url: string;
  child: ChildProcess;
  output(): string;
  stop(): Promise<void>;
}

/** `prism proxy` in front of `upstream`, on a free loopback port; resolves once it listens. */
async function startPrism(upstream: string): Promise<Prism> {
  const port = await freePort();
  const bin = path.join(root, 'node_modules', '@stoplight', 'prism-cli', 'dist', 'index.js');
  const child = spawn(process.execPath, [bin, 'proxy', documentPath, upstream, '--errors=false', '--cors=false', '-h', '127.0.0.1', '-p', String(port)], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', NO_COLOR: '1', FORCE_COLOR: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
  };
  const deadline = Date.now() + 60_000;
  while (!/listening on/i.test(out)) {
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error(`prism did not start: ${out}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return { url: `http://127.0.0.1:${port}`, child, output: () => out, stop };
}

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json: any;
}

interface Violation {
  location?: string[];
  code?: string;
  message?: string;
}

interface Exchange {
  operation: string;
  request: string;
  status: number;
  violations: Violation[];
  /** A request sent wrong on purpose: Prism must find fault with the request, and only with it. */
  invalid?: boolean;
  /** Checked against the document by test/helpers/contract.ts instead (see Driver.call). */
  checkedDirectly?: boolean;
}

/** Requests through one Prism; records the operation each reaches and what Prism says of it. */
class Driver {
  constructor(
    private readonly prism: Prism,
    private readonly upstream: string,
    private readonly ops: Operation[],
    private readonly exchanges: Exchange[],
    private readonly token?: string,
  ) {}

  async call(method: string, url: string, options: { body?: unknown; headers?: Record<string, string>; auth?: boolean; invalid?: boolean } = {}): Promise<Answer> {
    const headers: Record<string, string> = { ...(options.headers ?? {}) };
    if (this.token !== undefined && options.auth !== false) headers.authorization = `Bearer ${this.token}`;
    let body: string | undefined;
    if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] = 'application/json';
    }
    const res = await request(`${this.prism.url}${url}`, { method: method as 'GET', headers, body });
    const text = await res.body.text();
    const pathOnly = url.split('?')[0]!;
    const op = this.ops.find((o) => o.method === method && o.pattern.test(pathOnly));
    const raw = res.headers['sl-violations'];
    const violations = raw === undefined ? [] : (JSON.parse(String(raw)) as Violation[]);
    const exchange: Exchange = { operation: op?.id ?? `(none: ${method} ${pathOnly})`, request: `${method} ${url}`, status: res.statusCode, violations };
    if (options.invalid) exchange.invalid = true;
    if (method === 'HEAD' && res.statusCode === 500) {
      // Prism 5 reads a response whose Content-Type is JSON with `response.json()`, which fails on
      // the empty body of every HEAD answer (it spares only 204) and answers 500 itself: it cannot
      // judge a HEAD of a JSON resource. The same request straight to the server is checked
      // against the document by the project's own contract checker instead.
      const direct = await request(`${this.upstream}${url}`, { method: 'HEAD', headers });
      await direct.body.dump();
      const contentType = String(direct.headers['content-type'] ?? '');
      expect(contentType, `HEAD ${url}: Prism failed on a non-JSON answer`).toMatch(/^application\/(problem\+)?json/);
      checkResponse({
        method: 'HEAD',
        path: pathOnly,
        status: direct.statusCode,
        contentType,
        body: undefined,
        headers: Object.fromEntries(Object.entries(direct.headers).map(([k, v]) => [k, v === undefined ? undefined : String(v)])),
      });
      exchange.status = direct.statusCode;
      exchange.checkedDirectly = true;
    }
    this.exchanges.push(exchange);
    let json: unknown;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    return { status: res.statusCode, headers: res.headers, text, json };
  }

  get = (url: string, headers?: Record<string, string>) => this.call('GET', url, headers ? { headers } : {});
  head = (url: string, headers?: Record<string, string>) => this.call('HEAD', url, headers ? { headers } : {});
  post = (url: string, body?: unknown, headers?: Record<string, string>) => this.call('POST', url, { body, ...(headers ? { headers } : {}) });
}

function expectStatus(r: Answer, status: number): void {
  expect(r.status, r.text.slice(0, 500)).toBe(status);
}

describe('the document under Prism (proxy mode, validating every request and response)', () => {
  let dataDirs: string[] = [];
  const servers: ServerProcess[] = [];
  const prisms: Prism[] = [];
  let ops: Operation[];
  const exchanges: Exchange[] = [];

  beforeAll(async () => {
    ops = await documentOperations();
    const dirs = await Promise.all([0, 1].map(() => fs.mkdtemp(path.join(os.tmpdir(), 'norma-prism-'))));
    dataDirs = dirs;
    const env = (dir: string) => ({ NORMA_DATA_DIR: dir, NORMA_STORE: 'memory', NORMA_SANDBOX: 'off' });
    servers.push(
      ...(await Promise.all([
        launchServer({ ...env(dirs[0]!), NORMA_TOKEN: TOKEN }, TOKEN, { startTimeoutMs: 60_000 }),
        launchServer(env(dirs[1]!), undefined, { startTimeoutMs: 60_000 }),
      ])),
    );
    prisms.push(...(await Promise.all(servers.map((s) => startPrism(s.url)))));
  }, 180_000);

  afterAll(async () => {
    await Promise.all(prisms.map((p) => p.stop()));
    await Promise.all(servers.map((s) => s.kill()));
    await Promise.all(dataDirs.map((d) => fs.rm(d, { recursive: true, force: true })));
  });

  it('a scenario reaches every operation, with a key and without, and Prism finds no violation', async () => {
    const keyed = new Driver(prisms[0]!, servers[0]!.url, ops, exchanges, TOKEN);
    const keyless = new Driver(prisms[1]!, servers[1]!.url, ops, exchanges);
    const upstream = servers[0]!.url;

    for (const d of [keyed, keyless]) {
      // Health, readiness, metrics.
      expectStatus(await d.get('/healthz'), 200);
      await d.head('/healthz');
      expectStatus(await d.get('/readyz'), 200);
      await d.head('/readyz');
      await d.get('/metrics');
      await d.head('/metrics');
      expectStatus(await d.get('/v1/signing-key'), 200);
      await d.head('/v1/signing-key');
      // Encryption at rest is off on these servers: there is no key to rotate.
      expectStatus(await d.post('/v1/encryption/rotate'), 409);
    }

    // A session, its settings and its lists.
    const d = keyed;
    const created = await d.post('/v1/sessions', {
      tools: ['Read', 'Write', 'AskUser', 'TodoWrite'],
      output_cap_chars: 100,
      client_tools: [{ name: 'lookup_order', description: 'Finds an order', input_schema: { type: 'object', properties: { id: { type: 'string' } } } }],
    });
    expect(created.status, created.text).toBe(201);
    const s = created.json as { id: string; workspace: string };
    const base = `/v1/sessions/${s.id}`;
    expectStatus(await d.get('/v1/sessions?limit=5'), 200);
    await d.head('/v1/sessions');
    expectStatus(await d.get(base), 200);
    await d.head(base);
    expectStatus(await d.call('PATCH', base, { body: { permission_mode: 'default' } }), 200);
    expectStatus(await d.get('/v1/sessions/ses_nothing_here'), 404);
    for (const sub of ['tools', 'export', 'verify', 'decisions', 'hook-runs', 'egress', 'mcp/requests', 'todos', 'memory', 'mcp', 'skills', 'outputs', 'turns', 'permissions', 'questions', 'client-tools']) {
      const r = await d.get(`${base}/${sub}`);
      expect(r.status, `${sub}: ${r.text}`).toBe(200);
      await d.head(`${base}/${sub}`);
    }

    // A direct turn that reads a big file: capped, its full text a spill file.
    await fs.writeFile(path.join(s.workspace, 'big.txt'), Array.from({ length: 200 }, (_, i) => `line ${i}`).join('\n'));
    const read = await d.post(`${base}/turns?wait=5`, { tool_uses: [{ id: 'toolu_read', name: 'Read', input: { file_path: 'big.txt' } }] });
    expect(read.status, read.text).toBe(200);
    const turn = read.json as { id: string; results: { truncation?: { output_id: string } }[] };
    const outputId = turn.results[0]!.truncation!.output_id;
    expectStatus(await d.get(`${base}/turns/${turn.id}`), 200);
    await d.head(`${base}/turns/${turn.id}`);
    expectStatus(await d.post(`${base}/turns/${turn.id}/cancel`), 409);
    const out = `${base}/outputs/${outputId}`;
    const full = await d.get(out);
    expect(full.status).toBe(200);
    await d.head(out);
    expectStatus(await d.get(out, { range: 'bytes=0-9' }), 206);
    const nm = await d.get(out, { 'if-none-match': String(full.headers.etag) });
    expect(nm.status, nm.text).toBe(304);
    expectStatus(await d.get(out, { range: 'bytes=999999-' }), 416);
    expectStatus(await d.get(`${base}/outputs/out_nothing_here`), 404);

    // A call that asks for permission: the request, its answer, the decision; then one cancelled.
    const write = await d.post(`${base}/turns?wait=5`, { tool_uses: [{ id: 'toolu_w', name: 'Write', input: { file_path: 'a.txt', content: 'a\n' } }] });
    expect((write.json as { status: string }).status).toBe('awaiting_permission');
    const pending = await d.get(`${base}/permissions?status=pending`);
    const permission = (pending.json as { items: { id: string }[] }).items[0]!.id;
    expectStatus(await d.get('/v1/pending?limit=5'), 200);
    expectStatus(await d.post('/v1/events/tickets'), 201);
    // The tenant stream never ends on its own: reached here with a cursor of another store's shape (400).
    expectStatus(await d.get('/v1/events?after=1-1'), 400);
    await d.head('/v1/pending');
    expectStatus(await d.get(`${base}/permissions/${permission}`), 200);
    await d.head(`${base}/permissions/${permission}`);
    expectStatus(await d.post(`${base}/permissions/${permission}`, { behavior: 'allow' }), 200);
    expectStatus(await d.post(`${base}/permissions/${permission}`, { behavior: 'allow' }), 409);
    // The answer returns once the call is decided; the turn then runs the Write and ends.
    const writeId = (write.json as { id: string }).id;
    expect((((await d.get(`${base}/turns/${writeId}?wait=5`)).json) as { status: string }).status).toBe('completed');
    const second = await d.post(`${base}/turns`, { tool_uses: [{ name: 'Write', input: { file_path: 'b.txt', content: 'b\n' } }] });
    expect(second.status).toBe(202);
    const secondId = (second.json as { id: string }).id;
    await d.get(`${base}/turns/${secondId}?wait=5`);
    expectStatus(await d.post(`${base}/turns/${secondId}/cancel`), 200);

    // Checkpoints: the list, one, what changed (JSON and the unified diff), a dry-run rewind, a fork.
    const checkpoints = await d.get(`${base}/checkpoints`);
    expect(checkpoints.status, checkpoints.text).toBe(200);
    await d.head(`${base}/checkpoints`);
    const checkpointId = (checkpoints.json as { items: { id: string }[] }).items[0]!.id;
    expectStatus(await d.get(`${base}/checkpoints/${checkpointId}`), 200);
    await d.head(`${base}/checkpoints/${checkpointId}`);
    expectStatus(await d.get(`${base}/checkpoints/ckpt_nothing_here`), 404);
    expectStatus(await d.get(`${base}/changes?from=${checkpointId}`), 200);
    await d.head(`${base}/changes`);
    const unified = await d.get(`${base}/changes`, { accept: 'text/x-diff' });
    expect(unified.status).toBe(200);
    expect(unified.text).toContain('diff --git a/a.txt b/a.txt');
    expectStatus(await d.get(`${base}/turns/${writeId}/changes`), 200);
    await d.head(`${base}/turns/${writeId}/changes`);
    expectStatus(await d.post(`${base}/rewind`, { to: writeId, dry_run: true }), 200);
    expectStatus(await d.post(`${base}/rewind`, { to: 'ckpt_nothing_here' }), 404);
    expectStatus(await d.call('POST', `${base}/rewind`, { body: { to: writeId, paths: [42] }, invalid: true }), 400);
    expectStatus(await d.post(`${base}/fork`, {}), 201);

    // A question and its answer.
    const ask = await d.post(`${base}/turns?wait=5`, {
      tool_uses: [{ id: 'toolu_q', name: 'AskUser', input: { questions: [{ question: 'Which colour?', options: [{ label: 'red' }, { label: 'blue' }] }] } }],
    });
    expect((ask.json as { status: string }).status).toBe('awaiting_input');
    const questions = await d.get(`${base}/questions?status=pending`);
    const question = (questions.json as { items: { id: string }[] }).items[0]!.id;
    expectStatus(await d.get(`${base}/questions/${question}`), 200);
    await d.head(`${base}/questions/${question}`);
    expectStatus(await d.post(`${base}/questions/${question}`, { answers: { 'Which colour?': 'blue' } }), 200);

    // A call of a client tool and the client's answer.
    const lookup = await d.post(`${base}/turns?wait=5`, { tool_uses: [{ id: 'toolu_ct', name: 'lookup_order', input: { id: 'A-1' } }] });
    expect((lookup.json as { status: string }).status).toBe('awaiting_input');
    const calls = await d.get(`${base}/client-tools?status=pending`);
    const clientCall = (calls.json as { items: { id: string }[] }).items[0]!.id;
    expectStatus(await d.get(`${base}/client-tools/${clientCall}`), 200);
    await d.head(`${base}/client-tools/${clientCall}`);
    expectStatus(await d.post(`${base}/client-tools/${clientCall}`, { content: [{ type: 'text', text: 'shipped' }] }), 200);
    expectStatus(await d.post(`${base}/client-tools/${clientCall}`, { content: 'again' }), 409);

    // A prompt turn: the session has no model, so the documented 400 that says so.
    expectStatus(await d.post(`${base}/turns`, { prompt: 'hello' }), 400);
    // Compaction needs a model too: the documented 400; a body it does not take is the request's fault.
    expectStatus(await d.post(`${base}/compact`, {}), 400);
    expectStatus(await d.call('POST', `${base}/compact`, { body: { instructions: '' }, invalid: true }), 400);
    // A body that is neither kind of turn: 400, and Prism finds the request at fault.
    expectStatus(await d.call('POST', `${base}/turns`, { body: {}, invalid: true }), 400);

    // A ticket for the event stream, then the stream read with it, to its end (the session closes first).
    const ticket = await d.post(`${base}/events/tickets`);
    expect(ticket.status, ticket.text).toBe(201);
    expectStatus(await d.call('DELETE', base), 204);
    const stream = await d.call('GET', `${base}/events?ticket=${encodeURIComponent((ticket.json as { ticket: string }).ticket)}`, { auth: false });
    expect(stream.status).toBe(200);
    expect(stream.text).toMatch(/event: session\.closed/);
    const lastSeq = Number([...stream.text.matchAll(/^id: (\d+)$/gm)].at(-1)![1]);
    expectStatus(await d.get(`${base}/events`, { 'last-event-id': String(lastSeq) }), 204);
    expectStatus(await d.get(`${base}/events?after=${lastSeq + 1000}`), 400);

    // The console's login: in, who, out.
    const consoleHeaders = { 'x-norma-console': '1', origin: upstream };
    const login = await d.call('POST', '/console/session', { body: { key: TOKEN }, headers: consoleHeaders, auth: false });
    expect(login.status, login.text).toBe(201);
    const cookie = String(login.headers['set-cookie']).split(';')[0]!;
    expectStatus(await d.call('GET', '/console/session', { headers: { ...consoleHeaders, cookie }, auth: false }), 200);
    await d.call('HEAD', '/console/session', { headers: { ...consoleHeaders, cookie }, auth: false });
    expectStatus(await d.call('DELETE', '/console/session', { headers: { ...consoleHeaders, cookie }, auth: false }), 204);

    // Without a key: a session, a turn and its stream on the keyless loopback server; a key sent to it is refused.
    const free = await keyless.post('/v1/sessions', {});
    expect(free.status).toBe(201);
    const freeId = (free.json as { id: string }).id;
    await keyless.post(`/v1/sessions/${freeId}/turns?wait=5`, { tool_uses: [{ name: 'LS', input: {} }] });
    expectStatus(await keyless.call('DELETE', `/v1/sessions/${freeId}`), 204);
    expectStatus(await keyless.get(`/v1/sessions/${freeId}/events`), 200);
    expectStatus(await keyless.call('POST', '/console/session', { body: { key: TOKEN }, headers: { 'x-norma-console': '1', origin: servers[1]!.url } }), 409);

    // /mcp: an MCP session opened with initialize (answered as SSE), used, and ended; a GET without one.
    const mcpHeaders = { accept: 'application/json, text/event-stream' };
    const init = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'prism', version: '1' } } };
    const opened = await d.call('POST', '/mcp', { body: init, headers: mcpHeaders });
    expectStatus(opened, 200);
    const mcpSession = String(opened.headers['mcp-session-id']);
    const inSession = { ...mcpHeaders, 'mcp-session-id': mcpSession, 'mcp-protocol-version': '2025-06-18' };
    expectStatus(await d.call('POST', '/mcp', { body: { jsonrpc: '2.0', method: 'notifications/initialized' }, headers: inSession }), 202);
    expectStatus(await d.call('GET', '/mcp', { headers: { accept: 'text/event-stream' } }), 400);
    expectStatus(await d.call('DELETE', '/mcp', { headers: inSession }), 200);

    if (process.env.PRISM_DUMP) await fs.writeFile(process.env.PRISM_DUMP, JSON.stringify(exchanges, null, 1));
    const faults = exchanges.filter((e) =>
      e.invalid ? e.violations.length === 0 || e.violations.some((v) => v.location?.[0] !== 'request') : e.violations.length > 0,
    );
    const unreached = ops.map((o) => o.id).filter((id) => !exchanges.some((e) => e.operation === id));
    expect({ unreached, faults }).toEqual({ unreached: [], faults: [] });
    // Prism judged every operation but the HEADs of JSON resources (see Driver.call) itself.
    const byPrism = new Set(exchanges.filter((e) => !e.checkedDirectly).map((e) => e.operation));
    expect(ops.filter((o) => !byPrism.has(o.id)).every((o) => o.method === 'HEAD')).toBe(true);
  }, 240_000);
});
