// MCP servers over HTTP end to end, in the real process sandbox: the reference servers from the
// npm registry (server-everything, server-filesystem) and a small server of our own that
// misbehaves on purpose (test/fixtures/mcp/test-server.mjs). A server's environment is only
// what its configuration names; a server that cannot start is a 400 naming why and leaves no
// process; a server that breaks during a call is an is_error result and starts again.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { closeFixtures } from '../helpers/http-fixture.js';
import { mcpAddServer } from '../helpers/mcp-http.js';
import { startServer, type TestServer, closeAll } from '../helpers/server.js';
import { openSse, type SseStream } from '../helpers/sse.js';
import { processesStartingWith, waitUntil } from '../helpers/processes.js';

const NODE_MODULES = await fs.realpath(path.resolve(import.meta.dirname, '../../node_modules'));
const EVERYTHING = path.join(NODE_MODULES, '@modelcontextprotocol/server-everything/dist/index.js');
const FILESYSTEM = path.join(NODE_MODULES, '@modelcontextprotocol/server-filesystem/dist/index.js');
const FIXTURES = path.resolve(import.meta.dirname, '../fixtures/mcp');
const TEST_SERVER = path.join(FIXTURES, 'test-server.mjs');
/** Where the servers may be read from: the server's node_modules and the fixture folder. */
const ROOTS = `${NODE_MODULES},${FIXTURES}`;

let servers: TestServer[] = [];
let streams: SseStream[] = [];
let dirs: string[] = [];
afterEach(async () => {
  for (const s of streams) s.close();
  streams = [];
  await closeAll(servers);
  for (const d of dirs) await fs.rm(d, { recursive: true, force: true });
  dirs = [];
  await closeFixtures();
  // No MCP server outlives its session or its server.
  expect(await waitUntil(() => testServerProcesses(), (n) => n === 0)).toBe(0);
});

async function boot(env: Record<string, string> = {}, dataDir?: string): Promise<TestServer> {
  const t = await startServer(
    { NORMA_SANDBOX: 'bwrap', NORMA_MCP_READ_ONLY_ROOTS: ROOTS, NORMA_SHUTDOWN_GRACE_S: '2', ...env },
    { mcpRestartDelaysMs: [100, 100, 100], ...(dataDir ? { dataDir } : {}) },
  );
  servers.push(t);
  return t;
}

async function tempDir(): Promise<string> {
  const d = await fs.mkdtemp(path.join(os.tmpdir(), 'norma-mcp-'));
  dirs.push(d);
  return d;
}

async function testServerProcesses(): Promise<number> {
  return (await processesStartingWith(`node\u0000${TEST_SERVER}`)).length + (await processesStartingWith(`node\u0000${EVERYTHING}`)).length;
}

const own = (mode = 'ok', extra: Record<string, unknown> = {}) => ({ command: 'node', args: [TEST_SERVER, mode], read_only_paths: [FIXTURES], ...extra });
const everything = (extra: Record<string, unknown> = {}) => ({ command: 'node', args: [EVERYTHING, 'stdio'], read_only_paths: [NODE_MODULES], ...extra });

type Block = { type: string; text?: string; source?: { media_type: string; data: string } };
const textOf = (r: { content: Block[] }) => r.content.map((c) => (c.type === 'text' ? c.text : `[${c.type}]`)).join('\n');

async function run(t: TestServer, sessionId: string, toolUses: { name: string; input: unknown }[], wait = 30) {
  const res = await t.api.post(`/v1/sessions/${sessionId}/turns?wait=${wait}`, { tool_uses: toolUses });
  expect(res.status).toBe(200);
  return res.body;
}

async function events(t: TestServer, sessionId: string): Promise<SseStream> {
  const s = await openSse(`${t.url}/v1/sessions/${sessionId}/events`, { lastEventId: '0' });
  streams.push(s);
  return s;
}

