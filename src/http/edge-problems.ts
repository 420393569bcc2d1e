// Problems for what goes wrong before any route runs. Node's HTTP parser refuses a request it
// cannot read (a malformed request line or header, a header block over its limit, a request that
// did not arrive in time) through `clientError`; find-my-way refuses a path parameter longer than
// `maxParamLength` and a path that is not valid percent-encoding; Node itself answers an HTTP/1.1
// request without Host and an Expect it cannot meet. Left alone, each answers in its own format
// (Fastify's JSON that quotes the whole path, Node's empty bodies); here each is a Problem of the
// API's shape, small whatever the request was, quoting at most a short prefix of the path.
import { maxHeaderSize, STATUS_CODES, type IncomingMessage, type ServerResponse, type Server } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { PROBLEM_CONTENT_TYPE } from '../../routes/common.js';
import { PATH_PREFIX_CHARS, problemBody, problemTitle } from './problem.js';

export interface EdgeOptions {
  /** The longest path parameter the router takes (Fastify's `maxParamLength`). */
  maxParamLength: number;
  /** A request id for answers given before Fastify made a request (`clientError`, `checkExpectation`). */
  newRequestId: () => string;
  /** Told of every connection-level refusal (a log line at debug). */
  log?: (code: string | undefined, status: number) => void;
}

/** The first characters of the request's path, for a detail: never the whole of an oversized one. */
function pathPrefix(url: string | undefined): string {
  const path = (url ?? '').split('?')[0]!;
  return JSON.stringify(path.length > PATH_PREFIX_CHARS ? `${path.slice(0, PATH_PREFIX_CHARS)}…` : path);
}

/** Fastify's `frameworkErrors`: what the router refuses before a route is chosen. */
export function frameworkErrors(opts: EdgeOptions) {
  return (err: { code?: string }, req: FastifyRequest, reply: FastifyReply): void => {
    let status: number;
    let detail: string;
    switch (err.code) {
      case 'FST_ERR_MAX_PARAM_LENGTH':
        status = 414;
        detail = `a path parameter is longer than ${opts.maxParamLength} characters, the most the server takes (ids are at most 64); the path begins ${pathPrefix(req.raw.url)}`;
        break;
      case 'FST_ERR_BAD_URL':
        status = 400;
        detail = `the path is not valid percent-encoding (a % not followed by two hex digits, or bytes that are not UTF-8); it begins ${pathPrefix(req.raw.url)}`;
        break;
      default:
        req.log.error({ err }, 'router error');
        status = 500;
        detail = `internal error; quote request id ${req.id} when reporting it`;
    }
    // No route, so none of the app's hooks run for this answer: the request id is set here.
    void reply.code(status).type(PROBLEM_CONTENT_TYPE).header('x-request-id', req.id).send(problemBody(status, detail));
  };
}

/** Status and detail for an error Node's parser reported on a connection. */
export function clientErrorProblem(err: { code?: string; reason?: string }, maxHeaderBytes: number): { status: number; detail: string } {
  switch (err.code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { status: 408, detail: 'the request did not arrive within the server\'s time limit (its headers, or its headers and body); send it again' };
    case 'HPE_HEADER_OVERFLOW':
      return { status: 431, detail: `the request line and header fields together are larger than ${maxHeaderBytes} bytes, the server's limit (a URL that long is refused the same way)` };
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return { status: 413, detail: 'the chunk extensions of the request body are larger than the server takes' };
    case 'HPE_INVALID_VERSION':
      if (err.reason === 'Invalid HTTP version') return { status: 505, detail: 'only HTTP/1.0 and HTTP/1.1 are served' };
      break;
  }
  const code = typeof err.code === 'string' && /^[A-Z0-9_]{1,40}$/.test(err.code) ? ` (${err.code})` : '';
  return { status: 400, detail: `not a well-formed HTTP/1.1 request${code}` };
}

