// /mcp: Norma as an MCP server over Streamable HTTP (API.md "Norma as an MCP server"). Keyed,
// rate-limited and Host/Origin-checked like /v1 (the app's hooks run first); the MCP SDK's server
// transport answers the protocol (src/mcp/server/gateway.ts).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { AppContext } from '../src/app-context.js';
import { Id } from '../src/contract/schemas.js';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { McpGateway } from '../src/mcp/server/gateway.js';
import type { PlainAnswer } from '../src/mcp/server/json-answer.js';
import { PROBLEM_CONTENT_TYPE, commonProblems, scopeOf } from './common.js';
import { ProblemSchema, ref } from '../src/contract/schemas.js';

const JsonRpcMessage = Type.Object(
  { jsonrpc: Type.Literal('2.0') },
  { additionalProperties: true, description: 'A JSON-RPC 2.0 message of MCP (a request, notification or response)' },
);
const JsonRpcError = Type.Object(
  {
    jsonrpc: Type.Literal('2.0'),
    error: Type.Object({ code: Type.Integer(), message: Type.String() }, { additionalProperties: true }),
    id: Type.Union([Type.String(), Type.Integer(), Type.Null()]),
  },
  { additionalProperties: false, description: 'A JSON-RPC error' },
);
const rpcOrProblem = (description: string) => ({
  description,
  content: { 'application/json': { schema: JsonRpcError }, [PROBLEM_CONTENT_TYPE]: { schema: ref(ProblemSchema) } },
});
const rpc = (description: string) => ({ description, content: { 'application/json': { schema: JsonRpcError } } });
const sessionHeader = { 'Mcp-Session-Id': { type: 'string' as const, description: 'The MCP session id (on the answer to initialize)' } };

const Query = Type.Object(
  { session: Type.Optional(Id('With initialize: attach the MCP session to this existing session instead of making one')) },
  { additionalProperties: false },
);

const responses = {
  ...commonProblems,
  400: rpcOrProblem('Malformed JSON-RPC, a batch, a missing or unsupported MCP-Protocol-Version, a request other than initialize without Mcp-Session-Id, or an invalid query'),
  404: rpcOrProblem('The MCP session is unknown, ended, or not the key\'s tenant\'s (initialize again), or `?session=` names no session of the tenant'),
  406: rpc('The Accept header does not name application/json and text/event-stream (POST) or text/event-stream (GET)'),
  409: rpcOrProblem('A second GET stream of the same MCP session, or `?session=` names a closed session'),
};

/**
 * A web Response as fastify sends one; a plain answer as it is (no stream around a JSON body). A
 * stream (the GET stream, a call's SSE answer) lasts while the key that opened it is in force with
 * `write`: removed or narrowed by a reload (checked at once) or expired (checked every heartbeat),
 * the stream is cut, as the /v1 event streams are. A call it carried goes on: dropping a stream is
 * not a cancellation.
 */
function answer(ctx: AppContext, req: FastifyRequest, reply: FastifyReply, a: Response | PlainAnswer): FastifyReply {
  if (!(a instanceof Response)) return reply.code(a.status).headers(a.headers).send(a.body as never);
  const scope = scopeOf(req);
  if (a.body && scope.tenant !== null && (a.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
    const tenant = scope.tenant;
    const cut = () => {
      if (!ctx.keyInForce(scope.keyId, tenant, 'write')) reply.raw.destroy();
    };
    const stopWatching = ctx.onKeysReloaded(cut);
    const heartbeat = setInterval(cut, ctx.config.sseHeartbeatMs);
    reply.raw.once('close', () => {
      stopWatching();
      clearInterval(heartbeat);
    });
  }
  return reply.send(a as never);
}

export const mcpRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  const gateway = new McpGateway(ctx, ctx.config.mcpEndpoint, app.log);
  ctx.shutdown.addEventListener('abort', () => void gateway.close(), { once: true });
  app.addHook('onClose', async () => gateway.close());

  app.post(
    '/mcp',
    {
      config: { access: 'write' },
      schema: {
        operationId: 'mcpPost',
        tags: ['mcp'],
        summary: 'Send an MCP message (Streamable HTTP)',
        description:
          'One JSON-RPC message of MCP. `initialize` without `Mcp-Session-Id` opens an MCP session on a new session made ' +
          'from the tenant\'s defaults, or with `?session=` on that existing session; the answer carries `Mcp-Session-Id`. ' +
          '`tools/list` is the session\'s exposed tools; `tools/call` runs one direct turn through the whole pipeline; ' +
          'its permission requests and questions are asked through `elicitation/create` when the client declared ' +
          'elicitation, and stay answerable over the REST API. Requests are answered as JSON or as an SSE stream.',
        querystring: Query,
        // A batch (an array) reaches the handler to be answered with its JSON-RPC error.
        body: Type.Union([JsonRpcMessage, Type.Array(Type.Unknown(), { description: 'A JSON-RPC batch: refused (400, code -32600)' })]),
        response: {
          200: {
            description: 'The answer: one JSON-RPC message, or an SSE stream of messages ending with the answer',
            headers: sessionHeader,
            content: { 'application/json': { schema: JsonRpcMessage }, 'text/event-stream': { schema: Type.String() } },
          },
          202: { description: 'A notification or response was accepted (no body)', 'x-norma-no-body': true },
          ...responses,
        },
      },
    },
    async (req, reply) => answer(ctx, req, reply, await gateway.handle(req, reply, scopeOf(req))),
  );

  app.get(
    '/mcp',
    {
      config: { access: 'write' },
      exposeHeadRoute: false,
      schema: {
        operationId: 'mcpStream',
        tags: ['mcp'],
        summary: 'Open the MCP session\'s stream of server messages (SSE)',
        description: 'Server notifications such as `notifications/tools/list_changed`. One at a time per MCP session (409 for a second).',
        response: {
          200: { description: 'An SSE stream of JSON-RPC messages', content: { 'text/event-stream': { schema: Type.String() } } },
          ...responses,
          405: rpc('Not allowed'),
        },
      },
    },
    async (req, reply) => answer(ctx, req, reply, await gateway.handle(req, reply, scopeOf(req))),
  );

  app.delete(
    '/mcp',
    {
      config: { access: 'write' },
      schema: {
        operationId: 'mcpDelete',
        tags: ['mcp'],
        summary: 'End the MCP session',
        description: 'Ends the MCP session. A session made for it at initialize is closed with it unless NORMA_MCP_SESSION_END=keep; an attached session stays open.',
        response: { 200: { description: 'Ended (no body)', 'x-norma-no-body': true }, ...responses },
      },
    },
    async (req, reply) => answer(ctx, req, reply, await gateway.handle(req, reply, scopeOf(req))),
  );
};
