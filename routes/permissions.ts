// Permission requests: list, and answer (API.md "Permissions"); the audit listings (decisions,
// hook runs, outbound requests).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { AppContext } from '../src/app-context.js';
import { EgressListSchema, McpRequestListSchema, HookRunListSchema } from '../src/contract/events.js';
import {
  DecisionListSchema,
  ID_PATTERN,
  PERMISSION_STATUSES,
  PermissionListSchema,
  PermissionRequestSchema,
  PermissionResponseSchema,
  ref,
  StringEnum,
} from '../src/contract/schemas.js';
import { EventPageQuery, PermissionParams, SessionParams, bodyProblems, commonProblems, problems, scopeOf } from './common.js';
import { IdempotencyHeaders, REPLAYED_HEADER, answerInteraction, idempotencyProblems } from './idempotency.js';

export const permissionRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.get(
    '/v1/sessions/:session_id/permissions',
    {
      config: { access: 'read' },
      schema: {
        operationId: 'listPermissions',
        tags: ['permissions'],
        summary: 'List permission requests, oldest first',
        description: 'Every permission request of the session, or only those with the given `status` (`?status=pending` lists what waits for an answer).',
        params: SessionParams,
        querystring: Type.Object(
          { status: Type.Optional(StringEnum(PERMISSION_STATUSES)) },
          { additionalProperties: false },
        ),
        response: { 200: ref(PermissionListSchema, 'The requests'), ...commonProblems, 404: problems[404] },
      },
    },
    async (req) => ({ items: ctx.app.interactions.listPermissions(scopeOf(req), req.params.session_id, req.query.status) }),
  );

  app.get(
    '/v1/sessions/:session_id/permissions/:permission_id',
    {
      config: { access: 'read' },
      schema: {
        operationId: 'getPermission',
        tags: ['permissions'],
        summary: 'Get a permission request',
        description: 'The request as it is now: pending, or resolved with who or what resolved it (`resolved_by`, `answered_by`, `rules`).',
        params: PermissionParams,
        response: { 200: ref(PermissionRequestSchema, 'The request'), ...commonProblems, 404: problems[404] },
      },
    },
    async (req) => ctx.app.interactions.getPermission(scopeOf(req), req.params.session_id, req.params.permission_id),
  );

  app.post(
    '/v1/sessions/:session_id/permissions/:permission_id',
    {
      config: { access: 'approve' },
      schema: {
        operationId: 'answerPermission',
        tags: ['permissions'],
        summary: 'Allow or deny a pending request',
        description:
          'Allow (optionally with `updated_input`, validated and evaluated again, and `remember` rules) or deny ' +
          '(optionally with a `message` for the model and `interrupt` to stop the turn). Already resolved → 409. ' +
          'What an answer adds is bounded by the key\'s scope: a key that may PATCH the session (`write`) may remember any ' +
          'rule and choose any mode within the tenant\'s policy; an `approve` key may remember only the request\'s own ' +
          '`suggestions`, and may end plan mode only into the mode before it or a stricter one. Anything else → 403 naming ' +
          'it, and nothing is answered (the request stays pending).',
        params: PermissionParams,
        headers: IdempotencyHeaders,
        body: ref(PermissionResponseSchema),
        response: { 200: { ...ref(PermissionRequestSchema, 'The resolved request'), headers: REPLAYED_HEADER }, ...bodyProblems, 404: problems[404], ...idempotencyProblems },
      },
    },
    async (req, reply) => answerInteraction(ctx, req, reply, 'interactions.answerPermission', req.params.session_id, req.params.permission_id, req.body),
  );

  app.get(
    '/v1/sessions/:session_id/decisions',
    {
      config: { access: 'read' },
      schema: {
        operationId: 'listDecisions',
        tags: ['permissions'],
        summary: 'The audit trail of permission decisions, oldest first',
        description:
          'Every permission decision about every tool call of the session: what decided it (a rule and its text, the mode, ' +
          'the tool\'s own check, the read-only judgement, a protected path, a person, a timeout, a cancellation, a hook), ' +
          'why, and the SHA-256 of the exact input it was about. A call whose input was rewritten has one decision per input. ' +
          'Page with `after` (the `seq` of the last decision seen).',
        params: SessionParams,
        querystring: Type.Object(
          {
            after: Type.Optional(Type.Integer({ minimum: 0, default: 0, description: 'Only decisions with a greater seq' })),
            limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 200 })),
            turn_id: Type.Optional(Type.String({ pattern: ID_PATTERN, description: 'Only decisions of this turn' })),
            tool_use_id: Type.Optional(Type.String({ pattern: ID_PATTERN, description: 'Only decisions about this call' })),
          },
          { additionalProperties: false },
        ),
        response: { 200: ref(DecisionListSchema, 'One page of decisions'), ...commonProblems, 404: problems[404] },
      },
    },
    async (req) =>
      ctx.app.audit.decisions(scopeOf(req), req.params.session_id, {
        afterSeq: req.query.after ?? 0,
        limit: req.query.limit ?? 200,
        ...(req.query.turn_id !== undefined ? { turnId: req.query.turn_id } : {}),
        ...(req.query.tool_use_id !== undefined ? { toolUseId: req.query.tool_use_id } : {}),
      }),
  );

  app.get(
    '/v1/sessions/:session_id/hook-runs',
    {
      config: { access: 'read' },
      schema: {
        operationId: 'listHookRuns',
        tags: ['permissions'],
        summary: 'The audit trail of hook runs, oldest first',
        description:
          'Every hook run of the session — operator and session hooks — with the hook, its kind, the event, the call, the ' +
          'duration, the outcome, its decision and the digest of any rewrite it asked for, or the error. These are the ' +
          'session\'s `hook.completed` and `hook.failed` events. Page with `after` (the `seq` of the last one seen).',
        params: SessionParams,
        querystring: EventPageQuery,
        response: { 200: ref(HookRunListSchema, 'One page of hook runs'), ...commonProblems, 404: problems[404] },
      },
    },
    async (req) => ctx.app.audit.hookRuns(scopeOf(req), req.params.session_id, req.query.after ?? 0, req.query.limit ?? 200),
  );

  app.get(
    '/v1/sessions/:session_id/egress',
    {
      config: { access: 'read' },
      schema: {
        operationId: 'listEgress',
        tags: ['permissions'],
        summary: 'The evidence of outbound requests, oldest first',
        description:
          'Every outbound request a tool (WebFetch, WebSearch) or an http hook of the session made, one record per redirect hop: time, call, hook, ' +
          'method, URL, the address connected to, status, bytes and SHA-256 of the body received — or the egress rule that ' +
          'refused it. These are the session\'s `egress.request` events. Page with `after` (the `seq` of the last one seen).',
        params: SessionParams,
        querystring: EventPageQuery,
        response: { 200: ref(EgressListSchema, 'One page of outbound requests'), ...commonProblems, 404: problems[404] },
      },
    },
    async (req) => ctx.app.audit.egress(scopeOf(req), req.params.session_id, req.query.after ?? 0, req.query.limit ?? 200),
  );

  app.get(
    '/v1/sessions/:session_id/mcp/requests',
    {
      config: { access: 'read' },
      schema: {
        operationId: 'listMcpRequests',
        tags: ['permissions'],
        summary: 'The evidence of requests to MCP servers, oldest first',
        description:
          'Every request the session made to its MCP servers (initialize, tool and resource listings, tool calls, resource reads): time, call, ' +
          'server, method, tool, sizes and SHA-256 of request and response, outcome and duration. These are the session\'s `mcp.request` ' +
          'events. Page with `after` (the `seq` of the last one seen).',
        params: SessionParams,
        querystring: EventPageQuery,
        response: { 200: ref(McpRequestListSchema, 'One page of MCP requests'), ...commonProblems, 404: problems[404] },
      },
    },
    async (req) => ctx.app.audit.mcpRequests(scopeOf(req), req.params.session_id, req.query.after ?? 0, req.query.limit ?? 200),
  );
};
