// The Idempotency-Key request header of the POSTs that create work: createSession, createTurn,
// answerPermission, answerQuestion and answerClientTool. A key is the caller's tenant's (another tenant's key of the
// same text is another key) and is kept a day. The first request with a key does the work and its
// answer is kept; a retry with the same key and the same request (method, path, body) gets that
// answer again, with `Idempotent-Replayed: true`, from any replica; with another request, 422; while
// the first is still being answered, 409. A request that fails did nothing (a refusal, a 503 "not
// done"), so its key is free again. What the work made is kept in the transaction that makes it
// (src/store/idempotency.ts): a server that dies after that answers no retry with new work.
import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../src/app-context.js';
import type { OwnerCallArgs } from '../src/app/owner.js';
import { inputDigest } from '../src/digest.js';
import { sendProblem } from '../src/http/problem.js';
import type { KeptWork, StoredResponse } from '../src/store/idempotency.js';
import { problems, scopeOf } from './common.js';

export const IDEMPOTENCY_KEY_MAX = 255;

/** The request headers of an operation that honours Idempotency-Key. */
export const IdempotencyHeaders = Type.Object({
  'idempotency-key': Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: IDEMPOTENCY_KEY_MAX,
      pattern: '^[A-Za-z0-9._~:+/=@-]+$',
      description:
        'Makes a retry safe: the same key with the same request (method, path, body) from the same tenant within 24 h answers ' +
        'what the first answered (with `Idempotent-Replayed: true`) and does nothing again, whichever replica it reaches; ' +
        'with another request 422, while the first is still being answered 409. A failed request leaves the key free. ' +
        'At most 255 of A–Z a–z 0–9 . _ ~ : + / = @ -',
    }),
  ),
});

/** The response header a replayed answer carries (declared on the operations' success responses). */
export const REPLAYED_HEADER = { 'Idempotent-Replayed': { type: 'string', description: '`true` when this is the answer to an earlier request with the same Idempotency-Key' } } as const;

/** The problems only an Idempotency-Key brings. */
export const idempotencyProblems = {
  409: problems[409],
  422: problems[422],
};

/** A request's answer as the route sends it. */
export type Answer = StoredResponse;

/** What "the same request" means: method, path and body (its keys in any order). */
function fingerprintOf(req: FastifyRequest): string {
  return inputDigest([req.method, req.url.split('?')[0]!, req.body ?? null]);
}

function send(reply: FastifyReply, answer: Answer, replayed: boolean): FastifyReply {
  reply.code(answer.status);
  for (const [k, v] of Object.entries(answer.headers)) reply.header(k, v);
  if (replayed) reply.header('idempotent-replayed', 'true');
  return reply.send(answer.body);
}

/**
 * Answers the request with `work`, at most once per Idempotency-Key. `work` gets the key it must
 * settle what it makes under (in the transaction that makes it), when the request has one;
 * `made` answers with what a first request's work made when that request never answered.
 */
export async function answerOnce(
  ctx: AppContext,
  req: FastifyRequest,
  reply: FastifyReply,
  made: (value: unknown) => Answer,
  work: (kept: KeptWork | undefined) => Promise<Answer>,
): Promise<FastifyReply> {
  const key = req.headers['idempotency-key'];
  if (typeof key !== 'string') return send(reply, await work(undefined), false);
  const keys = ctx.app.idempotency;
  const state = keys.claim(scopeOf(req), key, fingerprintOf(req));
  switch (state.kind) {
    case 'mismatch':
      return sendProblem(reply, req, 422, `the Idempotency-Key ${JSON.stringify(key)} was used for another request (another method, path or body); use a new key for a new request`);
    case 'in_flight':
      return sendProblem(reply, req, 409, `a request with the Idempotency-Key ${JSON.stringify(key)} is still in progress; retry once it has been answered`);
    case 'replay':
      return send(reply, state.response, true);
    case 'made':
      return send(reply, made(state.value), true);
  }
  let answer: Answer;
  try {
    answer = await work(state.work);
  } catch (err) {
    try {
      keys.release(state.work);
    } catch (releaseErr) {
      req.log.warn({ err: releaseErr }, 'could not free an Idempotency-Key after its request failed');
    }
    throw err;
  }
  try {
    keys.finish(state.work, answer);
  } catch (err) {
    // The work is done and the answer true: it is sent. A retry gets what the work made.
    req.log.warn({ err }, 'could not keep the answer of a request with an Idempotency-Key');
    try {
      keys.release(state.work);
    } catch {
      // the store is failing; the key expires
    }
  }
  return send(reply, answer, false);
}

/** A permission request's, a question's or a client-tool request's answer, through the session's owner, at most once per Idempotency-Key. */
export function answerInteraction<N extends 'interactions.answerPermission' | 'interactions.answerQuestion' | 'interactions.answerClientTool'>(
  ctx: AppContext,
  req: FastifyRequest,
  reply: FastifyReply,
  name: N,
  sessionId: string,
  ...args: OwnerCallArgs<N>
): Promise<FastifyReply> {
  const answered = (value: unknown): Answer => ({ status: 200, headers: {}, body: value });
  return answerOnce(ctx, req, reply, answered, async (kept) =>
    answered(kept ? await ctx.owner.callKept(kept, scopeOf(req), name, sessionId, ...args) : await ctx.owner.call(scopeOf(req), name, sessionId, ...args)),
  );
}
