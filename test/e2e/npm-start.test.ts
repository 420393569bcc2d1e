// `npm start` as a newcomer runs it, in a fresh copy of the project (its sources, the installed
// packages): the first start builds (tsc and the bundle) and serves; a second start with nothing
// changed does not build again; a changed source builds again. What it serves is the bundle, so a
// WebFetch of an HTML page (converted in the worker thread beside the bundle) is checked too.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const COPIED = ['src', 'routes', 'console', 'scripts', 'package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json'];

interface Started {
  child: ChildProcess;
  url: string;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<number | null>;
}

describe('npm start in a fresh copy', () => {
  let dir: string;
  let page: http.Server;
  let pageUrl: string;
  const running: Started[] = [];

  beforeAll(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'norma-npm-start-'));
    for (const name of COPIED) await fs.cp(path.join(root, name), path.join(dir, name), { recursive: true });
    await fs.symlink(path.join(root, 'node_modules'), path.join(dir, 'node_modules'));
    page = http.createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end('<html><head><title>Fresh</title></head><body><article><h1>Fresh start</h1><p>Served from the <b>bundle</b>.</p></article></body></html>');
    });
    await new Promise<void>((r) => page.listen(0, '127.0.0.1', r));
    pageUrl = `http://127.0.0.1:${(page.address() as AddressInfo).port}/page`;
  });

  afterAll(async () => {
    for (const s of running) if (s.child.exitCode === null && s.child.signalCode === null) s.child.kill('SIGKILL');
    await Promise.all(running.map((s) => s.exited));
    await new Promise((r) => page?.close(r));
    if (dir) await fs.rm(dir, { recursive: true, force: true });
  });

  async function npmStart(): Promise<Started> {
    const dataDir = path.join(dir, `data-${running.length}`);
    const child = spawn('npm', ['start', '--silent'], {
      cwd: dir,
      // Its own process group: npm runs the server as its child, and both are stopped together.
      detached: true,
      env: { PATH: process.env.PATH ?? '', HOME: dir, NORMA_DATA_DIR: dataDir, PORT: '0', NORMA_SANDBOX: 'off', NORMA_EGRESS_ALLOW: '127.0.0.1', npm_config_update_notifier: 'false' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout!.on('data', (d) => (out += d));
    child.stderr!.on('data', (d) => (err += d));
    // `close`: every holder of the output pipes is gone — npm and the server it started.
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    const deadline = Date.now() + 120_000;
    for (;;) {
      const url = /"url":"(http:\/\/127\.0\.0\.1:\d+)"/.exec(out)?.[1];
      if (url) {
        const started = { child, url, stdout: () => out, stderr: () => err, exited };
        running.push(started);
        return started;
      }
      if (child.exitCode !== null || Date.now() > deadline) throw new Error(`npm start did not serve: ${err}\n${out}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** `npx --offline <args>` in the copy: its exit code and output. */
  async function runBin(args: string[]): Promise<{ code: number | null; out: string; err: string }> {
    const child = spawn('npx', ['--offline', ...args], { cwd: dir, env: { PATH: process.env.PATH ?? '', HOME: dir, npm_config_update_notifier: 'false' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout!.on('data', (d) => (out += d));
    child.stderr!.on('data', (d) => (err += d));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    return { code, out, err };
  }

  /** SIGTERM to npm and the server; resolves with the output once both are gone. */
  async function stop(s: Started): Promise<string> {
    process.kill(-s.child.pid!, 'SIGTERM');
    await s.exited;
    return s.stdout();
  }

  it('builds once, serves the bundle (the HTML worker included), and starts again without building', async () => {
    const first = await npmStart();
    // A first start says what it is doing before the silent part, and how long it took.
    expect(first.stderr()).toContain('first start: building dist/');
    expect(first.stderr()).toMatch(/built dist\/ in \d+\.\d s/);
    await expect(fs.access(path.join(dir, 'dist/src/main.bundle.mjs'))).resolves.toBeUndefined();
    const session = (await (await fetch(`${first.url}/v1/sessions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ permission_mode: 'bypassPermissions', tools: ['WebFetch'] }) })).json()) as { id: string };
    const turn = (await (
      await fetch(`${first.url}/v1/sessions/${session.id}/turns?wait=60`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ tool_uses: [{ name: 'WebFetch', input: { url: pageUrl } }] }),
      })
    ).json()) as { status: string; results: { is_error: boolean; content: { text: string }[] }[] };
    expect(turn.status).toBe('completed');
    const text = turn.results[0]!.content[0]!.text;
    expect(turn.results[0]!.is_error, text).toBe(false);
    // Markdown, not the plain-text fallback: the worker ran.
    expect(text).toMatch(/# Fresh start/);
    expect(text).toContain('**bundle**');
    // The build made the console too, and the server serves it from dist/console.
    const consolePage = await fetch(`${first.url}/console/`);
    expect(consolePage.status).toBe(200);
    const html = await consolePage.text();
    const script = /src="(\/console\/assets\/console-[A-Za-z0-9]+\.js)"/.exec(html)?.[1];
    expect(script, html).toBeDefined();
    expect((await fetch(`${first.url}${script}`)).status).toBe(200);
    expect(await stop(first)).toContain('"msg":"shutting down"');

    const second = await npmStart();
    expect(second.stderr()).not.toContain('building dist/');
    expect((await fetch(`${second.url}/healthz`)).status).toBe(200);
    // The package's other bin, as a person holding an export runs it: `npx norma-verify`, offline.
    const post = (p: string, body: unknown) => fetch(`${second.url}${p}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }).then((r) => r.json() as Promise<{ id: string }>);
    const made = await post('/v1/sessions', { tools: ['LS'] });
    await post(`/v1/sessions/${made.id}/turns?wait=30`, { tool_uses: [{ name: 'LS', input: { path: '.' } }] });
    const exported = await fetch(`${second.url}/v1/sessions/${made.id}/export`);
    await fs.writeFile(path.join(dir, 'export.json'), Buffer.from(await exported.arrayBuffer()));
    await fs.writeFile(path.join(dir, 'keys.json'), await (await fetch(`${second.url}/v1/signing-key`)).text());
    const verified = await runBin(['norma-verify', 'export.json', '--key', 'keys.json']);
    expect(verified.code, verified.err).toBe(0);
    expect(verified.out).toMatch(/^verified: session ses_/);
    expect(verified.out).toContain('key: pinned');
    await fs.writeFile(path.join(dir, 'cut.json'), (await fs.readFile(path.join(dir, 'export.json'), 'utf8')).slice(0, 200));
    const cut = await runBin(['norma-verify', 'cut.json']);
    expect(cut.code).toBe(2);
    expect(cut.err).toMatch(/^norma-verify: .*truncated/);
    expect(await stop(second)).toContain('"msg":"shutting down"');

    // A changed source is built again: the server's, and the console's.
    await fs.appendFile(path.join(dir, 'src/main.ts'), '\n// changed\n');
    const third = await npmStart();
    expect(third.stderr()).toContain('the sources changed since the last build: building dist/ again');
    expect(await stop(third)).toContain('"msg":"shutting down"');
    await fs.appendFile(path.join(dir, 'console/src/main.tsx'), '\n// changed\n');
    const fourth = await npmStart();
    expect(fourth.stderr()).toContain('building dist/');
    expect(await stop(fourth)).toContain('"msg":"shutting down"');
  }, 300_000);
});
