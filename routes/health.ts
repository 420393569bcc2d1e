// Liveness, readiness and the OpenAPI document.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../src/app-context.js';
import { HealthSchema, ReadinessSchema, ref } from '../src/contract/schemas.js';

export const healthRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.get(
    '/healthz',
    {
      // Probes poll these every few seconds: their access lines are debug, not info.
      config: { accessLog: 'debug' },
      schema: {
        operationId: 'health',
        tags: ['health'],
        summary: 'The process is up',
        security: [],
        response: { 200: ref(HealthSchema, 'Up') },
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
        operationId: 'readiness',
        tags: ['health'],
        summary: 'Store, workspace root and sandbox usable, with details',
        security: [],
        response: { 200: ref(ReadinessSchema, 'Ready'), 503: ref(ReadinessSchema, 'Not ready: a required check failed') },
      },
    },
    async (_req, reply) => {
      const r = await ctx.readiness();
      return reply.code(r.status === 'ready' ? 200 : 503).send(r);
    },
  );

  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
};
