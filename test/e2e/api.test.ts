// The HTTP contract over a real socket: sessions, turns, bad input as problem+json, auth,
// the SSE stream's replay and heartbeat. Every response is checked against openapi.json.
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openSse, type SseStream } from '../helpers/sse.js';
import { startServer, type TestServer } from '../helpers/server.js';

let t: TestServer;
let streams: SseStream[] = [];
beforeAll(async () => {
  t = await startServer({}, { configure: (c) => ((c.bodyLimitBytes = 64 * 1024), (c.sseHeartbeatMs = 100)) });
});
afterAll(async () => {
  await t.close();
});
afterEach(() => {
  for (const s of streams) s.close();
  streams = [];
});

async function session(body: object = {}) {
  const res = await t.api.post('/v1/sessions', body);
  expect(res.status).toBe(201);
  return res.body as { id: string; workspace: string };
}
async function sse(sessionId: string, opts: { lastEventId?: string; query?: string } = {}) {
  const s = await openSse(`${t.url}/v1/sessions/${sessionId}/events${opts.query ?? ''}`, opts);
  streams.push(s);
  return s;
}

function expectProblem(res: { status: number; headers: Headers; body: any; text: string }, status: number, detail?: RegExp) {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(res.body).toMatchObject({ status, title: expect.any(String), type: expect.stringMatching(/^urn:norma:problem:/) });
  if (detail) expect(res.body.detail).toMatch(detail);
  expect(res.text).not.toMatch(/at .+\.(ts|js):\d+/); // never a stack trace
}

