// A server running as root runs its sandboxed processes as an unprivileged user, so the kernel
// refuses them a root-only file made after start-up — which no mask made earlier knows of —
// for Bash, background tasks, PTY shells and command hooks alike; and what the server makes and
// writes in a workspace stays writable for them. Without root this cannot be shown (the server
// would not change users) and the tests are skipped, saying so.
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { RlimitBackend } from '../../src/sandbox/limits.js';
import { SandboxHost, findBwrap } from '../../src/sandbox/process.js';
import { startServer, type TestServer } from '../helpers/server.js';

const ROOT = process.getuid?.() === 0;
const NEEDS_ROOT = 'needs root: only a server running as root runs its sandboxes as another user';
const NOBODY = { uid: 65534, gid: 65534 };

let t: TestServer | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

async function turn(sessionId: string, tool_uses: { name: string; input: unknown }[]): Promise<string[]> {
  const res = (await t!.api.post(`/v1/sessions/${sessionId}/turns?wait=30`, { tool_uses })).body;
  expect(res.status, JSON.stringify(res)).toBe('completed');
  return res.results.map((r: { content: { text: string }[] }) => r.content.map((c) => c.text).join('\n'));
}

/** Waits for a file a process inside writes (a PTY shell answers on its own time). */
async function fileText(file: string, done: (s: string) => boolean): Promise<string> {
  let text = '';
  for (let i = 0; i < 100 && !done(text); i++) {
    text = await fs.readFile(file, 'utf8').catch(() => '');
    if (!done(text)) await new Promise((r) => setTimeout(r, 100));
  }
  return text;
}

describe('a root server runs its sandboxes unprivileged', () => {
  it('a root-only file made after start-up is refused to Bash, a background task, a PTY shell and a command hook; each runs as the sandbox user', async ({ skip }) => {
    skip(!ROOT, NEEDS_ROOT);
    t = await startServer();
    const s = (
      await t.api.post('/v1/sessions', {
        permission_mode: 'bypassPermissions',
        tools: ['Bash', 'TaskOutput', 'ShellOpen', 'ShellWrite', 'ShellRead'],
        hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'id -u > hook-uid.txt; cat secret.key > hook-cat.txt 2>&1; true' }] }] },
      })
    ).body;
    // Made now, long after the sandbox's system scan: root's, readable by root alone.
    const secret = path.join(s.workspace, 'secret.key');
    await fs.writeFile(secret, 'ROOT-ONLY-CONTENT\n', { mode: 0o600 });
    await fs.chown(secret, 0, 0);

    const [bash] = await turn(s.id, [{ name: 'Bash', input: { command: 'id -u; id -G; cat secret.key; touch made-by-bash' } }]);
    expect(bash).toMatch(/^65534\n65534\n/);
    expect(bash).toContain('cat: secret.key: Permission denied');
    expect(bash).not.toContain('ROOT-ONLY-CONTENT');
    // The kernel's word on who ran: the owner of what the command made.
    expect(await fs.stat(path.join(s.workspace, 'made-by-bash'))).toMatchObject(NOBODY);
    expect(await fs.readFile(path.join(s.workspace, 'hook-uid.txt'), 'utf8')).toBe('65534\n');
    expect(await fs.readFile(path.join(s.workspace, 'hook-cat.txt'), 'utf8')).toContain('Permission denied');

    const [started] = await turn(s.id, [{ name: 'Bash', input: { command: 'id -u; cat secret.key; touch made-by-task', run_in_background: true } }]);
    const taskId = /task_[A-Za-z0-9_-]+/.exec(started!)![0];
    const [task] = await turn(s.id, [{ name: 'TaskOutput', input: { task_id: taskId, block: true, timeout: 20_000 } }]);
    expect(task).toMatch(/^65534$/m);
    expect(task).toContain('cat: secret.key: Permission denied');
    expect(task).not.toContain('ROOT-ONLY-CONTENT');
    expect(await fs.stat(path.join(s.workspace, 'made-by-task'))).toMatchObject(NOBODY);

    const [opened] = await turn(s.id, [{ name: 'ShellOpen', input: {} }]);
    const shellId = /shell_[A-Za-z0-9_-]+/.exec(opened!)![0];
    await turn(s.id, [{ name: 'ShellWrite', input: { shell_id: shellId, input: '{ id -u; cat secret.key; echo PTY-DONE; } > pty.txt 2>&1\r' } }]);
    const pty = await fileText(path.join(s.workspace, 'pty.txt'), (x) => x.includes('PTY-DONE'));
    expect(pty).toMatch(/^65534\n/);
    expect(pty).toContain('Permission denied');
    expect(pty).not.toContain('ROOT-ONLY-CONTENT');
    expect(await fs.stat(path.join(s.workspace, 'pty.txt'))).toMatchObject(NOBODY);

    // The server's own readiness report says who sandboxes run as.
    const ready = (await t.api.get('/readyz')).body;
    expect(ready.checks.find((c: { name: string }) => c.name === 'sandbox').detail).toContain('processes run as nobody (uid 65534, gid 65534)');
  });

  it('what the server makes and writes in a workspace stays writable for commands: the workspace, Write and Edit, new directories', async ({ skip }) => {
    skip(!ROOT, NEEDS_ROOT);
    t = await startServer();
    const s = (await t.api.post('/v1/sessions', { permission_mode: 'bypassPermissions' })).body;
    expect(await fs.stat(s.workspace)).toMatchObject(NOBODY);
    await turn(s.id, [{ name: 'Write', input: { file_path: 'notes/today/plan.txt', content: 'one\n' } }]);
    for (const p of ['notes', 'notes/today', 'notes/today/plan.txt']) expect(await fs.stat(path.join(s.workspace, p)), p).toMatchObject(NOBODY);
    const [appended] = await turn(s.id, [{ name: 'Bash', input: { command: 'echo two >> notes/today/plan.txt && touch notes/today/more && echo appended' } }]);
    expect(appended).toContain('appended');
    await turn(s.id, [{ name: 'Read', input: { file_path: 'notes/today/plan.txt' } }]);
    await turn(s.id, [{ name: 'Edit', input: { file_path: 'notes/today/plan.txt', old_string: 'one', new_string: 'ONE' } }]);
    expect(await fs.stat(path.join(s.workspace, 'notes/today/plan.txt'))).toMatchObject(NOBODY);
    const [again] = await turn(s.id, [{ name: 'Bash', input: { command: 'echo three >> notes/today/plan.txt && cat notes/today/plan.txt' } }]);
    expect(again).toContain('ONE\ntwo\nthree\n');
  });

  it('without a user to drop to, a root server offers no shell tools and says why', async ({ skip }) => {
    skip(!ROOT, NEEDS_ROOT);
    const processSandbox = new SandboxHost({ mode: 'bwrap', bwrapPath: findBwrap(), limits: new RlimitBackend('test'), identity: { kind: 'unusable', reason: 'no unprivileged user to run sandboxed processes as' } });
    t = await startServer({}, { processSandbox });
    const sandbox = (await t.api.get('/readyz')).body.checks.find((c: { name: string }) => c.name === 'sandbox');
    expect(sandbox).toMatchObject({ ok: false, required: false });
    expect(sandbox.detail).toContain('no unprivileged user to run sandboxed processes as: shell tools (Bash, background tasks, PTY shells)');
    const refused = await t.api.post('/v1/sessions', { tools: ['Bash'] });
    expect(refused.status).toBe(400);
    const s = (await t.api.post('/v1/sessions', {})).body;
    expect(s.tools).not.toContain('Bash');
  });
});
