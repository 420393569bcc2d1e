// Graceful stop of the HTTP side: the signal that ends open SSE streams, and connection
// bookkeeping so closing the server does not wait on keep-alive sockets with nothing in flight.
import { setMaxListeners } from 'node:events';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

export interface HttpShutdown {
  /** Aborted when the server begins to shut down. */
  readonly signal: AbortSignal;
  /** Starts counting the server's connections and their in-flight responses. */
  track(server: Server): void;
  /**
   * Aborts `signal`, then runs `closeServer`, dropping every connection with nothing in flight
   * until it resolves.
   */
  drain(closeServer: () => Promise<void>): Promise<void>;
}

export function httpShutdown(): HttpShutdown {
  const shutdown = new AbortController();
  setMaxListeners(0, shutdown.signal); // one listener per open SSE stream

  // Connections and how many responses each has in flight, so a shutdown can drop every
  // connection with nothing in flight — including one a client opened but has not used yet,
  // which Node's closeIdleConnections() leaves alone (it would hold close() until the client
  // gives up on it).
  const sockets = new Set<Socket>();
  const inFlight = new WeakMap<Socket, number>();
  const dropUnused = () => {
    for (const socket of sockets) if (!inFlight.get(socket)) socket.destroy();
  };

  return {
    signal: shutdown.signal,
    track(server) {
      server.on('connection', (socket: Socket) => {
        sockets.add(socket);
        socket.once('close', () => sockets.delete(socket));
      });
      server.on('request', (req: IncomingMessage, res: ServerResponse) => {
        const socket = req.socket;
        inFlight.set(socket, (inFlight.get(socket) ?? 0) + 1);
        res.once('close', () => inFlight.set(socket, (inFlight.get(socket) ?? 1) - 1));
      });
    },
    async drain(closeServer) {
      shutdown.abort();
      // server.close() only drops connections idle at that instant; a keep-alive connection
      // whose response finishes a moment later would hold the process for the keep-alive
      // timeout. Keep dropping unused ones until the server has closed.
      dropUnused();
      const reaper = setInterval(dropUnused, 25);
      try {
        await closeServer();
      } finally {
        clearInterval(reaper);
      }
    },
  };
}
