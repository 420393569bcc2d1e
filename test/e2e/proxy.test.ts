// The committed reverse-proxy configuration (deploy/nginx.conf, used by docker-compose.replicas.yml)
// run by Debian's nginx in front of two replicas on loopback: the same file, with only its
// upstream addresses, its port and its paths pointed at this test. Requests and event streams
// pass through it to either replica; an event stream is not buffered (events arrive while the
// stream stays open); a replica that stops is left out and the other serves on.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ContractClient } from '../helpers/contract.js';
import { createTestDatabase, type TestDatabase } from '../helpers/postgres.js';
import { launchServer, type ServerProcess } from '../helpers/server-process.js';
import { openSse, type SseStream } from '../helpers/sse.js';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
let db: TestDatabase;
let dir: string;
let nginx: ChildProcess | undefined;
const replicas: ServerProcess[] = [];
const streams: SseStream[] = [];

beforeEach(async () => {
  db = await createTestDatabase();
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'norma-proxy-'));
});
afterEach(async () => {
  for (const s of streams.splice(0)) s.close();
  if (nginx && nginx.exitCode === null) {
    const exited = new Promise((r) => nginx!.once('exit', r));
    nginx.kill('SIGTERM');
    await exited;
  }
  nginx = undefined;
  await Promise.all(replicas.splice(0).map((r) => r.kill()));
  await db.drop();
  await fs.rm(dir, { recursive: true, force: true });
});

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const srv = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

/** deploy/nginx.conf with the replicas' loopback ports, a free port, and this test's paths. */
async function startNginx(port: number, upstreams: string[]): Promise<string> {
  const conf = await fs.readFile(path.join(root, 'deploy', 'nginx.conf'), 'utf8');
  const servers = [...conf.matchAll(/^\s*server (norma-[ab]):7070 (.*);$/gm)];
  expect(servers.map((m) => m[1])).toEqual(['norma-a', 'norma-b']);
  let mine = conf;
  for (const [i, m] of servers.entries()) mine = mine.replace(m[0], m[0].replace(`${m[1]}:7070`, upstreams[i]!));
  expect(mine).toMatch(/listen 8080;/);
  mine = mine.replace('listen 8080;', `listen 127.0.0.1:${port};`);
  // Run as this user where it can write: its pid, logs and temp files in the test's dir.
  mine = `pid ${dir}/nginx.pid;\nerror_log ${dir}/error.log;\n${mine}`.replace(
    'http {',
    `http {\n  access_log off;\n  client_body_temp_path ${dir}/body;\n  proxy_temp_path ${dir}/proxy;\n  fastcgi_temp_path ${dir}/fastcgi;\n  uwsgi_temp_path ${dir}/uwsgi;\n  scgi_temp_path ${dir}/scgi;`,
  );
  const file = path.join(dir, 'nginx.conf');
  await fs.writeFile(file, mine);
  // `-t` first: the file (as committed, but for those lines) is valid nginx configuration.
  const check = spawn('nginx', ['-t', '-p', dir, '-c', file, '-e', `${dir}/error.log`], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  check.stderr!.on('data', (d) => (out += d));
  expect(await new Promise((r) => check.once('exit', r)), out).toBe(0);
  nginx = spawn('nginx', ['-p', dir, '-c', file, '-e', `${dir}/error.log`, '-g', 'daemon off;'], { stdio: ['ignore', 'pipe', 'pipe'] });
  for (let i = 0; i < 200; i++) {
    const up = await new Promise<boolean>((resolve) => {
      const s = net.connect(port, '127.0.0.1', () => {
        s.destroy();
        resolve(true);
      });
      s.once('error', () => resolve(false));
    });
    if (up) break;
    await new Promise((r) => setTimeout(r, 25));
  }
  return `http://127.0.0.1:${port}`;
}

describe('deploy/nginx.conf in front of two replicas', () => {
  it('passes requests and unbuffered event streams to either replica, and serves on when one stops', { timeout: 90_000 }, async () => {
    const port = await freePort();
    // The replicas answer to the name clients use: the proxy's (it passes the client's Host on).
    const env = (id: string) => ({
      NORMA_STORE: 'postgres',
      NORMA_DATABASE_URL: db.url,
      NORMA_NODE_ID: id,
      NORMA_DATA_DIR: path.join(dir, 'data'),
      NORMA_ALLOWED_HOSTS: `127.0.0.1:${port}`,
    });
    const [a, b] = await Promise.all([launchServer(env('norma-a'), undefined, { startTimeoutMs: 40_000 }), launchServer(env('norma-b'), undefined, { startTimeoutMs: 40_000 })]);
    replicas.push(a, b);
    const url = await startNginx(port, [new URL(a.url).host, new URL(b.url).host]);
    const api = new ContractClient(url);
    // Round robin: both replicas answer through the proxy.
    const seen = new Set<string>();
    for (let i = 0; i < 4; i++) seen.add((await api.get('/readyz')).body.node_id);
    expect([...seen].sort()).toEqual(['norma-a', 'norma-b']);

    const s = (await api.post('/v1/sessions', { permission_mode: 'bypassPermissions' })).body;
    const stream = await openSse(`${url}/v1/sessions/${s.id}/events`);
    streams.push(stream);
    expect(stream.status).toBe(200);
    await stream.waitFor((e) => e.event === 'session.created');
    // Events reach the open stream through the proxy as they happen (nothing holds them back).
    for (let i = 0; i < 3; i++) {
      const t = await api.post(`/v1/sessions/${s.id}/turns`, { tool_uses: [{ name: 'LS', input: { path: '.' } }] });
      expect(t.status).toBe(202);
      await stream.waitFor((e) => e.event === 'turn.completed' && e.data.turn.id === t.body.id, 10_000);
    }

    // One replica stops: the proxy leaves it out; the session goes on through the other.
    const owner = (await db.query('SELECT node_id FROM leases WHERE session_id = $1', [s.id]))[0]!.node_id;
    await (owner === 'norma-a' ? a : b).kill();
    let done: { status: number; body: { status?: string } } | undefined;
    for (let i = 0; i < 40 && done?.body.status !== 'completed'; i++) {
      done = await api.post(`/v1/sessions/${s.id}/turns?wait=10`, { tool_uses: [{ name: 'LS', input: { path: '.' } }] });
      if (done.body.status !== 'completed') await new Promise((r) => setTimeout(r, 250));
    }
    expect(done!.body.status).toBe('completed');
    expect((await api.get('/readyz')).body.node_id).toBe(owner === 'norma-a' ? 'norma-b' : 'norma-a');
  });
});
