// The server's metrics in the Prometheus text format, for the operator's scraper. They count
// every tenant's work together, so they are the operator's alone: a tenant's `admin` key is refused.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { ServerMetrics } from '../src/telemetry/metrics.js';
import { problems } from './common.js';

/** The exposition format's media type (Prometheus text format 0.0.4). */
export const METRICS_MEDIA_TYPE = 'text/plain; version=0.0.4';

export const metricsRoutes: FastifyPluginAsyncTypebox<{ metrics: ServerMetrics }> = async (app, { metrics }) => {
  app.get(
    '/metrics',
    {
      config: { access: 'admin', operator: true },
      schema: {
        operationId: 'getMetrics',
        tags: ['operations'],
        summary: 'The server\'s metrics (Prometheus text format)',
        description:
          'For the operator\'s Prometheus scraper: the counts are of the whole server, every tenant\'s work together. Needs ' +
          'the operator: NORMA_TOKEN, an `admin` key of the tenant `default`, or a loopback caller when no key is configured. ' +
          'A key of any other tenant gets 403, `admin` included. Metrics, all prefixed `norma_`: ' +
          '`http_request_duration_seconds` {method, route, status_code}; `turns_total` {kind, status} and ' +
          '`turn_duration_seconds` {kind}; `tool_calls_total` {tool, outcome} and `tool_call_duration_seconds` {tool} (tool: a ' +
          'built-in name, `mcp` for any MCP server\'s tool, or `other`); `permission_wait_seconds` and `question_wait_seconds` ' +
          '{outcome, resolved_by}; `pending_interactions` {kind}; `sse_subscribers`; `egress_requests_total` {kind, outcome}; ' +
          '`store_operation_duration_seconds` {operation}; and the process metrics (CPU, memory, event-loop delay, GC). Every ' +
          'label value is one the server defines: never a session id, tenant, key, MCP server name or URL.',
        response: {
          200: {
            description: 'The metrics, in the Prometheus text exposition format 0.0.4',
            content: { [METRICS_MEDIA_TYPE]: { schema: { type: 'string' } } },
          },
          401: problems[401],
          403: problems[403],
          429: problems[429],
          500: problems[500],
        },
      },
    },
    async (_req, reply) => {
      const { contentType, text } = await metrics.expose();
      return reply.header('cache-control', 'no-store').type(contentType).send(text);
    },
  );
};
