// Questions a call asks a person (AskUser): list, and answer or dismiss (API.md "Questions").
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { AppContext } from '../src/app-context.js';
import { Id, QUESTION_STATUSES, QuestionListSchema, QuestionResponseSchema, QuestionSchema, ref, StringEnum } from '../src/contract/schemas.js';
import { SessionParams, bodyProblems, commonProblems, problems, scopeOf } from './common.js';
import { IdempotencyHeaders, REPLAYED_HEADER, answerInteraction, idempotencyProblems } from './idempotency.js';

const QuestionParams = Type.Object({ session_id: Id('Session id'), question_id: Id('Question id') }, { additionalProperties: false });

export const questionRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.get(
    '/v1/sessions/:session_id/questions',
    {
      config: { access: 'read' },
      schema: {
        operationId: 'listQuestions',
        tags: ['questions'],
        summary: 'List questions asked by AskUser calls, oldest first',
        description: 'Every question of the session, or only those with the given `status` (`?status=pending` lists what waits for an answer).',
        params: SessionParams,
        querystring: Type.Object({ status: Type.Optional(StringEnum(QUESTION_STATUSES)) }, { additionalProperties: false }),
        response: { 200: ref(QuestionListSchema, 'The questions'), ...commonProblems, 404: problems[404] },
      },
    },
    async (req) => ({ items: ctx.app.interactions.listQuestions(scopeOf(req), req.params.session_id, req.query.status) }),
  );

  app.get(
    '/v1/sessions/:session_id/questions/:question_id',
    {
      config: { access: 'read' },
      schema: {
        operationId: 'getQuestion',
        tags: ['questions'],
        summary: 'Get a question',
        description: 'The question as it is now: pending, or answered or dismissed (with `answers`, `resolved_by` and `answered_by`).',
        params: QuestionParams,
        response: { 200: ref(QuestionSchema, 'The question'), ...commonProblems, 404: problems[404] },
      },
    },
    async (req) => ctx.app.interactions.getQuestion(scopeOf(req), req.params.session_id, req.params.question_id),
  );

  app.post(
    '/v1/sessions/:session_id/questions/:question_id',
    {
      config: { access: 'approve' },
      schema: {
        operationId: 'answerQuestion',
        tags: ['questions'],
        summary: 'Answer or dismiss pending questions',
        description:
          '`answers` maps each question text to the label chosen (a list of labels for multiSelect questions) or to the ' +
          'person\'s own words (a single string that is not a label); `response` adds free text. `{"dismiss": true, "message"?}` ' +
          'declines to answer. The AskUser call\'s tool_result states the answers or the dismissal. Answers naming a question ' +
          'not asked, a label not offered (in a list), several labels for a single-choice question, or leaving a question ' +
          'unanswered without a `response` → 400. Already resolved → 409.',
        params: QuestionParams,
        headers: IdempotencyHeaders,
        body: ref(QuestionResponseSchema),
        response: { 200: { ...ref(QuestionSchema, 'The resolved question'), headers: REPLAYED_HEADER }, ...bodyProblems, 404: problems[404], ...idempotencyProblems },
      },
    },
    async (req, reply) => answerInteraction(ctx, req, reply, 'interactions.answerQuestion', req.params.session_id, req.params.question_id, req.body),
  );
};
