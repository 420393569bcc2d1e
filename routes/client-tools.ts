// Calls of tools the client runs (`client_tools`): list them, and answer one with what the tool
// returned (API.md "tools the client runs"). They are the client's to answer, not a person's: the
// inbox (GET /v1/pending) does not list them, and answering needs `write`, as posting a turn does.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { AppContext } from '../src/app-context.js';
import { CLIENT_TOOL_STATUSES, ClientToolRequestListSchema, ClientToolRequestSchema, ClientToolResponseSchema, Id, ref, StringEnum } from '../src/contract/schemas.js';
import { SessionParams, bodyProblems, commonProblems, problems, scopeOf } from './common.js';
import { IdempotencyHeaders, REPLAYED_HEADER, answerInteraction, idempotencyProblems } from './idempotency.js';

const RequestParams = Type.Object({ session_id: Id('Session id'), request_id: Id('Client-tool request id') }, { additionalProperties: false });

export const clientToolRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.get(
    '/v1/sessions/:session_id/client-tools',
    {
      config: { access: 'read' },
      schema: {
        operationId: 'listClientToolRequests',
        tags: ['client tools'],
        summary: 'List calls of the session\'s client tools, oldest first',
        description: 'Every client-tool request of the session, or only those with the given `status` (`?status=pending` lists what waits for the client).',
        params: SessionParams,
        querystring: Type.Object({ status: Type.Optional(StringEnum(CLIENT_TOOL_STATUSES)) }, { additionalProperties: false }),
        response: { 200: ref(ClientToolRequestListSchema, 'The client-tool requests'), ...commonProblems, 404: problems[404] },
      },
    },
    async (req) => ({ items: ctx.app.interactions.listClientToolRequests(scopeOf(req), req.params.session_id, req.query.status) }),
  );

  app.get(
    '/v1/sessions/:session_id/client-tools/:request_id',
    {
      config: { access: 'read' },
      schema: {
        operationId: 'getClientToolRequest',
        tags: ['client tools'],
        summary: 'Get a client-tool request',
        description: 'The request as it is now: pending, or answered (with `is_error`), timed out or cancelled (with `message`).',
        params: RequestParams,
        response: { 200: ref(ClientToolRequestSchema, 'The client-tool request'), ...commonProblems, 404: problems[404] },
      },
    },
    async (req) => ctx.app.interactions.getClientToolRequest(scopeOf(req), req.params.session_id, req.params.request_id),
  );

  app.post(
    '/v1/sessions/:session_id/client-tools/:request_id',
    {
      config: { access: 'write' },
      schema: {
        operationId: 'answerClientTool',
        tags: ['client tools'],
        summary: 'Answer a client-tool request with what the tool returned',
        description:
          '`content` (text, or text and image blocks) becomes the call\'s tool_result, `is_error: true` makes it an error result; ' +
          'text passes the session\'s output cap (the whole text is kept as a spill file). The turn goes on. ' +
          'An image over 5 MiB of base64 → 400. Already answered, timed out or cancelled → 409.',
        params: RequestParams,
        headers: IdempotencyHeaders,
        body: ref(ClientToolResponseSchema),
        response: { 200: { ...ref(ClientToolRequestSchema, 'The answered request'), headers: REPLAYED_HEADER }, ...bodyProblems, 404: problems[404], ...idempotencyProblems },
      },
    },
    async (req, reply) => answerInteraction(ctx, req, reply, 'interactions.answerClientTool', req.params.session_id, req.params.request_id, req.body),
  );
};
