// Every error leaves the server as application/problem+json (RFC 9457): the status a domain
// error maps to, a stable `type` URI clients can switch on, and a detail precise enough to fix
// the request. Validation, body-parser and store failures are translated here, in one place.
import { PgError } from '../store/pg-sync.js';
import { STATUS_CODES } from 'node:http';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Problem } from '../contract/schemas.js';
import { DomainError, type DomainErrorKind } from '../errors.js';
import { PROBLEM_CONTENT_TYPE } from '../../routes/common.js';
import type { ErrorObject } from 'ajv';
import type { ValidationExplainer } from './validation.js';

export const STATUS_OF: Record<DomainErrorKind, number> = {
  invalid: 400,
  not_found: 404,
  conflict: 409,
  gone: 410,
  range_not_satisfiable: 416,
  not_implemented: 501,
  unavailable: 503,
  forbidden: 403,
  limit: 429,
};

/** Stable problem type URIs clients can switch on (RFC 9457 §3.1.1). */
const PROBLEM_TYPES: Record<number, string> = {
  400: 'urn:norma:problem:invalid-request',
  401: 'urn:norma:problem:unauthorized',
  403: 'urn:norma:problem:forbidden',
  404: 'urn:norma:problem:not-found',
  405: 'urn:norma:problem:method-not-allowed',
  408: 'urn:norma:problem:request-timeout',
  409: 'urn:norma:problem:conflict',
  410: 'urn:norma:problem:gone',
  416: 'urn:norma:problem:range-not-satisfiable',
  413: 'urn:norma:problem:body-too-large',
  414: 'urn:norma:problem:uri-too-long',
  415: 'urn:norma:problem:unsupported-media-type',
  417: 'urn:norma:problem:expectation-failed',
  421: 'urn:norma:problem:misdirected-request',
  422: 'urn:norma:problem:unprocessable-content',
  429: 'urn:norma:problem:too-many-requests',
  431: 'urn:norma:problem:header-fields-too-large',
  500: 'urn:norma:problem:internal-error',
  501: 'urn:norma:problem:not-implemented',
  503: 'urn:norma:problem:unavailable',
  505: 'urn:norma:problem:http-version-not-supported',
  507: 'urn:norma:problem:insufficient-storage',
};

export function problemType(status: number): string {
  return PROBLEM_TYPES[status] ?? 'about:blank';
}

/** RFC 9110's names where Node's table still has the older ones. */
const RFC_9110_TITLES: Readonly<Record<number, string>> = { 413: 'Content Too Large', 422: 'Unprocessable Content' };

/** The status's standard reason phrase (RFC 9110, else Node's table), or "Error" for a code neither names. */
export function problemTitle(status: number): string {
  return RFC_9110_TITLES[status] ?? STATUS_CODES[status] ?? 'Error';
}

/**
 * The longest path a problem names whole (as `instance`, in a 404's or 405's detail). A longer
 * one is the client's to know: it is left out of `instance` and cut to a prefix in words, so no
 * answer grows with what the client sent.
 */
export const MAX_SHOWN_PATH = 256;
/** How much of a longer path a detail quotes. */
export const PATH_PREFIX_CHARS = 48;

/** The request's path (no query) as a detail may name it: whole up to MAX_SHOWN_PATH, else its first PATH_PREFIX_CHARS characters and `…`. */
export function shownPath(url: string): string {
  const q = url.indexOf('?');
  const path = q < 0 ? url : url.slice(0, q);
  return path.length <= MAX_SHOWN_PATH ? path : `${path.slice(0, PATH_PREFIX_CHARS)}…`;
}

/** A Problem of `status`: its type and title from the tables above; `instance` when given. */
export function problemBody(status: number, detail: string, instance?: string, errors?: Problem['errors']): Problem {
  return {
    type: problemType(status),
    title: problemTitle(status),
    status,
    detail,
    ...(instance !== undefined ? { instance } : {}),
    ...(errors && errors.length > 0 ? { errors } : {}),
  };
}

export function sendProblem(reply: FastifyReply, req: FastifyRequest, status: number, detail: string, errors?: Problem['errors'], extra?: Pick<Problem, 'conflicts'>) {
  const path = req.url.split('?')[0]!;
  const body = { ...problemBody(status, detail, path.length <= MAX_SHOWN_PATH ? path : undefined, errors), ...extra };
  return reply.code(status).type(PROBLEM_CONTENT_TYPE).send(body);
}

export interface ProblemOptions {
  /** The configured body limit, named in the 413 detail. */
  bodyLimitBytes: number;
  /** Turns the validator's errors into issues that point at the offending value. */
  explainer: ValidationExplainer;
}

/**
 * Where a domain problem is: its text starts with the field it is about, in the server's
 * notation (`tools[2]: …`, `mcp_servers.github: …`, `answers["Which?"]: …`), which becomes a
 * JSON pointer (`/tools/2`, `/mcp_servers/github`, `/answers/Which?`). A problem about the
 * request as a whole has the root, "".
 */
