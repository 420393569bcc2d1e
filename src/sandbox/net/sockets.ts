// What the egress proxy does with sockets before it knows what they carry: where a CONNECT goes,
// whether an address is one of the server's own, a tunnel's first bytes read and given back.
import net from 'node:net';
import os from 'node:os';
import { Duplex } from 'node:stream';
import ipaddr from 'ipaddr.js';
import { classify, FIRST_BYTES_LIMIT, type FirstBytes } from './hello.js';

export type FirstRead = { kind: 'closed' } | { kind: 'read'; bytes: Buffer; what: FirstBytes };

function norm(address: string): string {
  try {
    return ipaddr.process(address).toString();
  } catch {
    return address;
  }
}

/** Is `address:port` a socket this server listens on? (an unspecified bind covers every local address) */
export function isOwnAddress(address: string, port: number, own: { address: string; port: number }[]): boolean {
  const a = norm(address);
  for (const l of own) {
    if (l.port !== port) continue;
    const la = norm(l.address);
    if (la === a) return true;
    if (la === '0.0.0.0' || la === '::') {
      if (ipaddr.process(a).range() === 'loopback') return true;
      for (const list of Object.values(os.networkInterfaces())) for (const i of list ?? []) if (norm(i.address) === a) return true;
    }
  }
  return false;
}

/** host:port of a CONNECT request (`[v6]:port` too). */
export function connectTarget(raw: string): { host: string; port: number } | null {
  const m = /^(?:\[([0-9a-fA-F:.]+)\]|([A-Za-z0-9._-]+)):(\d{1,5})$/.exec(raw);
  if (!m) return null;
  const port = Number(m[3]);
  if (port < 1 || port > 65535) return null;
  return { host: (m[1] ?? m[2])!.toLowerCase().replace(/\.$/, ''), port };
}

export function urlHost(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}

/** A stream that first gives back bytes already read from a socket, then the socket's own. */
export function replayed(socket: net.Socket, first: Buffer): Duplex {
  const d = new Duplex({
    read() {
      socket.resume();
    },
    write(chunk: Buffer, _enc, cb) {
      if (socket.destroyed) return cb(new Error('closed'));
      socket.write(chunk, (err) => cb(err ?? null));
    },
    final(cb) {
      socket.end();
      cb();
    },
    destroy(err, cb) {
      socket.destroy();
      cb(err);
    },
  });
  if (first.length > 0) d.push(first);
  socket.on('data', (chunk: Buffer) => {
    if (!d.push(chunk)) socket.pause();
  });
  socket.once('end', () => d.push(null));
  socket.once('close', () => d.destroy());
  socket.on('error', () => d.destroy());
  return d;
}

/** Reads a tunnel's first bytes until they say what they are (or `waitMs` passes: TCP); the socket is left paused. */
export function readFirstBytes(client: net.Socket, head: Buffer, waitMs: number): Promise<FirstRead> {
  return new Promise((resolve) => {
    let buf = head;
    let timer: NodeJS.Timeout | undefined;
    const done = (r: { kind: 'closed' } | { kind: 'read'; bytes: Buffer; what: FirstBytes }) => {
      clearTimeout(timer);
      client.off('data', onData);
      client.off('close', onClose);
      client.off('end', onClose);
      client.pause();
      resolve(r);
    };
    const look = () => {
      const what = classify(buf);
      if (what.kind !== 'more') done({ kind: 'read', bytes: buf, what });
      else if (buf.length >= FIRST_BYTES_LIMIT) done({ kind: 'read', bytes: buf, what: { kind: 'malformed', why: 'no complete TLS record in 16 KiB' } });
    };
    const onData = (d: Buffer) => {
      buf = Buffer.concat([buf, d]);
      look();
    };
    const onClose = () => done({ kind: 'closed' });
    client.on('data', onData);
    client.once('close', onClose);
    // Ended before saying anything (its connection is half-open here): nothing to wait for.
    client.once('end', onClose);
    timer = setTimeout(() => done({ kind: 'read', bytes: buf, what: buf.length === 0 ? { kind: 'other' } : classify(buf).kind === 'more' ? { kind: 'other' } : classify(buf) }), waitMs);
    if (buf.length > 0) look();
  });
}
