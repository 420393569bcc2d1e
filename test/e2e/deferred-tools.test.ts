// Deferred tools over HTTP (API.md "Deferred tools"): built-in tools kept out of the model's list
// by `deferred_tools`, refused until SearchExtraTools returns (and so unlocks) them, then run by
// name or through ExecuteExtraTool — where the inner tool's own rules, asks and hooks apply under
// its own name. Unlocks are durable across a restart, a subagent inherits the filter and the
// unlocks, a skill's allowed-tools unlocks through the same path, a runaway regex query is
// stopped, and bad `deferred_tools` are refused at creation.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { anthropicStream } from '../helpers/model-streams.js';
import type { HookInput } from '../../src/hooks/registry.js';
import { FakeServer, sse as sseReply } from '../model/fake-server.js';
import { openSse, type SseMessage, type SseStream } from '../helpers/sse.js';
import { startServer, type TestServer, closeAll } from '../helpers/server.js';

let servers: TestServer[] = [];
let streams: SseStream[] = [];
let fakes: FakeServer[] = [];
let dirs: string[] = [];

afterEach(async () => {
  for (const s of streams) s.close();
  streams = [];
  await closeAll(servers);
  for (const f of fakes) await f.close();
  fakes = [];
  for (const d of dirs) await fs.rm(d, { recursive: true, force: true });
  dirs = [];
});

async function boot(env: Record<string, string> = {}, options: Parameters<typeof startServer>[1] = {}): Promise<TestServer> {
  const t = await startServer({ NORMA_SANDBOX: 'off', NORMA_SHUTDOWN_GRACE_S: '2', ...env }, options);
  servers.push(t);
  return t;
}
async function stop(t: TestServer): Promise<void> {
  await t.close();
  servers = servers.filter((x) => x !== t);
}
async function tempDir(prefix: string): Promise<string> {
  const d = await fs.mkdtemp(path.join(os.tmpdir(), prefix));
  dirs.push(d);
  return d;
}

interface Result {
  tool_use_id: string;
  is_error: boolean;
  content: { type: string; text: string }[];
}
const textOf = (r: Result) => r.content.map((c) => c.text).join('\n');
const errorsOf = (turn: { results: Result[] }) => turn.results.map((r) => r.is_error);
const text = (t: string) => ({ type: 'text', text: t });
const use = (id: string, name: string, input: unknown) => ({ type: 'tool_use', id, name, input });

