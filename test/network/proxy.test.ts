// The egress proxy on its own (no sandbox): a client speaks to a process's socket as a process
// would, and every way to name one host and reach another is refused with evidence: a TLS name
// other than the CONNECT host, an encrypted ClientHello, a hello that lies, a Host header naming
// another host (in a tunnel and in a plain request), credentials in a URL.
import fs from 'node:fs/promises';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SandboxNetProxy, type ProxyEvidence } from '../../src/sandbox/net-proxy.js';

const u16 = (n: number) => Buffer.from([n >> 8, n & 255]);
const u24 = (n: number) => Buffer.from([n >> 16, (n >> 8) & 255, n & 255]);
function ext(type: number, data: Buffer): Buffer {
  return Buffer.concat([u16(type), u16(data.length), data]);
}
function sni(...names: string[]): Buffer {
  const list = Buffer.concat(names.map((n) => Buffer.concat([Buffer.from([0]), u16(n.length), Buffer.from(n)])));
  return ext(0, Buffer.concat([u16(list.length), list]));
}
function hello(...exts: Buffer[]): Buffer {
  const e = Buffer.concat(exts);
  const body = Buffer.concat([Buffer.from([3, 3]), Buffer.alloc(32), Buffer.from([0]), u16(2), Buffer.from([0x13, 0x01]), Buffer.from([1, 0]), u16(e.length), e]);
  const hs = Buffer.concat([Buffer.from([1]), u24(body.length), body]);
  return Buffer.concat([Buffer.from([0x16, 3, 1]), u16(hs.length), hs]);
}

let dir: string;
let proxy: SandboxNetProxy | undefined;
let upstream: http.Server | undefined;
afterEach(async () => {
  await proxy?.close();
  proxy = undefined;
  upstream?.close();
  upstream = undefined;
  if (dir) await fs.rm(dir, { recursive: true, force: true });
});

async function setUp(): Promise<{ socketPath: string; evidence: ProxyEvidence[]; refused: string[]; port: number; hits: string[] }> {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'norma-proxy-'));
  const hits: string[] = [];
  upstream = http.createServer((req, res) => {
    hits.push(`${req.headers.host} ${req.url}`);
    res.end('upstream');
  });
  await new Promise<void>((r) => upstream!.listen(0, '127.0.0.2', r));
  const port = (upstream.address() as { port: number }).port;
  const evidence: ProxyEvidence[] = [];
  const refused: string[] = [];
  proxy = new SandboxNetProxy({
    dir: path.join(dir, 'net'),
    policy: { allow: ['127.0.0.0/8'], resolve: async (h) => (h.endsWith('.test') ? [{ address: '127.0.0.2', family: 4 }] : Promise.reject(new Error('ENOTFOUND'))) },
    ownAddresses: () => [],
    onEvidence: (e) => evidence.push(e),
    firstBytesMs: 2000,
  });
  const ep = await proxy.endpoint({ toolUseId: 'toolu_1', turnId: 'turn_1', refused: (w) => refused.push(w) });
  return { socketPath: ep.socketPath, evidence, refused, port, hits };
}

/** Sends `bytes` on a fresh connection; resolves with everything the proxy answered until it closed. */
function exchange(socketPath: string, ...parts: (Buffer | string)[]): Promise<string> {
  return new Promise((resolve) => {
    const s = net.connect(socketPath);
    let got = '';
    s.on('data', (d) => (got += d.toString('latin1')));
    s.on('error', () => undefined);
    s.on('close', () => resolve(got));
    s.on('connect', async () => {
      for (const p of parts) {
        s.write(p);
        await new Promise((r) => setTimeout(r, 30));
      }
      setTimeout(() => s.end(), 300);
    });
  });
}

describe('the egress proxy refuses a name that is not the one it was asked for', () => {
  it('TLS: another SNI, two SNIs, none, an encrypted hello, lengths that lie', async () => {
    const { socketPath, evidence, refused, port } = await setUp();
    const connect = `CONNECT api.test:${port} HTTP/1.1\r\nHost: api.test:${port}\r\n\r\n`;
    const cases: [Buffer, RegExp][] = [
      [hello(sni('other.test')), /asks for other\.test/],
      [hello(sni('api.test', 'other.test')), /naming two hosts/],
      [hello(), /names no host \(SNI\)/],
      [hello(sni('api.test'), ext(0xfe0d, Buffer.alloc(40))), /encrypted ClientHello/],
      [Buffer.concat([Buffer.from([0x16, 3, 1, 0x40, 0x01]), Buffer.alloc(20)]), /longer than 16 KiB/],
    ];
    for (const [bytes, why] of cases) {
      const answer = await exchange(socketPath, connect, bytes);
      expect(answer.startsWith('HTTP/1.1 200')).toBe(true);
      expect(answer).not.toContain('upstream');
      expect(refused.at(-1)).toMatch(why);
      expect(evidence.at(-1)).toMatchObject({ method: 'CONNECT', host: 'api.test', tool_use_id: 'toolu_1', turn_id: 'turn_1' });
      expect(evidence.at(-1)!.error).toMatch(why);
    }
  });

  it('HTTP: a Host header naming another host, in a tunnel and in a plain request; credentials in a URL; a name that does not resolve', async () => {
    const { socketPath, refused, port, hits } = await setUp();
    const inTunnel = await exchange(socketPath, `CONNECT api.test:${port} HTTP/1.1\r\n\r\n`, `GET /x HTTP/1.1\r\nHost: other.test:${port}\r\n\r\n`);
    expect(inTunnel).toContain('403 Forbidden');
    expect(refused.at(-1)).toMatch(/names other\.test:\d+ in its Host header on a connection allowed for api\.test/);
    const plain = await exchange(socketPath, `GET http://api.test:${port}/y HTTP/1.1\r\nHost: other.test\r\n\r\n`);
    expect(plain).toContain('403 Forbidden');
    const creds = await exchange(socketPath, `GET http://me:pw@api.test:${port}/z HTTP/1.1\r\nHost: api.test:${port}\r\n\r\n`);
    expect(creds).toContain('403 Forbidden');
    expect(refused.at(-1)).toMatch(/credentials/);
    const good = await exchange(socketPath, `CONNECT api.test:${port} HTTP/1.1\r\n\r\n`, `GET /ok HTTP/1.1\r\nHost: api.test:${port}\r\nConnection: close\r\n\r\n`);
    expect(good).toContain('upstream');
    expect(hits).toEqual([`api.test:${port} /ok`]);
    const nowhere = await exchange(socketPath, `CONNECT nowhere.invalid:443 HTTP/1.1\r\n\r\n`, hello(sni('nowhere.invalid')));
    expect(nowhere).not.toContain('upstream');
    expect(refused.at(-1)).toMatch(/does not resolve/);
  });

  it('a request line or CONNECT target that is not one is refused without a tunnel', async () => {
    const { socketPath } = await setUp();
    for (const target of ['api.test', 'api.test:0', 'api.test:99999', '[::1:80', 'a b:80']) {
      const answer = await exchange(socketPath, `CONNECT ${target} HTTP/1.1\r\n\r\n`);
      expect(answer.startsWith('HTTP/1.1 200')).toBe(false);
    }
    expect(await exchange(socketPath, 'GET /relative HTTP/1.1\r\nHost: api.test\r\n\r\n')).toContain('400');
  });
});
