// Sessions: create, list, get, patch, close (API.md "Sessions").
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { AppContext } from '../src/app-context.js';
import {
  SessionCreateSchema,
  SessionListSchema,
  SessionPatchSchema,
  SessionSchema,
  ToolListSchema,
  ref,
} from '../src/contract/schemas.js';
import { SessionExportSchema } from '../src/contract/events.js';
import { StringEnum } from '../src/contract/common.js';
import { headTaken } from '../src/http/sse.js';
import { SessionParams, bodyProblems, commonProblems, drainedOrClosed, problems, scopeOf } from './common.js';
import { SESSION_CHANGE_ACCESS } from '../src/app/scope.js';
import type { Session } from '../src/contract/schemas.js';
import { IdempotencyHeaders, REPLAYED_HEADER, answerOnce, idempotencyProblems, type Answer } from './idempotency.js';

const created = (session: Session): Answer => ({ status: 201, headers: { location: `/v1/sessions/${session.id}` }, body: session });

export const sessionRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.post(
    '/v1/sessions',
    {
      config: { access: 'write' },
      schema: {
        operationId: 'createSession',
        tags: ['sessions'],
        summary: 'Create a session',
        description: 'Misconfiguration (unknown tool, bad rule, unusable option) → 400 naming each problem; nothing is created.',
        headers: IdempotencyHeaders,
        body: ref(SessionCreateSchema),
        // Every field is optional: no body creates a session with the defaults.
        'x-norma-optional-body': true,
        response: {
          201: { ...ref(SessionSchema, 'The created session'), headers: { Location: { type: 'string', description: 'The session\'s URL' }, ...REPLAYED_HEADER } },
          ...bodyProblems,
          ...idempotencyProblems,
        },
      },
      // Every field is optional, so a POST without a body creates a default session.
      preValidation: async (req) => {
        if (req.body === undefined || req.body === null) req.body = {};
      },
    },
    async (req, reply) => answerOnce(ctx, req, reply, (s) => created(s as Session), async (kept) => created(await ctx.app.sessions.create(scopeOf(req), req.body, kept))),
  );

  app.get(
    '/v1/sessions',
    {
      config: { access: 'read' },
      schema: {
        operationId: 'listSessions',
        tags: ['sessions'],
        summary: 'List sessions, newest first',
        description: 'The caller\'s tenant\'s sessions, a page at a time: pass `next_cursor` as `cursor` for the next page (with the same filters). Each active session says how many of its permission requests and questions wait for a person (`pending`).',
        querystring: Type.Object(
          {
            limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })),
            cursor: Type.Optional(Type.String({ maxLength: 512, pattern: '^[A-Za-z0-9_-]+$' })),
            label: Type.Optional(
              Type.Array(Type.String({ maxLength: 330 }), {
                maxItems: 16,
                description: 'Only sessions with this label: `key:value` (repeatable: every one must match; the value may contain `:`)',
              }),
            ),
            status: Type.Optional(StringEnum(['active', 'closed'], { description: 'Only sessions with this status' })),
          },
          { additionalProperties: false },
        ),
        response: { 200: ref(SessionListSchema, 'A page of sessions, each with its `pending` count'), ...commonProblems },
      },
    },
    async (req) =>
      ctx.app.sessions.list(scopeOf(req), {
        limit: req.query.limit ?? 50,
        ...(req.query.cursor !== undefined ? { cursor: req.query.cursor } : {}),
        ...(req.query.label !== undefined ? { label: req.query.label } : {}),
        ...(req.query.status !== undefined ? { status: req.query.status } : {}),
      }),
  );

  app.get(
    '/v1/sessions/:session_id',
    {
      config: { access: 'read' },
      schema: {
        operationId: 'getSession',
        tags: ['sessions'],
        summary: 'Get a session',
        description: 'The session with its mode, rules, tools, hooks, model (without keys), MCP servers, limits and warnings. Another tenant\'s session is a 404, like a missing one.',
        params: SessionParams,
        response: { 200: ref(SessionSchema, 'The session'), ...commonProblems, 404: problems[404] },
      },
    },
    async (req) => ctx.app.sessions.get(scopeOf(req), req.params.session_id),
  );

  app.patch(
    '/v1/sessions/:session_id',
    {
      config: { access: SESSION_CHANGE_ACCESS },
      schema: {
        operationId: 'updateSession',
        tags: ['sessions'],
        summary: 'Change the permission mode and rules',
        description: 'Changes apply to the next permission check, including requests that wait now (a rule may decide them). A mode above the tenant\'s policy is a 403.',
        params: SessionParams,
        body: ref(SessionPatchSchema),
        response: { 200: ref(SessionSchema, 'The updated session'), ...bodyProblems, 404: problems[404], 409: problems[409] },
      },
    },
    async (req) => ctx.owner.call(scopeOf(req), 'sessions.patch', req.params.session_id, req.body),
  );

  app.delete(
    '/v1/sessions/:session_id',
    {
      config: { access: 'write' },
      schema: {
        operationId: 'closeSession',
        tags: ['sessions'],
        summary: 'Close a session (idempotent)',
        description: 'Running turns are cancelled, SessionEnd hooks run, and `session.closed` is the final event.',
        params: SessionParams,
        response: { 204: Type.Null({ description: 'Closed' }), ...commonProblems, 404: problems[404] },
      },
    },
    async (req, reply) => {
      await ctx.owner.call(scopeOf(req), 'sessions.close', req.params.session_id);
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/v1/sessions/:session_id/tools',
    {
      config: { access: 'read' },
      schema: {
        operationId: 'listSessionTools',
        tags: ['sessions'],
        summary: 'The tool list exactly as exposed to a model',
        description: 'With `?include=deferred`, every tool of the session, each with `deferred` and `unlocked` flags.',
        params: SessionParams,
        querystring: Type.Object({ include: Type.Optional(Type.Literal('deferred', { description: 'Also list deferred tools, with their flags' })) }, { additionalProperties: false }),
        response: { 200: ref(ToolListSchema, 'Tools as exposed to a model'), ...commonProblems, 404: problems[404] },
      },
    },
    async (req) => ctx.owner.call(scopeOf(req), 'sessions.tools', req.params.session_id, req.query.include === 'deferred'),
  );

  app.get(
    '/v1/sessions/:session_id/export',
    {
      config: { access: 'read' },
      schema: {
        operationId: 'exportSession',
        tags: ['sessions'],
        summary: 'The whole session as one JSON document, for audit',
        description:
          'Session, turns (tool_uses with their paired results), permission requests, permission decisions, spill-file ' +
          'records and every durable event in order, ending with `chain`: the head it covers, signed now (check it offline with ' +
          '`npx norma-verify`). Streamed: the size is bounded by the session, not by server memory. 409 when the stored chain no ' +
          'longer holds the head signed before (a rewritten or cut chain is never signed over; GET …/verify says where).',
        params: SessionParams,
        response: { 200: ref(SessionExportSchema, 'The export'), ...commonProblems, 404: problems[404], 409: problems[409] },
      },
    },
    async (req, reply) => {
      // The head is signed first (as committed now); the export then holds exactly what it covers.
      const chain = ctx.app.evidence.exportChain(scopeOf(req), req.params.session_id); // 404 before anything is sent
      const head = { ...ctx.app.audit.exportHead(scopeOf(req), req.params.session_id, chain.head.decisions.seq), chain };
      reply.hijack();
      const res = reply.raw;
      res.writeHead(200, {
        ...headTaken(reply.getHeaders()), // CORS, rate limit
        'content-type': 'application/json; charset=utf-8',
        'content-disposition': `attachment; filename="${req.params.session_id}.json"`,
        'x-request-id': String(req.id),
      });
      // Waits for the client to take what was written; a client that goes away ends the export.
      const write = (chunk: string) => (res.write(chunk) ? Promise.resolve() : drainedOrClosed(res));
      const json = JSON.stringify(head);
      await write(`${json.slice(0, -1)},"events":[`);
      let first = true;
      for (const page of ctx.app.audit.exportEvents(scopeOf(req), req.params.session_id, chain.head.events.seq)) {
        if (res.destroyed) return;
        const body = page.map((e) => JSON.stringify(e)).join(',');
        await write(first ? body : `,${body}`);
        first = false;
      }
      res.end(']}');
    },
  );
};