describe('sessions', () => {
  it('creates with safe defaults and a server-made workspace', async () => {
    const res = await t.api.post('/v1/sessions', {});
    expect(res.status).toBe(201);
    expect(res.headers.get('location')).toBe(`/v1/sessions/${res.body.id}`);
    expect(res.body).toMatchObject({
      status: 'active',
      permission_mode: 'default',
      tools: ['Read', 'Write', 'Edit', 'MultiEdit', 'LS', 'Glob', 'Grep', 'Bash', 'TaskOutput', 'TaskStop', 'TaskList', 'Monitor'],
      output_cap_chars: 30000,
      permission_timeout_s: null,
      workspace_owned: true,
      sandbox: 'bwrap',
      sandbox_network: false,
      checkpoints: true,
      forked_from: null,
      rules: [],
    });
    expect(res.body.id).toMatch(/^ses_[A-Za-z0-9_-]{22}$/);
    expect(res.body.workspace).toBe(path.join(await fs.realpath(t.config.workspaceRoot), res.body.id));
    expect((await fs.stat(res.body.workspace)).isDirectory()).toBe(true);
  });

  it('reports every misconfiguration at once and creates nothing', async () => {
    const before = (await t.api.get('/v1/sessions?limit=200')).body.items.length;
    const res = await t.api.post('/v1/sessions', {
      tools: ['Read', 'Frobnicate', 'WebSearch'],
      allowed_tools: ['Read(', 'ok'],
      disallowed_tools: ['bad name'],
      hooks: { PreToolUse: [{ matcher: 'Bash(', hooks: [{ type: 'command', command: 'no-such-program --flag' }] }] },
    });
    expectProblem(res, 400);
    const messages = res.body.errors.map((e: { message: string }) => e.message);
    expect(messages).toEqual(
      expect.arrayContaining([
        expect.stringContaining('unknown tool "Frobnicate"'),
        expect.stringContaining('"WebSearch" cannot be installed'),
        expect.stringContaining('allowed_tools[0]: invalid rule "Read("'),
        expect.stringContaining('disallowed_tools[0]: invalid rule "bad name"'),
        expect.stringContaining('hooks.PreToolUse[0].matcher: invalid regular expression "Bash("'),
        expect.stringContaining('hooks.PreToolUse[0].hooks[0].command: command not found: no-such-program'),
      ]),
    );
    expect((await t.api.get('/v1/sessions?limit=200')).body.items.length).toBe(before);
  });

  it('accepts a workspace under the root and refuses one outside it', async () => {
    const inside = path.join(t.config.workspaceRoot, 'proj');
    await fs.mkdir(inside, { recursive: true });
    const ok = await t.api.post('/v1/sessions', { workspace: inside });
    expect(ok.status).toBe(201);
    expect(ok.body.workspace_owned).toBe(false);
    expect(ok.body.workspace).toBe(await fs.realpath(inside));
    expectProblem(await t.api.post('/v1/sessions', { workspace: '/etc' }), 400, /not a directory under the workspace root/);
    expectProblem(await t.api.post('/v1/sessions', { workspace: '../../..' }), 400, /not a directory under the workspace root/);
    expectProblem(await t.api.post('/v1/sessions', { workspace: 'missing-dir' }), 400, /does not exist/);
  });

  it('lists newest first with a cursor that pages without overlap', async () => {
    const made: string[] = [];
    for (let i = 0; i < 5; i++) made.push((await session()).id);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: any = await t.api.get(`/v1/sessions?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      expect(page.body.items.length).toBeLessThanOrEqual(2);
      seen.push(...page.body.items.map((s: { id: string }) => s.id));
      cursor = page.body.next_cursor;
    } while (cursor);
    expect(new Set(seen).size).toBe(seen.length);
    // The five just made come first, newest first.
    expect(seen.slice(0, 5)).toEqual([...made].reverse());
    expectProblem(await t.api.get('/v1/sessions?cursor=bm90LWEtY3Vyc29y'), 400, /cursor/);
  });

  it('patches mode and rules, validates rules, and reports unknown ids', async () => {
    const s = await session();
    const res = await t.api.patch(`/v1/sessions/${s.id}`, {
      permission_mode: 'acceptEdits',
      disallowed_tools: ['LS'],
      add_rules: [{ rule: 'Read', behavior: 'ask' }],
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ permission_mode: 'acceptEdits', disallowed_tools: ['LS'], rules: [{ rule: 'Read', behavior: 'ask', source: 'patch' }] });
    const removed = await t.api.patch(`/v1/sessions/${s.id}`, { remove_rules: ['Read'] });
    expect(removed.body.rules).toEqual([]);
    expectProblem(await t.api.patch(`/v1/sessions/${s.id}`, { ask_rules: ['Write)'] }), 400, /ask_rules\[0\]: invalid rule "Write\)"/);
    expectProblem(await t.api.patch(`/v1/sessions/${s.id}`, { remove_rules: ['Nope'] }), 400, /not a session rule/);
    expectProblem(await t.api.patch(`/v1/sessions/${s.id}`, {}), 400);
    expectProblem(await t.api.patch(`/v1/sessions/${s.id}`, { permission_mode: 'yolo' }), 400);
    expectProblem(await t.api.patch('/v1/sessions/ses_nope', { permission_mode: 'plan' }), 404, /session ses_nope does not exist/);
  });

  it('GET tools is the exposed list with schemas', async () => {
    const s = await session({ tools: ['Read'] });
    const res = await t.api.get(`/v1/sessions/${s.id}/tools`);
    expect(res.body).toHaveLength(1);
    expect(res.body[0]).toMatchObject({ name: 'Read', input_schema: { type: 'object', required: ['file_path'] } });
    expect(res.body[0].description).toMatch(/cat -n/);
  });

  it('the acceptEdits mode lets Write run without asking', async () => {
    const s = await session({ permission_mode: 'acceptEdits' });
    const res = await t.api.post(`/v1/sessions/${s.id}/turns?wait=5`, { tool_uses: [{ name: 'Write', input: { file_path: 'e.txt', content: 'e' } }] });
    expect(res.body.status).toBe('completed');
    expect(res.body.results[0].is_error).toBe(false);
  });

  it('plan mode denies Write and allows Read', async () => {
    const s = await session({ permission_mode: 'plan' });
    await fs.writeFile(path.join(s.workspace, 'r.txt'), 'r');
    const res = await t.api.post(`/v1/sessions/${s.id}/turns?wait=5`, {
      tool_uses: [
        { name: 'Write', input: { file_path: 'p.txt', content: 'p' } },
        { name: 'Read', input: { file_path: 'r.txt' } },
      ],
    });
    expect(res.body.results.map((r: { is_error: boolean }) => r.is_error)).toEqual([true, false]);
    expect(res.body.results[0].content[0].text).toMatch(/plan mode/);
  });

  it('DELETE closes: cancels the turn, ends the stream with session.closed, and is idempotent', async () => {
    const s = await session();
    const stream = await sse(s.id);
    const turn = await t.api.post(`/v1/sessions/${s.id}/turns?wait=5`, { tool_uses: [{ name: 'Write', input: { file_path: 'd.txt', content: 'd' } }] });
    expect(turn.body.status).toBe('awaiting_permission');
    const del = await t.api.delete(`/v1/sessions/${s.id}`);
    expect(del.status).toBe(204);
    await stream.ended;
    const types = stream.events.map((e) => e.event);
    expect(types.slice(-4)).toEqual(['permission.resolved', 'tool.completed', 'turn.cancelled', 'session.closed']);
    expect(stream.events.find((e) => e.event === 'permission.resolved')!.data.permission.resolved_by).toBe('session_closed');
    const after = (await t.api.get(`/v1/sessions/${s.id}`)).body;
    expect(after).toMatchObject({ status: 'closed', active_turn_id: null });
    expect(after.closed_at).toEqual(expect.any(String));
    expect((await t.api.delete(`/v1/sessions/${s.id}`)).status).toBe(204);
    const replay = await sse(s.id);
    await replay.ended;
    expect(replay.events.filter((e) => e.event === 'session.closed')).toHaveLength(1);
    expectProblem(await t.api.post(`/v1/sessions/${s.id}/turns`, { tool_uses: [{ name: 'LS', input: { path: '.' } }] }), 409, /closed/);
    expectProblem(await t.api.delete('/v1/sessions/ses_unknown'), 404);
  });
});

describe('turns', () => {
  it('runs a direct turn and returns results in the order of tool_uses with generated ids', async () => {
    const s = await session();
    await fs.writeFile(path.join(s.workspace, 'a.txt'), 'alpha\nbeta\n');
    const res = await t.api.post(`/v1/sessions/${s.id}/turns?wait=5`, {
      tool_uses: [
        { name: 'Read', input: { file_path: 'a.txt' } },
        { name: 'Read', input: { file_path: 'a.txt', offset: 2 } },
        { name: 'Nope', input: {} },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('completed');
    expect(res.body.ended_at).toEqual(expect.any(String));
    const ids = res.body.tool_uses.map((u: { id: string }) => u.id);
    expect(ids.every((id: string) => /^toolu_/.test(id))).toBe(true);
    expect(res.body.results.map((r: { tool_use_id: string }) => r.tool_use_id)).toEqual(ids);
    expect(res.body.results[0].content[0].text).toBe('     1\talpha\n     2\tbeta');
    expect(res.body.results[1].content[0].text).toBe('     2\tbeta');
    expect(res.body.results[2]).toMatchObject({ is_error: true });
    expect(res.body.results[2].content[0].text).toMatch(/Unknown tool "Nope"/);

    const list = await t.api.get(`/v1/sessions/${s.id}/turns`);
    expect(list.body.items.map((x: { id: string }) => x.id)).toEqual([res.body.id]);
  });

  it('without wait answers 202 at once with the running turn', async () => {
    const s = await session();
    const res = await t.api.post(`/v1/sessions/${s.id}/turns`, { tool_uses: [{ name: 'LS', input: { path: '.' } }] });
    expect(res.status).toBe(202);
    expect(res.body.status).toBe('running');
    expect(res.headers.get('location')).toBe(`/v1/sessions/${s.id}/turns/${res.body.id}`);
    const done = await t.api.get(`/v1/sessions/${s.id}/turns/${res.body.id}?wait=5`);
    expect(done.body.status).toBe('completed');
  });

  it('caps output per session with structured truncation metadata', async () => {
    const s = await session({ output_cap_chars: 100 });
    await fs.writeFile(path.join(s.workspace, 'big.txt'), Array.from({ length: 50 }, (_, i) => `line ${i}`).join('\n'));
    const res = await t.api.post(`/v1/sessions/${s.id}/turns?wait=5`, { tool_uses: [{ name: 'Read', input: { file_path: 'big.txt' } }] });
    const r = res.body.results[0];
    expect(r.content[0].text).toHaveLength(100);
    expect(r.truncation).toMatchObject({ block_index: 0, shown_chars: 100 });
    expect(r.truncation.total_chars).toBeGreaterThan(100);
    expect(r.truncation.sha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it('refuses a second turn while one runs (409), and takes one after it ends', async () => {
    const s = await session();
    const first = await t.api.post(`/v1/sessions/${s.id}/turns?wait=5`, { tool_uses: [{ name: 'Write', input: { file_path: 'w.txt', content: 'w' } }] });
    expect(first.body.status).toBe('awaiting_permission');
    expectProblem(
      await t.api.post(`/v1/sessions/${s.id}/turns`, { tool_uses: [{ name: 'LS', input: { path: '.' } }] }),
      409,
      new RegExp(`already runs turn ${first.body.id}`),
    );
    await t.api.post(`/v1/sessions/${s.id}/permissions/${first.body.pending[0]}`, { behavior: 'deny' });
    await t.api.get(`/v1/sessions/${s.id}/turns/${first.body.id}?wait=5`);
    expect((await t.api.post(`/v1/sessions/${s.id}/turns`, { tool_uses: [{ name: 'LS', input: { path: '.' } }] })).status).toBe(202);
  });

  it('rejects malformed turn bodies with precise problems', async () => {
    const s = await session();
    const url = `/v1/sessions/${s.id}/turns`;
    // Neither kind, or both: the problem names the two shapes a turn can have.
    const kinds = /must be one of: DirectTurnCreate with `tool_uses`, nothing else; or PromptTurnCreate with `prompt` \(optional: `budget`\), nothing else/;
    const neither = await t.api.post(url, {});
    expectProblem(neither, 400, kinds);
    expect(neither.body.errors).toEqual([{ location: 'body', path: '', message: expect.stringMatching(kinds) }]);
    expectProblem(await t.api.post(url, { prompt: 'hi', tool_uses: [{ name: 'LS', input: {} }] }), 400, kinds);
    expectProblem(await t.api.post(url, { prompt: 'hi' }), 400, /this session has no model/);
    expectProblem(await t.api.post(url, { prompt: '' }), 400, /\/prompt/);
    expectProblem(await t.api.post(url, { prompt: [{ type: 'image', source: {} }] }), 400, /\/prompt/);
    expectProblem(await t.api.post(url, { tool_uses: [] }), 400, /tool_uses/);
    expectProblem(await t.api.post(url, { tool_uses: [{ id: 'x', name: 'LS', input: {} }, { id: 'x', name: 'LS', input: {} }] }), 400, /repeats an earlier id/);
    expectProblem(await t.api.post(url, { tool_uses: [{ id: 'bad id!', name: 'LS', input: {} }] }), 400, /\/tool_uses\/0\/id/);
    expectProblem(await t.api.post(`${url}?wait=301`, { tool_uses: [{ name: 'LS', input: {} }] }), 400, /query/);
    const extra = await t.api.post(url, { tool_uses: [{ name: 'LS', input: {}, extra: 1 }] });
    expectProblem(extra, 400, /\/tool_uses\/0\/extra is not a known property/);
    expect(extra.body.errors).toEqual([{ location: 'body', path: '/tool_uses/0/extra', message: 'is not a known property here' }]);
    // A value of the wrong type is refused as sent, never converted (a number is not a tool name).
    const typedName = await t.api.post(url, { tool_uses: [{ name: 5, input: {} }] });
    expect(typedName.body.errors).toEqual([{ location: 'body', path: '/tool_uses/0/name', message: 'must be a string' }]);
    expectProblem(await t.api.get(`${url}/turn_missing`), 404, /turn turn_missing does not exist/);
    expectProblem(await t.api.post(`${url}/turn_missing/cancel`), 404);
  });

  it('cancelling a completed turn is a conflict', async () => {
    const s = await session();
    const done = await t.api.post(`/v1/sessions/${s.id}/turns?wait=5`, { tool_uses: [{ name: 'LS', input: { path: '.' } }] });
    expectProblem(await t.api.post(`/v1/sessions/${s.id}/turns/${done.body.id}/cancel`), 409, /already ended \(completed\)/);
  });
});

describe('bad input', () => {
  it('malformed JSON, wrong types, unknown fields, bad ids, unknown routes: problem+json, never 500', async () => {
    expectProblem(await t.api.post('/v1/sessions', undefined, { raw: '{"tools": [' }), 400, /malformed JSON/);
    expectProblem(await t.api.post('/v1/sessions', { output_cap_chars: 'lots' }), 400, /output_cap_chars/);
    const typed = await t.api.post('/v1/sessions', { permission_mode: 'yolo', tools: 'Read' });
    expectProblem(typed, 400);
    expect(typed.body.errors.every((e: { location: string }) => e.location === 'body')).toBe(true);
    expectProblem(await t.api.post('/v1/sessions', { surprise: true }), 400, /\/surprise is not a known property/);
    expectProblem(await t.api.get('/v1/sessions/ses%24bad'), 400, /params/);
    expectProblem(await t.api.get(`/v1/sessions/${'a'.repeat(65)}`), 400, /params/);
    expectProblem(await t.api.get('/v1/sessions/ses_unknown'), 404, /session ses_unknown does not exist/);
    expectProblem(await t.api.get('/v1/nothing-here', { skipContract: true }), 404, /no route GET \/v1\/nothing-here/);
  });

  it('an empty body labelled application/json is no body: fine where none is needed, a clear 400 where one is', async () => {
    const json = { headers: { 'content-type': 'application/json' }, raw: '' };
    const created = await t.api.post('/v1/sessions', undefined, json);
    expect(created.status).toBe(201);
    expectProblem(await t.api.post(`/v1/sessions/${created.body.id}/turns`, undefined, json), 400, /body/);
    expect((await t.api.request('DELETE', `/v1/sessions/${created.body.id}`, undefined, json)).status).toBe(204);
    expect((await t.api.get(`/v1/sessions/${created.body.id}`)).body.status).toBe('closed');
  });

  it('an oversize body is 413 and an unsupported content type 415', async () => {
    const big = { system_prompt: 'x'.repeat(70 * 1024) };
    expectProblem(await t.api.post('/v1/sessions', big), 413, /larger than 65536 bytes/);
    expectProblem(await t.api.post('/v1/sessions', undefined, { raw: 'tools=Read', headers: { 'content-type': 'text/plain' } }), 415, /text\/plain/);
  });

  it('permission answers: unknown id 404, bad behaviour 400', async () => {
    const s = await session();
    expectProblem(await t.api.post(`/v1/sessions/${s.id}/permissions/perm_missing`, { behavior: 'allow' }), 404, /permission request perm_missing does not exist/);
    expectProblem(await t.api.post(`/v1/sessions/${s.id}/permissions/perm_missing`, { behavior: 'maybe' }), 400);
    expectProblem(await t.api.post(`/v1/sessions/${s.id}/permissions/perm_missing`, { behavior: 'deny', remember: ['LS'] }), 400);
    expectProblem(await t.api.get(`/v1/sessions/${s.id}/permissions?status=weird`), 400);
  });
});

describe('events (SSE)', () => {
  it('sends the SSE headers, numbered events, and a ping comment', async () => {
    const s = await session();
    const stream = await sse(s.id);
    expect(stream.status).toBe(200);
    expect(stream.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    expect(stream.headers['x-accel-buffering']).toBe('no');
    const created = await stream.waitFor((e) => e.event === 'session.created');
    expect(created.id).toBe('1');
    expect(created.data).toMatchObject({ type: 'session.created', seq: 1, session_id: s.id });
    await stream.waitForComment((c) => c === 'ping', 2000);
  });

  it('replays after Last-Event-ID or ?after= with no gap and no duplicate, then goes live', async () => {
    const s = await session({ permission_mode: 'acceptEdits' });
    for (let i = 0; i < 3; i++) {
      await t.api.post(`/v1/sessions/${s.id}/turns?wait=5`, { tool_uses: [{ name: 'Write', input: { file_path: `f${i}.txt`, content: String(i) } }] });
    }
    const full = await sse(s.id);
    const all = await full.waitFor((e) => e.event === 'turn.completed' && e.data.turn.tool_uses[0].input.file_path === 'f2.txt');
    const lastSeq = Number(all.id);
    expect(full.events.map((e) => Number(e.id))).toEqual(Array.from({ length: lastSeq }, (_, i) => i + 1));

    const cut = 5;
    const resumed = await sse(s.id, { lastEventId: String(cut) });
    await resumed.waitFor((e) => Number(e.id) === lastSeq);
    expect(resumed.events.map((e) => Number(e.id))).toEqual(Array.from({ length: lastSeq - cut }, (_, i) => cut + 1 + i));

    // The header wins over the query (browsers keep the original URL when reconnecting).
    const both = await sse(s.id, { lastEventId: String(lastSeq - 1), query: '?after=1' });
    await both.waitFor((e) => Number(e.id) === lastSeq);
    expect(both.events.map((e) => Number(e.id))).toEqual([lastSeq]);

    const byQuery = await sse(s.id, { query: `?after=${lastSeq - 2}` });
    await byQuery.waitFor((e) => Number(e.id) === lastSeq);
    expect(byQuery.events).toHaveLength(2);

    // Live after replay: a new turn's events arrive on the resumed stream, continuing the sequence.
    await t.api.post(`/v1/sessions/${s.id}/turns?wait=5`, { tool_uses: [{ name: 'LS', input: { path: '.' } }] });
    await resumed.waitFor((e) => e.event === 'turn.completed' && e.data.turn.tool_uses[0].name === 'LS');
    const ids = resumed.events.map((e) => Number(e.id));
    expect(ids).toEqual(Array.from({ length: ids.length }, (_, i) => cut + 1 + i));
  });

  it('refuses a resume point beyond the log, a bad Last-Event-ID and unknown sessions', async () => {
    const s = await session();
    const byQuery = await t.api.get(`/v1/sessions/${s.id}/events?after=999`);
    expectProblem(byQuery, 400, /^after=999 is beyond the session's last event/);
    expect(byQuery.body.errors).toEqual([{ location: 'query', path: '/after', message: expect.stringMatching(/^after: 999 is beyond/) }]);
    // The problem points at what was sent: the header, which wins over the query.
    const byHeader = await t.api.get(`/v1/sessions/${s.id}/events?after=0`, { headers: { 'last-event-id': '999' } });
    expectProblem(byHeader, 400, /^Last-Event-ID 999 is beyond the session's last event/);
    expect(byHeader.body.errors).toEqual([{ location: 'headers', path: '/last-event-id', message: expect.stringMatching(/^last-event-id: 999 is beyond/) }]);
    expectProblem(await t.api.get(`/v1/sessions/${s.id}/events`, { headers: { 'last-event-id': 'abc' } }), 400);
    expectProblem(await t.api.get('/v1/sessions/ses_nope/events'), 404);
  });
});

describe('documents and health', () => {
  it('serves the committed OpenAPI document and the docs page', async () => {
    const served = await t.api.get('/openapi.json', { skipContract: true });
    const committed = JSON.parse(await fs.readFile(new URL('../../openapi/openapi.json', import.meta.url), 'utf8'));
    expect(served.body).toEqual(committed);
    const docs = await fetch(`${t.url}/docs/`);
    expect(docs.status).toBe(200);
    expect(await docs.text()).toMatch(/swagger/i);
  });

  it('healthz and readyz report with details', async () => {
    expect((await t.api.get('/healthz')).body).toEqual({ status: 'ok' });
    const ready = await t.api.get('/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body.checks.map((c: { name: string }) => c.name)).toEqual(['store', 'workspace_root', 'signing', 'encryption', 'sandbox', 'search', 'web_search', 'sandbox_limits', 'sandbox_network']);
    // CI installs ripgrep: Grep must not silently run on the fallback there.
    expect(ready.body.checks[5].detail).toMatch(/^Grep uses ripgrep at /);
  });
});

describe('auth', () => {
  let secured: TestServer;
  const token = 'test-token-0123456789abcdef';
  beforeAll(async () => {
    secured = await startServer({ NORMA_TOKEN: token });
  });
  afterAll(async () => {
    await secured.close();
  });

  it('requires the bearer token on the API but not on health', async () => {
    const none = await fetch(`${secured.url}/v1/sessions`);
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect(none.headers.get('content-type')).toMatch(/problem\+json/);
    const wrong = await fetch(`${secured.url}/v1/sessions`, { headers: { authorization: 'Bearer wrong-token-0123456789ab' } });
    expect(wrong.status).toBe(401);
    const basic = await fetch(`${secured.url}/v1/sessions`, { headers: { authorization: `Basic ${token}` } });
    expect(basic.status).toBe(401);
    expect((await secured.api.get('/v1/sessions')).status).toBe(200);
    expect((await fetch(`${secured.url}/healthz`)).status).toBe(200);
    const stream = await openSse(`${secured.url}/v1/sessions/ses_x/events`);
    expect(stream.status).toBe(401);
  });
});

describe('auth on a keyless server', () => {
  it('a key sent to a server without keys is a 401 that says so: a misconfigured client learns it; health stays public', async () => {
    for (const authorization of ['Bearer some-token-meant-for-production', 'Bearer x', 'Basic dXNlcjpwYXNz']) {
      const res = await fetch(`${t.url}/v1/sessions`, { headers: { authorization } });
      expect(res.status, authorization).toBe(401);
      expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
      expect(((await res.json()) as { detail: string }).detail).toMatch(/this server has no API keys/);
    }
    const created = await fetch(`${t.url}/v1/sessions`, { method: 'POST', headers: { authorization: 'Bearer wrong' } });
    expect(created.status).toBe(401);
    expect((await fetch(`${t.url}/healthz`, { headers: { authorization: 'Bearer wrong' } })).status).toBe(200);
    expect((await fetch(`${t.url}/v1/sessions`)).status).toBe(200);
  });
});

describe('Idempotency-Key on one server', () => {
  it('replays the first answer; another body with the key is a 422 of the project\'s own problem type', async () => {
    const post = (body: unknown) => fetch(`${t.url}/v1/sessions`, { method: 'POST', headers: { 'content-type': 'application/json', 'idempotency-key': 'one-server-1' }, body: JSON.stringify(body) });
    const first = await post({});
    expect(first.status).toBe(201);
    const again = await post({});
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(((await again.json()) as { id: string }).id).toBe(((await first.json()) as { id: string }).id);
    const other = await post({ permission_mode: 'plan' });
    expect(other.status).toBe(422);
    expect(other.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(await other.json()).toMatchObject({ status: 422, type: 'urn:norma:problem:unprocessable-content', detail: expect.stringMatching(/Idempotency-Key "one-server-1"/) });
  });
});

describe('convenience', () => {
  it('a POST without a body creates a default session', async () => {
    const res = await fetch(`${t.url}/v1/sessions`, { method: 'POST' });
    expect(res.status).toBe(201);
    expect(((await res.json()) as { permission_mode: string }).permission_mode).toBe('default');
  });
});
