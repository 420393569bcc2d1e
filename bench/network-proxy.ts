// A sandboxed process's HTTPS request through the session's egress proxy with a secret put in,
// against the same request straight to the server, both on loopback, in one run:
//   direct   client → HTTPS server (the client sets the header itself)
//   proxied  client → socat (the sandbox's bridge, TCP → Unix socket) → proxy (a process of its
//            own, as in the server): CONNECT, the
//            session's TLS, rules, the placeholder turned into the value, the answer's echo turned
//            back → HTTPS server (verified against the test CA)
// Each kind is measured with one connection kept for every request (git, npm, pip) and with a
// new connection per request (curl run once per request); rounds alternate the two paths.
//   npm run bench:network      BENCH_REQUESTS=2000 BENCH_ROUNDS=5 npm run bench:network
import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import https from 'node:https';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { SessionAuthority } from '../src/sandbox/net/ca.js';
import { freePort, quantile, root } from './lib.js';

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 1000);
const FRESH = Number(process.env.BENCH_FRESH ?? 200);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);
const TOKEN = 'sk-bench-0123456789abcdef';

const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'norma-bench-net-'));
const upstreamCa = new SessionAuthority('bench-upstream');
const leaf = upstreamCa.leaf('api.bench');
const server = https.createServer({ cert: leaf.cert, key: leaf.key, keepAlive: true }, (req, res) => {
  res.end(JSON.stringify({ ok: true, auth: req.headers.authorization === `Bearer ${TOKEN}` }));
});
await new Promise<void>((r) => server.listen(0, '127.0.0.2', r));
const port = (server.address() as net.AddressInfo).port;

// The proxy runs in a process of its own (bench/network-proxy-child.ts), as it does in the server.
await fs.writeFile(path.join(dir, 'upstream-ca.pem'), upstreamCa.certPem);
const child = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'bench', 'network-proxy-child.ts')], {
  cwd: root,
  env: { ...process.env, BENCH_DIR: dir, BENCH_TOKEN: TOKEN },
  stdio: ['ignore', 'pipe', 'inherit'],
});
const started = await new Promise<{ socketPath: string; caPem: string; placeholder: string }>((resolve, reject) => {
  let out = '';
  child.stdout!.on('data', (d: Buffer) => {
    out += d.toString();
    if (out.includes('\n')) resolve(JSON.parse(out.split('\n')[0]!));
  });
  child.once('exit', (code) => reject(new Error(`the proxy process exited (${code})`)));
});
const sessionCa = { certPem: started.caPem };
const endpoint = { socketPath: started.socketPath };
const bridgePort = await freePort();
const socat = spawn('socat', [`TCP-LISTEN:${bridgePort},bind=127.0.0.1,reuseaddr,fork,backlog=512,nodelay`, `UNIX-CONNECT:${endpoint.socketPath}`], { stdio: 'ignore' });
for (let i = 0; i < 100; i++) {
  const up = await new Promise<boolean>((r) => net.connect(bridgePort, '127.0.0.1').once('connect', function (this: net.Socket) { this.destroy(); r(true); }).once('error', () => r(false)));
  if (up) break;
  await new Promise((r) => setTimeout(r, 20));
}

/** A TLS connection to api.bench: straight, or through the bridge and the proxy's CONNECT. */
function open(proxied: boolean): Promise<tls.TLSSocket> {
  return new Promise((resolve, reject) => {
    if (!proxied) {
      const s = tls.connect({ host: '127.0.0.2', port, servername: 'api.bench', ca: upstreamCa.certPem, noDelay: true } as tls.ConnectionOptions);
      s.once('secureConnect', () => resolve(s)).once('error', reject);
      return;
    }
    const raw = net.connect({ port: bridgePort, host: '127.0.0.1', noDelay: true });
    raw.once('error', reject);
    raw.once('connect', () => raw.write(`CONNECT api.bench:${port} HTTP/1.1\r\nHost: api.bench:${port}\r\n\r\n`));
    let head = '';
    const onData = (d: Buffer) => {
      head += d.toString('latin1');
      if (!head.includes('\r\n\r\n')) return;
      raw.off('data', onData);
      if (!head.startsWith('HTTP/1.1 200')) return reject(new Error(head));
      const s = tls.connect({ socket: raw, servername: 'api.bench', ca: sessionCa.certPem });
      s.once('secureConnect', () => resolve(s)).once('error', reject);
    };
    raw.on('data', onData);
  });
}

