// One HTTP request of a sandboxed process, forwarded by the session's egress proxy: a plain
// request (`http://…` through the proxy, or HTTP inside a tunnel) or one inside a TLS connection
// the proxy terminated (a session with secrets). Its Host must name the host the connection was
// allowed for; placeholders become values only in requests to their secret's hosts (in a header,
// Basic credentials, or the body) and refuse the request anywhere else (another host, the URL);
// a response from a secret's host has the value turned back into the placeholder (and its encoded
// forms redacted).
import { createHash } from 'node:crypto';
import http from 'node:http';
import { pipeline } from 'node:stream';
import zlib from 'node:zlib';
import { formsOf, REDACTED } from '../../redact.js';
import { boundTo, type SecretBinding } from './secrets.js';
import { PatternRefusal, ReplacingStream, replaceAll, type Pattern } from './replace.js';

export const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'proxy-authorization', 'proxy-authenticate', 'te', 'trailer', 'transfer-encoding', 'upgrade']);

/** What the proxy knows of the connection a request came on. */
export interface ForwardTarget {
  host: string;
  port: number;
  scheme: 'http' | 'https';
  /** The checked address the connection goes to. */
  address: string;
  /** The rule(s) that allowed the host (empty: the mode). */
  rules: string[];
}

export interface ForwardEvidence {
  method: string;
  url: string;
  host: string;
  port: number;
  scheme: 'http' | 'https';
  address: string;
  status: number | null;
  bytes: number;
  sha256: string | null;
  request_bytes: number;
  request_sha256?: string;
  rules: string[];
  secrets: string[];
  error?: string;
  started: number;
}

export interface ForwardContext {
  target: ForwardTarget;
  secrets: readonly SecretBinding[];
  /** Sends the request upstream (the caller knows the connection: pinned, tunnelled, TLS). */
  send(options: http.RequestOptions): http.ClientRequest;
  evidence(e: ForwardEvidence): void;
  refused(why: string): void;
}

function hostOf(header: string | undefined): { host: string; port: number | null } | null {
  if (!header) return null;
  const m = /^(?:\[([0-9a-fA-F:.]+)\]|([^:[\]]+))(?::(\d{1,5}))?$/.exec(header.trim());
  if (!m) return null;
  return { host: (m[1] ?? m[2])!.toLowerCase().replace(/\.$/, ''), port: m[3] ? Number(m[3]) : null };
}

function refuse(res: http.ServerResponse, status: number, why: string): void {
  if (!res.headersSent) {
    res.writeHead(status, { 'content-type': 'text/plain', 'x-norma-egress-refusal': why.replace(/[\r\n]/g, ' ').slice(0, 500), connection: 'close' });
  }
  res.end(`norma egress: ${why}\n`);
}

/** The URL for evidence: the query's values left out when the request carried a secret. */
function evidenceUrl(t: ForwardTarget, path: string, secretBearing: boolean): string {
  const base = `${t.scheme}://${t.host.includes(':') ? `[${t.host}]` : t.host}${t.port === (t.scheme === 'https' ? 443 : 80) ? '' : `:${t.port}`}`;
  const q = path.indexOf('?');
  if (!secretBearing || q === -1) return (base + path).slice(0, 2048);
  const keys = path
    .slice(q + 1)
    .split('&')
    .map((kv) => `${kv.split('=')[0]}=…`)
    .join('&');
  return `${base}${path.slice(0, q)}?${keys}`.slice(0, 2048);
}

/** The request's headers with placeholders put to their values, or a refusal. */
function headersWithSecrets(req: http.IncomingMessage, ctx: ForwardContext, bound: readonly SecretBinding[], used: Set<string>): http.OutgoingHttpHeaders | string {
  const { target } = ctx;
  const patterns: Pattern[] = ctx.secrets.map((b) =>
    bound.includes(b)
      ? { find: Buffer.from(b.placeholder), replace: Buffer.from(b.value, 'utf8') }
      : { find: Buffer.from(b.placeholder), replace: null, refuse: `the placeholder of secret ${b.name} in a request to ${target.host}, which is not one of its hosts` },
  );
  const byPlaceholder = new Map(ctx.secrets.map((b) => [b.placeholder, b.name]));
  const mark = (p: Pattern) => {
    const name = byPlaceholder.get(p.find.toString('latin1'));
    if (name) used.add(name);
  };
  const out: http.OutgoingHttpHeaders = {};
  try {
    for (let i = 0; i < req.rawHeaders.length; i += 2) {
      const name = req.rawHeaders[i]!;
      const lower = name.toLowerCase();
      if (HOP_BY_HOP.has(lower) || lower === 'host') continue;
      let value = replaceAll(Buffer.from(req.rawHeaders[i + 1]!, 'latin1'), patterns, mark).toString('latin1');
      // Basic credentials carry the placeholder base64-encoded (git, curl -u).
      const basic = /^basic\s+([A-Za-z0-9+/=]+)$/i.exec(value);
      if (lower === 'authorization' && basic) {
        const decoded = Buffer.from(basic[1]!, 'base64');
        const replaced = replaceAll(decoded, patterns, mark);
        if (replaced !== decoded) value = `Basic ${replaced.toString('base64')}`;
      }
      const had = out[lower];
      out[lower] = had === undefined ? value : Array.isArray(had) ? [...had, value] : [String(had), value];
    }
  } catch (err) {
    if (err instanceof PatternRefusal) return err.message;
    throw err;
  }
  for (const b of bound) {
    if (!b.header) continue;
    // A function, not a string: `$&` or `$1` in a value must stay as written.
    out[b.header.toLowerCase()] = b.format.replace('{value}', () => b.value);
    used.add(b.name);
  }
  return out;
}