async function create(t: TestServer, body: Record<string, unknown>) {
  const res = await t.api.post('/v1/sessions', body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}
async function run(t: TestServer, sessionId: string, toolUses: { id?: string; name: string; input: unknown }[]) {
  const res = await t.api.post(`/v1/sessions/${sessionId}/turns?wait=20`, { tool_uses: toolUses });
  expect(res.status).toBe(200);
  expect(res.body.status).not.toBe('running');
  return res.body;
}
async function waitTurn(t: TestServer, sessionId: string, turnId: string) {
  for (let i = 0; i < 400; i++) {
    const turn = (await t.api.get(`/v1/sessions/${sessionId}/turns/${turnId}`)).body;
    if (!['running', 'awaiting_permission', 'awaiting_input'].includes(turn.status)) return turn;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`turn ${turnId} did not finish`);
}
/** Every durable event of the session so far (replayed from the start), up to the given turn's end. */
async function eventsUpTo(t: TestServer, sessionId: string, turnId: string): Promise<SseMessage[]> {
  const s = await openSse(`${t.url}/v1/sessions/${sessionId}/events`, { lastEventId: '0' });
  streams.push(s);
  await s.waitFor((e) => ['turn.completed', 'turn.failed', 'turn.cancelled'].includes(e.event) && e.data.turn.id === turnId);
  return s.events;
}
const search = (query: string, extra: Record<string, unknown> = {}) => ({ name: 'SearchExtraTools', input: { query, ...extra } });
const wrapped = (name: string, input: unknown) => ({ name: 'ExecuteExtraTool', input: { name, input } });
const GREP = { pattern: 'needle' };
/** The schema SearchExtraTools showed for a tool (its result lists `input_schema: {json}` per tool). */
function shownSchema(result: Result, tool: string): unknown {
  const block = new RegExp(`<tool name="${tool}">\\n[\\s\\S]*?\\ninput_schema: (.*)\\n</tool>`).exec(textOf(result));
  expect(block, `${tool} in ${textOf(result)}`).not.toBeNull();
  return JSON.parse(block![1]!);
}
const shownTools = (result: Result) => [...textOf(result).matchAll(/<tool name="([^"]+)">/g)].map((m) => m[1]);

async function listTools(t: TestServer, sessionId: string, includeDeferred = false) {
  const res = await t.api.get(`/v1/sessions/${sessionId}/tools${includeDeferred ? '?include=deferred' : ''}`);
  expect(res.status).toBe(200);
  return res.body as { name: string; description: string; input_schema: unknown; deferred?: boolean; unlocked?: boolean }[];
}
async function flags(t: TestServer, sessionId: string) {
  const all = await listTools(t, sessionId, true);
  return Object.fromEntries(all.map((x) => [x.name, { deferred: x.deferred, unlocked: x.unlocked }]));
}
async function sessionOf(t: TestServer, sessionId: string) {
  return (await t.api.get(`/v1/sessions/${sessionId}`)).body;
}

describe('the tool list', () => {
  it('leaves deferred tools out but lists SearchExtraTools and ExecuteExtraTool; ?include=deferred lists every tool with its flags', async () => {
    const t = await boot();
    const s = await create(t, { deferred_tools: ['Grep', 'Glob'] });
    expect(s.deferred_tools).toEqual(['Grep', 'Glob']);
    expect(s.unlocked_tools).toEqual([]);
    expect(s.tools).toEqual(expect.arrayContaining(['Read', 'Grep', 'Glob', 'SearchExtraTools', 'ExecuteExtraTool']));

    const exposed = await listTools(t, s.id);
    const names = exposed.map((x) => x.name);
    expect(names).not.toContain('Grep');
    expect(names).not.toContain('Glob');
    expect(names).toEqual(expect.arrayContaining(['Read', 'LS', 'SearchExtraTools', 'ExecuteExtraTool']));
    expect(names.sort()).toEqual(s.tools.filter((n: string) => n !== 'Grep' && n !== 'Glob').sort());
    // The model's list carries no flags.
    expect(exposed.every((x) => !('deferred' in x) && !('unlocked' in x))).toBe(true);

    const all = await listTools(t, s.id, true);
    expect(all.map((x) => x.name).sort()).toEqual([...s.tools].sort());
    for (const x of all) {
      const deferred = x.name === 'Grep' || x.name === 'Glob';
      expect(x, x.name).toMatchObject({ deferred, unlocked: !deferred, description: expect.any(String), input_schema: expect.any(Object) });
    }
    expect(all.find((x) => x.name === 'Grep')!.input_schema).toMatchObject({ properties: { pattern: expect.any(Object) } });

    // A `*` pattern defers every tool it matches, and nothing else.
    const g = await create(t, { deferred_tools: ['G*'] });
    expect(g.warnings.join('\n')).not.toContain('deferred_tools');
    const gFlags = await flags(t, g.id);
    expect(Object.entries(gFlags).filter(([, f]) => f.deferred).map(([n]) => n).sort()).toEqual(['Glob', 'Grep']);
    const gNames = (await listTools(t, g.id)).map((x) => x.name);
    expect(gNames).not.toContain('Grep');
    expect(gNames).not.toContain('Glob');
    expect(gNames).toContain('Read');

    // Without deferred_tools neither helper is installed, and nothing is deferred.
    const plain = await create(t, {});
    expect(plain.tools).not.toContain('SearchExtraTools');
    expect(plain.tools).not.toContain('ExecuteExtraTool');
    expect(Object.values(await flags(t, plain.id)).every((f) => f.deferred === false && f.unlocked === true)).toBe(true);
  });
});

describe('the tool list of a closed session', () => {
  // Without a live runtime the list comes from the catalog and the stored session: the session's
  // `deferred_tools` and `unlocked_tools` still decide.
  it('still leaves the deferred tools out, and ?include=deferred still flags them', async () => {
    const t = await boot();
    const s = await create(t, { deferred_tools: ['Grep'] });
    expect(errorsOf(await run(t, s.id, [search('select:Grep')]))).toEqual([false]);
    const open = (await listTools(t, s.id)).map((x) => x.name);
    expect(open).not.toContain('Grep');
    expect((await t.api.delete(`/v1/sessions/${s.id}`)).status).toBe(204);
    const closed = (await listTools(t, s.id)).map((x) => x.name);
    expect(closed).not.toContain('Grep');
    expect(closed.sort()).toEqual([...open].sort());
    expect(await flags(t, s.id)).toMatchObject({ Grep: { deferred: true, unlocked: true }, Read: { deferred: false, unlocked: true } });
  });
});

describe('before a deferred tool is unlocked', () => {
  it('is refused by its own name and through ExecuteExtraTool, telling to search first; nothing of it runs', async () => {
    const pre: string[] = [];
    const t = await boot({}, { hooks: [{ event: 'PreToolUse', callback: (i) => void pre.push(i.tool_name!) }] });
    const s = await create(t, { deferred_tools: ['Grep', 'Write'], permission_mode: 'bypassPermissions' });
    await fs.writeFile(path.join(s.workspace, 'notes.txt'), 'a needle here\n');
    const turn = await run(t, s.id, [
      { id: 'toolu_grep', name: 'Grep', input: GREP },
      { id: 'toolu_wgrep', ...wrapped('Grep', GREP) },
      { id: 'toolu_write', name: 'Write', input: { file_path: 'direct.txt', content: 'x' } },
      { id: 'toolu_wwrite', ...wrapped('Write', { file_path: 'wrapped.txt', content: 'x' }) },
      { id: 'toolu_wread', ...wrapped('Read', { file_path: 'notes.txt' }) },
      { id: 'toolu_wnone', ...wrapped('NoSuchTool', {}) },
      { id: 'toolu_wself', ...wrapped('ExecuteExtraTool', { name: 'Grep', input: GREP }) },
    ]);
    expect(turn.status).toBe('completed');
    expect(errorsOf(turn)).toEqual([true, true, true, true, true, true, true]);
    const [grep, wgrep, write, wwrite, wread, wnone, wself] = turn.results as Result[];
    for (const r of [grep!, wgrep!]) {
      expect(textOf(r)).toContain('Grep is a deferred tool that is not unlocked yet');
      expect(textOf(r)).toContain('SearchExtraTools');
    }
    for (const r of [write!, wwrite!]) {
      expect(textOf(r)).toContain('Write is a deferred tool that is not unlocked yet');
      expect(textOf(r)).toContain('SearchExtraTools');
    }
    // A tool that is not deferred (or not there at all) is not run through the wrapper.
    expect(textOf(wread!)).toContain('"Read" is not one');
    expect(textOf(wread!)).not.toContain('a needle here');
    expect(textOf(wnone!)).toContain('"NoSuchTool" is not one');
    expect(textOf(wself!)).toContain('"ExecuteExtraTool" is not one');

    // Nothing ran: no file written even in bypassPermissions, no hook saw an inner tool, no
    // tool.started for any of them, no unlock.
    await expect(fs.access(path.join(s.workspace, 'direct.txt'))).rejects.toThrow();
    await expect(fs.access(path.join(s.workspace, 'wrapped.txt'))).rejects.toThrow();
    expect(pre.filter((n) => n !== 'ExecuteExtraTool')).toEqual([]);
    const events = await eventsUpTo(t, s.id, turn.id);
    const started = events.filter((e) => e.event === 'tool.started').map((e) => e.data.tool);
    // A wrapped call is announced only when its inner call starts: none did.
    expect(started).toEqual([]);
    expect((await sessionOf(t, s.id)).unlocked_tools).toEqual([]);
    expect((await flags(t, s.id)).Grep).toEqual({ deferred: true, unlocked: false });
  });
});

describe('SearchExtraTools', () => {
  it('keywords return the matching tools with their input schemas and unlock them; they then run by name and through the wrapper alike', async () => {
    const t = await boot();
    const s = await create(t, { deferred_tools: ['Grep', 'Glob'] });
    await fs.writeFile(path.join(s.workspace, 'notes.txt'), 'a needle here\n');
    const found = await run(t, s.id, [{ id: 'toolu_search', ...search('regular expression +ripgrep') }]);
    expect(found.status).toBe('completed');
    expect(found.results[0].is_error).toBe(false);
    expect(textOf(found.results[0])).toContain('1 tool(s) found and unlocked');
    expect(shownTools(found.results[0])).toEqual(['Grep']);
    const listed = (await listTools(t, s.id, true)).find((x) => x.name === 'Grep')!;
    expect(shownSchema(found.results[0], 'Grep')).toEqual(listed.input_schema);
    expect(textOf(found.results[0])).toContain(listed.description.slice(0, 60));

    // Unlocked, durably stored and announced; still kept out of the model's list.
    expect((await sessionOf(t, s.id)).unlocked_tools).toEqual(['Grep']);
    const events = await eventsUpTo(t, s.id, found.id);
    const updated = events.filter((e) => e.event === 'session.updated');
    expect(updated).toHaveLength(1);
    expect(updated[0]!.data.session.unlocked_tools).toEqual(['Grep']);
    expect(await flags(t, s.id)).toMatchObject({ Grep: { deferred: true, unlocked: true }, Glob: { deferred: true, unlocked: false } });
    expect((await listTools(t, s.id)).map((x) => x.name)).not.toContain('Grep');

    const ran = await run(t, s.id, [
      { id: 'toolu_direct', name: 'Grep', input: GREP },
      { id: 'toolu_wrapped', ...wrapped('Grep', GREP) },
      { id: 'toolu_glob', ...wrapped('Glob', { pattern: '*.txt' }) },
      { id: 'toolu_badinput', ...wrapped('Grep', {}) },
    ]);
    expect(errorsOf(ran)).toEqual([false, false, true, true]);
    expect(textOf(ran.results[0])).toContain('notes.txt');
    expect(ran.results[1].content).toEqual(ran.results[0].content);
    expect(ran.results[1].tool_use_id).toBe('toolu_wrapped');
    expect(textOf(ran.results[2])).toContain('Glob is a deferred tool that is not unlocked yet');
    // The inner tool's own validation applies.
    expect(textOf(ran.results[3])).toContain('pattern');

    // The same as in a session where Grep is not deferred at all.
    const plain = await create(t, {});
    await fs.writeFile(path.join(plain.workspace, 'notes.txt'), 'a needle here\n');
    const direct = await run(t, plain.id, [{ name: 'Grep', input: GREP }]);
    expect(direct.results[0].content).toEqual(ran.results[0].content);
  });

  it('`select:Grep` and `/^Gl/` return (and unlock) exactly those tools', async () => {
    const t = await boot();
    const a = await create(t, { deferred_tools: ['G*'] });
    const selected = await run(t, a.id, [search('select:Grep')]);
    expect(selected.results[0].is_error).toBe(false);
    expect(shownTools(selected.results[0])).toEqual(['Grep']);
    expect((await sessionOf(t, a.id)).unlocked_tools).toEqual(['Grep']);
    const afterSelect = await run(t, a.id, [{ name: 'Grep', input: GREP }, { name: 'Glob', input: { pattern: '*' } }]);
    expect(errorsOf(afterSelect)).toEqual([false, true]);

    const b = await create(t, { deferred_tools: ['G*'] });
    await fs.writeFile(path.join(b.workspace, 'one.txt'), 'x');
    const matched = await run(t, b.id, [search('/^Gl/')]);
    expect(matched.results[0].is_error).toBe(false);
    expect(shownTools(matched.results[0])).toEqual(['Glob']);
    expect(shownSchema(matched.results[0], 'Glob')).toMatchObject({ properties: { pattern: expect.any(Object) } });
    expect((await sessionOf(t, b.id)).unlocked_tools).toEqual(['Glob']);
    const afterRegex = await run(t, b.id, [
      { name: 'Glob', input: { pattern: '*.txt' } },
      wrapped('Glob', { pattern: '*.txt' }),
      { name: 'Grep', input: GREP },
    ]);
    expect(errorsOf(afterRegex)).toEqual([false, false, true]);
    expect(textOf(afterRegex.results[0])).toContain('one.txt');
    expect(afterRegex.results[1].content).toEqual(afterRegex.results[0].content);
  });

  it('a query that matches nothing is no error and unlocks nothing; max_results is honoured', async () => {
    const t = await boot();
    const s = await create(t, { deferred_tools: ['Grep', 'Glob', 'LS', 'Read'] });
    const none = await run(t, s.id, [search('zzzqqq nothing'), search('select:Nope,grep'), search('/^zzz/')]);
    expect(errorsOf(none)).toEqual([false, false, false]);
    for (const r of none.results) expect(textOf(r)).toContain('No deferred tool matches');
    expect((await sessionOf(t, s.id)).unlocked_tools).toEqual([]);
    const noneEvents = await eventsUpTo(t, s.id, none.id);
    expect(noneEvents.filter((e) => e.event === 'session.updated')).toEqual([]);

    // `grep` ranks Grep (its name) over Glob (which mentions Grep): one result is Grep only.
    const both = await run(t, s.id, [search('grep', { max_results: 1 })]);
    expect(shownTools(both.results[0])).toEqual(['Grep']);
    expect((await sessionOf(t, s.id)).unlocked_tools).toEqual(['Grep']);
    const picked = await run(t, s.id, [search('select:LS,Read,Glob', { max_results: 2 })]);
    expect(shownTools(picked.results[0])).toEqual(['LS', 'Read']);
    expect((await sessionOf(t, s.id)).unlocked_tools).toEqual(['Grep', 'LS', 'Read']);
    expect((await flags(t, s.id)).Glob).toEqual({ deferred: true, unlocked: false });

    // Out-of-range max_results is the search's own input error.
    const bad = await run(t, s.id, [search('select:Glob', { max_results: 21 }), search('select:Glob', { max_results: 0 })]);
    expect(errorsOf(bad)).toEqual([true, true]);
    expect(textOf(bad.results[0])).toContain('max_results');
    expect((await sessionOf(t, s.id)).unlocked_tools).toEqual(['Grep', 'LS', 'Read']);
  });
});

describe('through ExecuteExtraTool the inner tool is judged under its own name', () => {
  it('a deny rule on the inner tool denies the wrapped call', async () => {
    const t = await boot();
    const s = await create(t, { deferred_tools: ['Grep'], disallowed_tools: ['Grep'] });
    const unlocked = await run(t, s.id, [search('select:Grep')]);
    expect(unlocked.results[0].is_error).toBe(false);
    const turn = await run(t, s.id, [wrapped('Grep', GREP), { name: 'Grep', input: GREP }]);
    expect(errorsOf(turn)).toEqual([true, true]);
    for (const r of turn.results) expect(textOf(r)).toContain('denied by rule "Grep"');
  });

  it('PreToolUse hooks see the inner tool name and input, and can block the wrapped call', async () => {
    const pre: { name: string; input: unknown; id: string }[] = [];
    const post: string[] = [];
    let grepMatcher = 0;
    const t = await boot({}, {
      hooks: [
        // First, so the blocking hook after it does not end the chain before it ran.
        { event: 'PreToolUse', matcher: 'Grep', callback: () => void grepMatcher++ },
        {
          event: 'PreToolUse',
          callback: (i: HookInput) => {
            pre.push({ name: i.tool_name!, input: i.tool_input, id: i.tool_use_id! });
            const pattern = (i.tool_input as { pattern?: string }).pattern;
            return i.tool_name === 'Grep' && pattern === 'forbidden' ? { block: true, reason: 'no forbidden greps' } : undefined;
          },
        },
        { event: 'PostToolUse', callback: (i: HookInput) => void post.push(i.tool_name!) },
      ],
    });
    const s = await create(t, { deferred_tools: ['Grep'] });
    await fs.writeFile(path.join(s.workspace, 'notes.txt'), 'a needle here\n');
    await run(t, s.id, [search('select:Grep')]);
    pre.length = 0;
    post.length = 0;
    const turn = await run(t, s.id, [
      { id: 'toolu_ok', ...wrapped('Grep', GREP) },
      { id: 'toolu_blocked', ...wrapped('Grep', { pattern: 'forbidden' }) },
    ]);
    expect(errorsOf(turn)).toEqual([false, true]);
    expect(textOf(turn.results[0])).toContain('notes.txt');
    expect(textOf(turn.results[1])).toContain('no forbidden greps');
    expect(pre).toEqual([
      { name: 'ExecuteExtraTool', input: { name: 'Grep', input: GREP }, id: 'toolu_ok' },
      { name: 'Grep', input: GREP, id: 'toolu_ok' },
      { name: 'ExecuteExtraTool', input: { name: 'Grep', input: { pattern: 'forbidden' } }, id: 'toolu_blocked' },
      { name: 'Grep', input: { pattern: 'forbidden' }, id: 'toolu_blocked' },
    ]);
    // A hook matching `Grep` runs for the wrapped calls.
    expect(grepMatcher).toBe(2);
    expect(post.filter((n) => n === 'Grep')).toHaveLength(1);
  });

  it('a deferred mutating tool asks under its own name (an allow rule on the wrapper does not pass it); approving runs it', async () => {
    const t = await boot();
    const s = await create(t, { deferred_tools: ['Write'], allowed_tools: ['ExecuteExtraTool', 'SearchExtraTools'] });
    expect((await run(t, s.id, [search('select:Write')])).results[0].is_error).toBe(false);
    const paused = (await t.api.post(`/v1/sessions/${s.id}/turns?wait=10`, {
      tool_uses: [{ id: 'toolu_w', ...wrapped('Write', { file_path: 'w.txt', content: 'via the wrapper\n' }) }],
    })).body;
    expect(paused.status).toBe('awaiting_permission');
    const [perm] = (await t.api.get(`/v1/sessions/${s.id}/permissions?status=pending`)).body.items;
    expect(perm).toMatchObject({ tool: 'Write', tool_use_id: 'toolu_w', turn_id: paused.id, input: { file_path: 'w.txt', content: 'via the wrapper\n' } });
    await expect(fs.access(path.join(s.workspace, 'w.txt'))).rejects.toThrow();
    const events = await openSse(`${t.url}/v1/sessions/${s.id}/events`, { lastEventId: '0' });
    streams.push(events);
    const requested = await events.waitFor((e) => e.event === 'permission.requested');
    expect(requested.data.permission).toMatchObject({ id: perm.id, tool: 'Write', tool_use_id: 'toolu_w' });

    const answer = await t.api.post(`/v1/sessions/${s.id}/permissions/${perm.id}`, { behavior: 'allow' });
    expect(answer.status).toBe(200);
    const done = await waitTurn(t, s.id, paused.id);
    expect(done.status).toBe('completed');
    expect(done.results[0]).toMatchObject({ tool_use_id: 'toolu_w', is_error: false });
    expect(await fs.readFile(path.join(s.workspace, 'w.txt'), 'utf8')).toBe('via the wrapper\n');

    // A rule remembered from the inner tool's suggestion is the inner tool's rule: the next
    // wrapped Write of that file runs without asking.
    expect(perm.suggestions.length).toBeGreaterThan(0);
    // The inner tool's suggestion (file edits are `Edit(path)` rules), nothing about the wrapper.
    expect(perm.suggestions).toContain('Edit(./w.txt)');
    expect(JSON.stringify(perm.suggestions)).not.toContain('ExecuteExtraTool');
    const again = (await t.api.post(`/v1/sessions/${s.id}/turns?wait=10`, {
      tool_uses: [{ id: 'toolu_w2', ...wrapped('Write', { file_path: 'w.txt', content: 'second\n' }) }],
    })).body;
    expect(again.status).toBe('awaiting_permission');
    const [perm2] = (await t.api.get(`/v1/sessions/${s.id}/permissions?status=pending`)).body.items;
    expect(perm2).toMatchObject({ tool: 'Write', tool_use_id: 'toolu_w2' });
    await t.api.post(`/v1/sessions/${s.id}/permissions/${perm2.id}`, { behavior: 'allow', remember: ['Edit(./w.txt)'] });
    expect(await waitTurn(t, s.id, again.id)).toMatchObject({ status: 'completed', results: [{ is_error: false }] });
    const third = await run(t, s.id, [wrapped('Write', { file_path: 'w.txt', content: 'third\n' })]);
    expect(third).toMatchObject({ status: 'completed', results: [{ is_error: false }] });
    expect(await fs.readFile(path.join(s.workspace, 'w.txt'), 'utf8')).toBe('third\n');

    // Plan mode refuses the mutating inner tool although the wrapper itself is read-only.
    await t.api.patch(`/v1/sessions/${s.id}`, { permission_mode: 'plan' });
    const planned = await run(t, s.id, [wrapped('Write', { file_path: 'plan.txt', content: 'x' })]);
    expect(errorsOf(planned)).toEqual([true]);
    expect(textOf(planned.results[0])).toContain('plan mode');
    await expect(fs.access(path.join(s.workspace, 'plan.txt'))).rejects.toThrow();
  });
});

describe('unlocks are durable', () => {
  it('after a restart the unlocked tools still run (a mutating one still asks under its own name); the others are still refused', async () => {
    const dataDir = await tempDir('norma-deferred-restart-');
    const a = await boot({}, { dataDir });
    const s = await create(a, { deferred_tools: ['Grep', 'Glob', 'Write'] });
    await fs.writeFile(path.join(s.workspace, 'notes.txt'), 'a needle here\n');
    expect(errorsOf(await run(a, s.id, [search('select:Grep,Write')]))).toEqual([false]);
    await stop(a);

    const b = await boot({}, { dataDir });
    expect((await sessionOf(b, s.id)).unlocked_tools).toEqual(['Grep', 'Write']);
    expect(await flags(b, s.id)).toMatchObject({
      Grep: { deferred: true, unlocked: true },
      Write: { deferred: true, unlocked: true },
      Glob: { deferred: true, unlocked: false },
    });
    const turn = await run(b, s.id, [{ name: 'Grep', input: GREP }, wrapped('Grep', GREP), { name: 'Glob', input: { pattern: '*' } }, wrapped('Glob', { pattern: '*' })]);
    expect(errorsOf(turn)).toEqual([false, false, true, true]);
    expect(textOf(turn.results[0])).toContain('notes.txt');
    expect(turn.results[1].content).toEqual(turn.results[0].content);
    expect(textOf(turn.results[2])).toContain('Glob is a deferred tool that is not unlocked yet');
    expect(textOf(turn.results[3])).toContain('Glob is a deferred tool that is not unlocked yet');

    const paused = (await b.api.post(`/v1/sessions/${s.id}/turns?wait=10`, {
      tool_uses: [{ id: 'toolu_w', ...wrapped('Write', { file_path: 'after.txt', content: 'after the restart\n' }) }],
    })).body;
    expect(paused.status).toBe('awaiting_permission');
    const [perm] = (await b.api.get(`/v1/sessions/${s.id}/permissions?status=pending`)).body.items;
    expect(perm).toMatchObject({ tool: 'Write', tool_use_id: 'toolu_w' });
    expect((await b.api.post(`/v1/sessions/${s.id}/permissions/${perm.id}`, { behavior: 'allow' })).status).toBe(200);
    expect(await waitTurn(b, s.id, paused.id)).toMatchObject({ status: 'completed', results: [{ tool_use_id: 'toolu_w', is_error: false }] });
    expect(await fs.readFile(path.join(s.workspace, 'after.txt'), 'utf8')).toBe('after the restart\n');
  });

  // A wrapped call is announced (tool.started) only when the inner call starts: while it waits for
  // a person it is not running, so a graceful shutdown does not wait for it or interrupt it.
  it('a wrapped call paused on a permission stays paused across a restart, like a direct one, and completes when approved', async () => {
    const dataDir = await tempDir('norma-deferred-restart-');
    const a = await boot({}, { dataDir });
    const s = await create(a, { deferred_tools: ['Write'] });
    expect(errorsOf(await run(a, s.id, [search('select:Write')]))).toEqual([false]);
    const paused = (await a.api.post(`/v1/sessions/${s.id}/turns?wait=10`, {
      tool_uses: [{ id: 'toolu_w', ...wrapped('Write', { file_path: 'after.txt', content: 'after the restart\n' }) }],
    })).body;
    expect(paused.status).toBe('awaiting_permission');
    await stop(a);

    const b = await boot({}, { dataDir });
    expect((await b.api.get(`/v1/sessions/${s.id}/turns/${paused.id}`)).body).toMatchObject({ status: 'awaiting_permission' });
    const [perm] = (await b.api.get(`/v1/sessions/${s.id}/permissions?status=pending`)).body.items;
    expect(perm).toMatchObject({ tool: 'Write', tool_use_id: 'toolu_w' });
    expect((await b.api.post(`/v1/sessions/${s.id}/permissions/${perm.id}`, { behavior: 'allow' })).status).toBe(200);
    expect(await waitTurn(b, s.id, paused.id)).toMatchObject({ status: 'completed', results: [{ tool_use_id: 'toolu_w', is_error: false }] });
    expect(await fs.readFile(path.join(s.workspace, 'after.txt'), 'utf8')).toBe('after the restart\n');
  });
});

describe('subagents', () => {
  it('inherit the filter and the unlocks: refused before the parent unlocks, run after', async () => {
    const t = await boot();
    const s = await create(t, {
      tools: ['Read', 'LS', 'Grep', 'Glob', 'Agent'],
      deferred_tools: ['Grep', 'Glob'],
      model: {
        provider: 'scripted',
        model: 'demo',
        script: [
          { content: [use('toolu_ag1', 'Agent', { description: 'look', prompt: 'Find the needle.' })] },
          { content: [use('toolu_search', 'SearchExtraTools', { query: 'select:Grep' })] },
          { content: [use('toolu_ag2', 'Agent', { description: 'look again', prompt: 'Find the needle.' })] },
          { content: [text('done')] },
        ],
        subagent_script: [
          {
            content: [
              use('toolu_sub_grep', 'Grep', GREP),
              use('toolu_sub_wrapped', 'ExecuteExtraTool', { name: 'Grep', input: GREP }),
              use('toolu_sub_glob', 'Glob', { pattern: '*.txt' }),
            ],
          },
          { content: [text('subagent finished')] },
        ],
      },
    });
    await fs.writeFile(path.join(s.workspace, 'notes.txt'), 'a needle here\n');
    const turn = (await t.api.post(`/v1/sessions/${s.id}/turns?wait=30`, { prompt: 'find the needle' })).body;
    expect(turn).toMatchObject({ status: 'completed', model_calls: 4 });
    expect(turn.results.map((r: Result) => [r.tool_use_id, r.is_error])).toEqual([
      ['toolu_ag1', false],
      ['toolu_search', false],
      ['toolu_ag2', false],
    ]);
    const events = await eventsUpTo(t, s.id, turn.id);
    const inner = (parent: string): Record<string, { is_error: boolean; text: string }> =>
      Object.fromEntries(
        events
          .filter((e) => e.event === 'tool.completed' && e.data.parent_tool_use_id === parent)
          .map((e) => [e.data.tool_use_id, { is_error: e.data.result.is_error, text: textOf(e.data.result) }]),
      );
    const first = inner('toolu_ag1');
    expect(Object.keys(first).sort()).toEqual(['toolu_sub_glob', 'toolu_sub_grep', 'toolu_sub_wrapped']);
    for (const r of Object.values(first)) {
      expect(r.is_error).toBe(true);
      expect(r.text).toContain('not unlocked');
    }
    const second = inner('toolu_ag2');
    expect(second.toolu_sub_grep).toMatchObject({ is_error: false, text: expect.stringContaining('notes.txt') });
    expect(second.toolu_sub_wrapped).toMatchObject({ is_error: false, text: second.toolu_sub_grep!.text });
    expect(second.toolu_sub_glob).toMatchObject({ is_error: true, text: expect.stringContaining('Glob is a deferred tool that is not unlocked yet') });
    expect((await sessionOf(t, s.id)).unlocked_tools).toEqual(['Grep']);
  });

  it('a subagent unlocking a tool unlocks it for the session', async () => {
    const t = await boot();
    const s = await create(t, {
      tools: ['Read', 'Grep', 'Agent'],
      deferred_tools: ['Grep'],
      model: {
        provider: 'scripted',
        model: 'demo',
        script: [{ content: [use('toolu_ag', 'Agent', { description: 'unlock', prompt: 'Find grep.' })] }, { content: [text('done')] }],
        subagent_script: [{ content: [use('toolu_sub_search', 'SearchExtraTools', { query: 'select:Grep' })] }, { content: [text('found it')] }],
      },
    });
    const turn = (await t.api.post(`/v1/sessions/${s.id}/turns?wait=30`, { prompt: 'go' })).body;
    expect(turn.status).toBe('completed');
    expect((await sessionOf(t, s.id)).unlocked_tools).toEqual(['Grep']);
    expect(errorsOf(await run(t, s.id, [{ name: 'Grep', input: GREP }]))).toEqual([false]);
  });

  it('the subagent\'s model is sent the filtered list: no deferred tool, SearchExtraTools and ExecuteExtraTool there', async () => {
    const f = await new FakeServer().start();
    fakes.push(f);
    const t = await boot({ NORMA_EGRESS_ALLOW: '127.0.0.1' });
    const s = await create(t, {
      tools: ['Read', 'LS', 'Grep', 'Glob', 'Agent'],
      deferred_tools: ['Grep', 'Glob'],
      model: { provider: 'anthropic', model: 'claude-test', base_url: f.origin, api_key: 'sk-ant-test-key' },
    });
    f.reply(
      sseReply(anthropicStream([{ id: 'toolu_ag', name: 'Agent', input: { description: 'look', prompt: 'Look around.' } }], { stop: 'tool_use' })),
      sseReply(anthropicStream([{ text: 'Nothing to report.' }], { stop: 'end_turn' })),
      sseReply(anthropicStream([{ text: 'Done.' }], { stop: 'end_turn' })),
    );
    const turn = (await t.api.post(`/v1/sessions/${s.id}/turns?wait=30`, { prompt: 'look' })).body;
    expect(turn).toMatchObject({ status: 'completed', model_calls: 2 });
    expect(turn.results[0]).toMatchObject({ tool_use_id: 'toolu_ag', is_error: false });
    expect(f.received).toHaveLength(3);
    const sent = f.received.map((r) => (JSON.parse(r.body).tools as { name: string }[]).map((x) => x.name));
    const exposed = (await listTools(t, s.id)).map((x) => x.name);
    expect(sent[0]).toEqual(exposed);
    // The second request is the subagent's (its conversation starts with the Agent prompt).
    expect(JSON.parse(f.received[1]!.body).messages[0].content[0].text).toBe('Look around.');
    expect(sent[1]).toEqual(exposed.filter((n) => n !== 'Agent'));
    for (const list of sent) {
      expect(list).not.toContain('Grep');
      expect(list).not.toContain('Glob');
      expect(list).toEqual(expect.arrayContaining(['SearchExtraTools', 'ExecuteExtraTool']));
    }
  });
});

describe('skills', () => {
  it('a skill\'s allowed-tools unlocks the deferred tool it names, through the same path', async () => {
    const skills = await tempDir('norma-deferred-skills-');
    await fs.mkdir(path.join(skills, 'finder'), { recursive: true });
    await fs.writeFile(path.join(skills, 'finder', 'SKILL.md'), '---\nname: finder\ndescription: Find text in files\nallowed-tools: [Grep]\n---\nGrep for it.\n');
    const t = await boot({ NORMA_SKILLS_DIR: skills });
    const s = await create(t, { tools: ['Skill', 'Read', 'Grep', 'Glob'], deferred_tools: ['Grep', 'Glob'] });
    expect(s.skills).toEqual(['finder']);
    await fs.writeFile(path.join(s.workspace, 'notes.txt'), 'a needle here\n');
    const before = await run(t, s.id, [{ name: 'Grep', input: GREP }]);
    expect(errorsOf(before)).toEqual([true]);

    const used = await run(t, s.id, [{ name: 'Skill', input: { skill: 'finder' } }]);
    expect(errorsOf(used)).toEqual([false]);
    expect(textOf(used.results[0])).toContain('Grep for it.');
    const after = await sessionOf(t, s.id);
    expect(after.unlocked_tools).toEqual(['Grep']);
    expect(after.used_skills).toEqual(['finder']);
    expect(await flags(t, s.id)).toMatchObject({ Grep: { deferred: true, unlocked: true }, Glob: { deferred: true, unlocked: false } });

    const turn = await run(t, s.id, [{ name: 'Grep', input: GREP }, wrapped('Grep', GREP), { name: 'Glob', input: { pattern: '*' } }]);
    expect(errorsOf(turn)).toEqual([false, false, true]);
    expect(textOf(turn.results[0])).toContain('notes.txt');
    expect(turn.results[1].content).toEqual(turn.results[0].content);
  });
});

describe('regex queries', () => {
  it('a catastrophically backtracking regex is an is_error within a bounded time, and the server goes on', async () => {
    const t = await boot();
    const s = await create(t, { deferred_tools: ['G*'] });
    // Exponential over any text with a word run followed by punctuation (every description here).
    const query = '/^(\\w+\\s?)*$/';
    const started = Date.now();
    const turn = await run(t, s.id, [search(query)]);
    const elapsed = Date.now() - started;
    expect(errorsOf(turn)).toEqual([true]);
    expect(textOf(turn.results[0])).toContain('took longer than 50 ms');
    expect(textOf(turn.results[0])).toContain('/^(\\w+\\s?)*$/');
    expect(elapsed).toBeLessThan(5000);
    expect((await sessionOf(t, s.id)).unlocked_tools).toEqual([]);

    // The server still answers, and the session still searches.
    expect((await t.api.get('/healthz')).status).toBe(200);
    const next = await run(t, s.id, [search('/^Gr/'), search('/(a+)+$/')]);
    expect(errorsOf(next)).toEqual([false, false]);
    expect(shownTools(next.results[0])).toEqual(['Grep']);
  });

  it('an invalid regex is an is_error naming it, and unlocks nothing', async () => {
    const t = await boot();
    const s = await create(t, { deferred_tools: ['G*'] });
    const turn = await run(t, s.id, [search('/(unclosed/'), search('/[z-a]/')]);
    expect(errorsOf(turn)).toEqual([true, true]);
    expect(textOf(turn.results[0])).toContain('/(unclosed/');
    expect(textOf(turn.results[0])).toContain('not valid');
    expect(textOf(turn.results[1])).toContain('/[z-a]/');
    expect((await sessionOf(t, s.id)).unlocked_tools).toEqual([]);
  });
});

describe('deferred_tools at creation', () => {
  const problems = (res: { body: { detail?: string; errors?: { message: string }[] } }) =>
    [res.body.detail ?? '', ...(res.body.errors ?? []).map((e) => e.message)].join('\n');

  it('deferring SearchExtraTools or ExecuteExtraTool (or a pattern that would) is a 400 naming the problem; nothing is created', async () => {
    const t = await boot();
    const count = async () => (await t.api.get('/v1/sessions?limit=200')).body.items.length;
    const before = await count();
    for (const [deferred, named] of [
      [['SearchExtraTools'], '"SearchExtraTools"'],
      [['Grep', 'ExecuteExtraTool'], '"ExecuteExtraTool"'],
      [['*'], '"*"'],
      [['*Tools'], '"*Tools"'],
      [['Execute*'], '"Execute*"'],
    ] as const) {
      const res = await t.api.post('/v1/sessions', { deferred_tools: deferred });
      expect(res.status, JSON.stringify(deferred)).toBe(400);
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      const text = problems(res);
      expect(text).toContain(`deferred_tools[${deferred.length - 1}]: ${named} would defer`);
      expect(res.body.errors[0].path).toBe(`/deferred_tools/${deferred.length - 1}`);
      expect(text).toContain('SearchExtraTools or ExecuteExtraTool');
    }
    expect(await count()).toBe(before);
  });

  it('a text that is not a tool name pattern is a 400', async () => {
    const t = await boot();
    for (const bad of ['Gr ep', 'a.b', 'Bash(git *)', '', 'x'.repeat(129)]) {
      const res = await t.api.post('/v1/sessions', { deferred_tools: ['Grep', bad] });
      expect(res.status, JSON.stringify(bad)).toBe(400);
      expect(problems(res)).toContain('deferred_tools');
    }
  });

  it('a name that matches no tool of the session is a warning; the session is created', async () => {
    const t = await boot();
    const s = await create(t, { deferred_tools: ['Nope', 'Z*'] });
    expect(s.warnings).toEqual(expect.arrayContaining(['deferred_tools: "Nope" names no tool of this session', 'deferred_tools: "Z*" names no tool of this session']));
    // A tool the session does not install is no tool of the session either.
    const narrow = await create(t, { tools: ['Read'], deferred_tools: ['Grep'] });
    expect(narrow.warnings).toContain('deferred_tools: "Grep" names no tool of this session');
    expect(narrow.tools.sort()).toEqual(['ExecuteExtraTool', 'Read', 'SearchExtraTools']);
    // With nothing deferred, a search says so and is no error.
    const turn = await run(t, s.id, [search('grep')]);
    expect(errorsOf(turn)).toEqual([false]);
    expect(textOf(turn.results[0])).toContain('no deferred tools');
    // An MCP pattern is judged by its server (tools come and go): one naming a server the session
    // lacks is said; one naming no server in particular is not.
    const mcp = await create(t, { deferred_tools: ['mcp__github__*', 'mcp__*', 'Grep'] });
    expect(mcp.warnings.filter((w: string) => w.startsWith('deferred_tools'))).toEqual(['deferred_tools: "mcp__github__*" names MCP server "github", which this session does not have']);
  });
});

