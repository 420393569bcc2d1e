// What a sandboxed process can learn about the server, through a real server process that holds
// secrets in its environment: no secret by any /proc path, no descriptor of the server or of
// another session, no host path in the sandbox's command lines — for Bash, background tasks,
// PTY shells and command hooks alike.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchServer, type ServerProcess } from '../helpers/server-process.js';

const secret = (label: string) => `${label}-${randomBytes(12).toString('hex')}`;
const SECRETS = { token: secret('tok'), modelKey: secret('sk-model'), cloud: secret('cloud') };

let server: ServerProcess;
let dataDir: string;
beforeAll(async () => {
  dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'norma-isolation-'));
  server = await launchServer(
    {
      NORMA_DATA_DIR: dataDir,
      NORMA_TOKEN: SECRETS.token,
      NORMA_MODEL_PROVIDER: 'openai',
      NORMA_MODEL: 'm',
      NORMA_MODEL_BASE_URL: 'http://127.0.0.1:9/v1',
      NORMA_MODEL_API_KEY: SECRETS.modelKey,
      CLOUD_SECRET_ACCESS_KEY: SECRETS.cloud,
    },
    SECRETS.token,
    { inheritExtraFd: true },
  );
}, 30_000);
afterAll(async () => {
  await server?.kill();
  await fs.rm(dataDir, { recursive: true, force: true });
});

/** Everything /proc shows of every process in the sandbox: environments, command lines, descriptors. */
const SCAN = [
  'for p in /proc/[0-9]*; do',
  '  echo "== $p"; tr "\\0" "\\n" < $p/environ 2>&1; echo "-- cmdline: $(tr "\\0" " " < $p/cmdline 2>&1)"',
  '  for f in $p/fd/*; do echo "fd ${f##*/} -> $(readlink $f 2>&1)"; done',
  'done',
  'env',
].join('\n');

function expectNoSecret(text: string): void {
  for (const v of Object.values(SECRETS)) expect(text).not.toContain(v);
  expect(text).not.toMatch(/NORMA_(TOKEN|MODEL_API_KEY|DATA_DIR)=/);
}

/** The command lines found, without the scanning command's own text. */
function cmdlines(text: string): string[] {
  return [...text.matchAll(/^-- cmdline: (.*)$/gm)].map((m) => m[1]!).filter((l) => !l.includes('for p in /proc'));
}

async function session(body: Record<string, unknown> = {}): Promise<{ id: string; workspace: string }> {
  const res = await server.api.post('/v1/sessions', body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

async function turn(sessionId: string, tool_uses: { name: string; input: unknown }[]) {
  const t = (await server.api.post(`/v1/sessions/${sessionId}/turns?wait=30`, { tool_uses })).body;
  expect(t.status, JSON.stringify(t)).toBe('completed');
  return t.results.map((r: { content: { text: string }[] }) => r.content.map((c) => c.text).join('\n')) as string[];
}

describe('the server environment stays out of every sandboxed process', () => {
  it('cat /proc/1/environ auto-runs in default mode and shows nothing; PID 1 shows no host path', async () => {
    const s = await session();
    const [environ, cmdline] = await turn(s.id, [
      { name: 'Bash', input: { command: 'cat /proc/1/environ | wc -c' } },
      { name: 'Bash', input: { command: "tr '\\0' ' ' < /proc/1/cmdline" } },
    ]);
    const bypass = await session({ permission_mode: 'bypassPermissions' });
    const [fds] = await turn(bypass.id, [{ name: 'Bash', input: { command: 'ls /proc/self/fd' } }]);
    expect(environ).toBe('0\n\nExit code 0.');
    expect(cmdline).toMatch(/^\S*bwrap --args 4 -- \/bin\/bash -c tr/);
    expect(cmdline).not.toContain(dataDir);
    expect(cmdline).not.toContain('--bind');
    // 0-2 and the directory ls itself reads: the server's inherited pipe (fd 3) is not there.
    expect(fds).toBe('0\n1\n2\n3\n\nExit code 0.');
  });

  it('Bash, a background task, a PTY shell and a command hook each see no secret and no host path', async () => {
    const s = await session({
      permission_mode: 'bypassPermissions',
      tools: ['Bash', 'TaskOutput', 'ShellOpen', 'ShellWrite', 'ShellRead'],
      hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: `{ ${SCAN}\n} > hook-scan.txt 2>&1` }] }] },
    });
    const [bash] = await turn(s.id, [{ name: 'Bash', input: { command: SCAN } }]);
    const [started] = await turn(s.id, [{ name: 'Bash', input: { command: SCAN, run_in_background: true } }]);
    const taskId = /task_[A-Za-z0-9_-]+/.exec(started!)![0];
    const [task] = await turn(s.id, [{ name: 'TaskOutput', input: { task_id: taskId, block: true, timeout: 20_000 } }]);
    const [opened] = await turn(s.id, [{ name: 'ShellOpen', input: {} }]);
    const shellId = /shell_[A-Za-z0-9_-]+/.exec(opened!)![0];
    await fs.writeFile(path.join(s.workspace, 'scan.sh'), `${SCAN}\necho SCAN-DONE\n`);
    await turn(s.id, [{ name: 'ShellWrite', input: { shell_id: shellId, input: 'bash scan.sh > pty-scan.txt 2>&1\r' } }]);
    let pty = '';
    for (let i = 0; i < 100 && !pty.includes('SCAN-DONE'); i++) {
      await new Promise((r) => setTimeout(r, 100));
      pty = await fs.readFile(path.join(s.workspace, 'pty-scan.txt'), 'utf8').catch(() => '');
    }
    const hook = await fs.readFile(path.join(s.workspace, 'hook-scan.txt'), 'utf8');
    for (const [where, text] of Object.entries({ bash: bash!, task: task!, pty, hook })) {
      expect(text, where).toContain('== /proc/1');
      expectNoSecret(text);
      for (const line of cmdlines(text)) expect(line, `${where}: ${line}`).not.toContain(dataDir);
      // Every descriptor of every process inside: standard streams, pipes, the pty, the eventfd of
      // bwrap's init, a directory being listed — never a file or socket of the server.
      for (const m of text.matchAll(/^fd (\d+) -> (.*)$/gm)) {
        const target = m[2]!.startsWith(`${s.workspace}/`) ? 'workspace file' : m[2]!;
        expect(target, `${where}: fd ${m[1]} -> ${m[2]}`).toMatch(/^(workspace file|socket:|pipe:|\/dev\/(null|pts\/\d+|ptmx)|anon_inode:|\/proc\/\d+\/fd|.*No such file)/);
      }
    }
  });

  it('the data directory (but the path to the workspace), other workspaces and the host home are not there', async () => {
    const other = await session();
    const s = await session({ permission_mode: 'bypassPermissions' });
    const [out] = await turn(s.id, [
      { name: 'Bash', input: { command: `ls ${dataDir} ${other.workspace} ${path.join(dataDir, 'norma.db')} /root 2>&1; cat ${path.join(dataDir, 'norma.db')} 2>&1 | head -c 100` } },
    ]);
    // The workspace is mounted at its own path: the directories leading to it exist, empty of the rest.
    expect(out).toContain(`${dataDir}:\nworkspaces\n`);
    expect(out).toContain(`ls: cannot access '${other.workspace}': No such file or directory`);
    expect(out).toContain(`ls: cannot access '${path.join(dataDir, 'norma.db')}': No such file or directory`);
    expect(out).toContain(`cat: ${path.join(dataDir, 'norma.db')}: No such file or directory`);
    expect(out).not.toContain('SQLite format');
  });
});

