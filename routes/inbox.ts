// The inbox (API.md "An inbox for people"): what waits for a person across the caller's tenant.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { AppContext } from '../src/app-context.js';
import { PendingListSchema, ref } from '../src/contract/schemas.js';
import { commonProblems, scopeOf } from './common.js';

export const inboxRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.get(
    '/v1/pending',
    {
      config: { access: 'read' },
      schema: {
        operationId: 'listPending',
        tags: ['inbox'],
        summary: 'Everything waiting for a person, oldest first',
        description:
          'The permission requests (with their `preview`) and questions of every session of the caller\'s tenant that wait for an answer, ' +
          'oldest first, each with its session\'s id, name, labels and mode; a page at a time (`next_cursor`). Answer each with its session\'s ' +
          'route (POST /v1/sessions/{session_id}/permissions/{id}, …/questions/{id}); GET /v1/events follows what changes.',
        querystring: Type.Object(
          {
            limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })),
            cursor: Type.Optional(Type.String({ maxLength: 512, pattern: '^[A-Za-z0-9_-]+$' })),
          },
          { additionalProperties: false },
        ),
        response: { 200: ref(PendingListSchema, 'A page of what waits'), ...commonProblems },
      },
    },
    async (req) => ctx.app.inbox.pending(scopeOf(req), req.query.limit ?? 50, req.query.cursor),
  );
};
