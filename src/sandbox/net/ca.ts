// A session's certificate authority: made when its proxy first terminates TLS (a session with
// secrets), held in memory only (its key is never written anywhere; a restart makes a new one),
// trusted by the session's processes alone (its certificate joins the bundle mounted at the
// system's path inside the sandbox). It signs a certificate per host the processes connect to,
// valid for that name only. Certificates are DER built here from Node's own keys and signatures
// (ECDSA P-256 with SHA-256): nothing but node:crypto.
import crypto, { type KeyObject } from 'node:crypto';

// ---- DER ------------------------------------------------------------------------------------

function len(n: number): Buffer {
  if (n < 0x80) return Buffer.from([n]);
  const bytes: number[] = [];
  for (let v = n; v > 0; v = Math.floor(v / 256)) bytes.unshift(v & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

function tlv(tag: number, ...content: Buffer[]): Buffer {
  const body = Buffer.concat(content);
  return Buffer.concat([Buffer.from([tag]), len(body.length), body]);
}

const seq = (...c: Buffer[]) => tlv(0x30, ...c);
const set = (...c: Buffer[]) => tlv(0x31, ...c);
const bool = (v: boolean) => tlv(0x01, Buffer.from([v ? 0xff : 0]));
const octets = (b: Buffer) => tlv(0x04, b);
const utf8 = (s: string) => tlv(0x0c, Buffer.from(s, 'utf8'));
const explicit = (n: number, c: Buffer) => tlv(0xa0 | n, c);

function integer(b: Buffer): Buffer {
  let i = 0;
  while (i < b.length - 1 && b[i] === 0) i++;
  const v = b.subarray(i);
  return tlv(0x02, v[0]! & 0x80 ? Buffer.concat([Buffer.from([0]), v]) : v);
}

function oid(dotted: string): Buffer {
  const parts = dotted.split('.').map(Number);
  const out = [40 * parts[0]! + parts[1]!];
  for (const p of parts.slice(2)) {
    const stack = [p & 0x7f];
    for (let v = Math.floor(p / 128); v > 0; v = Math.floor(v / 128)) stack.unshift(0x80 | (v & 0x7f));
    out.push(...stack);
  }
  return tlv(0x06, Buffer.from(out));
}

function bits(b: Buffer, unused = 0): Buffer {
  return tlv(0x03, Buffer.from([unused]), b);
}

function time(d: Date): Buffer {
  const iso = d.toISOString().replace(/[-:T]/g, '').slice(0, 14) + 'Z';
  // UTCTime through 2049, GeneralizedTime after (RFC 5280 4.1.2.5).
  return d.getUTCFullYear() < 2050 ? tlv(0x17, Buffer.from(iso.slice(2), 'latin1')) : tlv(0x18, Buffer.from(iso, 'latin1'));
}

const ECDSA_SHA256 = seq(oid('1.2.840.10045.4.3.2'));

function name(cn: string, org = 'Norma Server'): Buffer {
  return seq(set(seq(oid('2.5.4.10'), utf8(org))), set(seq(oid('2.5.4.3'), utf8(cn))));
}

function extension(id: string, critical: boolean, value: Buffer): Buffer {
  return seq(oid(id), ...(critical ? [bool(true)] : []), octets(value));
}

function sanValue(host: string): Buffer {
  const ip = ipBytes(host);
  return seq(ip ? tlv(0x87, ip) : tlv(0x82, Buffer.from(host, 'latin1')));
}

function ipBytes(host: string): Buffer | null {
  if (/^\d{1,3}(\.\d{1,3}){3}$/.test(host)) return Buffer.from(host.split('.').map(Number));
  if (!host.includes(':')) return null;
  const [head, tail] = host.split('::') as [string, string | undefined];
  const h = head ? head.split(':') : [];
  const t = tail ? tail.split(':') : [];
  const words = [...h, ...Array(8 - h.length - t.length).fill('0'), ...t];
  return Buffer.from(words.flatMap((w: string) => [parseInt(w, 16) >> 8, parseInt(w, 16) & 0xff]));
}

function sign(tbs: Buffer, key: KeyObject): Buffer {
  const sig = crypto.sign('sha256', tbs, { key, dsaEncoding: 'der' });
  return seq(tbs, ECDSA_SHA256, bits(sig));
}

function pem(der: Buffer): string {
  return `-----BEGIN CERTIFICATE-----\n${der.toString('base64').replace(/.{1,64}/g, '$&\n')}-----END CERTIFICATE-----\n`;
}

function keyId(pub: KeyObject): Buffer {
  const spki = pub.export({ type: 'spki', format: 'der' });
  // The subject public key's bits (the last element of the SPKI) hashed, as RFC 5280 4.2.1.2 (1).
  return crypto.createHash('sha1').update(spki.subarray(spki.length - 65)).digest();
}

// ---- the authority --------------------------------------------------------------------------

export interface LeafCertificate {
  cert: string;
  key: string;
}

const DAY = 86_400_000;

export class SessionAuthority {
  readonly certPem: string;
  private readonly key: KeyObject;
  private readonly subject: Buffer;
  private readonly skid: Buffer;
  private readonly leaves = new Map<string, LeafCertificate>();
  private serial = 1;

  constructor(
    label: string,
    private readonly clock: () => Date = () => new Date(),
  ) {
    const { privateKey, publicKey } = crypto.generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
    this.key = privateKey;
    this.subject = name(`Norma session CA ${label}`);
    this.skid = keyId(publicKey);
    const now = this.clock().getTime();
    const tbs = seq(
      explicit(0, integer(Buffer.from([2]))),
      integer(crypto.randomBytes(16)),
      ECDSA_SHA256,
      this.subject,
      seq(time(new Date(now - DAY)), time(new Date(now + 365 * DAY))),
      this.subject,
      publicKey.export({ type: 'spki', format: 'der' }),
      explicit(
        3,
        seq(
          extension('2.5.29.19', true, seq(bool(true), integer(Buffer.from([0])))), // CA, path length 0
          extension('2.5.29.15', true, bits(Buffer.from([0x06]), 1)), // keyCertSign, cRLSign
          extension('2.5.29.14', false, octets(this.skid)),
        ),
      ),
    );
    this.certPem = pem(sign(tbs, privateKey));
  }

  /** A certificate for one host (a name or an IP address), made once and kept. */
  leaf(host: string): LeafCertificate {
    const had = this.leaves.get(host);
    if (had) return had;
    const { privateKey, publicKey } = crypto.generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
    const now = this.clock().getTime();
    const tbs = seq(
      explicit(0, integer(Buffer.from([2]))),
      integer(Buffer.concat([crypto.randomBytes(8), Buffer.from([this.serial++ & 0xff])])),
      ECDSA_SHA256,
      this.subject,
      seq(time(new Date(now - DAY)), time(new Date(now + 90 * DAY))),
      name(host.slice(0, 64)),
      publicKey.export({ type: 'spki', format: 'der' }),
      explicit(
        3,
        seq(
          extension('2.5.29.19', true, seq()),
          extension('2.5.29.15', true, bits(Buffer.from([0x80]), 7)), // digitalSignature
          extension('2.5.29.37', false, seq(oid('1.3.6.1.5.5.7.3.1'))), // serverAuth
          extension('2.5.29.17', false, sanValue(host)),
          extension('2.5.29.35', false, seq(tlv(0x80, this.skid))),
        ),
      ),
    );
    const leaf = { cert: pem(sign(tbs, this.key)), key: privateKey.export({ type: 'pkcs8', format: 'pem' }) as string };
    // A session reaches few hosts; a bounded map keeps one that reaches many from growing it.
    if (this.leaves.size >= 1024) this.leaves.delete(this.leaves.keys().next().value!);
    this.leaves.set(host, leaf);
    return leaf;
  }
}