describe('no configuration is taken from the workspace', () => {
  it('a planted .gitconfig, .profile or .bashrc runs nothing, read-only git and login shells included', async () => {
    const s = await session({ permission_mode: 'bypassPermissions' });
    const w = s.workspace;
    const plant = (marker: string) => `touch ${w}/PWNED-${marker}`;
    await fs.writeFile(path.join(w, '.gitconfig'), `[core]\n\tfsmonitor = "${plant('fsmonitor')}; echo"\n\tpager = ${plant('pager')}\n[diff]\n\texternal = ${plant('diff')}\n`);
    await fs.writeFile(path.join(w, '.profile'), `${plant('profile')}\n`);
    await fs.writeFile(path.join(w, '.bashrc'), `${plant('bashrc')}\n`);
    await fs.writeFile(path.join(w, '.inputrc'), '"\\C-m": "touch PWNED-inputrc\\n"\n');
    await fs.writeFile(path.join(w, 'f.txt'), 'one\n');
    // Written as a command would have: the workspace's owner (a root server's sandbox user) owns it.
    const owner = await fs.stat(w);
    await fs.chown(path.join(w, 'f.txt'), owner.uid, owner.gid);
    // The git configuration in the session's home too, as an approved command could put it there:
    // git reads no global file at all.
    await turn(s.id, [{ name: 'Bash', input: { command: 'git init -q . && git add f.txt && git -c user.email=a@b -c user.name=n commit -qm x && echo two >> f.txt && cp .gitconfig ~/' } }]);
    const [out] = await turn(s.id, [{ name: 'Bash', input: { command: 'git status --short; git diff --stat; git log --oneline | wc -l; echo HOME=$HOME; bash -lc true; bash -ic true 2>/dev/null; ls -A' } }]);
    expect(out).toContain('HOME=/home/sandbox');
    expect(out).toMatch(/M f\.txt/);
    expect(out).toMatch(/f\.txt \| 1 \+/);
    expect((await fs.readdir(w)).filter((f) => f.startsWith('PWNED-'))).toEqual([]);
  });
});

describe('descriptors never cross sessions', () => {
  it('a command cannot write into another session\'s PTY shell through an inherited master', async () => {
    const a = await session({ permission_mode: 'bypassPermissions', tools: ['ShellOpen', 'ShellWrite', 'ShellRead'] });
    const [opened] = await turn(a.id, [{ name: 'ShellOpen', input: {} }]);
    const shellId = /shell_[A-Za-z0-9_-]+/.exec(opened!)![0];
    const b = await session({ permission_mode: 'bypassPermissions' });
    // Every descriptor number a leaked master could have: each write must fail.
    // (a fresh sh per number: bash's own saved copies of its standard streams are not leaks)
    const attack = `for n in $(seq 3 255); do sh -c "printf 'touch PWNED-$n\\r' >&$n" 2>/dev/null && echo "wrote $n"; done; ls /proc/self/fd | wc -l`;
    const [out] = await turn(b.id, [{ name: 'Bash', input: { command: attack } }]);
    expect(out).toBe('4\n\nExit code 0.');
    await turn(a.id, [{ name: 'ShellWrite', input: { shell_id: shellId, input: 'echo ali""ve\r' } }]);
    // Read until the echo arrives (the prompt may come first).
    let read = '';
    for (let i = 0; i < 20 && !read.includes('alive\r\n'); i++) {
      read += (await turn(a.id, [{ name: 'ShellRead', input: { shell_id: shellId, wait_ms: 1000, strip_ansi: true } }]))[0];
    }
    expect(read).toContain('alive');
    expect(read).not.toContain('PWNED');
    expect((await fs.readdir(a.workspace)).filter((f) => f.startsWith('PWNED'))).toEqual([]);
  });
});
