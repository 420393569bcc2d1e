// Shared route pieces: the Problem responses every route declares, and path params.
import { Type } from '@sinclair/typebox';
import { Id, ProblemSchema, ref } from '../src/contract/schemas.js';
import type { Scope } from '../src/app/scope.js';

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

const problem = (description: string) => ({
  description,
  content: { [PROBLEM_CONTENT_TYPE]: { schema: ref(ProblemSchema) } },
});

/** Problem responses by status; each route spreads the ones it can produce. */
export const problems = {
  400: problem('Invalid request: the detail and `errors` say what to fix'),
  401: problem('Missing, unknown or expired key (or event ticket); on a server without keys, any Authorization header sent'),
  403: problem('The key\'s scopes or its tenant\'s policy do not allow this, or the request\'s Origin is not allowed'),
  404: problem('No such resource'),
  409: problem('Conflicts with the resource\'s current state (or a request with the same Idempotency-Key is still in progress)'),
  410: problem('Gone: removed by retention'),
  413: problem('Request body too large'),
  415: problem('Unsupported content type (send application/json)'),
  416: problem('The requested range is outside the resource'),
  421: problem('The request\'s Host is not a name this server answers to (NORMA_ALLOWED_HOSTS; closes DNS rebinding)'),
  422: problem('The Idempotency-Key was used for another request (another method, path or body); nothing was done'),
  429: problem('A limit of the tenant is reached: requests per minute, sessions, running turns, or its turns waiting to start on this server (with Retry-After when waiting helps)'),
  507: problem('Insufficient storage: the disk is full; nothing of the request was stored, and what was stored before is intact'),
  503: problem('Unavailable: the server is shutting down, the store cannot be used right now, or a new turn found no place to run within the wait (with Retry-After); nothing of the request was stored'),
  500: problem('Internal error (details are in the server log, never in the response)'),
  501: problem('Not supported by this server version'),
} as const;

export const commonProblems = {
  400: problems[400],
  401: problems[401],
  403: problems[403],
  // Any request may carry a body, wanted or not: one too large or not JSON is refused as such.
  413: problems[413],
  415: problems[415],
  421: problems[421],
  429: problems[429],
  500: problems[500],
  503: problems[503],
  507: problems[507],
};
export const bodyProblems = commonProblems;

/** A page of a session's events of one kind (hook runs, egress, MCP requests): after a seq, at most `limit`. */
export const EventPageQuery = Type.Object(
  {
    after: Type.Optional(Type.Integer({ minimum: 0, default: 0 })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 200 })),
  },
  { additionalProperties: false },
);

export const SessionParams = Type.Object({ session_id: Id('Session id') }, { additionalProperties: false });
export const TurnParams = Type.Object(
  { session_id: Id('Session id'), turn_id: Id('Turn id') },
  { additionalProperties: false },
);
export const PermissionParams = Type.Object(
  { session_id: Id('Session id'), permission_id: Id('Permission request id') },
  { additionalProperties: false },
);

/** Resolves when a response's socket can take more data again, or the client went away. */
export function drainedOrClosed(res: import('node:http').ServerResponse): Promise<void> {
  return new Promise<void>((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

/** The caller's scope, set by the auth check for every request that reached a protected route. */
export function scopeOf(req: import('fastify').FastifyRequest): Scope {
  // A protected route is reached only with a scope: without one, nothing is served.
  if (req.scope === null) throw new Error(`${req.method} ${req.routeOptions.url} was reached without a scope`);
  return req.scope;
}
