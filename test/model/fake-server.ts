// A loopback stand-in for a model provider: it records each request and replays recorded
// response bytes (test/fixtures/model/), written whole or in pieces with pauses between them, cut
// short (ended cleanly or the socket destroyed), or left hanging open.
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export function fixture(name: string): Buffer {
  return readFileSync(new URL(`../fixtures/model/${name}`, import.meta.url));
}

export interface Reply {
  status?: number;
  headers?: Record<string, string>;
  body?: Buffer | string;
  /** Write the body in pieces: every N bytes, or cut at these byte offsets. */
  split?: number | number[];
  /** Pause after each piece, in ms (default: until the next turn of the event loop). */
  delayMs?: number;
  /** Send only the first N bytes of the body. */
  cutAt?: number;
  /** After the body: end the response (default), destroy the socket, or hang open. */
  then?: 'end' | 'destroy' | 'hang';
}

export interface Received {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  /** The client's port: the same for requests over one kept-alive connection. */
  remotePort: number | undefined;
  /** Settles when the response is closed: `finished` false when the client went away first. */
  closed: Promise<{ finished: boolean }>;
}

export const SSE_HEADERS = { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' };

export function sse(body: Buffer | string, more: Omit<Reply, 'body'> = {}): Reply {
  return { status: 200, ...more, headers: { ...SSE_HEADERS, ...more.headers }, body };
}

export function jsonError(status: number, body: Buffer | string, headers: Record<string, string> = {}): Reply {
  return { status, headers: { 'content-type': 'application/json', ...headers }, body };
}

function pieces(body: Buffer, split: Reply['split']): Buffer[] {
  if (split === undefined) return [body];
  const cuts = typeof split === 'number' ? Array.from({ length: Math.ceil(body.length / split) }, (_, i) => i * split) : [0, ...split];
  cuts.push(body.length);
  const out: Buffer[] = [];
  for (let i = 0; i + 1 < cuts.length; i++) if (cuts[i + 1]! > cuts[i]!) out.push(body.subarray(cuts[i], cuts[i + 1]));
  return out;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export class FakeServer {
  readonly received: Received[] = [];
  private queue: Reply[] = [];
  private fallback: Reply | null = null;
  private responder: ((req: Received) => Reply) | null = null;
  private readonly server = http.createServer((req, res) => void this.handle(req, res));

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return this;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  get origin(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** The next requests get these replies in order; after them, `always`'s (or a 500). */
  reply(...replies: Reply[]): this {
    this.queue.push(...replies);
    return this;
  }

  /** Each request with nothing queued is answered by `fn`, from what it received (a fake with state). */
  respond(fn: (req: Received) => Reply): this {
    this.responder = fn;
    return this;
  }

  always(reply: Reply): this {
    this.fallback = reply;
    return this;
  }

  reset(): void {
    this.queue = [];
    this.fallback = null;
    this.responder = null;
    this.received.length = 0;
    this.server.closeAllConnections();
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const closed = new Promise<{ finished: boolean }>((resolve) => res.on('close', () => resolve({ finished: res.writableFinished })));
    this.received.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), remotePort: req.socket.remotePort, closed });
    const reply = this.queue.shift() ?? this.responder?.(this.received.at(-1)!) ?? this.fallback ?? jsonError(500, '{"error":"no reply queued"}');
    let body = Buffer.from(reply.body ?? '');
    if (reply.cutAt !== undefined) body = body.subarray(0, reply.cutAt);
    res.writeHead(reply.status ?? 200, reply.headers ?? {});
    if (body.length === 0) res.flushHeaders();
    for (const piece of pieces(body, reply.split)) {
      if (res.destroyed) return;
      res.write(piece);
      // A pause lets the piece leave as its own chunk; without one, the next turn of the event loop.
      if (reply.delayMs) await sleep(reply.delayMs);
      else if (reply.split !== undefined) await new Promise((r) => setImmediate(r));
    }
    if (res.destroyed) return;
    const then = reply.then ?? 'end';
    if (then === 'end') res.end();
    else if (then === 'destroy') {
      // Let the written bytes leave before the socket goes.
      await sleep(5);
      res.socket?.destroy();
    }
  }
}
