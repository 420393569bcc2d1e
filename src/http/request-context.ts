// What a request carries through the server besides its data: its id (the client's
// X-Request-Id when it is a plain token, else one made here), its W3C trace (the incoming
// `traceparent` continued, else a new one) — bound with AsyncLocalStorage around everything the
// request runs, so the outbound requests it causes carry it — and its latency in the metrics.
import type { IncomingMessage } from 'node:http';
import type { FastifyInstance } from 'fastify';
import type { ServerMetrics } from '../telemetry/metrics.js';
import { runInTrace, traceFromHeaders, type TraceContext } from '../trace/context.js';
import { CommitWatch, runInCommitWatch } from '../store/commit-watch.js';
import { PROBLEM_CONTENT_TYPE } from '../../routes/common.js';
import { problemBody, shownPath } from './problem.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The trace the request belongs to (its `traceparent` continued, or a new one). */
    trace: TraceContext;
    /** The commits of the work the request does (its answer waits for them). */
    commits: CommitWatch;
  }
}

/** A request id a client may choose: up to 64 of letters, digits and `._:-` (safe in headers and logs). */
const CLIENT_REQUEST_ID = /^[A-Za-z0-9._:-]{1,64}$/;

/** The client's X-Request-Id when it may be kept; undefined: make one (too long, other characters, empty, repeated). */
export function requestIdOf(header: string | string[] | undefined): string | undefined {
  return typeof header === 'string' && CLIENT_REQUEST_ID.test(header) ? header : undefined;
}

/** Each raw request's trace, read once from its headers when its logger is made. */
const traces = new WeakMap<IncomingMessage, TraceContext>();

function traceOf(raw: IncomingMessage): TraceContext {
  let trace = traces.get(raw);
  if (!trace) traces.set(raw, (trace = traceFromHeaders(raw.headers)));
  return trace;
}

/**
 * Every request's log lines name its trace (`trace_id`, beside `reqId`), from its first line on.
 * Pass as Fastify's `childLoggerFactory`.
 */
export const tracedChildLogger: NonNullable<import('fastify').FastifyServerOptions['childLoggerFactory']> = function (logger, bindings, opts, raw) {
  return logger.child({ ...bindings, trace_id: traceOf(raw as IncomingMessage).traceId }, opts);
};

/**
 * Runs each request in its trace, from the first hook to the handler: `onRequest` (placed
 * before every other hook) enters it, and `preValidation` enters it again — a body is read in
 * the socket's callbacks, which are not the request's. Counts each answered request.
 */
export function installRequestContext(app: FastifyInstance, metrics: ServerMetrics): void {
  app.decorateRequest('trace', null as unknown as TraceContext);
  app.decorateRequest('commits', null as unknown as CommitWatch);
  app.addHook('onRequest', (req, _reply, done) => {
    req.trace = traceOf(req.raw);
    req.commits = new CommitWatch();
    runInTrace(req.trace, () => runInCommitWatch(req.commits, done));
  });
  app.addHook('preValidation', (req, _reply, done) => {
    runInTrace(req.trace, () => runInCommitWatch(req.commits, done));
  });
  // An answer is sent once the work it reports has committed (a store that commits without
  // waiting: PostgreSQL's); work that did not commit is answered 503, as nothing of it is kept.
  app.addHook('onSend', (req, reply, payload, done) => {
    // Nothing sent without waiting (SQLite's commits are made when the handler returns): no await.
    if (req.commits.closeIfIdle()) return done(null, payload);
    void req.commits.settled().then((failure) => {
      if (failure === undefined || reply.statusCode >= 500) return done(null, payload);
      req.log.error({ err: failure }, 'the work of this request did not commit; answered 503');
      reply.code(503).header('retry-after', '1').type(PROBLEM_CONTENT_TYPE);
      reply.removeHeader('etag');
      reply.removeHeader('location');
      done(null, JSON.stringify(problemBody(503, 'the work of this request could not be stored, so none of it was kept; try again', shownPath(req.url))));
    });
  });
  app.addHook('onResponse', (req, reply, done) => {
    metrics.request(req.method, req.routeOptions.url, reply.statusCode, reply.elapsedTime / 1000);
    done();
  });
}
