// The session's event stream over SSE (API.md "Events"): replay after `Last-Event-ID` or
// `?after=`, then live, with no gap and no duplicate; a `: ping` comment keeps proxies open.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { AppContext } from '../src/app-context.js';
import { EventSchema, LIVE_ONLY_EVENTS } from '../src/contract/events.js';
import { ref } from '../src/contract/schemas.js';
import { DomainError } from '../src/errors.js';
import { headTaken, openEventStream, serialized } from '../src/http/sse.js';
import { SessionParams, commonProblems, drainedOrClosed, problems, scopeOf } from './common.js';
import { EventTicketSchema, TICKET_PATTERN } from '../src/contract/tenant.js';
import { SSE_DATA_SCHEMA } from '../src/http/openapi-document.js';
import { holdStream } from './stream-lifetime.js';

/** During a replay, wait for the socket to drain once this much is queued. */
const REPLAY_HIGH_WATER = 1024 * 1024;

export const eventRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.get(
    '/v1/sessions/:session_id/events',
    {
      config: { access: 'read', ticket: true },
      // No HEAD: it would open a subscription (and spend a ticket) for headers alone, then hold
      // the connection with nothing to send. HEAD here is 405, like any method a path does not serve.
      exposeHeadRoute: false,
      schema: {
        operationId: 'streamEvents',
        security: [{ bearer: [] }, { ticket: [] }, {}],
        tags: ['events'],
        summary: 'Stream the session\'s events (Server-Sent Events)',
        description:
          'Each event has `id: <seq>`, `event: <type>` and JSON `data`. Resume with the `Last-Event-ID` header (it wins) ' +
          'or `?after=<seq>`: every later durable event is replayed in order, then the stream goes live. Live-only events ' +
          '(`tool.progress`) carry no `id`. A `: ping` comment line is sent at least every 15 s, as part of the next event\'s block; `retry:` ' +
          '(how long an EventSource waits before reconnecting) comes in the first event\'s block: no block lacks `data`. The stream ends after `session.closed`; a closed session with nothing left to ' +
          'replay answers 204, which stops an EventSource. A browser authenticates with `?ticket=` (POST …/events/tickets) ' +
          'instead of the Authorization header it cannot send.',
        params: SessionParams,
        querystring: Type.Object(
          {
            after: Type.Optional(Type.Integer({ minimum: 0, description: 'Replay events with a greater seq' })),
            ticket: Type.Optional(Type.String({ pattern: TICKET_PATTERN, description: 'An event ticket (single use, 60 s) instead of the Authorization header' })),
          },
          { additionalProperties: false },
        ),
        headers: Type.Object({
          'last-event-id': Type.Optional(Type.String({ pattern: '^[0-9]{1,15}$', description: 'The last seq received' })),
        }),
        response: {
          200: {
            description: 'An endless text/event-stream; each `data` is one Event',
            content: {
              'text/event-stream': {
                // The body is a stream of text blocks, not one JSON value: a string to every tool.
                // What each block's `data` holds is named by an extension tools may read.
                schema: Type.String({
                  description:
                    'Server-Sent Events (text/event-stream): blocks of `id:`, `event:`, `data:` and `retry:` lines, each block ' +
                    'ended by a blank line, and `: ping` comment lines (within the next block, never a block of their own). Each `data` is one JSON Event; `x-sse-data-schema` names its ' +
                    'schema (`#/components/schemas/Event`, discriminated on `type`, which the block\'s `event:` repeats).',
                  [SSE_DATA_SCHEMA]: ref(EventSchema),
                }),
              },
            },
          },
          204: Type.Null({ description: 'The session is closed and every event after the given one was delivered: nothing will come (an EventSource stops)' }),
          ...commonProblems,
          404: problems[404],
        },
      },
    },
    async (req, reply) => {
      const sessionId = req.params.session_id;
      const session = ctx.app.sessions.get(scopeOf(req), sessionId);
      const header = req.headers['last-event-id'];
      const after = header !== undefined ? Number(header) : (req.query.after ?? 0);
      const last = ctx.events.lastSeq(sessionId);
      if (after > last) {
        // The problem points at what the client sent: the header wins when both are there.
        const beyond = `${after} is beyond the session's last event (${last})`;
        throw header !== undefined
          ? new DomainError('invalid', `Last-Event-ID ${beyond}`, [`last-event-id: ${beyond}`], 'headers')
          : new DomainError('invalid', `after=${beyond}`, [`after: ${beyond}`], 'query');
      }
      // A closed session whose final event the client already has: 204, so an EventSource stops
      // reconnecting instead of trying again every few seconds forever.
      if (session.status === 'closed' && after >= last) return reply.code(204).send(null);

      reply.hijack();
      const res = reply.raw;
      // The headers set so far (CORS, rate limit, request id) go out with the stream's head.
      const stream = openEventStream(res, String(req.id), headTaken(reply.getHeaders()), ctx.config.sseRetryMs);

      let lastDelivered = after;
      let subscription: { close(): void } | undefined;
      // The server is going away, this client reads too slowly, or its key is no longer in force:
      // say where to resume, then end.
      const endFrame = (reason: 'shutdown' | 'overflow' | 'revoked') => {
        const event = { type: 'stream.end', session_id: sessionId, seq: lastDelivered, time: new Date().toISOString(), reason, resume_after: lastDelivered };
        stream.event('stream.end', JSON.stringify(event));
      };
      const held = holdStream(ctx, req, res, stream, { end: endFrame, close: () => subscription?.close() });
      const finish = held.finish;
      const overflow = () => {
        if (held.closed) return;
        endFrame('overflow');
        finish();
        // A client that stopped reading altogether does not keep the connection (and its buffer).
        setTimeout(() => res.destroy(), 10_000).unref();
      };

      // Replay waits for the socket to drain whenever a lot is queued; only live events count
      // against the slow-subscriber limit.
      const room = (): Promise<void> | null => (res.writableLength < REPLAY_HIGH_WATER || held.closed ? null : drainedOrClosed(res));
      let replaying = true;
      subscription = ctx.events.subscribePaced(sessionId, after, (event) => {
        if (held.closed) return;
        const live = LIVE_ONLY_EVENTS.has(event.type);
        stream.event(event.type, serialized(event), live ? undefined : event.seq);
        if (!live) lastDelivered = event.seq;
        if (!replaying && res.writableLength > ctx.config.sseMaxBufferBytes) {
          // Nothing more is queued for it: its unsent output is bounded by the limit plus this notice.
          req.log.warn({ session_id: sessionId }, 'SSE subscriber too slow; ending its stream (it resumes from its last id)');
          overflow();
          return;
        }
        // session.closed is a session's final event: end the stream once it is written.
        if (event.type === 'session.closed') setImmediate(finish);
      }, room, () => (replaying = false));
      // Delivery may have ended the stream during the replay, before `subscription` was set.
      if (held.closed) subscription.close();
      // A closed session whose final event the client already has: nothing more will come.
      else if (session.status === 'closed' && after >= ctx.events.lastSeq(sessionId)) finish();
    },
  );

  app.post(
    '/v1/sessions/:session_id/events/tickets',
    {
      config: { access: 'read' },
      schema: {
        operationId: 'createEventTicket',
        tags: ['events'],
        summary: 'Take a ticket for the event stream (browsers)',
        description:
          'An EventSource cannot send the Authorization header, and a long-lived key never belongs in a URL. The ticket ' +
          'opens this session\'s event stream once (`GET …/events?ticket=…`) within 60 s, for the key that took it. ' +
          'A spent, expired or foreign ticket is refused with 401; take a new one for every (re)connection.',
        params: SessionParams,
        response: { 201: ref(EventTicketSchema, 'The ticket'), ...commonProblems, 404: problems[404] },
      },
    },
    async (req, reply) => {
      const ticket = ctx.app.sessions.eventTicket(scopeOf(req), req.params.session_id);
      return reply.code(201).header('cache-control', 'no-store').send(ticket);
    },
  );
};
