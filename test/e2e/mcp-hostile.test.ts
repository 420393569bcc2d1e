// MCP servers that attack the server, run in a real server process with the real sandbox: what a
// server sends never reaches the process (a message nested 30,000 levels, a result of 200,000
// blocks, a list of 200,000 tools), not even from restart recovery, and input schemas from a
// server never stall the event loop (catastrophic patterns, uniqueItems over 16,000 objects, a
// union that doubles at every level). Each attack is made while the event loop's stall is
// measured from outside: a probe asks /healthz every few milliseconds and keeps the slowest answer.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { launchServer, type ServerProcess } from '../helpers/server-process.js';
import { processesStartingWith, waitUntil } from '../helpers/processes.js';
import { alive, measured } from '../helpers/health-probe.js';

const FIXTURES = path.resolve(import.meta.dirname, '../fixtures/mcp');
const HOSTILE = path.join(FIXTURES, 'hostile-server.mjs');
/**
 * The longest stall any attack here may cause; the server's own turn work is a few ms. It is timed
 * from outside by a /healthz probe, so it includes how long a 2-core machine running the rest of
 * the suite beside it takes to schedule the server (the uniqueItems attack stalled 224 ms on one
 * leg of a run and 1,031 ms on the PostgreSQL leg of the same run). What the bound is for — work
 * that grows with the attack on the event loop, such as a quadratic uniqueItems check over 16,000
 * objects — takes many seconds.
 */
const STALL_BOUND_MS = 2000;

vi.setConfig({ testTimeout: 90_000 });

let running: ServerProcess[] = [];
let dirs: string[] = [];
afterEach(async () => {
  await Promise.all(running.map((r) => r.kill()));
  running = [];
  await Promise.all(dirs.map((d) => fs.rm(d, { recursive: true, force: true })));
  dirs = [];
  expect(await waitUntil(async () => (await processesStartingWith(`node\u0000${HOSTILE}`)).length, (n) => n === 0)).toBe(0);
});

async function tempDir(): Promise<string> {
  const d = await fs.mkdtemp(path.join(os.tmpdir(), 'norma-hostile-'));
  dirs.push(d);
  return d;
}

async function launch(dataDir: string, extraRoot?: string): Promise<ServerProcess> {
  const r = await launchServer({
    NORMA_DATA_DIR: dataDir,
    NORMA_SANDBOX: 'bwrap',
    NORMA_MCP_READ_ONLY_ROOTS: extraRoot ? `${FIXTURES},${extraRoot}` : FIXTURES,
  });
  running.push(r);
  return r;
}

const hostile = (...args: string[]) => ({ command: 'node', args: [HOSTILE, ...args], read_only_paths: [FIXTURES], startup_timeout_s: 20 });

type Block = { type: string; text?: string };
const textOf = (result: { content: Block[] }) => result.content.map((c) => c.text ?? `[${c.type}]`).join('\n');

async function call(r: ServerProcess, sessionId: string, name: string, input: unknown = {}) {
  const res = await r.api.post(`/v1/sessions/${sessionId}/turns?wait=60`, { tool_uses: [{ name, input }] });
  expect(res.status).toBe(200);
  expect(res.body.status).toBe('completed');
  return res.body.results[0] as { is_error: boolean; content: Block[] };
}

const stalls: Record<string, number> = {};
function noteStall(what: string, ms: number): void {
  stalls[what] = Math.round(ms);
  // The figures are part of the test's output: the longest stall is what the attacks achieved.
  console.info(`event-loop stall during ${what}: ${Math.round(ms)} ms`);
}

