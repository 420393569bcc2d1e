// Permission requests: list, and answer (API.md "Permissions").
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { AppContext } from '../src/app-context.js';
import {
  PERMISSION_STATUSES,
  PermissionListSchema,
  PermissionRequestSchema,
  PermissionResponseSchema,
  ref,
} from '../src/contract/schemas.js';
import { PermissionParams, SessionParams, bodyProblems, commonProblems, problems } from './common.js';

export const permissionRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.get(
    '/v1/sessions/:session_id/permissions',
    {
      schema: {
        operationId: 'listPermissions',
        tags: ['permissions'],
        summary: 'List permission requests, oldest first',
        params: SessionParams,
        querystring: Type.Object(
          { status: Type.Optional(Type.Union(PERMISSION_STATUSES.map((s) => Type.Literal(s)))) },
          { additionalProperties: false },
        ),
        response: { 200: ref(PermissionListSchema, 'The requests'), ...commonProblems, 404: problems[404] },
      },
    },
    async (req) => ({ items: ctx.sessions.listPermissions(req.params.session_id, req.query.status) }),
  );

  app.post(
    '/v1/sessions/:session_id/permissions/:permission_id',
    {
      schema: {
        operationId: 'answerPermission',
        tags: ['permissions'],
        summary: 'Allow or deny a pending request',
        description:
          'Allow (optionally with `updated_input`, validated and evaluated again, and `remember` rules) or deny ' +
          '(optionally with a `message` for the model and `interrupt` to stop the turn). Already resolved → 409.',
        params: PermissionParams,
        body: ref(PermissionResponseSchema),
        response: { 200: ref(PermissionRequestSchema, 'The resolved request'), ...bodyProblems, 404: problems[404], 409: problems[409] },
      },
    },
    async (req) => ctx.sessions.respondPermission(req.params.session_id, req.params.permission_id, req.body),
  );
};