/** One GET on an open connection; resolves with the body once complete. */
function get(s: tls.TLSSocket, proxied: boolean): Promise<string> {
  return new Promise((resolve, reject) => {
    let buf = '';
    const onData = (d: Buffer) => {
      buf += d.toString();
      const end = buf.indexOf('\r\n\r\n');
      if (end === -1) return;
      const len = /content-length: (\d+)/i.exec(buf.slice(0, end));
      const chunked = /transfer-encoding: chunked/i.test(buf.slice(0, end));
      const body = buf.slice(end + 4);
      if (len && body.length >= Number(len[1])) done(body.slice(0, Number(len[1])));
      else if (chunked && body.endsWith('0\r\n\r\n')) done(body);
    };
    const done = (body: string) => {
      s.off('data', onData);
      s.off('error', reject);
      resolve(body);
    };
    s.on('data', onData);
    s.once('error', reject);
    const auth = proxied ? started.placeholder : TOKEN;
    s.write(`GET /x HTTP/1.1\r\nHost: api.bench:${port}\r\nAuthorization: Bearer ${auth}\r\n\r\n`);
  });
}

async function keptConnection(proxied: boolean, n: number): Promise<number[]> {
  const s = await open(proxied);
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    const body = await get(s, proxied);
    times.push(performance.now() - t0);
    if (!body.includes('"auth":true')) throw new Error(`the server did not get the secret: ${body}`);
  }
  s.destroy();
  return times;
}

async function freshConnections(proxied: boolean, n: number): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    const s = await open(proxied);
    const body = await get(s, proxied);
    times.push(performance.now() - t0);
    s.destroy();
    if (!body.includes('"auth":true')) throw new Error(`the server did not get the secret: ${body}`);
  }
  return times;
}

const sorted = (a: number[]) => [...a].sort((x, y) => x - y);
const results = { kept: { direct: [] as number[], proxied: [] as number[] }, fresh: { direct: [] as number[], proxied: [] as number[] } };
await keptConnection(false, 200);
await keptConnection(true, 200);
for (let r = 0; r < ROUNDS; r++) {
  const order = r % 2 === 0 ? [false, true] : [true, false];
  for (const p of order) results.kept[p ? 'proxied' : 'direct'].push(...(await keptConnection(p, REQUESTS)));
  for (const p of order) results.fresh[p ? 'proxied' : 'direct'].push(...(await freshConnections(p, FRESH)));
}

console.log(`HTTPS GET on loopback, ${ROUNDS} rounds (kept: ${REQUESTS} requests on one connection; fresh: ${FRESH} connections), milliseconds`);
for (const kind of ['kept', 'fresh'] as const) {
  const d = sorted(results[kind].direct);
  const p = sorted(results[kind].proxied);
  const p50 = quantile(p, 0.5) / quantile(d, 0.5);
  console.log(
    `  ${kind === 'kept' ? 'one connection kept' : 'a connection per request'}: direct p50 ${quantile(d, 0.5).toFixed(3)} p99 ${quantile(d, 0.99).toFixed(3)}; ` +
      `proxied with the secret put in p50 ${quantile(p, 0.5).toFixed(3)} p99 ${quantile(p, 0.99).toFixed(3)}; p50 ratio ${p50.toFixed(2)}x`,
  );
}

socat.kill('SIGKILL');
child.kill('SIGTERM');
await new Promise((r) => child.once('exit', r));
server.close();
server.closeAllConnections();
await fs.rm(dir, { recursive: true, force: true });