/** Forwards one request; everything refused is answered with a 403 that says why. */
export function forwardRequest(req: http.IncomingMessage, res: http.ServerResponse, path: string, ctx: ForwardContext): void {
  const { target } = ctx;
  const started = performance.now();
  const used = new Set<string>();
  const bound = ctx.secrets.filter((b) => boundTo(b, target.host, target.port));
  let requestBytes = 0;
  // Of the body as the process sent it (placeholders, never values: a digest of a short value could be guessed back).
  const requestHash = createHash('sha256');
  let requestDigest: string | null = null;
  const record = (rest: Partial<ForwardEvidence>) =>
    ctx.evidence({
      method: req.method ?? 'GET',
      url: evidenceUrl(target, path, used.size > 0 || bound.length > 0),
      host: target.host,
      port: target.port,
      scheme: target.scheme,
      address: target.address,
      status: null,
      bytes: 0,
      sha256: null,
      request_bytes: requestBytes,
      ...(requestBytes > 0 ? { request_sha256: (requestDigest ??= requestHash.digest('hex')) } : {}),
      rules: target.rules,
      secrets: [...used],
      started,
      ...rest,
    });
  const deny = (why: string) => {
    ctx.refused(why);
    refuse(res, 403, why);
    record({ status: 403, error: why });
    req.resume();
  };

  const named = hostOf(req.headers.host);
  if (!named) return deny(`a request without a Host header (or with one that is not a host) on the connection to ${target.host}`);
  if (named.host !== target.host || (named.port !== null && named.port !== target.port)) {
    return deny(`the request names ${req.headers.host} in its Host header on a connection allowed for ${target.host}:${target.port}`);
  }
  const placeholderInPath = ctx.secrets.find((b) => path.includes(b.placeholder) || decodeURIComponentSafe(path).includes(b.placeholder));
  if (placeholderInPath) return deny(`the placeholder of secret ${placeholderInPath.name} in a URL: secrets go in headers or the body, never in a URL (URLs are logged)`);
  const headers = headersWithSecrets(req, ctx, bound, used);
  if (typeof headers === 'string') return deny(headers);
  headers.host = req.headers.host!;
  // An echo of a secret is turned back into its placeholder: the response must come unencoded.
  if (bound.length > 0) headers['accept-encoding'] = 'identity';

  const bodyPatterns: Pattern[] = ctx.secrets.map((b) =>
    bound.includes(b)
      ? { find: Buffer.from(b.placeholder), replace: Buffer.from(b.value, 'utf8') }
      : { find: Buffer.from(b.placeholder), replace: null, refuse: `the placeholder of secret ${b.name} in the body of a request to ${target.host}, which is not one of its hosts` },
  );
  const hasBody = req.headers['content-length'] !== undefined || req.headers['transfer-encoding'] !== undefined;
  // A body with secrets around is sent chunked: a placeholder replaced changes its length.
  if (hasBody && bodyPatterns.length > 0) {
    delete headers['content-length'];
    headers['transfer-encoding'] = 'chunked';
  }
  const out = ctx.send({ method: req.method, path, headers, setHost: false });
  let failed = false;
  const fail = (e: Error) => {
    if (failed) return;
    failed = true;
    const refusal = e instanceof PatternRefusal;
    const why = refusal ? e.message : `${target.host}: ${e.message}`;
    if (refusal) ctx.refused(why);
    refuse(res, refusal ? 403 : 502, why);
    record({ status: refusal ? 403 : 502, error: why });
    out.destroy();
  };
  out.once('error', fail);
  out.once('response', (r) => {
    if (failed) return void r.resume();
    const hash = createHash('sha256');
    let bytes = 0;
    const h: http.OutgoingHttpHeaders = {};
    const values = echoPatterns(bound);
    for (const [k, v] of Object.entries(r.headers)) {
      if (v === undefined || HOP_BY_HOP.has(k.toLowerCase())) continue;
      h[k] = values.length === 0 ? v : Array.isArray(v) ? v.map((x) => replaceAll(Buffer.from(x, 'latin1'), values).toString('latin1')) : replaceAll(Buffer.from(String(v), 'latin1'), values).toString('latin1');
    }
    // A server that compresses anyway (it was asked not to) is decompressed here: an echo of a
    // value cannot hide in compressed bytes.
    const encoding = String(r.headers['content-encoding'] ?? '').trim().toLowerCase();
    const inflate = values.length > 0 && encoding !== '' && encoding !== 'identity' ? decoder(encoding) : null;
    if (values.length > 0 && encoding !== '' && encoding !== 'identity' && !inflate) {
      r.resume();
      return fail(new Error(`the answer is encoded as ${encoding.slice(0, 40)}, which the proxy cannot read to keep a secret's value out of it`));
    }
    if (inflate) delete h['content-encoding'];
    if (values.length > 0) delete h['content-length'];
    res.writeHead(r.statusCode ?? 502, h);
    r.on('data', (d: Buffer) => {
      bytes += d.length;
      hash.update(d);
    });
    let recorded = false;
    const done = (err?: Error | null) => {
      if (recorded) return;
      recorded = true;
      record({ status: r.statusCode ?? null, bytes, sha256: err ? null : hash.digest('hex'), ...(err ? { error: err.message } : {}) });
    };
    // pipe(), not pipeline(): this is the path every answer takes, and a pipeline's signals cost
    // more than the rest of it. An error on either side ends both.
    const stages: NodeJS.ReadWriteStream[] = [...(inflate ? [inflate] : []), ...(values.length > 0 ? [new ReplacingStream(values)] : [])];
    let tail: NodeJS.ReadableStream = r;
    for (const st of stages) {
      tail = tail.pipe(st);
      st.once('error', (err: Error) => {
        done(err);
        r.destroy();
        res.destroy();
      });
    }
    tail.pipe(res);
    tail.once('end', () => done());
    r.once('error', (err) => {
      done(err);
      res.destroy();
    });
    r.once('aborted', () => {
      done(new Error('the server closed the answer before its end'));
      res.destroy();
    });
    res.once('close', () => {
      if (!res.writableFinished) {
        done(new Error('the process closed the connection before the answer ended'));
        r.destroy();
      }
    });
  });
  req.on('data', (d: Buffer) => {
    requestBytes += d.length;
    requestHash.update(d);
  });
  if (bodyPatterns.length > 0 && hasBody) {
    // Not a pipeline: a refused body must leave the process's connection open for the 403.
    const byPlaceholder = new Map(ctx.secrets.map((b) => [b.placeholder, b.name]));
    const scan = new ReplacingStream(bodyPatterns, (p) => {
      const name = byPlaceholder.get(p.find.toString('latin1'));
      if (name) used.add(name);
    });
    scan.once('error', (err) => {
      req.unpipe(scan);
      req.resume();
      fail(err);
    });
    req.pipe(scan).pipe(out);
  } else req.pipe(out);
}

const REDACTED_BYTES = Buffer.from(REDACTED);

/**
 * What an answer from a secret's host may echo: the value as sent (it becomes the placeholder
 * again) and its other written forms — base64 at each byte offset, hex, percent-encoded,
 * JSON-escaped (src/redact.ts) — which become `[redacted]`.
 */
function echoPatterns(bound: readonly SecretBinding[]): Pattern[] {
  const out: Pattern[] = [];
  for (const b of bound) {
    out.push({ find: Buffer.from(b.value, 'utf8'), replace: Buffer.from(b.placeholder) });
    for (const f of formsOf(b.value)) if (f.text !== b.value && f.text.length >= 8) out.push({ find: Buffer.from(f.text, 'utf8'), replace: REDACTED_BYTES });
  }
  return out;
}

function decoder(encoding: string): NodeJS.ReadWriteStream | null {
  switch (encoding) {
    case 'gzip':
    case 'x-gzip':
      return zlib.createGunzip();
    case 'deflate':
      return zlib.createInflate();
    case 'br':
      return zlib.createBrotliDecompress();
    default:
      return null;
  }
}

function decodeURIComponentSafe(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
