// Shared by the benches: free ports, child-process servers, percentiles.
import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { request, type Dispatcher, type Pool } from 'undici';

export const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');

/** The V8 flags the server runs with, as `npm start` and the Docker image start it (docs/DESIGN.md, memory). */
export const SERVER_NODE_FLAGS = ['--max-semi-space-size=2'] as const;

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });
}

/**
 * Starts `node <args>` with PORT set and waits until the port accepts connections. The built
 * server (dist/src/main.js) gets the flags it runs with in production.
 */
export async function startChild(args: string[], env: Record<string, string>, port: number): Promise<ChildProcess> {
  const server = args.some((a) => a.endsWith(path.join('dist', 'src', 'main.js')));
  const child = spawn(process.execPath, [...(server ? SERVER_NODE_FLAGS : []), ...args], { cwd: root, env: { ...process.env, ...env, PORT: String(port) }, stdio: ['ignore', 'ignore', 'inherit'] });
  for (let i = 0; i < 100; i++) {
    try {
      await new Promise<void>((resolve, reject) => {
        const s = net.connect(port, '127.0.0.1', () => (s.end(), resolve()));
        s.on('error', reject);
      });
      return child;
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  child.kill('SIGKILL');
  throw new Error(`server ${args.join(' ')} did not start on port ${port}`);
}

/** SIGTERM, then SIGKILL for any still running after 3 s; resolves once every child has exited. */
export async function stopChildren(children: ChildProcess[]): Promise<void> {
  const running = children.filter((c) => c.exitCode === null && c.signalCode === null);
  const exited = running.map((c) => new Promise<void>((resolve) => c.once('exit', () => resolve())));
  for (const c of running) c.kill('SIGTERM');
  const timer = setTimeout(() => {
    for (const c of running) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  }, 3000);
  await Promise.all(exited);
  clearTimeout(timer);
}

/** The p-quantile (0..1) of sorted values. */
export function quantile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? NaN;
}

/** One JSON API call; a status of 300 or more throws with the body. */
export async function apiCall(dispatcher: Dispatcher, base: string, method: string, p: string, body?: unknown): Promise<any> {
  const res = await request(`${base}${p}`, {
    method: method as 'POST',
    dispatcher,
    ...(body !== undefined ? { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } } : {}),
  });
  const text = await res.body.text();
  if (res.statusCode >= 300) throw new Error(`${method} ${p}: ${res.statusCode} ${text}`);
  return text ? JSON.parse(text) : null;
}

export interface Result {
  requests: number;
  seconds: number;
  p50: number;
  p99: number;
}

/** Each connection sends requests back to back; `makeRequest(i)` gives the i-th connection's request. Measured after `warmupS`, for `seconds`. */
export async function load(
  pool: Pool,
  connections: number,
  makeRequest: (conn: number) => { path: string; body: string },
  check: (status: number, body: string) => void,
  opts: { seconds: number; warmupS: number },
): Promise<Result> {
  const latencies: number[] = [];
  let measuring = false;
  let stop = false;
  const worker = async (conn: number) => {
    while (!stop) {
      const { path: p, body } = makeRequest(conn);
      const t0 = performance.now();
      const res = await pool.request({ method: 'POST', path: p, body, headers: { 'content-type': 'application/json' } });
      const text = await res.body.text();
      const dt = performance.now() - t0;
      check(res.statusCode, text);
      if (measuring) latencies.push(dt);
    }
  };
  const workers = Array.from({ length: connections }, (_, i) => worker(i));
  await new Promise((r) => setTimeout(r, opts.warmupS * 1000));
  measuring = true;
  const t0 = performance.now();
  await new Promise((r) => setTimeout(r, opts.seconds * 1000));
  measuring = false;
  const seconds = (performance.now() - t0) / 1000;
  stop = true;
  await Promise.all(workers);
  latencies.sort((a, b) => a - b);
  return { requests: latencies.length, seconds, p50: quantile(latencies, 0.5), p99: quantile(latencies, 0.99) };
}

export const fmt = (r: Result): string =>
  `${(r.requests / r.seconds).toFixed(0).padStart(7)} req/s   p50 ${r.p50.toFixed(2).padStart(6)} ms   p99 ${r.p99.toFixed(2).padStart(6)} ms   (${r.requests} requests)`;
