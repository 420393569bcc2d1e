// A TCP relay on loopback that holds every chunk for a fixed delay before passing it on, in each
// direction: a database "in another zone" for the benches, so that anyone can rerun them with the
// round-trip cost a real deployment pays (2 ms each way ≈ a 4 ms round trip between zones).
// Order is kept (timers of one delay fire in the order they were set); a direction with more than
// 8 MiB in flight pauses its reader until it drains, so a bulk transfer cannot grow without bound.
import net from 'node:net';

const MAX_IN_FLIGHT = 8 * 1024 * 1024;

export interface DelayRelay {
  /** host:port to connect to instead of the target. */
  port: number;
  close(): Promise<void>;
}

function pipeDelayed(from: net.Socket, to: net.Socket, delayMs: number): void {
  let inFlight = 0;
  from.on('data', (chunk: Buffer) => {
    inFlight += chunk.length;
    if (inFlight > MAX_IN_FLIGHT) from.pause();
    setTimeout(() => {
      inFlight -= chunk.length;
      if (!to.destroyed) to.write(chunk);
      if (inFlight <= MAX_IN_FLIGHT && from.isPaused()) from.resume();
    }, delayMs);
  });
  // An end or an error travels with the same delay, after the data before it.
  from.on('end', () => setTimeout(() => to.end(), delayMs));
  from.on('error', () => setTimeout(() => to.destroy(), delayMs));
}

/** Starts a relay to `targetHost:targetPort` that delays each direction by `delayMs`. */
export async function startDelayRelay(targetHost: string, targetPort: number, delayMs: number): Promise<DelayRelay> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(targetPort, targetHost);
    for (const s of [client, upstream]) {
      s.setNoDelay(true);
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
    }
    pipeDelayed(client, upstream, delayMs);
    pipeDelayed(upstream, client, delayMs);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  return {
    port: (server.address() as net.AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** The same database URL, through a relay that delays each direction by `delayMs`. */
export async function delayedDatabaseUrl(url: string, delayMs: number): Promise<{ url: string; relay: DelayRelay }> {
  const u = new URL(url);
  const relay = await startDelayRelay(u.hostname, Number(u.port || 5432), delayMs);
  u.hostname = '127.0.0.1';
  u.port = String(relay.port);
  return { url: u.toString(), relay };
}
