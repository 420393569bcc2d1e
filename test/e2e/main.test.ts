// The real process entry: refuses unsafe configuration at start-up, serves on the port it
// logs, and exits 0 on SIGTERM after closing sessions.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
let dirs: string[] = [];
let children: { child: ChildProcess; exited: Promise<unknown> }[] = [];
const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');
afterEach(async () => {
  // A test that failed half-way leaves no server behind.
  for (const { child } of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await Promise.all(children.map((c) => c.exited));
  children = [];
  await Promise.all(dirs.map((d) => fs.rm(d, { recursive: true, force: true })));
  dirs = [];
});

async function launch(env: Record<string, string>) {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'norma-main-'));
  dirs.push(dataDir);
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'src/main.ts')], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', NORMA_DATA_DIR: dataDir, PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  children.push({ child, exited });
  return { child, exited, out: () => stdout, err: () => stderr };
}

/** The URL the process logs once it listens (waits up to 40 s: a loaded machine starts tsx slowly). */
async function listeningUrl(out: () => string): Promise<string> {
  const deadline = Date.now() + 40_000;
  for (;;) {
    const url = /"url":"(http:\/\/127\.0\.0\.1:\d+)"/.exec(out())?.[1];
    if (url) return url;
    if (Date.now() > deadline) throw new Error(`the server logged no URL: ${out()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The first JSON log line `match` accepts (waits up to 30 s). */
async function logLine(out: () => string, match: (line: { level: number; msg: string; [k: string]: unknown }) => boolean) {
  const deadline = Date.now() + 30_000;
  for (;;) {
    for (const text of out().split('\n')) {
      if (!text.startsWith('{')) continue;
      const line = JSON.parse(text) as { level: number; msg: string };
      if (match(line)) return line as { level: number; msg: string; [k: string]: unknown };
    }
    if (Date.now() > deadline) throw new Error(`no such log line: ${out()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

// Each test starts a real process (tsx compiles on start): more time than the default.
describe('process entry', { timeout: 90_000 }, () => {
  it('refuses a non-loopback HOST without NORMA_TOKEN, naming the variables', async () => {
    const p = await launch({ HOST: '0.0.0.0' });
    expect(await p.exited).toBe(2);
    expect(p.err()).toMatch(/HOST=0\.0\.0\.0 is not a loopback address: set NORMA_TOKEN/);
  });

  it('refuses a bad value, naming the variable and what is allowed', async () => {
    const p = await launch({ NORMA_SANDBOX: 'docker' });
    expect(await p.exited).toBe(2);
    expect(p.err()).toContain('NORMA_SANDBOX must be "bwrap" or "off", got "docker"');
  });

  it('refuses to start on a corrupt database, naming the file and the cause', async () => {
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'norma-main-'));
    dirs.push(dataDir);
    await fs.writeFile(path.join(dataDir, 'norma.db'), 'not a database at all; '.repeat(200));
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'src/main.ts')], {
      cwd: root,
      env: { PATH: process.env.PATH ?? '', NORMA_DATA_DIR: dataDir, PORT: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
    expect(code).toBe(3);
    expect(stderr).toContain(`cannot use the database ${path.join(dataDir, 'norma.db')}`);
    expect(stderr).toMatch(/not a database/);
  });

  it('logs the URL it listens on, serves, and exits 0 on SIGTERM', async () => {
    const p = await launch({});
    const url = await listeningUrl(p.out);
    const created = await fetch(`${url}/v1/sessions`, { method: 'POST' });
    expect(created.status).toBe(201);
    // bubblewrap, ripgrep and socat are installed here: no warning.
    expect((await logLine(p.out, (l) => l.msg === 'sandbox ready')).level).toBe(30);
    expect(p.out()).not.toContain('not everything can run here');
    p.child.kill('SIGTERM');
    expect(await p.exited).toBe(0);
    expect(p.out()).toContain('shutting down');
  });

  it('warns once at start-up when bubblewrap and ripgrep are missing: what, what it disables, how to install', async () => {
    // A PATH with neither bwrap nor rg (node itself is started by its absolute path).
    const bare = await fs.mkdtemp(path.join(os.tmpdir(), 'norma-path-'));
    dirs.push(bare);
    const p = await launch({ PATH: bare, NORMA_LOG_LEVEL: 'info' });
    const url = await listeningUrl(p.out);
    const warning = await logLine(p.out, (l) => l.msg.startsWith('not everything can run here'));
    expect(warning.level).toBe(40);
    expect(warning.msg).toContain('sandbox: bubblewrap (bwrap) not found on PATH: shell tools (Bash, background tasks, PTY shells)');
    expect(warning.msg).toContain('(apt-get install bubblewrap)');
    expect(warning.msg).toContain('search: ripgrep (rg) not found on PATH: Grep uses the slower built-in search');
    expect(warning.msg).toContain('(apt-get install ripgrep)');
    expect((warning.checks as { name: string }[]).map((c) => c.name)).toEqual(['sandbox', 'search']);
    expect(p.out()).not.toContain('"msg":"sandbox ready"');
    // /readyz says the same, and the server is ready: neither is required.
    const ready = await fetch(`${url}/readyz`).then((r) => r.json() as Promise<{ status: string; checks: { name: string; ok: boolean; detail: string }[] }>);
    expect(ready.status).toBe('ready');
    expect(ready.checks.find((c) => c.name === 'search')).toMatchObject({ ok: false, detail: expect.stringContaining('apt-get install ripgrep') });
    p.child.kill('SIGTERM');
    expect(await p.exited).toBe(0);
  });

  it('with NORMA_SANDBOX=off and no ripgrep, the warning names ripgrep alone', async () => {
    const bare = await fs.mkdtemp(path.join(os.tmpdir(), 'norma-path-'));
    dirs.push(bare);
    const p = await launch({ PATH: bare, NORMA_SANDBOX: 'off', NORMA_LOG_LEVEL: 'info' });
    await listeningUrl(p.out);
    const warning = await logLine(p.out, (l) => l.msg.startsWith('not everything can run here'));
    expect(warning.level).toBe(40);
    expect((warning.checks as { name: string }[]).map((c) => c.name)).toEqual(['search']);
    expect(warning.msg).toBe(
      "not everything can run here (see /readyz): search: ripgrep (rg) not found on PATH: Grep uses the slower built-in search (no fast Grep); install Debian's ripgrep package (apt-get install ripgrep)",
    );
    p.child.kill('SIGTERM');
    expect(await p.exited).toBe(0);
  });

  it('reads NORMA_API_KEYS_FILE again on SIGHUP; a bad file keeps the keys in force and says so loudly', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'norma-keys-'));
    dirs.push(dir);
    const file = path.join(dir, 'keys.json');
    const [oldKey, newKey] = ['old-key-0123456789abcdef', 'new-key-0123456789abcdef'];
    const entry = (key: string) => [{ key_sha256: sha256(key), tenant: 'acme', scopes: ['read'] }];
    await fs.writeFile(file, JSON.stringify(entry(oldKey)));
    const p = await launch({ NORMA_API_KEYS_FILE: file, NORMA_SANDBOX: 'off' });
    const url = await listeningUrl(p.out);
    const status = (key: string) => fetch(`${url}/v1/sessions`, { headers: { authorization: `Bearer ${key}` } }).then((r) => r.status);
    const logged = async (text: string) => {
      for (let i = 0; i < 200 && !p.out().includes(text); i++) await new Promise((r) => setTimeout(r, 25));
      return p.out().includes(text);
    };
    expect(await status(oldKey)).toBe(200);

    await fs.writeFile(file, '[{"key_sha256": "not a hash", "tenant": "acme", "scopes": ["read"]}]');
    p.child.kill('SIGHUP');
    expect(await logged('API KEYS NOT RELOADED')).toBe(true);
    expect(await status(oldKey)).toBe(200);

    await fs.writeFile(file, JSON.stringify(entry(newKey)));
    p.child.kill('SIGHUP');
    expect(await logged('API keys reloaded')).toBe(true);
    expect(await status(oldKey)).toBe(401);
    expect(await status(newKey)).toBe(200);
    p.child.kill('SIGTERM');
    expect(await p.exited).toBe(0);
  });
});
