// Loopback HTTP fixtures for outbound-request tests: a server on a chosen loopback address that
// records each request line; closeFixtures() ends them all (call it in afterEach).
import http from 'node:http';
import type net from 'node:net';

const open: http.Server[] = [];

export interface Fixture {
  port: number;
  origin: string;
  /** `METHOD /path?query` of every request, in order. */
  hits: string[];
}

export async function serve(host: string, handler: http.RequestListener): Promise<Fixture> {
  const hits: string[] = [];
  const server = http.createServer((req, res) => {
    hits.push(`${req.method} ${req.url}`);
    handler(req, res);
  });
  open.push(server);
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const port = (server.address() as net.AddressInfo).port;
  return { port, hits, origin: `http://${host}:${port}` };
}

/** Registers a server made elsewhere (e.g. a proxy) so closeFixtures() ends it too. */
export function track(server: http.Server): void {
  open.push(server);
}

export async function closeFixtures(): Promise<void> {
  for (const s of open.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
}
