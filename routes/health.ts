// Liveness, readiness and the OpenAPI document.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../src/app-context.js';
import { HealthSchema, ReadinessSchema, ref } from '../src/contract/schemas.js';
import { problems } from './common.js';

export const healthRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.get(
    '/healthz',
    {
      // Probes poll these every few seconds: their access lines are debug, not info.
      config: { accessLog: 'debug' },
      schema: {
        operationId: 'getHealth',
        tags: ['health'],
        summary: 'The process is up',
        description: 'Liveness: answers 200 while the process serves HTTP, whatever its dependencies. No key needed.',
        security: [],
        response: { 200: ref(HealthSchema, 'Up'), 403: problems[403], 421: problems[421] },
      },
    },
    async () => ({ status: 'ok' as const }),
  );

  app.get(
    '/readyz',
    {
      // Probes poll these every few seconds: their access lines are debug, not info.
      config: { accessLog: 'debug' },
      schema: {
        operationId: 'getReadiness',
        tags: ['health'],
        summary: 'Store, workspace root and sandbox usable, with details',
        description:
          'Readiness: each dependency checked now (store, workspace root, sandbox, search, web search, sandbox limits and network), ' +
          'whether it is required, and a detail saying what to install or fix. 503 when a required one fails. No key needed.',
        security: [],
        response: { 200: ref(ReadinessSchema, 'Ready'), 503: ref(ReadinessSchema, 'Not ready: a required check failed'), 403: problems[403], 421: problems[421] },
      },
    },
    async (_req, reply) => {
      const r = await ctx.readiness();
      return reply.code(r.status === 'ready' ? 200 : 503).send(r);
    },
  );

  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
};
