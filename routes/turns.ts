// Turns: post (direct tool calls), list, get, cancel (API.md "Turns").
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { AppContext } from '../src/app-context.js';
import { TurnCreateSchema, TurnListSchema, TurnSchema, ref } from '../src/contract/schemas.js';
import { SessionParams, TurnParams, bodyProblems, commonProblems, problems, scopeOf } from './common.js';
import type { Turn } from '../src/contract/schemas.js';
import { DomainError } from '../src/errors.js';
import { IdempotencyHeaders, REPLAYED_HEADER, answerOnce, type Answer } from './idempotency.js';

const started = (turn: Turn, status: 200 | 202): Answer => ({ status, headers: { location: `/v1/sessions/${turn.session_id}/turns/${turn.id}` }, body: turn });

export const MAX_WAIT_S = 300;

export const turnRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.post(
    '/v1/sessions/:session_id/turns',
    {
      config: { access: 'write' },
      schema: {
        operationId: 'createTurn',
        tags: ['turns'],
        summary: 'Post a turn',
        description:
          '202 with the running turn. With `?wait=S` the response is held until the turn finishes or pauses for a ' +
          'permission, or S seconds pass, and is 200 with the turn as it then is. One turn runs at a time (409).',
        params: SessionParams,
        querystring: Type.Object(
          { wait: Type.Optional(Type.Number({ minimum: 0, maximum: MAX_WAIT_S, description: 'Seconds to hold the response' })) },
          { additionalProperties: false },
        ),
        headers: IdempotencyHeaders,
        body: ref(TurnCreateSchema),
        response: {
          200: {
            ...ref(TurnSchema, 'With `?wait`: the turn once finished or paused, or when the wait ran out'),
            headers: { Location: { type: 'string', description: 'The turn\'s URL' }, ...REPLAYED_HEADER },
          },
          202: {
            ...ref(TurnSchema, 'The turn, running (also with `?wait` when the wait could not be done: the turn started)'),
            headers: { Location: { type: 'string', description: 'The turn\'s URL' }, ...REPLAYED_HEADER },
          },
          ...bodyProblems,
          404: problems[404],
          409: problems[409],
          422: problems[422],
          501: problems[501],
        },
      },
    },
    async (req, reply) =>
      answerOnce(
        ctx,
        req,
        reply,
        (turn) => started(turn as Turn, 202),
        async (kept) => {
          const scope = scopeOf(req);
          const sessionId = req.params.session_id;
          // A place to run (admission.ts): at once, or after the requests before it, or a 503/429
          // with Retry-After. It is held until the turn ends or pauses here (or, run by another
          // replica, until this answer).
          const place = await ctx.admission.enter(scope.tenant ?? '', abandoned(reply));
          let settling: Promise<void> | null = null;
          try {
            const turn = kept ? await ctx.owner.callKept(kept, scope, 'turns.start', sessionId, req.body) : await ctx.owner.call(scope, 'turns.start', sessionId, req.body);
            settling = ctx.app.turns.settling(sessionId, turn.id);
            if (req.query.wait === undefined) return started(turn, 202);
            try {
              return started(await ctx.owner.call(scope, 'turns.wait', turn.session_id, turn.id, req.query.wait), 200);
            } catch (err) {
              // The turn started: an answer that it was not done would be false. It is answered as posted without a wait.
              if (err instanceof DomainError && err.kind === 'unavailable') return started(turn, 202);
              throw err;
            }
          } finally {
            if (settling) void settling.finally(() => place.release());
            else place.release();
          }
        },
      ),
  );

  app.get(
    '/v1/sessions/:session_id/turns',
    {
      config: { access: 'read' },
      schema: {
        operationId: 'listTurns',
        tags: ['turns'],
        summary: 'List the session\'s turns, oldest first',
        description: 'Every turn of the session with its tool_uses, results and status.',
        params: SessionParams,
        response: { 200: ref(TurnListSchema, 'The turns'), ...commonProblems, 404: problems[404] },
      },
    },
    async (req) => ({ items: ctx.app.turns.list(scopeOf(req), req.params.session_id) }),
  );

  app.get(
    '/v1/sessions/:session_id/turns/:turn_id',
    {
      config: { access: 'read' },
      schema: {
        operationId: 'getTurn',
        tags: ['turns'],
        summary: 'Get a turn',
        description: 'The turn with its tool_uses, results (one per finished call, in order), pending requests and, for prompt turns, its messages and usage. `?wait=<s>` holds the answer until the turn ends or pauses.',
        params: TurnParams,
        querystring: Type.Object(
          { wait: Type.Optional(Type.Number({ minimum: 0, maximum: MAX_WAIT_S, description: 'Hold until finished or paused, at most this long' })) },
          { additionalProperties: false },
        ),
        response: { 200: ref(TurnSchema, 'The turn'), ...commonProblems, 404: problems[404] },
      },
    },
    async (req) => {
      const { session_id, turn_id } = req.params;
      if (req.query.wait === undefined) return ctx.app.turns.get(scopeOf(req), session_id, turn_id);
      return ctx.owner.call(scopeOf(req), 'turns.wait', session_id, turn_id, req.query.wait);
    },
  );

  app.post(
    '/v1/sessions/:session_id/turns/:turn_id/cancel',
    {
      config: { access: 'write' },
      schema: {
        operationId: 'cancelTurn',
        tags: ['turns'],
        summary: 'Cancel a turn',
        description: 'Running tools are stopped; every unfinished tool_use still gets its tool_result (is_error, "cancelled").',
        params: TurnParams,
        response: { 200: ref(TurnSchema, 'The cancelled turn'), ...commonProblems, 404: problems[404], 409: problems[409] },
      },
    },
    async (req) => ctx.owner.call(scopeOf(req), 'turns.cancel', req.params.session_id, req.params.turn_id),
  );
};

/** Aborted when the client goes away before it is answered. */
function abandoned(reply: FastifyReply): AbortSignal {
  const ac = new AbortController();
  const res = reply.raw;
  res.once('close', () => {
    if (!res.writableFinished) ac.abort();
  });
  return ac.signal;
}
