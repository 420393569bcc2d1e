// Bash inside the real process sandbox (bubblewrap): confinement, scrubbed environment, no
// network, no privileges, whole-tree kills, streaming and the cap.
import fs from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { execOne } from '../../../src/pipeline/exec-one.js';
import { findBwrap, SandboxHost } from '../../../src/sandbox/process.js';
import { RlimitBackend } from '../../../src/sandbox/limits.js';
import type { ProxyEvidence } from '../../../src/sandbox/net-proxy.js';
import { bashTool } from '../../helpers/tools.js';
import { pipelineHarness, type PipelineHarness } from '../../helpers/pipeline.js';
import { processesStartingWith } from '../../helpers/processes.js';

const bwrapPath = findBwrap();

let h: PipelineHarness;
let outside: string;
beforeEach(async () => {
  // CI installs bubblewrap; without it these tests must fail, not pass vacuously.
  expect(bwrapPath, 'bubblewrap (bwrap) must be installed for the sandbox tests').not.toBeNull();
  h = await pipelineHarness([bashTool], { sandbox: 'bwrap', capChars: 1000 });
  h.setMode('bypassPermissions');
  outside = await fs.mkdtemp(path.join(os.tmpdir(), 'norma-outside-'));
});
afterEach(async () => {
  await h.cleanup();
  await fs.rm(outside, { recursive: true, force: true });
});