/** A whole HTTP/1.1 response carrying a problem, for a socket no ServerResponse writes to. */
function problemResponse(status: number, detail: string, requestId: string): string {
  const body = JSON.stringify(problemBody(status, detail));
  return (
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? problemTitle(status)}\r\n` +
    `Content-Type: ${PROBLEM_CONTENT_TYPE}; charset=utf-8\r\n` +
    `Content-Length: ${Buffer.byteLength(body)}\r\n` +
    `X-Request-Id: ${requestId}\r\n` +
    'Connection: close\r\n\r\n' +
    body
  );
}

/**
 * Fastify's `clientErrorHandler`: Node could not read a request on `socket`. The answer is
 * written on the socket as it is (no response object exists), then the connection ends. Nothing
 * is written when a response on it has started already: a second one would corrupt it.
 */
export function clientErrorHandler(opts: EdgeOptions, maxHeaderBytes: () => number) {
  return (err: Error & { code?: string; reason?: string }, socket: Socket): void => {
    if (err.code === 'ECONNRESET' || socket.destroyed) return;
    const inFlight = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage;
    if (socket.writable && !inFlight?.headersSent) {
      const { status, detail } = clientErrorProblem(err, maxHeaderBytes());
      opts.log?.(err.code, status);
      socket.write(problemResponse(status, detail, opts.newRequestId()));
    }
    socket.destroy(err);
  };
}

/** A problem as the whole answer of `res` (no route, no hooks), ending the connection. */
function sendRawProblem(res: ServerResponse, status: number, detail: string, requestId: string): void {
  const body = JSON.stringify(problemBody(status, detail));
  res.writeHead(status, {
    'content-type': `${PROBLEM_CONTENT_TYPE}; charset=utf-8`,
    'content-length': Buffer.byteLength(body),
    'x-request-id': requestId,
    connection: 'close',
  });
  res.end(body);
}

/**
 * What a request Node handed over may still lack: HTTP/1.x (llhttp reads `HTTP/2.0` and
 * `HTTP/0.9` request lines too) and, in HTTP/1.1, a Host (RFC 9112 §3.2; Node's own check is
 * off so that this answer is a problem). Null when neither is wrong.
 */
export function requestLineProblem(raw: IncomingMessage): { status: number; detail: string } | null {
  if (raw.httpVersionMajor !== 1 || (raw.httpVersionMinor !== 0 && raw.httpVersionMinor !== 1)) {
    return { status: 505, detail: 'only HTTP/1.0 and HTTP/1.1 are served' };
  }
  if (raw.httpVersionMinor === 1 && raw.headers.host === undefined) {
    return { status: 400, detail: 'an HTTP/1.1 request must carry a Host header' };
  }
  return null;
}

/**
 * Answers, before Fastify routes it, a request that no route should see: one that is not
 * HTTP/1.x or lacks Host (above), one that comes while the server shuts down (503), and one
 * whose `Expect` the server cannot meet (Node's `checkExpectation`; Node's own answer is an
 * empty 417). Wraps the server's `request` listeners (Fastify's handler), so the server keeps
 * Fastify's timeouts and everything else it set.
 */
export function guardRequests(server: Server, opts: EdgeOptions & { closing: () => boolean }): void {
  const handlers = server.listeners('request') as ((req: IncomingMessage, res: ServerResponse) => void)[];
  server.removeAllListeners('request');
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const wrong = requestLineProblem(req);
    if (wrong) return sendRawProblem(res, wrong.status, wrong.detail, opts.newRequestId());
    if (opts.closing()) return sendRawProblem(res, 503, 'the server is shutting down; send the request again in a moment (to another replica, if there is one)', opts.newRequestId());
    for (const handler of handlers) handler.call(server, req, res);
  });
  server.on('checkExpectation', (_req: IncomingMessage, res: ServerResponse) => {
    sendRawProblem(res, 417, 'the server meets no expectation but 100-continue; send the request without this Expect header', opts.newRequestId());
  });
}

/**
 * The Fastify options that route these errors here: the router's parameter limit, its errors and
 * Node's client errors as problems, and Node's and Fastify's own answers (an HTTP/1.1 request
 * without Host, one that comes while the server closes) turned off, since guardRequests answers them.
 */
export function edgeFastifyOptions(opts: EdgeOptions) {
  return {
    routerOptions: { maxParamLength: opts.maxParamLength },
    frameworkErrors: frameworkErrors(opts),
    clientErrorHandler: clientErrorHandler(opts, () => maxHeaderSize),
    http: { requireHostHeader: false },
    return503OnClosing: false,
  };
}