describe('MCP servers from the npm registry, in the sandbox', () => {
  it('server-everything and server-filesystem start with the session; their tools run through the pipeline', async () => {
    const t = await boot();
    const created = await t.api.post('/v1/sessions', {
      mcp_servers: {
        ev: everything({ env: { GREETING: 'hello' } }),
        fs: { command: 'node', args: [FILESYSTEM, '${NORMA_WORKSPACE}'], read_only_paths: [NODE_MODULES] },
      },
      allowed_tools: ['mcp__ev', 'mcp__fs__write_file', 'mcp__fs__read_text_file', 'mcp__fs__list_directory'],
    });
    expect(created.status).toBe(201);
    const s = created.body;
    // The session shows the servers without their env values.
    expect(s.mcp_servers.ev).toMatchObject({ transport: 'stdio', source: 'session', command: 'node', env_keys: ['GREETING'], network: false, trust_read_only_hint: false });
    expect(JSON.stringify(s)).not.toContain('hello');
    expect(s.tools).toEqual(expect.arrayContaining(['ListMcpResources', 'ReadMcpResource']));

    const state = (await t.api.get(`/v1/sessions/${s.id}/mcp`)).body.servers;
    expect(state.map((x: { name: string; status: string }) => [x.name, x.status])).toEqual([['ev', 'running'], ['fs', 'running']]);
    const evTools = state[0].tools.map((x: { name: string }) => x.name);
    expect(evTools).toEqual(expect.arrayContaining(['mcp__ev__echo', 'mcp__ev__get-env', 'mcp__ev__get-sum']));
    expect(state[1].tools.map((x: { tool: string }) => x.tool)).toEqual(expect.arrayContaining(['write_file', 'read_text_file', 'list_directory']));
    // Annotations are hints from an untrusted party: nothing is judged read-only by default.
    expect(state[0].tools.every((x: { read_only: boolean }) => !x.read_only)).toBe(true);
    const exposed = (await t.api.get(`/v1/sessions/${s.id}/tools`)).body as { name: string; input_schema: { properties?: object } }[];
    expect(exposed.find((x) => x.name === 'mcp__ev__get-sum')!.input_schema.properties).toHaveProperty('a');

    const turn = await run(t, s.id, [
      { name: 'mcp__ev__echo', input: { message: 'hi there' } },
      { name: 'mcp__ev__get-sum', input: { a: 2, b: 40 } },
      { name: 'mcp__fs__write_file', input: { path: path.join(s.workspace, 'notes.txt'), content: 'written by MCP\n' } },
      { name: 'mcp__fs__list_directory', input: { path: s.workspace } },
    ]);
    expect(turn.status).toBe('completed');
    expect(turn.results.map((r: { is_error: boolean }) => r.is_error)).toEqual([false, false, false, false]);
    expect(textOf(turn.results[0])).toBe('Echo: hi there');
    expect(textOf(turn.results[1])).toContain('42');
    expect(await fs.readFile(path.join(s.workspace, 'notes.txt'), 'utf8')).toBe('written by MCP\n');
    expect(textOf(turn.results[3])).toContain('notes.txt');
    // The server's own schema is enforced before the call leaves: a wrong type never reaches it.
    const bad = await run(t, s.id, [{ name: 'mcp__ev__get-sum', input: { a: 'two', b: 40 } }]);
    expect(bad.results[0].is_error).toBe(true);
    expect(textOf(bad.results[0])).toMatch(/^Invalid input for mcp__ev__get-sum: input\.a: must be number/);
    // The filesystem server's own boundary and the sandbox's agree: nothing outside the workspace.
    const outside = await run(t, s.id, [{ name: 'mcp__fs__read_text_file', input: { path: '/etc/hostname' } }]);
    expect(textOf(outside.results[0])).toMatch(/denied|outside|not allowed/i);
  });

  it('gives a server only the environment its configuration names: none of the server\'s secrets', async () => {
    const secret = 'sk-host-secret-0123456789abcdef';
    process.env.NORMA_TEST_HOST_SECRET = secret;
    try {
      const t = await boot({ NORMA_TOKEN: 'norma-token-abcdefghijklmnop', NORMA_MODEL_API_KEY: 'model-key-abcdefghijklmnop', NORMA_MODEL_PROVIDER: 'anthropic', NORMA_MODEL: 'x' });
      const s = (await t.api.post('/v1/sessions', { mcp_servers: { ev: everything({ env: { ONLY_THIS: 'yes' } }) }, allowed_tools: ['mcp__ev__get-env'] })).body;
      const turn = await run(t, s.id, [{ name: 'mcp__ev__get-env', input: {} }]);
      const env = JSON.parse(textOf(turn.results[0])) as Record<string, string>;
      expect(env.ONLY_THIS).toBe('yes');
      const allowed = new Set(['PATH', 'HOME', 'TMPDIR', 'LANG', 'LC_ALL', 'TERM', 'PAGER', 'GIT_PAGER', 'NO_COLOR', 'GIT_CONFIG_NOSYSTEM', 'GIT_CONFIG_GLOBAL', 'INPUTRC', 'ONLY_THIS', 'NORMA_WORKSPACE', 'PWD', '_', 'SHLVL']);
      expect(Object.keys(env).filter((k) => !allowed.has(k))).toEqual([]);
      // The working directory is the server's own home, never the workspace (it is told where that
      // is); nothing else of the server's data directory shows.
      expect(env.NORMA_WORKSPACE).toBe(s.workspace);
      expect(env.PWD).toBe(env.HOME);
      expect(env.PWD!.startsWith(s.workspace)).toBe(false);
      const all = JSON.stringify(env).replaceAll(s.workspace, '');
      for (const value of [secret, 'norma-token-abcdefghijklmnop', 'model-key-abcdefghijklmnop', t.dataDir]) expect(all).not.toContain(value);
    } finally {
      delete process.env.NORMA_TEST_HOST_SECRET;
    }
  });
});

