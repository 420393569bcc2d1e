// Input schemas from an MCP server bound the work they cause, in a real server process with a real
// hostile server: checking a call's input against a catastrophic pattern, patternProperties key
// or doubling union, and compiling a schema that explodes, each end within the deadline
// (SCHEMA_CHECK_DEADLINE_MS) — a call as an is_error result, a schema as a warning — while a
// probe asks /healthz every few milliseconds and keeps the slowest answer. Afterwards the same
// schemas are still enforced as written.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { SCHEMA_CHECK_DEADLINE_MS } from '../../src/mcp/schema-check.js';
import { launchServer, type ServerProcess } from '../helpers/server-process.js';
import { processesStartingWith, waitUntil } from '../helpers/processes.js';
import { alive, measured as probeHealth } from '../helpers/health-probe.js';

const FIXTURES = path.resolve(import.meta.dirname, '../fixtures/mcp');
const HOSTILE = path.join(FIXTURES, 'hostile-server.mjs');
/** The longest stall any attack here may cause. */
const STALL_BOUND_MS = 1000;
/** A probe that waits this long has met a stalled server: the attack is given up as failed. */
const GIVE_UP_MS = 15_000;
/** What a call past the deadline may take beyond it (the turn's own work, a busy two-core machine). */
const SLACK_MS = 4000;
/** Starting the replacement thread after an overrun (from source, under tsx, on a busy machine). */
const RESTART_MS = 1500;
const DEADLINE_S = SCHEMA_CHECK_DEADLINE_MS / 1000;
const LONG = 'a'.repeat(40) + 'b';

vi.setConfig({ testTimeout: 120_000 });

let running: ServerProcess[] = [];
let dirs: string[] = [];
afterEach(async () => {
  await Promise.all(running.map((r) => r.kill()));
  running = [];
  await Promise.all(dirs.map((d) => fs.rm(d, { recursive: true, force: true })));
  dirs = [];
  expect(await waitUntil(async () => (await processesStartingWith(SIGNATURE.join('\u0000'))).length, (n) => n === 0)).toBe(0);
});

const stalls: Record<string, number> = {};
afterAll(() => {
  if (Object.keys(stalls).length > 0) console.info(`longest stall of the schema attacks: ${Math.max(...Object.values(stalls))} ms`);
});
function noteStall(what: string, ms: number): void {
  stalls[what] = Math.round(ms);
  console.info(`event-loop stall during ${what}: ${Math.round(ms)} ms`);
}

async function launch(): Promise<ServerProcess> {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'norma-schema-bounds-'));
  dirs.push(dataDir);
  const r = await launchServer({ NORMA_DATA_DIR: dataDir, NORMA_SANDBOX: 'bwrap', NORMA_MCP_READ_ONLY_ROOTS: FIXTURES });
  running.push(r);
  return r;
}

/**
 * Started with a flag of no effect so that its processes are told apart from those of
 * mcp-hostile.test.ts (each file checks that its own are gone, and the files may run at once).
 */
const SIGNATURE = ['node', '--no-warnings', HOSTILE];
/** /healthz unanswered for GIVE_UP_MS fails the attack at once. */
const measured = <T,>(r: ServerProcess, attack: () => Promise<T>) => probeHealth(r, attack, GIVE_UP_MS);
const hostile = (mode: string) => ({ command: 'node', args: [...SIGNATURE.slice(1), mode], read_only_paths: [FIXTURES], startup_timeout_s: 20 });

type Block = { type: string; text?: string };
type Result = { is_error: boolean; content: Block[] };
const textOf = (result: Result) => result.content.map((c) => c.text ?? `[${c.type}]`).join('\n');