const progress: string[] = [];
const run = async (command: string, extra: Record<string, unknown> = {}) => {
  h.env.onProgress = (_call, chunk) => progress.push(chunk);
  const { result } = await execOne({ id: 't', name: 'Bash', input: { command, ...extra } }, h.env);
  return { isError: result.is_error, text: result.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n'), result };
};

describe('Bash in the sandbox', () => {
  it('runs in the workspace, streams output as progress, and reports the exit code', async () => {
    progress.length = 0;
    const res = await run('echo hello; sleep 0.1; echo oops >&2; sleep 0.1; pwd; exit 3');
    expect(res.isError).toBe(true);
    expect(res.text).toBe(`hello\noops\n${await fs.realpath(h.dir)}\n\nExit code 3.`);
    expect(progress.join('')).toBe(`hello\noops\n${await fs.realpath(h.dir)}\n`);
    expect((await run('true')).text).toBe('Exit code 0.');
  });

  it('writes inside the workspace but nowhere else', async () => {
    const res = await run(`echo in > inside.txt; echo out > ${outside}/escape.txt; echo x > /etc/norma; echo y > /tmp/t && cat /tmp/t`);
    expect(await fs.readFile(path.join(h.dir, 'inside.txt'), 'utf8')).toBe('in\n');
    await expect(fs.stat(path.join(outside, 'escape.txt'))).rejects.toThrow();
    await expect(fs.stat('/etc/norma')).rejects.toThrow();
    expect(res.text).toMatch(/escape\.txt: (No such file or directory|Read-only file system)/);
    expect(res.text).toMatch(/\/etc\/norma: Read-only file system/);
    // A private /tmp: writable inside, invisible outside.
    expect(res.text).toMatch(/^y$/m);
  });

  it('sees none of the host environment, home directories or other data', async () => {
    process.env.NORMA_TEST_SECRET = 'sekrit-value';
    try {
      const res = await run('env | grep -q sekrit-value && echo LEAKED || echo clean; env | wc -l; ls -d /root /work /var 2>&1; ls -A /home; cat /etc/shadow | wc -c');
      expect(res.text).not.toContain('LEAKED');
      expect(res.text).toMatch(/^clean\n/);
      // Only the documented allowlist (12 variables) plus what bash itself sets (PWD, SHLVL, _).
      expect(res.text).toMatch(/^clean\n15\n/);
      for (const dir of ['/root', '/work', '/var']) expect(res.text, res.text).toContain(`ls: cannot access '${dir}': No such file or directory`);
      // /home holds the session's own home and nothing of the host's.
      expect(res.text).toMatch(/^sandbox$/m);
      expect(res.text).toMatch(/^0$/m);
    } finally {
      delete process.env.NORMA_TEST_SECRET;
    }
  });

  it('has no network: a loopback server on the host is unreachable', async () => {
    const server = http.createServer((_req, res) => res.end('reached'));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as { port: number }).port;
    try {
      const res = await run(`exec 3<>/dev/tcp/127.0.0.1/${port} && echo connected || echo refused`);
      expect(res.text).toContain('refused');
      expect(res.text).not.toContain('connected\n');
    } finally {
      server.close();
    }
  });

  it('reaches the network when the session allows it: HTTP through its egress proxy, never the host loopback directly', async () => {
    const server = http.createServer((_req, res) => res.end('reached'));
    await new Promise<void>((r) => server.listen(0, '127.0.0.2', r));
    const port = (server.address() as { port: number }).port;
    const evidence: ProxyEvidence[] = [];
    const net = await pipelineHarness([bashTool], { sandbox: 'bwrap', sandboxOptions: { network: true, egressAllow: ['127.0.0.2'], evidence } });
    net.setMode('bypassPermissions');
    try {
      const { result } = await execOne({ id: 'n', name: 'Bash', input: { command: `curl -s --max-time 10 http://127.0.0.2:${port}/; echo; exec 3<>/dev/tcp/127.0.0.2/${port} && echo connected || echo refused` } }, net.env);
      const text = result.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
      expect(text).toMatch(/^reached\n/);
      expect(text).toContain('refused');
      expect(text).not.toContain('connected\n');
      expect(evidence).toMatchObject([{ method: 'GET', url: `http://127.0.0.2:${port}/`, address: '127.0.0.2', status: 200, bytes: 7 }]);
    } finally {
      await net.cleanup();
      server.close();
    }
  });

  it('gives root inside no capabilities: it cannot remount or change the root', async () => {
    const res = await run('id -u; grep CapEff /proc/self/status; mount -o remount,rw / && echo REMOUNTED; touch /newfile && echo TOUCHED; true');
    expect(res.text).toMatch(/CapEff:\s+0+\n/);
    expect(res.text).not.toContain('REMOUNTED');
    expect(res.text).not.toContain('TOUCHED');
  });

  it('kills the whole process tree on timeout, leaving no orphan', async () => {
    const marker = `${Math.floor(Math.random() * 1e6)}.4242`;
    const pending = run(`sleep ${marker} & sleep ${marker} & (sleep ${marker}) & wait`, { timeout: 1500 });
    for (let i = 0; i < 70 && (await processesStartingWith(`sleep\u0000${marker}`)).length < 3; i++) await new Promise((r) => setTimeout(r, 20));
    expect(await processesStartingWith(`sleep\u0000${marker}`)).toHaveLength(3);
    const res = await pending;
    expect(res.isError).toBe(true);
    expect(res.text).toBe('Killed after the 1500 ms timeout (the whole process tree was stopped).');
    // Give the kernel a moment to reap the namespace.
    for (let i = 0; i < 50 && (await processesStartingWith(`sleep\u0000${marker}`)).length > 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect(await processesStartingWith(`sleep\u0000${marker}`)).toEqual([]);
  });

  it('kills the whole process tree on cancel, and answers at once', async () => {
    const marker = `${Math.floor(Math.random() * 1e6)}.4343`;
    const pending = run(`sleep ${marker} & sleep ${marker}; echo never`);
    for (let i = 0; i < 100 && (await processesStartingWith(`sleep\u0000${marker}`)).length < 2; i++) await new Promise((r) => setTimeout(r, 20));
    expect(await processesStartingWith(`sleep\u0000${marker}`)).toHaveLength(2);
    h.controller.abort(new Error('stop'));
    const res = await pending;
    expect(res.text).toBe('Cancelled: stop');
    for (let i = 0; i < 50 && (await processesStartingWith(`sleep\u0000${marker}`)).length > 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect(await processesStartingWith(`sleep\u0000${marker}`)).toEqual([]);
  });

  it('caps a runaway output while it streams, with structured truncation', async () => {
    const res = await run('yes 0123456789 | head -c 2000000; echo; echo done');
    expect((res.result.content[0] as { text: string }).text).toHaveLength(1000);
    expect(res.result.truncation).toMatchObject({ block_index: 0, shown_chars: 1000, total_chars: 2_000_006 });
    expect(res.text.endsWith('Exit code 0.')).toBe(true);
  });

  it('refuses unknown input fields', async () => {
    const res = await run('true', { shell: 'zsh' });
    expect(res.isError).toBe(true);
    expect(res.text).toContain('unknown property "shell" is not allowed');
  });
});

describe('Bash without a sandbox binary', () => {
  let bare: PipelineHarness;
  beforeAll(async () => {
    bare = await pipelineHarness([bashTool], { sandbox: new SandboxHost({ mode: 'bwrap', bwrapPath: null, limits: new RlimitBackend('test') }) });
    bare.setMode('bypassPermissions');
  });
  afterAll(async () => {
    await bare.cleanup();
  });

  it('never runs unsandboxed: the call fails', async () => {
    const { result } = await execOne({ id: 't', name: 'Bash', input: { command: 'echo ran > ran.txt' } }, bare.env);
    expect(result.is_error).toBe(true);
    expect((result.content[0] as { text: string }).text).toBe('Bash failed: the process sandbox (bubblewrap) is not available');
    await expect(fs.stat(path.join(bare.dir, 'ran.txt'))).rejects.toThrow();
  });
});

describe('Bash permissions through the command analyser', () => {
  let p: PipelineHarness;
  beforeEach(async () => {
    p = await pipelineHarness([bashTool], { sandbox: 'bwrap' });
  });
  afterEach(async () => {
    await p.cleanup();
  });
  const call = async (command: string) => {
    const { result } = await execOne({ id: 't', name: 'Bash', input: { command } }, p.env);
    return { isError: result.is_error, text: result.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n') };
  };

  it('runs read-only commands without asking', async () => {
    await fs.writeFile(path.join(p.dir, 'a.txt'), 'alpha\n');
    const res = await call('ls; cat a.txt | wc -l; git status 2>/dev/null || true');
    expect(res.text).toContain('a.txt\n');
    expect(p.asked).toEqual([]);
  });

  it('asks for commands that change things, including writing redirects and nested ones', async () => {
    for (const command of ['rm a.txt', 'echo hi > out.txt', 'ls; touch x', 'echo $(touch y)', 'find . -delete']) {
      p.answers.push({ behavior: 'deny', message: 'no' });
      const res = await call(command);
      expect(res.text, command).toBe('Permission denied by the user: no');
    }
    expect(p.asked.map((a) => a.reason)).toEqual(Array(5).fill('Bash needs approval'));
  });

  it('asks about a command it cannot account for — even when a rule allows Bash — and denies it in dontAsk', async () => {
    p.setRules({ allow: ['Bash'] });
    p.answers.push({ behavior: 'deny' });
    await call('$CMD x');
    expect(p.asked[0]!.reason).toMatch(/^the command could not be fully analysed \(/);
    // The same rule does allow an ordinary mutating command.
    await call('touch allowed.txt');
    expect(p.asked).toHaveLength(1);
    await expect(fs.stat(path.join(p.dir, 'allowed.txt'))).resolves.toBeTruthy();

    p.setMode('dontAsk');
    const denied = await call('eval "$(cat script)"');
    expect(denied.text).toMatch(/^Permission denied: dontAsk mode never asks, and the command could not be fully analysed/);
    expect((await call('ls')).isError).toBe(false);
  });

  it('plan mode runs read-only commands and denies the rest', async () => {
    p.setMode('plan');
    expect((await call('pwd')).isError).toBe(false);
    expect((await call('mkdir d')).text).toMatch(/^Permission denied: plan mode/);
  });
});