describe('what an MCP server sends never reaches the process', () => {
  it('a tools/list answer nested 30,000 levels deep: the session is refused with a reason; the server stays up', async () => {
    const r = await launch(await tempDir());
    const { value: res, stallMs } = await measured(r, () => r.api.post('/v1/sessions', { mcp_servers: { h: hostile('deep-list') } }));
    noteStall('a 30,000-deep tools/list', stallMs);
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body)).toMatch(/MCP server \\"h\\".*nests deeper than \d+ levels/);
    await alive(r);
    expect(stallMs).toBeLessThan(STALL_BOUND_MS);
  });

  it('a list of 100,000 tools on one page is refused at once, not compiled tool by tool', async () => {
    const r = await launch(await tempDir());
    const { value: res, stallMs } = await measured(r, () => r.api.post('/v1/sessions', { mcp_servers: { h: hostile('wide-list') } }));
    noteStall('a 100,000-tool page', stallMs);
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body)).toMatch(/more than 1000 tools/);
    await alive(r);
    expect(stallMs).toBeLessThan(STALL_BOUND_MS);
  });

  it('deep results, errors, _meta and notifications end that call with an error; the server and its other tools go on', async () => {
    const r = await launch(await tempDir());
    const created = await r.api.post('/v1/sessions', { mcp_servers: { h: hostile('ok') }, allowed_tools: ['mcp__h'] });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    for (const tool of ['deep-result', 'deep-error', 'deep-meta']) {
      const { value: result, stallMs } = await measured(r, () => call(r, id, `mcp__h__${tool}`));
      noteStall(tool, stallMs);
      expect(result.is_error).toBe(true);
      expect(textOf(result)).toMatch(/nests deeper than \d+ levels/);
      expect(stallMs).toBeLessThan(STALL_BOUND_MS);
      await alive(r);
    }
    // Notifications nested too deep are dropped; the answer after them arrives.
    const after = await call(r, id, 'mcp__h__deep-notification');
    expect(after.is_error, textOf(after)).toBe(false);
    expect(textOf(after)).toBe('after the notifications');
    expect(textOf(await call(r, id, 'mcp__h__echo', { text: 'x' }))).toBe('echo');
    // Every refused answer left an evidence record saying why.
    const evidence = (await r.api.get(`/v1/sessions/${id}/mcp/requests`)).body.items as { tool?: string; outcome: string; error?: string }[];
    for (const tool of ['deep-result', 'deep-error', 'deep-meta']) {
      const e = evidence.find((x) => x.tool === tool);
      expect(e, tool).toMatchObject({ outcome: 'error' });
      expect(e!.error).toMatch(/nests deeper than \d+ levels/);
    }
    await alive(r);
  });

  it('a result of 200,000 blocks is cut to the first blocks with a note, without stalling the loop', async () => {
    const r = await launch(await tempDir());
    const id = (await r.api.post('/v1/sessions', { mcp_servers: { h: hostile('ok') }, allowed_tools: ['mcp__h'] })).body.id as string;
    const { value: result, stallMs } = await measured(r, () => call(r, id, 'mcp__h__blocks'));
    noteStall('a 200,000-block result', stallMs);
    expect(result.is_error).toBe(false);
    expect(result.content.length).toBeLessThanOrEqual(1001);
    expect(result.content[0]!.text).toBe('b0');
    expect(textOf(result)).toMatch(/199,000 more content blocks .* left out/);
    expect(stallMs).toBeLessThan(STALL_BOUND_MS);
    await alive(r);
  });

  it('restart recovery meets a server that now answers nested 30,000 deep: start-up completes, that session is warned, the others run', async () => {
    const dataDir = await tempDir();
    const control = await tempDir();
    // The sandbox user reads the mode file: the directory is the test's, searchable by others.
    await fs.chmod(control, 0o755);
    const modeFile = path.join(control, 'mode');
    await fs.writeFile(modeFile, 'ok');
    let r = await launch(dataDir, control);
    const server = { ...hostile('from-file', modeFile), read_only_paths: [FIXTURES, control] };
    const broken = (await r.api.post('/v1/sessions', { mcp_servers: { h: server } })).body.id as string;
    const plain = (await r.api.post('/v1/sessions', {})).body.id as string;
    await r.kill();
    running = running.filter((x) => x !== r);
    await fs.writeFile(modeFile, 'deep-list');
    // Twice: the crash used to repeat at every start.
    for (let i = 0; i < 2; i++) {
      r = await launch(dataDir, control);
      await alive(r);
      const ready = await r.api.get('/readyz');
      expect(ready.status).toBe(200);
      const s = await r.api.get(`/v1/sessions/${broken}`);
      expect(s.body.status).toBe('active');
      expect(JSON.stringify(s.body.warnings)).toMatch(/nests deeper than \d+ levels/);
      const turn = await r.api.post(`/v1/sessions/${plain}/turns?wait=20`, { tool_uses: [{ name: 'LS', input: { path: '.' } }] });
      expect(turn.body.status).toBe('completed');
      await r.kill();
      running = running.filter((x) => x !== r);
    }
  });
});

describe('schemas from an MCP server never stall the event loop', () => {
  it('uniqueItems over 16,000 objects is checked in linear time, before anyone is asked; duplicates are still found', async () => {
    const r = await launch(await tempDir());
    const created = await r.api.post('/v1/sessions', { mcp_servers: { h: hostile('schemas') } });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    const input = { list: Array.from({ length: 16_000 }, (_, i) => ({ i, same: { a: [1, 2] } })).concat([{ i: 7, same: { a: [1, 2] } }]) };
    const { value: result, stallMs } = await measured(r, () => call(r, id, 'mcp__h__unique', input));
    noteStall('validating uniqueItems over 16,001 objects', stallMs);
    expect(result.is_error).toBe(true);
    expect(textOf(result)).toMatch(/^Invalid input for mcp__h__unique: input\.list: must NOT have duplicate items \(items ## 7 and 16000 are identical\)/);
    expect(stallMs).toBeLessThan(STALL_BOUND_MS);
    // Invalid input never reaches a person.
    expect((await r.api.get(`/v1/sessions/${id}/permissions?status=pending`)).body.items).toEqual([]);
    const good = await r.api.post('/v1/sessions', { mcp_servers: { h: hostile('schemas') }, allowed_tools: ['mcp__h'] });
    const uniqueOk = await call(r, good.body.id as string, 'mcp__h__unique', { list: [{ a: 1 }, { a: 2 }] });
    expect(uniqueOk.is_error).toBe(false);
    const uniqueBad = await call(r, good.body.id as string, 'mcp__h__unique', { list: [{ a: 1, b: [2] }, { b: [2], a: 1 }] });
    expect(uniqueBad.is_error).toBe(true);
    expect(textOf(uniqueBad)).toMatch(/duplicate/);
    await alive(r);
    console.info(`longest stall of the MCP attacks: ${Math.max(...Object.values(stalls))} ms`);
  });
});
