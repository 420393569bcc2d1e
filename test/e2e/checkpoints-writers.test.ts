// Every writer of a workspace is seen by the checkpoints: a PTY shell's program, including what
// it writes after its call returned (the next checkpoint has it), and an MCP server from the npm
// registry (server-filesystem, in the sandbox); binary content, a rename and a rewind of both.
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { closeAll, startServer, type TestServer } from '../helpers/server.js';

const NODE_MODULES = await fs.realpath(path.resolve(import.meta.dirname, '../../node_modules'));
const FILESYSTEM = path.join(NODE_MODULES, '@modelcontextprotocol/server-filesystem/dist/index.js');

let servers: TestServer[] = [];
afterEach(async () => {
  await closeAll(servers);
});

async function run(t: TestServer, sid: string, toolUses: { id?: string; name: string; input: unknown }[]) {
  const res = await t.api.post(`/v1/sessions/${sid}/turns?wait=15`, { tool_uses: toolUses });
  expect(res.body.status, JSON.stringify(res.body)).toBe('completed');
  for (const r of res.body.results) expect(r.is_error ?? false, JSON.stringify(r)).toBe(false);
  return res.body as { id: string; results: { content: { text: string }[] }[] };
}

const completedOf = async (t: TestServer, sid: string, id: string) =>
  ((await t.api.get(`/v1/sessions/${sid}/export`)).body.events as Record<string, any>[]).find((e) => e.type === 'tool.completed' && e.tool_use_id === id)!;

async function until(check: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error('condition not reached');
}

describe('checkpoints see every writer', () => {
  it('a PTY shell: what its program writes, during the call and after it, binary and renamed', async () => {
    const t = await startServer();
    servers.push(t);
    const s = (await t.api.post('/v1/sessions', { permission_mode: 'bypassPermissions', tools: ['ShellOpen', 'ShellWrite', 'ShellRead', 'ShellClose'] })).body;
    const opened = await run(t, s.id, [{ name: 'ShellOpen', input: {} }]);
    const shellId = /shell_[A-Za-z0-9_-]+/.exec(opened.results[0]!.content[0]!.text)![0];
    await run(t, s.id, [{ id: 'p1', name: 'ShellWrite', input: { shell_id: shellId, input: 'printf "\\000\\001\\002" > blob.bin; echo hi > old.txt\r' } }]);
    await until(async () => (await fs.stat(path.join(s.workspace, 'old.txt')).catch(() => null)) !== null);
    // The program writes after the call returned: the next checkpoint has it (not the call's).
    const late = await run(t, s.id, [{ id: 'p2', name: 'ShellWrite', input: { shell_id: shellId, input: 'sleep 0.3; mv old.txt new.txt\r' } }]);
    await until(async () => (await fs.stat(path.join(s.workspace, 'new.txt')).catch(() => null)) !== null);
    const next = await run(t, s.id, [{ name: 'ShellRead', input: { shell_id: shellId } }]);

    const list = (await t.api.get(`/v1/sessions/${s.id}/checkpoints`)).body.items as { id: string; turn_id: string; reason: string }[];
    const lateEnd = list.filter((c) => c.turn_id === late.id).at(-1)!;
    const nextStart = list.find((c) => c.turn_id === next.id)!;
    const between = (await t.api.get(`/v1/sessions/${s.id}/changes?from=${lateEnd.id}&to=${nextStart.id}`)).body.files;
    expect(between.map((f: { path: string; status: string }) => `${f.status} ${f.path}`)).toEqual(['added new.txt', 'deleted old.txt']);
    const all = (await t.api.get(`/v1/sessions/${s.id}/changes`)).body.files;
    expect(all.find((f: { path: string }) => f.path === 'blob.bin')).toMatchObject({ status: 'added', binary: true, additions: 0, deletions: 0 });
    const diff = await (await fetch(`${t.url}/v1/sessions/${s.id}/changes`, { headers: { accept: 'text/x-diff' } })).text();
    expect(diff).toContain('Binary files /dev/null and b/blob.bin differ');
    expect(diff).not.toContain('\u0001');

    // Back to before the shell wrote anything: all three go.
    await run(t, s.id, [{ name: 'ShellClose', input: { shell_id: shellId } }]);
    const first = list.find((c) => c.reason === 'before_call')!;
    const r = await t.api.post(`/v1/sessions/${s.id}/rewind`, { to: first.id });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.deleted).toEqual(['blob.bin', 'new.txt']);
    expect(await fs.readdir(s.workspace)).toEqual([]);
  });

  it('an MCP server (server-filesystem from the npm registry) writing through its own tools', async () => {
    const t = await startServer({ NORMA_SANDBOX: 'bwrap', NORMA_MCP_READ_ONLY_ROOTS: NODE_MODULES });
    servers.push(t);
    const created = await t.api.post('/v1/sessions', {
      mcp_servers: { fs: { command: 'node', args: [FILESYSTEM, '${NORMA_WORKSPACE}'], read_only_paths: [NODE_MODULES] } },
      allowed_tools: ['mcp__fs__write_file', 'mcp__fs__move_file'],
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const s = created.body;
    const tr = await run(t, s.id, [
      { id: 'm1', name: 'mcp__fs__write_file', input: { path: path.join(s.workspace, 'notes.txt'), content: 'written by MCP\nline two\n' } },
      { id: 'm2', name: 'mcp__fs__move_file', input: { source: path.join(s.workspace, 'notes.txt'), destination: path.join(s.workspace, 'moved.txt') } },
    ]);
    expect((await completedOf(t, s.id, 'm1')).changes.files).toMatchObject([{ path: 'notes.txt', status: 'added', additions: 2 }]);
    expect((await completedOf(t, s.id, 'm2')).changes.files.map((f: { path: string; status: string }) => `${f.status} ${f.path}`)).toEqual([
      'added moved.txt',
      'deleted notes.txt',
    ]);
    const r = await t.api.post(`/v1/sessions/${s.id}/rewind`, { to: tr.id });
    expect(r.body.deleted).toEqual(['moved.txt']);
    expect(await fs.readdir(s.workspace)).toEqual([]);
  });
});
