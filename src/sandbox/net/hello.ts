// What a process's first bytes in a tunnel say: a TLS ClientHello (and the name it asks for,
// SNI), an HTTP request, or another protocol. Only the first TLS record is read, and every length
// is checked against what was received: a hello that lies about its lengths is "malformed".

export type FirstBytes =
  | { kind: 'more' }
  | { kind: 'tls'; sni: string | null; ech: boolean }
  | { kind: 'malformed'; why: string }
  | { kind: 'http' }
  | { kind: 'other' };

/** The most the proxy reads before it knows (a TLS record is at most 16 KiB + 5). */
export const FIRST_BYTES_LIMIT = 16_384 + 5;

const METHOD = /^[A-Z]{3,12} /;
const EXT_SERVER_NAME = 0x0000;
/** Encrypted Client Hello and its draft predecessor: the real name would be hidden. */
const EXT_ECH = new Set([0xfe0d, 0xffce]);

export function classify(buf: Buffer): FirstBytes {
  if (buf.length === 0) return { kind: 'more' };
  if (buf[0] === 0x16) return clientHello(buf);
  const head = buf.subarray(0, 13).toString('latin1');
  if (METHOD.test(head)) return { kind: 'http' };
  if (buf.length < 13 && /^[A-Z]+$/.test(head)) return { kind: 'more' };
  return { kind: 'other' };
}

function clientHello(buf: Buffer): FirstBytes {
  if (buf.length < 5) return { kind: 'more' };
  const recordLen = buf.readUInt16BE(3);
  if (recordLen > 16_384) return { kind: 'malformed', why: 'a TLS record longer than 16 KiB' };
  if (buf.length < 5 + recordLen) return { kind: 'more' };
  const r = new Reader(buf.subarray(5, 5 + recordLen));
  try {
    if (r.u8() !== 1) return { kind: 'malformed', why: 'the first TLS message is not a ClientHello' };
    const len = r.u24();
    if (len > r.left()) return { kind: 'malformed', why: 'a ClientHello split over several TLS records' };
    const hello = new Reader(r.take(len));
    hello.take(2 + 32); // version, random
    hello.take(hello.u8()); // session id
    hello.take(hello.u16()); // cipher suites
    hello.take(hello.u8()); // compression methods
    if (hello.left() === 0) return { kind: 'tls', sni: null, ech: false };
    const exts = new Reader(hello.take(hello.u16()));
    let sni: string | null = null;
    let ech = false;
    while (exts.left() > 0) {
      const type = exts.u16();
      const body = new Reader(exts.take(exts.u16()));
      if (EXT_ECH.has(type)) ech = true;
      if (type !== EXT_SERVER_NAME) continue;
      const list = new Reader(body.take(body.u16()));
      while (list.left() > 0) {
        const nameType = list.u8();
        const name = list.take(list.u16());
        if (nameType === 0) {
          if (sni !== null) return { kind: 'malformed', why: 'a ClientHello naming two hosts' };
          sni = name.toString('latin1');
        }
      }
    }
    if (sni !== null && !/^[A-Za-z0-9._-]{1,253}$/.test(sni)) return { kind: 'malformed', why: `the ClientHello's name ${JSON.stringify(sni.slice(0, 80))} is not a host name` };
    return { kind: 'tls', sni: sni === null ? null : sni.toLowerCase().replace(/\.$/, ''), ech };
  } catch {
    return { kind: 'malformed', why: 'a ClientHello whose lengths do not add up' };
  }
}

class Reader {
  private at = 0;
  constructor(private readonly b: Buffer) {}
  left(): number {
    return this.b.length - this.at;
  }
  take(n: number): Buffer {
    if (n > this.left()) throw new RangeError('short');
    const out = this.b.subarray(this.at, this.at + n);
    this.at += n;
    return out;
  }
  u8(): number {
    return this.take(1)[0]!;
  }
  u16(): number {
    return this.take(2).readUInt16BE(0);
  }
  u24(): number {
    const t = this.take(3);
    return (t[0]! << 16) | (t[1]! << 8) | t[2]!;
  }
}
