// The proxy's parts that read what a process sends: the first bytes of a tunnel (ClientHello and
// SNI), placeholders and values replaced across chunk boundaries, the session's authority, and
// secrets as declared (every bad input a problem).
import crypto from 'node:crypto';
import tls from 'node:tls';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { classify } from '../../src/sandbox/net/hello.js';
import { PatternRefusal, ReplacingStream, replaceAll } from '../../src/sandbox/net/replace.js';
import { SessionAuthority } from '../../src/sandbox/net/ca.js';
import { bindSecrets, checkSecrets, placeholderFor } from '../../src/sandbox/net/secrets.js';

/** A real ClientHello, as Node's TLS client writes it. */
async function clientHello(servername?: string): Promise<Buffer> {
  return new Promise((resolve) => {
    const { Duplex } = require('node:stream') as typeof import('node:stream');
    const chunks: Buffer[] = [];
    const fake = new Duplex({
      read() {},
      write(c: Buffer, _e, cb) {
        chunks.push(c);
        cb();
        resolve(Buffer.concat(chunks));
      },
    });
    const s = tls.connect({ socket: fake as never, ...(servername ? { servername } : {}), rejectUnauthorized: false });
    s.on('error', () => undefined);
    setTimeout(() => s.destroy(), 1000).unref();
  });
}

describe('first bytes of a tunnel', () => {
  it('reads the SNI of a real ClientHello, also when it arrives a byte at a time', async () => {
    const hello = await clientHello('api.example.com');
    expect(classify(hello)).toEqual({ kind: 'tls', sni: 'api.example.com', ech: false });
    for (let n = 0; n < hello.length; n += 37) expect(classify(hello.subarray(0, n)).kind).toBe('more');
    expect(classify(await clientHello())).toMatchObject({ kind: 'tls', sni: null });
  });
  it('tells HTTP from other protocols', () => {
    expect(classify(Buffer.from('GET / HTTP/1.1\r\n'))).toEqual({ kind: 'http' });
    expect(classify(Buffer.from('SSH-2.0-OpenSSH_9.2\r\n'))).toEqual({ kind: 'other' });
    expect(classify(Buffer.from([0, 1, 2, 3]))).toEqual({ kind: 'other' });
    expect(classify(Buffer.from('GE'))).toEqual({ kind: 'more' });
  });
  it('refuses hellos that lie about their lengths, name two hosts, or a name that is not one', async () => {
    const hello = await clientHello('api.example.com');
    // Record length over 16 KiB.
    const big = Buffer.from(hello);
    big.writeUInt16BE(20000, 3);
    expect(classify(big)).toMatchObject({ kind: 'malformed' });
    // Handshake length beyond the record.
    const long = Buffer.from(hello);
    long[6] = 0xff;
    expect(classify(long)).toMatchObject({ kind: 'malformed' });
    // Every truncation of the body inside a complete record: never a throw, never a wrong name.
    for (let cut = 10; cut < hello.length; cut += 7) {
      const t = Buffer.concat([hello.subarray(0, 5), hello.subarray(5, cut)]);
      t.writeUInt16BE(cut - 5, 3);
      const r = classify(t);
      expect(['malformed', 'tls']).toContain(r.kind);
      if (r.kind === 'tls') expect([null, 'api.example.com']).toContain(r.sni);
    }
    // A name with a control character.
    const bad = Buffer.from(hello);
    const at = bad.indexOf('api.example.com');
    bad[at] = 0x0a;
    expect(classify(bad)).toMatchObject({ kind: 'malformed' });
    // Random bytes after a TLS record header: malformed, quickly.
    for (let i = 0; i < 200; i++) {
      const junk = Buffer.concat([Buffer.from([0x16, 3, 1, 0, 200]), crypto.randomBytes(200)]);
      expect(['malformed', 'tls']).toContain(classify(junk).kind);
    }
  });
});

describe('replacing across chunks', () => {
  const ph = Buffer.from(placeholderFor('ses_1', 'TOKEN'));
  it('replaces a placeholder split at every position, and refuses a refused one wherever it is cut', async () => {
    const text = Buffer.concat([Buffer.from('a='), ph, Buffer.from('&b=1')]);
    for (let cut = 0; cut <= text.length; cut++) {
      const out = await collect(Readable.from([text.subarray(0, cut), text.subarray(cut)]).pipe(new ReplacingStream([{ find: ph, replace: Buffer.from('séc') }])));
      expect(out.toString()).toBe('a=séc&b=1');
      await expect(collect(Readable.from([text.subarray(0, cut), text.subarray(cut)]).pipe(new ReplacingStream([{ find: ph, replace: null, refuse: 'no' }])))).rejects.toThrow(PatternRefusal);
    }
  });
  it('leaves text without a pattern as it is, and handles adjacent matches', () => {
    expect(replaceAll(Buffer.from('nothing here'), [{ find: ph, replace: Buffer.from('x') }]).toString()).toBe('nothing here');
    expect(replaceAll(Buffer.concat([ph, ph]), [{ find: ph, replace: Buffer.from('x') }]).toString()).toBe('xx');
  });
});

