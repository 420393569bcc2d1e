// The inbox (API.md "An inbox for people"): what waits for a person across the caller's tenant.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { AppContext } from '../src/app-context.js';
import { EventSchema } from '../src/contract/events.js';
import { PendingListSchema, ref } from '../src/contract/schemas.js';
import { EventTicketSchema, TICKET_PATTERN } from '../src/contract/tenant.js';
import { DomainError } from '../src/errors.js';
import { headTaken, openEventStream, serialized } from '../src/http/sse.js';
import { SSE_DATA_SCHEMA } from '../src/http/openapi-document.js';
import { commonProblems, drainedOrClosed, scopeOf } from './common.js';
import { holdStream } from './stream-lifetime.js';

/** Wait for the socket to drain once this much is queued: a slow reader lags behind, nothing piles up. */
const HIGH_WATER = 256 * 1024;
const CURSOR = '^[0-9]{1,20}(-[0-9]{1,19})?$';

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

  app.get(
    '/v1/events',
    {
      config: { access: 'read', ticket: true },
      exposeHeadRoute: false,
      schema: {
        operationId: 'streamTenantEvents',
        security: [{ bearer: [] }, { ticket: [] }, {}],
        tags: ['inbox'],
        summary: 'Stream the events of every session of the tenant (Server-Sent Events)',
        description:
          'One stream of the durable events of all the caller\'s tenant\'s sessions (sessions created later included), in the order they ' +
          'committed, whichever replica committed them. Each event has `id: <cursor>` (the tenant stream\'s own, opaque), `event: <type>` and ' +
          'the same JSON `data` as on the session\'s stream (its `session_id` and `seq` included). Resume with `Last-Event-ID` (it wins) or ' +
          '`?after=<cursor>`: everything after it is delivered in order, with no gap and no duplicate; without either the stream starts ' +
          'with what commits from now on. `?type=` (repeatable) keeps only those event types. Live-only events (`tool.progress`, ' +
          '`message.delta`) are not in it. A slow reader is never cut off: it falls behind and reads on at its own pace. A `: ping` comment ' +
          'line comes at least every 15 s. A browser authenticates with `?ticket=` (POST /v1/events/tickets).',
        querystring: Type.Object(
          {
            after: Type.Optional(Type.String({ pattern: CURSOR, description: 'Resume after this cursor (an event\'s `id`)' })),
            type: Type.Optional(Type.Array(Type.String({ pattern: '^[a-z_.]{1,64}$' }), { maxItems: 64, description: 'Only events of these types' })),
            ticket: Type.Optional(Type.String({ pattern: TICKET_PATTERN, description: 'An event ticket (single use, 60 s) instead of the Authorization header' })),
          },
          { additionalProperties: false },
        ),
        headers: Type.Object({
          'last-event-id': Type.Optional(Type.String({ pattern: CURSOR, description: 'The last cursor received' })),
        }),
        response: {
          200: {
            description: 'An endless text/event-stream; each `data` is one Event',
            content: {
              'text/event-stream': {
                schema: Type.String({
                  description:
                    'Server-Sent Events (text/event-stream): blocks of `id:`, `event:`, `data:` and `retry:` lines, each block ended by a blank line, ' +
                    'and `: ping` comment lines (within the next block). Each `data` is one JSON Event (`#/components/schemas/Event`).',
                  [SSE_DATA_SCHEMA]: ref(EventSchema),
                }),
              },
            },
          },
          ...commonProblems,
        },
      },
    },
    async (req, reply) => {
      const scope = scopeOf(req);
      const tenant = ctx.app.inbox.streamTenant(scope);
      const header = req.headers['last-event-id'];
      const given = header ?? req.query.after;
      if (given !== undefined && !ctx.tenantStreams.validCursor(given)) {
        const why = `${JSON.stringify(given)} is not a cursor of this server's tenant stream (an event's id)`;
        throw header !== undefined ? new DomainError('invalid', `Last-Event-ID ${why}`, [`last-event-id: ${why}`], 'headers') : new DomainError('invalid', `after=${why}`, [`after: ${why}`], 'query');
      }
      const start = given ?? (await ctx.tenantStreams.head(tenant));
      const types = req.query.type ? new Set(req.query.type) : null;
      // Too many streams open: a 429 before the stream starts.
      ctx.tenantStreams.assertRoom(tenant);

      reply.hijack();
      const res = reply.raw;
      const stream = openEventStream(res, String(req.id), headTaken(reply.getHeaders()), ctx.config.sseRetryMs);
      let subscription: { close(): void } | undefined;
      // Shutdown or a revoked key: the connection closes; the client resumes with the last id it
      // had (an EventSource does on its own), and a revoked key gets its 401 then.
      const held = holdStream(ctx, req, res, stream, { end: () => undefined, close: () => subscription?.close() });
      try {
        subscription = ctx.tenantStreams.subscribe(
          tenant,
          start,
          (event, cursor) => {
            if (held.closed) return;
            if (types && !types.has(event.type)) return;
            stream.event(event.type, serialized(event), cursor);
          },
          () => (held.closed ? null : res.writableLength < HIGH_WATER ? null : drainedOrClosed(res)),
        );
      } catch {
        // Streams opened between the check above and here took the last places: the connection closes.
        held.finish();
      }
      if (held.closed) subscription?.close();
    },
  );

  app.post(
    '/v1/events/tickets',
    {
      config: { access: 'read' },
      schema: {
        operationId: 'createTenantEventTicket',
        tags: ['inbox'],
        summary: 'Take a ticket for the tenant\'s event stream (browsers)',
        description: 'The ticket opens GET /v1/events once (`?ticket=…`) within 60 s, for the key that took it; it opens no session\'s stream.',
        response: { 201: ref(EventTicketSchema, 'The ticket'), ...commonProblems },
      },
    },
    async (req, reply) => reply.code(201).header('cache-control', 'no-store').send(ctx.app.inbox.eventTicket(scopeOf(req))),
  );
};