async function turn(r: ServerProcess, sessionId: string, toolUses: { name: string; input: unknown }[]): Promise<Result[]> {
  const res = await r.api.post(`/v1/sessions/${sessionId}/turns?wait=90`, { tool_uses: toolUses });
  expect(res.status).toBe(200);
  expect(res.body.status).toBe('completed');
  return res.body.results as Result[];
}
const call = async (r: ServerProcess, sessionId: string, name: string, input: unknown) => (await turn(r, sessionId, [{ name, input }]))[0]!;

const unchecked = (tool: string) =>
  new RegExp(`^mcp__h__${tool} was not called: checking the input against the server's input schema took longer than ${DEADLINE_S.toString().replace('.', '\\.')} s .*MCP server "h"'s input schema`);

const nested = (depth: number, leaf: unknown): unknown => {
  let v = leaf;
  for (let i = 0; i < depth; i++) v = [v];
  return v;
};

describe('input schemas from an MCP server are checked within a deadline, off the event loop', () => {
  it('each hostile schema ends its call as an is_error result within the deadline, before anyone is asked; the schemas are still enforced afterwards', async () => {
    const r = await launch();
    // No rule allows the tools: a call whose input passed would wait for a person.
    const created = await r.api.post('/v1/sessions', { mcp_servers: { h: hostile('schemas') } });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    const attacks: [string, unknown][] = [
      ['redos', { s: LONG }],
      ['redos-nested', { s: LONG }],
      ['patprops', { [LONG]: 'x' }],
      ['union', { v: nested(40, 'x') }],
    ];
    for (const [tool, input] of attacks) {
      const { value: result, ms, stallMs } = await measured(r, () => call(r, id, `mcp__h__${tool}`, input));
      noteStall(`a call of ${tool} with a hostile input (${Math.round(ms)} ms to its result)`, stallMs);
      expect(result.is_error).toBe(true);
      expect(textOf(result)).toMatch(unchecked(tool));
      expect(ms).toBeLessThan(SCHEMA_CHECK_DEADLINE_MS + SLACK_MS);
      expect(stallMs).toBeLessThan(STALL_BOUND_MS);
      await alive(r);
    }
    expect((await r.api.get(`/v1/sessions/${id}/permissions?status=pending`)).body.items).toEqual([]);

    // The same schemas, enforced as written: valid inputs run, invalid ones get ajv's message.
    const allowed = (await r.api.post('/v1/sessions', { mcp_servers: { h: hostile('schemas') }, allowed_tools: ['mcp__h'] })).body.id as string;
    const results = await turn(r, allowed, [
      { name: 'mcp__h__redos', input: { s: 'aaaa' } },
      { name: 'mcp__h__redos', input: { s: 'ab' } },
      { name: 'mcp__h__redos-nested', input: { s: 'aaa' } },
      { name: 'mcp__h__redos-nested', input: { s: 'b' } },
      { name: 'mcp__h__patprops', input: { aaa: 'x' } },
      { name: 'mcp__h__patprops', input: { aaa: 1 } },
      { name: 'mcp__h__union', input: { v: [[1], [[2]]] } },
      { name: 'mcp__h__union', input: { v: [['x']] } },
      { name: 'mcp__h__fine', input: { n: 1 } },
    ]);
    expect(results.map((x) => x.is_error)).toEqual([false, true, false, true, false, true, false, true, false]);
    expect(textOf(results[0]!)).toBe('ran redos');
    expect(textOf(results[1]!)).toMatch(/^Invalid input for mcp__h__redos: input\.s: must match pattern "\^\(a\|a\)\*\$"/);
    expect(textOf(results[3]!)).toMatch(/^Invalid input for mcp__h__redos-nested: input\.s: must match pattern "\^\(a\+\)\+\$"/);
    expect(textOf(results[5]!)).toMatch(/^Invalid input for mcp__h__patprops: input\.aaa: must be string/);
    expect(textOf(results[7]!)).toMatch(/^Invalid input for mcp__h__union: .*input\.v\.0\.0: must be integer/);
    expect(textOf(results[8]!)).toBe('fine ran');
    await alive(r);
  });

  it('a schema that takes too long to compile leaves out that tool with a warning, within the deadline; the server\'s other tools work', async () => {
    const r = await launch();
    // The server's first MCP session loads the modules MCP needs: not part of the attack.
    expect((await r.api.post('/v1/sessions', { mcp_servers: { h: hostile('ok') } })).status).toBe(201);
    const { value: created, ms, stallMs } = await measured(r, () => r.api.post('/v1/sessions', { mcp_servers: { h: hostile('slow-schema') }, allowed_tools: ['mcp__h'] }));
    noteStall(`compiling a schema that inlines one definition 1,000 times (${Math.round(ms)} ms to the session)`, stallMs);
    expect(created.status).toBe(201);
    expect(JSON.stringify(created.body.warnings)).toContain(`the input schema took longer than ${DEADLINE_S} s to compile`);
    expect(stallMs).toBeLessThan(STALL_BOUND_MS);
    const id = created.body.id as string;
    expect(textOf(await call(r, id, 'mcp__h__fine', { n: 2 }))).toBe('fine ran');
    const bad = await call(r, id, 'mcp__h__fine', { n: 'two' });
    expect(textOf(bad)).toMatch(/^Invalid input for mcp__h__fine: input\.n: must be integer/);
    const gone = await call(r, id, 'mcp__h__inlined', {});
    expect(gone.is_error).toBe(true);
    expect(textOf(gone)).toMatch(/^Unknown tool "mcp__h__inlined"/);
    // A second session with the same server gets the refusal at once, not after another deadline.
    const again = await measured(r, () => r.api.post('/v1/sessions', { mcp_servers: { h: hostile('slow-schema') } }));
    expect(again.value.status).toBe(201);
    expect(again.ms).toBeLessThan(SCHEMA_CHECK_DEADLINE_MS);
    await alive(r);
  });

  it('many hostile calls at once cost one deadline each; another session is served meanwhile; the server goes on', async () => {
    const r = await launch();
    const id = (await r.api.post('/v1/sessions', { mcp_servers: { h: hostile('schemas') }, allowed_tools: ['mcp__h'] })).body.id as string;
    const other = (await r.api.post('/v1/sessions', {})).body.id as string;
    const calls = [...Array.from({ length: 6 }, () => ({ name: 'mcp__h__redos-nested', input: { s: LONG } })), { name: 'mcp__h__fine', input: { n: 3 } }];
    let otherMs = 0;
    const { value: results, ms, stallMs } = await measured(r, async () => {
      const attack = turn(r, id, calls);
      // While the attack's checks wait their turn, a plain turn of another session runs.
      await new Promise((done) => setTimeout(done, 500));
      const t0 = performance.now();
      const plain = await turn(r, other, [{ name: 'LS', input: { path: '.' } }]);
      otherMs = performance.now() - t0;
      expect(plain[0]!.is_error).toBe(false);
      return attack;
    });
    noteStall(`6 hostile calls in one turn (${Math.round(ms)} ms to the turn's end; another session's turn meanwhile: ${Math.round(otherMs)} ms)`, stallMs);
    expect(results.slice(0, 6).every((x) => x.is_error && unchecked('redos-nested').test(textOf(x)))).toBe(true);
    expect(textOf(results[6]!)).toBe('fine ran');
    expect(ms).toBeLessThan(6 * (SCHEMA_CHECK_DEADLINE_MS + RESTART_MS) + SLACK_MS);
    expect(otherMs).toBeLessThan(STALL_BOUND_MS);
    expect(stallMs).toBeLessThan(STALL_BOUND_MS);
    const after = await turn(r, id, [{ name: 'mcp__h__redos-nested', input: { s: 'aaaa' } }, { name: 'mcp__h__redos-nested', input: { s: 'aab' } }]);
    expect(after.map((x) => x.is_error)).toEqual([false, true]);
    expect(textOf(after[1]!)).toMatch(/must match pattern/);
    await alive(r);
  });
});