function collect(s: NodeJS.ReadableStream): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const c: Buffer[] = [];
    s.on('data', (d: Buffer) => c.push(d));
    s.on('end', () => resolve(Buffer.concat(c)));
    s.on('error', reject);
  });
}

describe('the session authority', () => {
  it('signs a certificate per host that Node verifies for that name only', async () => {
    const ca = new SessionAuthority('ses_t');
    const leaf = ca.leaf('api.example.com');
    expect(ca.leaf('api.example.com')).toBe(leaf);
    const x = new crypto.X509Certificate(leaf.cert);
    expect(x.verify(new crypto.X509Certificate(ca.certPem).publicKey)).toBe(true);
    expect(x.checkHost('api.example.com')).toBe('api.example.com');
    expect(x.checkHost('other.example.com')).toBeUndefined();
    expect(new crypto.X509Certificate(ca.certPem).ca).toBe(true);
    expect(new crypto.X509Certificate(ca.leaf('10.1.2.3').cert).checkIP('10.1.2.3')).toBe('10.1.2.3');
    // Another session's authority is not trusted for this one's certificates.
    expect(x.verify(new crypto.X509Certificate(new SessionAuthority('ses_u').certPem).publicKey)).toBe(false);
  });
});

describe('secrets as declared', () => {
  const ok = { value: 'tok_0123456789', hosts: ['api.example.com'] };
  it('accepts a good secret, and names every problem of bad ones', () => {
    expect(checkSecrets('secrets', { API_TOKEN: ok, other_1: { ...ok, header: 'Authorization', format: 'Bearer {value}' } })).toEqual([]);
    const problems = checkSecrets('secrets', {
      '1BAD': ok,
      PATH: ok,
      LD_PRELOAD: ok,
      HTTPS_PROXY: ok,
      NORMA_X: ok,
      NOHOSTS: { value: 'tok_0123456789', hosts: [] },
      SCHEME: { value: 'tok_0123456789', hosts: ['https://api.example.com'] },
      MIDDLE: { value: 'tok_0123456789', hosts: ['api.*.com'] },
      SHORT: { value: 'abc', hosts: ['a.com'] },
      NEWLINE: { value: 'tok_01234\r\nX-Evil: 1', hosts: ['a.com'] },
      NOVALUE: { ...ok, header: 'Authorization', format: 'Bearer' },
      TWICE: { ...ok, header: 'Authorization', format: '{value}{value}' },
      NOHEADER: { ...ok, format: 'Bearer {value}' },
      HOSTHDR: { ...ok, header: 'Host' },
      LOOP: { value: placeholderFor('ses_1', 'X'), hosts: ['a.com'] },
    } as never);
    for (const name of ['1BAD', 'PATH', 'LD_PRELOAD', 'HTTPS_PROXY', 'NORMA_X', 'NOHOSTS', 'SCHEME', 'MIDDLE', 'SHORT', 'NEWLINE', 'NOVALUE', 'TWICE', 'NOHEADER', 'HOSTHDR', 'LOOP']) {
      expect(problems.some((p) => p.startsWith(`secrets.${name}`)), name).toBe(true);
    }
  });
  it('binds operator, tenant and session secrets once each, with stable placeholders', () => {
    const b = bindSecrets('ses_1', [
      { source: 'operator', secrets: { A: ok } },
      { source: 'tenant', secrets: { B: ok } },
      { source: 'session', secrets: { A: ok, C: ok } },
    ]);
    expect(b.bindings.map((x) => [x.name, x.source])).toEqual([['A', 'operator'], ['B', 'tenant'], ['C', 'session']]);
    expect(b.problems).toEqual([expect.stringMatching(/^secrets\.A: the operator's secret/)]);
    expect(b.bindings[0]!.placeholder).toBe(placeholderFor('ses_1', 'A'));
    expect(placeholderFor('ses_2', 'A')).not.toBe(placeholderFor('ses_1', 'A'));
    expect(b.bindings[0]!.placeholder).toMatch(/^nrm_ph_[0-9a-f]{32}$/);
  });
});