describe('MCP tools in the pipeline', () => {
  it('ask by default, follow rules (mcp__server, mcp__server__tool, deny wins), and trust readOnlyHint only when told', async () => {
    const t = await boot();
    const s = (await t.api.post('/v1/sessions', { mcp_servers: { t: own() }, disallowed_tools: ['mcp__t__crash'] })).body;
    const asked = await run(t, s.id, [{ name: 'mcp__t__echo', input: { text: 'a' } }], 2);
    expect(asked.status).toBe('awaiting_permission');
    const pending = (await t.api.get(`/v1/sessions/${s.id}/permissions?status=pending`)).body.items;
    expect(pending[0]).toMatchObject({ tool: 'mcp__t__echo', input: { text: 'a' } });
    expect(pending[0].suggestions).toContain('mcp__t__echo');
    // The preview: the server, its tool, the input, and only the server's known hints.
    expect(pending[0].preview).toEqual({ kind: 'mcp', server: 't', tool: 'echo', input: { text: 'a' }, annotations: { title: 'Echo', destructiveHint: false } });
    await t.api.post(`/v1/sessions/${s.id}/permissions/${pending[0].id}`, { behavior: 'allow', remember: ['mcp__t'] });
    // The approval lets the call run: wait for the turn to end before reading its result.
    const done = (await t.api.get(`/v1/sessions/${s.id}/turns/${asked.id}?wait=10`)).body;
    expect(textOf(done.results[0])).toBe('echo: a');
    // `mcp__t` now covers every tool of the server, but the deny rule on one tool still wins.
    const next = await run(t, s.id, [{ name: 'mcp__t__image', input: {} }, { name: 'mcp__t__crash', input: {} }]);
    expect(next.results[0].is_error).toBe(false);
    expect(textOf(next.results[1])).toBe('Permission denied: denied by rule "mcp__t__crash".');
    // The hint read-only tool still asks where the hint is not trusted …
    const plan = (await t.api.post('/v1/sessions', { mcp_servers: { t: own() }, permission_mode: 'plan' })).body;
    expect(textOf((await run(t, plan.id, [{ name: 'mcp__t__image', input: {} }])).results[0])).toMatch(/^Permission denied/);
    // … and is read-only (allowed in plan mode, no ask) where the session trusts it.
    const trusted = (await t.api.post('/v1/sessions', { mcp_servers: { t: own('ok', { trust_read_only_hint: true }) }, permission_mode: 'plan' })).body;
    const ran = await run(t, trusted.id, [{ name: 'mcp__t__image', input: {} }, { name: 'mcp__t__echo', input: { text: 'b' } }]);
    expect(ran.results[0].is_error).toBe(false);
    expect(textOf(ran.results[1])).toMatch(/^Permission denied/);
    expect((await t.api.get(`/v1/sessions/${trusted.id}/mcp`)).body.servers[0].tools.find((x: { tool: string }) => x.tool === 'image').read_only).toBe(true);
  });

  it('hooks see the full name; results map text, images, embedded resources and audio; requests are evidence', async () => {
    const t = await boot();
    const s = (
      await t.api.post('/v1/sessions', {
        mcp_servers: { t: own() },
        allowed_tools: ['mcp__t'],
        hooks: { PreToolUse: [{ matcher: 'mcp__t__echo', hooks: [{ type: 'command', command: 'echo "no echo today" >&2; exit 2' }] }] },
      })
    ).body;
    const sse = await events(t, s.id);
    const turn = await run(t, s.id, [{ name: 'mcp__t__echo', input: { text: 'x' } }, { name: 'mcp__t__image', input: {} }]);
    expect(textOf(turn.results[0])).toBe('Blocked by PreToolUse hook: no echo today');
    const content = turn.results[1].content as Block[];
    expect(content[0]).toMatchObject({ type: 'image', source: { type: 'base64', media_type: 'image/png' } });
    expect(content[1]).toEqual({ type: 'text', text: 'Resource test://notes/a (text/plain):\nembedded note' });
    expect(content[2]!.text).toMatch(/^\[audio of type audio\/wav, 3 bytes: not passed to the model\]$/);
    const evidence = await sse.waitFor((e) => e.event === 'mcp.request' && e.data.method === 'tools/call');
    expect(evidence.data).toMatchObject({ server: 't', tool: 'image', turn_id: turn.id, tool_use_id: turn.tool_uses[1].id, outcome: 'ok' });
    expect(evidence.data.request_sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(evidence.data.response_bytes).toBeGreaterThan(100);
    // The blocked call never reached the server: only one tools/call went out.
    expect(sse.events.filter((e) => e.event === 'mcp.request' && e.data.method === 'tools/call')).toHaveLength(1);
    const starts = sse.events.filter((e) => e.event === 'mcp.request').map((e) => e.data.method);
    expect(starts.slice(0, 2)).toEqual(['initialize', 'tools/list']);
    // session.created stays the first event: what the server did while the session was made follows it.
    expect(sse.events[0]!.event).toBe('session.created');
    // The same records, as an audit listing, paged.
    const all = (await t.api.get(`/v1/sessions/${s.id}/mcp/requests?limit=1000`)).body.items as { seq: number; method: string }[];
    expect(all.map((e) => e.method)).toEqual(expect.arrayContaining(['initialize', 'tools/list', 'resources/list', 'tools/call']));
    expect(all.find((e) => e.seq === evidence.data.seq)).toEqual(evidence.data);
    const page1 = (await t.api.get(`/v1/sessions/${s.id}/mcp/requests?limit=2`)).body;
    expect(page1.items).toEqual(all.slice(0, 2));
    const page2 = (await t.api.get(`/v1/sessions/${s.id}/mcp/requests?after=${page1.next_after}&limit=1000`)).body;
    expect([...page1.items, ...page2.items]).toEqual(all);
    expect(page2.next_after).toBeNull();
  });

  it('a server\'s progress notifications are the call\'s live progress, and keep a long call alive', async () => {
    const t = await boot();
    // The timeout is 2 s, the operation 3 s in six steps: each progress notification restarts it.
    const s = (await t.api.post('/v1/sessions', { mcp_servers: { ev: everything({ request_timeout_s: 2 }) }, allowed_tools: ['mcp__ev'] })).body;
    const sse = await events(t, s.id);
    const turn = await run(t, s.id, [{ name: 'mcp__ev__trigger-long-running-operation', input: { duration: 3, steps: 6 } }]);
    expect(turn.results[0].is_error).toBe(false);
    expect(textOf(turn.results[0])).toContain('Long running operation completed');
    // Live-only events: the stream was open while the call ran (the last step's may trail the answer).
    const mine = (e: { event: string; data: { tool_use_id?: string } }) => e.event === 'tool.progress' && e.data.tool_use_id === turn.tool_uses[0].id;
    await sse.waitFor((e) => mine(e) && e.data.chunk === 'progress 5/6\n');
    expect(sse.events.filter(mine).map((e) => e.data.chunk).slice(0, 5)).toEqual([1, 2, 3, 4, 5].map((i) => `progress ${i}/6\n`));
  });

  it('ListMcpResources and ReadMcpResource read what servers expose: text and images', async () => {
    const t = await boot();
    const s = (await t.api.post('/v1/sessions', { mcp_servers: { t: own(), ev: everything() } })).body;
    const turn = await run(t, s.id, [
      { name: 'ListMcpResources', input: {} },
      { name: 'ListMcpResources', input: { server: 't' } },
      { name: 'ReadMcpResource', input: { server: 't', uri: 'test://notes/a' } },
      { name: 'ReadMcpResource', input: { server: 't', uri: 'test://pic' } },
      { name: 'ReadMcpResource', input: { server: 't', uri: 'test://missing' } },
      { name: 'ReadMcpResource', input: { server: 'nope', uri: 'test://x' } },
    ]);
    expect(turn.status).toBe('completed');
    expect(textOf(turn.results[0])).toMatch(/^t:\n {2}test:\/\/notes\/a {2}note a \(text\/plain\)/m);
    expect(textOf(turn.results[0])).toMatch(/^ev:$/m);
    expect(textOf(turn.results[1])).not.toMatch(/^ev:$/m);
    expect(textOf(turn.results[2])).toBe('Resource test://notes/a (text/plain):\nnote a text');
    expect(turn.results[3].content[1]).toMatchObject({ type: 'image', source: { media_type: 'image/png' } });
    expect(turn.results[4]).toMatchObject({ is_error: true });
    expect(textOf(turn.results[4])).toContain('no resource test://missing');
    expect(textOf(turn.results[5])).toBe('There is no MCP server "nope" in this session (servers: t, ev).');
  });

  it('a changed tool list replaces the session\'s tools and is announced', async () => {
    const t = await boot();
    const s = (await t.api.post('/v1/sessions', { mcp_servers: { t: own() }, allowed_tools: ['mcp__t'] })).body;
    const sse = await events(t, s.id);
    await run(t, s.id, [{ name: 'mcp__t__add-tool', input: { name: 'fresh' } }]);
    const changed = await sse.waitFor((e) => e.event === 'tools.changed');
    expect(changed.data).toMatchObject({ server: 't', added: ['mcp__t__fresh'], removed: [], changed: [] });
    const names = ((await t.api.get(`/v1/sessions/${s.id}/tools`)).body as { name: string }[]).map((x) => x.name);
    expect(names).toContain('mcp__t__fresh');
    expect(textOf((await run(t, s.id, [{ name: 'mcp__t__fresh', input: {} }])).results[0])).toBe('ran fresh');
  });

  it('a flood of list_changed notifications is read as a few listings, not one each', async () => {
    const t = await boot();
    const s = (await t.api.post('/v1/sessions', { mcp_servers: { t: own() }, allowed_tools: ['mcp__t'] })).body;
    const sse = await events(t, s.id);
    const listings = () => sse.events.filter((e) => e.event === 'mcp.request' && e.data.method === 'tools/list').length;
    expect(textOf((await run(t, s.id, [{ name: 'mcp__t__flood', input: { times: 200 } }])).results[0])).toBe('sent 200');
    // One listing at start; the first notification starts a refresh, and the 199 that arrive while
    // it is in flight make exactly one more.
    expect(await waitUntil(async () => listings(), (n) => n >= 3, 500)).toBe(3);
    expect(textOf((await run(t, s.id, [{ name: 'mcp__t__echo', input: { text: 'still here' } }])).results[0])).toBe('echo: still here');
    await sse.waitFor((e) => e.event === 'turn.completed' && e.data.turn.results[0].content[0].text === 'echo: still here');
    expect(listings()).toBe(3);
    // Nothing changed, so nothing was announced.
    expect(sse.events.filter((e) => e.event === 'tools.changed')).toHaveLength(0);
  });
});

describe('servers that fail', () => {
  it('a session\'s server that cannot start is a 400 naming why; nothing is created and no process is left', async () => {
    const t = await boot();
    const before = (await t.api.get('/v1/sessions?limit=200')).body.items.length;
    const cases: [unknown, RegExp][] = [
      [own('exit-init'), /mcp_servers\.bad: MCP server "bad" failed while starting and initializing: it exited with code 3/],
      [own('garbage'), /not JSON-RPC on stdout: "Server starting\.\.\. this is not JSON"/],
      [own('silent', { startup_timeout_s: 1 }), /did not answer within 1 s/],
      [own('many-tools'), /advertises more than 1000 tools/],
      [{ command: 'no-such-mcp-server' }, /mcp_servers\.bad: MCP server "bad" failed while starting/],
      [own('ok', { read_only_paths: ['/etc'] }), /read_only_paths\[0\]: \/etc is not under the directories the operator allows/],
      [own('ok', { read_only_paths: [t.dataDir] }), /read_only_paths\[0\]: .* is \(or holds\) the server's data directory/],
      [{ url: 'ftp://example.com/mcp' }, /only http and https/],
      [{ url: 'https://example.com/mcp', headers: { Host: 'internal.example' } }, /headers\.Host: set by the client itself/],
      [{ url: 'http://127.0.0.1:9/mcp' }, /mcp_servers\.bad: MCP server "bad" failed while starting and initializing: .*(refused|not allowed|private|loopback)/i],
    ];
    for (const [config, why] of cases) {
      const res = await t.api.post('/v1/sessions', { mcp_servers: { bad: config } });
      expect(res.status, JSON.stringify(config)).toBe(400);
      expect(res.body.detail).toMatch(why);
    }
    const names = await t.api.post('/v1/sessions', { mcp_servers: { a__b: own() } });
    expect(names.status).toBe(400);
    expect(names.body.detail).toContain('may not contain "__"');
    expect((await t.api.get('/v1/sessions?limit=200')).body.items.length).toBe(before);
    expect(await waitUntil(() => testServerProcesses(), (n) => n === 0)).toBe(0);
  });

  it('tools with bad names or schemas are left out with a warning; the server\'s good tools work', async () => {
    const t = await boot();
    const res = await t.api.post('/v1/sessions', { mcp_servers: { t: own('bad-tools') }, allowed_tools: ['mcp__t'] });
    expect(res.status).toBe(201);
    const warnings = res.body.warnings.join('\n');
    expect(warnings).toContain('tool "has space" left out: a tool name must match');
    expect(warnings).toContain(`tool "${'x'.repeat(65)}" left out`);
    expect(warnings).toMatch(/tool "banana" left out: the input schema does not compile: .*type/);
    expect(warnings).toContain('tool "noobject" left out: the input schema must describe an object');
    expect(warnings).toContain('tool "good" left out: the server lists it twice');
    expect(warnings).toContain('tool "wordy": its description of 5000 characters was cut to 4096');
    const listed = ((await t.api.get(`/v1/sessions/${res.body.id}/tools`)).body as { name: string; description: string }[]).filter((x) => x.name.startsWith('mcp__'));
    expect(listed.map((x) => x.name)).toEqual(['mcp__t__good', 'mcp__t__wordy']);
    expect(listed[1]!.description).toHaveLength(4097);
    const turn = await run(t, res.body.id, [{ name: 'mcp__t__good', input: { n: 'one' } }]);
    expect(textOf(turn.results[0])).toMatch(/^Invalid input for mcp__t__good: input\.n: must be integer/);
  });

  it('a server that breaks during a call gives an is_error result, restarts, and serves again; other tools are unaffected', async () => {
    const t = await boot();
    const s = (await t.api.post('/v1/sessions', { mcp_servers: { t: own() }, allowed_tools: ['mcp__t', 'Write'] })).body;
    const sse = await events(t, s.id);
    // A 50 MiB answer is larger than a message may be: the connection ends, the process is stopped.
    const huge = await run(t, s.id, [{ name: 'mcp__t__huge', input: { mib: 50 } }, { name: 'Write', input: { file_path: 'ok.txt', content: 'fine' } }]);
    expect(huge.results[0].is_error).toBe(true);
    expect(textOf(huge.results[0])).toMatch(/went away during tools\/call: the server sent a message of more than 8388608 bytes/);
    expect(huge.results[1].is_error).toBe(false);
    const exited = await sse.waitFor((e) => e.event === 'mcp.server.exited');
    expect(exited.data).toMatchObject({ server: 't', next: 'restart', restart_in_ms: 100 });
    await sse.waitFor((e) => e.event === 'mcp.server.started' && e.data.restarts === 1);
    expect(textOf((await run(t, s.id, [{ name: 'mcp__t__echo', input: { text: 'again' } }])).results[0])).toBe('echo: again');

    const crash = await run(t, s.id, [{ name: 'mcp__t__crash', input: {} }]);
    expect(textOf(crash.results[0])).toMatch(/^MCP server "t" went away during tools\/call: it exited with code 7/);
    await sse.waitFor((e) => e.event === 'mcp.server.started' && e.data.restarts === 2);
    const state = (await t.api.get(`/v1/sessions/${s.id}/mcp`)).body.servers[0];
    expect(state).toMatchObject({ status: 'running', restarts: 2, last_exit: { code: 7 } });

    // It came back with the same tools: nothing to announce.
    expect(sse.events.filter((e) => e.event === 'tools.changed')).toHaveLength(0);
  });

  it('a call the server never answers times out as an is_error result, and the request is cancelled', async () => {
    const t = await boot();
    const s = (await t.api.post('/v1/sessions', { mcp_servers: { t: own('ok', { request_timeout_s: 1 }) }, allowed_tools: ['mcp__t'] })).body;
    const sse = await events(t, s.id);
    const hang = await run(t, s.id, [{ name: 'mcp__t__hang', input: {} }]);
    expect(textOf(hang.results[0])).toBe('MCP server "t" did not answer tools/call within 1 s (the request was cancelled)');
    const timedOut = await sse.waitFor((e) => e.event === 'mcp.request' && e.data.tool === 'hang');
    expect(timedOut.data).toMatchObject({ outcome: 'no_response', response_sha256: null });
    expect(timedOut.data.error).toMatch(/^cancelled/);
  });

  it('cancelling a turn cancels its MCP request (notifications/cancelled reaches the server)', async () => {
    const t = await boot();
    // The server is told where the workspace is: its log is written there.
    const s = (await t.api.post('/v1/sessions', { mcp_servers: { t: own('ok', { env: { NORMA_TEST_LOG: 'server.log' } }) }, allowed_tools: ['mcp__t'] })).body;
    const started = await t.api.post(`/v1/sessions/${s.id}/turns`, { tool_uses: [{ name: 'mcp__t__hang', input: {} }] });
    const sse = await events(t, s.id);
    await sse.waitFor((e) => e.event === 'tool.started');
    // The request has reached the server (after the checkpoint made before the call).
    const logFile = path.join(s.workspace, 'server.log');
    await waitUntil(async () => ((await fs.readFile(logFile, 'utf8').catch(() => '')).includes('hang ') ? 1 : 0), (n) => n === 1);
    await t.api.post(`/v1/sessions/${s.id}/turns/${started.body.id}/cancel`, {});
    const done = await sse.waitFor((e) => e.event === 'turn.cancelled');
    expect(done.data.turn.id).toBe(started.body.id);
    expect(done.data.turn.results[0]).toMatchObject({ is_error: true });
    await waitUntil(async () => ((await fs.readFile(logFile, 'utf8').catch(() => '')).includes('cancelled') ? 1 : 0), (n) => n === 1);
    expect(await fs.readFile(logFile, 'utf8')).toMatch(/^cancelled \d+$/m);
  });

  it('closing the session stops its servers; the operator\'s servers join every session, and one that fails is a warning', async () => {
    const dir = await tempDir();
    const file = path.join(dir, 'mcp.json');
    await fs.writeFile(file, JSON.stringify({ mcp_servers: { shared: own(), broken: own('exit-init') } }));
    const t = await boot({ NORMA_MCP_FILE: file });
    const res = await t.api.post('/v1/sessions', { mcp_servers: { mine: own() }, deferred_tools: ['mcp__mine__*', 'mcp__shared', 'mcp__nosuch__*'] });
    expect(res.status).toBe(201);
    // A deferred pattern naming a server the session lacks is said; the others are taken as they are.
    expect(res.body.warnings.filter((w: string) => w.startsWith('deferred_tools'))).toEqual(['deferred_tools: "mcp__nosuch__*" names MCP server "nosuch", which this session does not have']);
    const flags = ((await t.api.get(`/v1/sessions/${res.body.id}/tools?include=deferred`)).body as { name: string; deferred: boolean }[]).filter((x) => x.name.startsWith('mcp__'));
    expect(flags.length).toBeGreaterThan(0);
    expect(flags.every((x) => x.deferred)).toBe(true);
    expect(res.body.mcp_servers.shared.source).toBe('operator');
    expect(res.body.mcp_servers.mine.source).toBe('session');
    expect(res.body.warnings.join('\n')).toMatch(/mcp_servers\.broken: MCP server "broken" failed while starting and initializing: it exited with code 3/);
    const state = (await t.api.get(`/v1/sessions/${res.body.id}/mcp`)).body.servers;
    expect(state.map((x: { name: string; status: string }) => [x.name, x.status])).toEqual([['shared', 'running'], ['broken', 'failed'], ['mine', 'running']]);
    const clash = await t.api.post('/v1/sessions', { mcp_servers: { shared: own() } });
    expect(clash.status).toBe(400);
    expect(clash.body.detail).toContain('mcp_servers.shared: the operator\'s servers already have this name');
    expect(await testServerProcesses()).toBeGreaterThanOrEqual(2);
    await t.api.delete(`/v1/sessions/${res.body.id}`);
    expect(await waitUntil(() => testServerProcesses(), (n) => n === 0)).toBe(0);
    const closed = (await t.api.get(`/v1/sessions/${res.body.id}/mcp`)).body.servers;
    expect(closed.every((x: { status: string }) => x.status === 'closed')).toBe(true);
  });

  it('a bad NORMA_MCP_FILE stops start-up, naming the file and the problem', async () => {
    const dir = await tempDir();
    const file = path.join(dir, 'mcp.json');
    await fs.writeFile(file, JSON.stringify({ x: { command: 'node', read_only_paths: ['relative/path'] } }));
    await expect(boot({ NORMA_MCP_FILE: file })).rejects.toThrow(/NORMA_MCP_FILE .*mcp\.json: mcp_servers\.x\.read_only_paths\[0\]: "relative\/path" is not an absolute path/);
    await fs.writeFile(file, '{"x": {"comand": "node"}}');
    await expect(boot({ NORMA_MCP_FILE: file })).rejects.toThrow(/NORMA_MCP_FILE/);
  });

  it('servers start again after a restart of the service, with the session\'s tools and secrets', async () => {
    const dataDir = await tempDir();
    let t = await boot({}, dataDir);
    const s = (await t.api.post('/v1/sessions', { mcp_servers: { t: own('ok', { env: { TOKEN: 'server-token-value' } }) }, allowed_tools: ['mcp__t'] })).body;
    expect(JSON.stringify(s)).not.toContain('server-token-value');
    // More sessions with servers: they are built side by side after the restart.
    const others = await Promise.all([1, 2, 3].map(async () => (await t.api.post('/v1/sessions', { mcp_servers: { t: own() } })).body.id as string));
    await t.close();
    servers = servers.filter((x) => x !== t);
    expect(await waitUntil(() => testServerProcesses(), (n) => n === 0)).toBe(0);
    t = await boot({}, dataDir);
    // A failure says why: the server's state, and the session's warnings.
    const why = async (id: string) => JSON.stringify({ mcp: (await t.api.get(`/v1/sessions/${id}/mcp`)).body.servers[0], warnings: (await t.api.get(`/v1/sessions/${id}`)).body.warnings });
    const state = (await t.api.get(`/v1/sessions/${s.id}/mcp`)).body.servers[0];
    expect(state.status, await why(s.id)).toBe('running');
    for (const id of others) {
      const other = (await t.api.get(`/v1/sessions/${id}/mcp`)).body.servers[0];
      expect(other.status, await why(id)).toBe('running');
    }
    expect(await testServerProcesses()).toBe(4);
    const turn = await run(t, s.id, [{ name: 'mcp__t__whoami', input: {} }]);
    expect(JSON.parse(textOf(turn.results[0])).env.TOKEN).toBe('server-token-value');
    // Nothing the server could read holds the stored secrets.
    const peek = await run(t, s.id, [{ name: 'mcp__t__whoami', input: { paths: [t.config.databaseFile, '/proc/1/environ'] } }]);
    const seen = JSON.parse(textOf(peek.results[0])).readable as Record<string, string>;
    expect(seen[t.config.databaseFile]).toMatch(/^unreadable/);
    expect(seen['/proc/1/environ']).not.toContain('server-token-value');
  });
});

describe('Streamable HTTP servers', () => {
  it('go through the egress guard with their headers; every request is evidence', async () => {
    const seenAuth: (string | undefined)[] = [];
    const url = await mcpAddServer('http-test', (req) => {
      seenAuth.push(req.headers.authorization);
      return req.headers.authorization === 'Bearer mcp-header-secret';
    });
    // Loopback is refused unless the operator allows it.
    const closed = await boot();
    const refused = await closed.api.post('/v1/sessions', { mcp_servers: { h: { url, headers: { Authorization: 'Bearer mcp-header-secret' } } } });
    expect(refused.status).toBe(400);
    expect(refused.body.detail).toMatch(/mcp_servers\.h: MCP server "h" failed while starting and initializing/);
    expect(refused.body.detail).not.toContain('mcp-header-secret');

    const t = await boot({ NORMA_EGRESS_ALLOW: '127.0.0.1' });
    const wrong = await t.api.post('/v1/sessions', { mcp_servers: { h: { url, headers: { Authorization: 'Bearer wrong-secret-value' } } } });
    expect(wrong.status).toBe(400);
    expect(wrong.body.detail).toContain('401');
    expect(wrong.body.detail).not.toContain('wrong-secret-value');

    const res = await t.api.post('/v1/sessions', { mcp_servers: { h: { url, headers: { Authorization: 'Bearer mcp-header-secret' } } }, allowed_tools: ['mcp__h'] });
    expect(res.status).toBe(201);
    expect(res.body.mcp_servers.h).toEqual({ transport: 'http', source: 'session', url, header_names: ['Authorization'], trust_read_only_hint: false });
    const sse = await events(t, res.body.id);
    const turn = await run(t, res.body.id, [{ name: 'mcp__h__add', input: { a: 20, b: 22 } }]);
    expect(textOf(turn.results[0])).toBe('42');
    const hop = await sse.waitFor((e) => e.event === 'egress.request' && e.data.tool === 'mcp__h' && e.data.status === 200);
    expect(hop.data).toMatchObject({ method: 'POST', url, address: '127.0.0.1' });
    const call = await sse.waitFor((e) => e.event === 'mcp.request' && e.data.method === 'tools/call');
    expect(call.data).toMatchObject({ server: 'h', tool: 'add', outcome: 'ok', turn_id: turn.id });
    expect(seenAuth.filter((a) => a === 'Bearer mcp-header-secret').length).toBeGreaterThanOrEqual(3);
  });
});

describe('deferred MCP tools', () => {
  it('are hidden, refused until a search unlocks them, and then asked about under their own name through the wrapper', async () => {
    const t = await boot();
    const s = (await t.api.post('/v1/sessions', { mcp_servers: { t: own() }, deferred_tools: ['mcp__t__*'] })).body;
    const exposed = ((await t.api.get(`/v1/sessions/${s.id}/tools`)).body as { name: string }[]).map((x) => x.name);
    expect(exposed.filter((n) => n.startsWith('mcp__'))).toEqual([]);
    expect(exposed).toEqual(expect.arrayContaining(['SearchExtraTools', 'ExecuteExtraTool']));
    const refused = await run(t, s.id, [
      { name: 'mcp__t__echo', input: { text: 'a' } },
      { name: 'ExecuteExtraTool', input: { name: 'mcp__t__echo', input: { text: 'a' } } },
    ]);
    for (const r of refused.results) expect(textOf(r)).toMatch(/^mcp__t__echo is a deferred tool that is not unlocked yet/);

    const found = await run(t, s.id, [{ name: 'SearchExtraTools', input: { query: 'echoes text' } }]);
    expect(textOf(found.results[0])).toContain('<tool name="mcp__t__echo">');
    expect(textOf(found.results[0])).toContain('"maxLength":100');
    const wrapped = await run(t, s.id, [{ name: 'ExecuteExtraTool', input: { name: 'mcp__t__echo', input: { text: 'via the wrapper' } } }], 2);
    expect(wrapped.status).toBe('awaiting_permission');
    const [perm] = (await t.api.get(`/v1/sessions/${s.id}/permissions?status=pending`)).body.items;
    expect(perm).toMatchObject({ tool: 'mcp__t__echo', input: { text: 'via the wrapper' } });
    await t.api.post(`/v1/sessions/${s.id}/permissions/${perm.id}`, { behavior: 'allow', remember: ['mcp__t__echo'] });
    const done = await waitForTurn(t, s.id, wrapped.id);
    expect(textOf(done.results[0])).toBe('echo: via the wrapper');
    // The server's own schema applies through the wrapper too.
    const invalid = await run(t, s.id, [{ name: 'ExecuteExtraTool', input: { name: 'mcp__t__echo', input: { text: 'x'.repeat(101) } } }]);
    expect(textOf(invalid.results[0])).toMatch(/^Invalid input for mcp__t__echo: input\.text: must NOT have more than 100 characters/);
  });
});

async function waitForTurn(t: TestServer, sessionId: string, turnId: string) {
  const res = await t.api.get(`/v1/sessions/${sessionId}/turns/${turnId}?wait=20`);
  expect(res.status).toBe(200);
  return res.body;
}
