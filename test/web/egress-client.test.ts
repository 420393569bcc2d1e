// The outbound path for tools against loopback fixtures: 127.0.0.2 is allowlisted, 127.0.0.1 is not.
// Redirects (same host followed and re-checked; another host returned), DNS rebinding between hops,
// byte and time caps, cancellation, evidence per hop, and an explicit proxy with no direct fallback.
import { createHash } from 'node:crypto';
import http from 'node:http';
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { closeFixtures, serve, track } from '../helpers/http-fixture.js';
import { EgressRefusal, type Resolver } from '../../src/sandbox/egress.js';
import { egressFetcher } from '../../src/egress/client.js';
import { EgressFailure, type EgressEvidence } from '../../src/egress/types.js';

afterEach(closeFixtures);

function client(extra: { resolve?: Resolver; proxy?: string } = {}) {
  const evidence: EgressEvidence[] = [];
  const fetch = egressFetcher({
    policy: { allow: ['127.0.0.2'], ...(extra.resolve ? { resolve: extra.resolve } : {}) },
    ...(extra.proxy ? { proxy: extra.proxy } : {}),
    onEvidence: (e) => evidence.push(e),
  });
  return { fetch, evidence };
}

describe('egressFetcher', () => {
  it('follows redirects on the same host, checking every hop, and records each as evidence', async () => {
    const { port, hits } = await serve('127.0.0.2', (req, res) => {
      if (req.url === '/a') return void res.writeHead(301, { location: '/b' }).end();
      if (req.url === '/b') return void res.writeHead(302, { location: `http://127.0.0.2:${port}/c?x=1` }).end();
      res.writeHead(200, { 'content-type': 'text/plain' }).end('final body');
    });
    const { fetch, evidence } = client();
    const res = await fetch({ url: `http://127.0.0.2:${port}/a` });
    expect(res).toMatchObject({ status: 200, url: `http://127.0.0.2:${port}/c?x=1`, truncated: false, address: '127.0.0.2' });
    expect(res.body.toString()).toBe('final body');
    expect(hits).toEqual(['GET /a', 'GET /b', 'GET /c?x=1']);
    expect(evidence.map((e) => [e.url.replace(String(port), 'P'), e.status, e.address])).toEqual([
      ['http://127.0.0.2:P/a', 301, '127.0.0.2'],
      ['http://127.0.0.2:P/b', 302, '127.0.0.2'],
      ['http://127.0.0.2:P/c?x=1', 200, '127.0.0.2'],
    ]);
    expect(evidence[2]).toMatchObject({ bytes: 10, sha256: createHash('sha256').update('final body').digest('hex') });
  });

  it('returns a redirect to another host (or port) instead of following it', async () => {
    const inner = await serve('127.0.0.1', (_req, res) => res.end('secret'));
    const { port } = await serve('127.0.0.2', (_req, res) => res.writeHead(302, { location: `http://127.0.0.1:${inner.port}/admin` }).end());
    const { fetch, evidence } = client();
    const res = await fetch({ url: `http://127.0.0.2:${port}/` });
    expect(res.redirect).toEqual({ location: `http://127.0.0.1:${inner.port}/admin`, status: 302 });
    expect(res.body.length).toBe(0);
    expect(inner.hits).toEqual([]);
    expect(evidence).toHaveLength(1);
  });

  it('with redirects "none", returns even a same-host redirect', async () => {
    const { port, hits } = await serve('127.0.0.2', (_req, res) => res.writeHead(307, { location: '/elsewhere' }).end());
    const res = await client().fetch({ url: `http://127.0.0.2:${port}/x`, redirects: 'none' });
    expect(res.redirect).toEqual({ location: `http://127.0.0.2:${port}/elsewhere`, status: 307 });
    expect(hits).toEqual(['GET /x']);
  });

  it('refuses a hop whose name now resolves to a denied address (DNS rebinding between hops)', async () => {
    const { port, hits } = await serve('127.0.0.2', (req, res) => {
      if (req.url === '/start') return void res.writeHead(302, { location: '/next' }).end();
      res.end('should not be reached');
    });
    let lookups = 0;
    const resolve: Resolver = async (host) => {
      if (host !== 'rebind.test') throw new Error('ENOTFOUND');
      lookups++;
      return [{ address: lookups === 1 ? '127.0.0.2' : '127.0.0.1', family: 4 }];
    };
    const { fetch, evidence } = client({ resolve });
    await expect(fetch({ url: `http://rebind.test:${port}/start` })).rejects.toThrow(EgressRefusal);
    await expect(client({ resolve: async () => [{ address: '127.0.0.1', family: 4 }] }).fetch({ url: `http://rebind.test:${port}/` })).rejects.toThrow(
      /resolves to 127\.0\.0\.1: loopback addresses are not allowed/,
    );
    expect(hits).toEqual(['GET /start']);
    expect(evidence.map((e) => [e.status, e.error ?? null])).toEqual([
      [302, null],
      [null, expect.stringContaining('rebind.test resolves to 127.0.0.1: loopback')],
    ]);
  });

  it('gives up after maxRedirects', async () => {
    const { port } = await serve('127.0.0.2', (req, res) => res.writeHead(302, { location: `/r${Number(req.url!.slice(2) || 0) + 1}` }).end());
    await expect(client().fetch({ url: `http://127.0.0.2:${port}/r0`, maxRedirects: 3 })).rejects.toThrow(/more than 3 redirects/);
  });

  it('turns a 303 (and a 302 after POST) into a GET without the body', async () => {
    const seen: string[] = [];
    const { port } = await serve('127.0.0.2', (req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        seen.push(`${req.method} ${req.url} ${body}`);
        if (req.url === '/form') return void res.writeHead(303, { location: '/done' }).end();
        res.end('ok');
      });
    });
    await client().fetch({ url: `http://127.0.0.2:${port}/form`, method: 'POST', body: 'a=1', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(seen).toEqual(['POST /form a=1', 'GET /done ']);
  });

  it('cuts the body at maxBytes and says so', async () => {
    const { port } = await serve('127.0.0.2', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      for (let i = 0; i < 64; i++) res.write('x'.repeat(1024));
      res.end();
    });
    const { fetch, evidence } = client();
    const res = await fetch({ url: `http://127.0.0.2:${port}/`, maxBytes: 5000 });
    expect(res.truncated).toBe(true);
    expect(res.body.length).toBe(5000);
    expect(evidence[0]!.bytes).toBe(5000);
  });

  it('stops at the time cap, headers or body', async () => {
    const { port } = await serve('127.0.0.2', (req, res) => {
      if (req.url === '/slow-body') {
        res.writeHead(200);
        res.write('partial');
      } // otherwise: never answers
    });
    const { fetch, evidence } = client();
    await expect(fetch({ url: `http://127.0.0.2:${port}/hang`, timeoutMs: 200 })).rejects.toThrow(/did not answer within 0.2 s/);
    await expect(fetch({ url: `http://127.0.0.2:${port}/slow-body`, timeoutMs: 200 })).rejects.toThrow(EgressFailure);
    expect(evidence.map((e) => e.error)).toEqual([expect.stringContaining('did not answer'), expect.stringContaining('did not answer')]);
  });

  it('rejects with the caller\'s reason when the caller aborts', async () => {
    const { port } = await serve('127.0.0.2', () => undefined);
    const controller = new AbortController();
    const pending = client().fetch({ url: `http://127.0.0.2:${port}/`, signal: controller.signal });
    setTimeout(() => controller.abort(new Error('turn cancelled')), 50);
    await expect(pending).rejects.toThrow('turn cancelled');
  });

  it('refuses before connecting: scheme, userinfo, a denied literal', async () => {
    const { fetch, evidence } = client();
    await expect(fetch({ url: 'file:///etc/passwd' })).rejects.toThrow(/file: URLs are not allowed/);
    await expect(fetch({ url: 'http://user:pw@127.0.0.2/' })).rejects.toThrow(/credentials/);
    await expect(fetch({ url: 'http://127.0.0.1:9/' })).rejects.toThrow(/127\.0\.0\.1: loopback addresses are not allowed/);
    expect(evidence.every((e) => e.address === '' && e.status === null && e.error)).toBe(true);
  });

  it('goes through an explicit proxy, and fails — never goes direct — when the proxy is down', async () => {
    const target = await serve('127.0.0.2', (_req, res) => res.end('via proxy'));
    const tunnels: string[] = [];
    const proxy = http.createServer((_req, res) => res.writeHead(405).end());
    proxy.on('connect', (req, socket, head) => {
      tunnels.push(req.url!);
      const [host, port] = req.url!.split(':');
      const upstream = net.connect(Number(port), host!, () => {
        socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        upstream.write(head);
        upstream.pipe(socket);
        socket.pipe(upstream);
      });
      upstream.on('error', () => socket.destroy());
      socket.on('error', () => upstream.destroy());
    });
    track(proxy);
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    const proxyPort = (proxy.address() as net.AddressInfo).port;
    const res = await client({ proxy: `http://127.0.0.1:${proxyPort}` }).fetch({ url: `http://127.0.0.2:${target.port}/p` });
    expect(res.body.toString()).toBe('via proxy');
    expect(tunnels).toEqual([`127.0.0.2:${target.port}`]);

    // The proxy goes away: the request fails and nothing reaches the target directly.
    proxy.closeAllConnections();
    await new Promise((r) => proxy.close(r));
    await expect(client({ proxy: `http://127.0.0.1:${proxyPort}` }).fetch({ url: `http://127.0.0.2:${target.port}/q` })).rejects.toThrow(
      /through the egress proxy failed .* not retried without the proxy/,
    );
    expect(target.hits).toEqual(['GET /p']);
  });
});
