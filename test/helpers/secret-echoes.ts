// The forms a peer may echo a secret in (base64 of every kind, percent-encoding, hex, JSON
// escapes, quoted pieces), and a check that none of them survived in a text.
import { RUN } from '../../src/redact.js';

/** Every form a peer may echo `key` in: name → text that carries it. */
export function encodedEchoes(key: string): Record<string, string> {
  const bytes = Buffer.from(key);
  const b64 = (b: Buffer) => b.toString('base64');
  const url = (s: string) => s.replace(/\+/g, '-').replace(/\//g, '_');
  const json = JSON.stringify(key).slice(1, -1);
  const out: Record<string, string> = {
    raw: key,
    base64: b64(bytes),
    'base64 unpadded': b64(bytes).replace(/=+$/, ''),
    base64url: url(b64(bytes)),
    'base64url unpadded': url(b64(bytes)).replace(/=+$/, ''),
    'percent-encoded': encodeURIComponent(key),
    'percent-encoded, lower-case escapes': encodeURIComponent(key).replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase()),
    'percent-encoded, every byte': bytes.toString('hex').replace(/(..)/g, '%$1').toUpperCase(),
    hex: bytes.toString('hex'),
    HEX: bytes.toString('hex').toUpperCase(),
    'JSON-escaped with \\/': json.replace(/\//g, '\\/'),
    'JSON \\u escapes': [...key].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join(''),
    'JSON-escaped twice': JSON.stringify(JSON.stringify(key)).slice(1, -1),
    'split into quoted pieces': key.match(/.{1,7}/g)!.map((p) => `"${p}"`).join(' + '),
    'split into escaped quoted pieces': key.match(/.{1,9}/g)!.map((p) => `\\"${p}\\"`).join('\\n'),
  };
  // Inside a longer base64 text: the key's bytes start at each offset of a 3-byte group.
  for (const prefix of ['', 'a', 'ab', 'Authorization: Bearer ', '{"api_key":"']) {
    const whole = Buffer.concat([Buffer.from(prefix), bytes, Buffer.from('","more":true}')]);
    out[`inside base64 after ${prefix.length} bytes`] = b64(whole);
    out[`inside base64url after ${prefix.length} bytes`] = url(b64(whole)).replace(/=+$/, '');
    // Wrapped into 20-column lines, as MIME and PEM writers do, with real and escaped line breaks.
    out[`inside base64 after ${prefix.length} bytes, wrapped`] = b64(whole).match(/.{1,20}/g)!.join('\r\n');
    out[`inside base64 after ${prefix.length} bytes, wrapped in JSON`] = b64(whole).match(/.{1,20}/g)!.join('\\n');
  }
  return out;
}

/** The runs of `key`'s forms that must not survive: RUN characters of it raw, as many as carry RUN of them encoded. */
export function leaked(text: string, key: string): string[] {
  const bytes = Buffer.from(key);
  const found: string[] = [];
  const check = (form: string, run: number) => {
    for (let i = 0; i + run <= form.length; i++) if (text.includes(form.slice(i, i + run))) found.push(form.slice(i, i + run));
  };
  check(key, RUN);
  check(JSON.stringify(key).slice(1, -1).replace(/\//g, '\\/'), RUN + 2);
  check(encodeURIComponent(key), RUN + 4);
  check(bytes.toString('hex'), 2 * RUN);
  check(bytes.toString('hex').toUpperCase(), 2 * RUN);
  for (const offset of [0, 1, 2]) {
    const core = Buffer.concat([Buffer.alloc(offset), bytes]).toString('base64').slice(4, -4);
    check(core, 16);
    check(core.replace(/\+/g, '-').replace(/\//g, '_'), 16);
  }
  return found;
}