export function problemPointer(problem: string): string {
  const head = /^([A-Za-z_][A-Za-z0-9_-]*)((?:\.[A-Za-z0-9_-]+|\[\d+\]|\["(?:[^"\\]|\\.)*"\])*): /.exec(problem);
  if (!head) return '';
  const segments = [head[1]!];
  const rest = head[2]!;
  const re = /\.([A-Za-z0-9_-]+)|\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\]/g;
  for (let m = re.exec(rest); m !== null; m = re.exec(rest)) {
    segments.push(m[1] ?? m[2] ?? (JSON.parse(m[3]!) as string));
  }
  return segments.map((s) => `/${s.replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
}

/**
 * The methods a route may answer, in the order an `Allow` header lists them. OPTIONS is not
 * among them: no route serves it (with CORS on, @fastify/cors answers preflights itself).
 */
const ROUTE_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/**
 * The methods the router has a route for at `path` (a concrete path, parameters filled in):
 * the router's own lookup, so parametric paths (`/v1/sessions/:session_id`) and wildcards match
 * exactly as they do for a request. A catch-all at the root (`*`, which matches every path)
 * says nothing about this path and is left out.
 */
export function allowedMethods(app: FastifyInstance, path: string): string[] {
  const allowed: string[] = [];
  for (const method of ROUTE_METHODS) {
    const found = app.findRoute({ method, url: path });
    if (!found) continue;
    const rest = (found.params as Record<string, string | undefined>)['*'];
    if (rest !== undefined && `/${rest}` === path) continue;
    allowed.push(method);
  }
  return allowed;
}

/** Sets the app's not-found and error handlers: every failure becomes a Problem. */
export function installProblemHandling(app: FastifyInstance, { bodyLimitBytes, explainer }: ProblemOptions): void {
  // A path the server has, asked with a method it does not serve there, is 405 with `Allow`
  // (RFC 9110 §15.5.6); only a path no route has is 404.
  app.setNotFoundHandler((req, reply) => {
    const path = req.url.split('?')[0]!;
    const allowed = allowedMethods(app, path);
    if (allowed.length > 0 && !allowed.includes(req.method)) {
      reply.header('allow', allowed.join(', '));
      return sendProblem(reply, req, 405, `${req.method} is not allowed on ${shownPath(path)}; it allows ${allowed.join(', ')}`);
    }
    return sendProblem(reply, req, 404, `no route ${req.method} ${shownPath(path)}`);
  });

  app.setErrorHandler((err: FastifyError, req, reply) => {
    if (err instanceof DomainError) {
      const status = STATUS_OF[err.kind];
      if (err.retryAfterS !== undefined) reply.header('retry-after', String(err.retryAfterS));
      const problems = err.problems.length > 0 ? err.problems : status === 400 ? [err.message] : [];
      return sendProblem(
        reply,
        req,
        status,
        err.message,
        problems.map((p) => ({ location: err.location, path: problemPointer(p), message: p })),
        err.conflicts ? { conflicts: err.conflicts } : undefined,
      );
    }
    if (err.validation) {
      const location = err.validationContext === 'querystring' ? 'query' : (err.validationContext ?? 'body');
      const errors = explainer.explain(err.validation as unknown as ErrorObject[]).map((i) => ({ location, ...i }));
      const detail = `invalid ${location}: ${errors.map((e) => `${e.path || '(root)'} ${e.message}`).join('; ')}`;
      return sendProblem(reply, req, 400, detail, errors);
    }
    switch (err.code) {
      case 'FST_ERR_CTP_INVALID_JSON_BODY':
      case 'FST_ERR_CTP_EMPTY_JSON_BODY':
        return sendProblem(reply, req, 400, `malformed JSON body: ${err.message}`);
      case 'FST_ERR_CTP_BODY_TOO_LARGE':
        return sendProblem(reply, req, 413, `request body is larger than ${bodyLimitBytes} bytes`);
      case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
        return sendProblem(reply, req, 415, `unsupported content type ${JSON.stringify(req.headers['content-type'] ?? '')}; send application/json`);
      default:
        break;
    }
    if (err instanceof SyntaxError || (err.statusCode === 400 && /JSON/i.test(err.message))) {
      return sendProblem(reply, req, 400, `malformed JSON body: ${err.message}`);
    }
    if (err.statusCode !== undefined && err.statusCode >= 400 && err.statusCode < 500) {
      return sendProblem(reply, req, err.statusCode, err.message);
    }
    // The store refused a write: its transaction rolled back, so nothing of this request was
    // stored and everything committed before is intact.
    const sqlite = typeof err.code === 'string' && err.code.startsWith('SQLITE_') ? err.code : undefined;
    if (sqlite === 'SQLITE_FULL') {
      req.log.error({ err }, 'store full');
      return sendProblem(reply, req, 507, 'the server\'s storage is full: nothing of this request was stored (what was stored before is intact); retry once space is freed');
    }
    if (sqlite !== undefined) {
      req.log.error({ err }, 'store unavailable');
      reply.header('retry-after', '1');
      return sendProblem(reply, req, 503, `the store cannot be used right now (${sqlite}): nothing of this request was stored; retry later`);
    }
    if (err instanceof PgError) {
      req.log.error({ err }, 'database unavailable');
      if (err.code === '53100') return sendProblem(reply, req, 507, 'the database\'s storage is full: nothing of this request was stored (what was stored before is intact); retry once space is freed');
      reply.header('retry-after', '1');
      return sendProblem(reply, req, 503, `the database cannot be used right now${err.code ? ` (${err.code})` : ''}: nothing of this request was stored; retry later`);
    }
    req.log.error({ err }, 'unhandled error');
    return sendProblem(reply, req, 500, `internal error; quote request id ${req.id} when reporting it`);
  });
}
