// Every route plugin of the API, registered in one place: the resources, the metrics and (when
// enabled) the console.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../src/app-context.js';
import type { ServerMetrics } from '../src/telemetry/metrics.js';
import { checkpointRoutes } from './checkpoints.js';
import { clientToolRoutes } from './client-tools.js';
import { consoleRoutes, type ConsoleRouteOptions } from './console.js';
import { eventRoutes } from './events.js';
import { evidenceRoutes } from './evidence.js';
import { healthRoutes } from './health.js';
import { inboxRoutes } from './inbox.js';
import { mcpRoutes } from './mcp.js';
import { metricsRoutes } from './metrics.js';
import { outputRoutes } from './outputs.js';
import { permissionRoutes } from './permissions.js';
import { questionRoutes } from './questions.js';
import { sessionStateRoutes } from './session-state.js';
import { sessionRoutes } from './sessions.js';
import { turnRoutes } from './turns.js';

export interface RouteOptions {
  ctx: AppContext;
  metrics: ServerMetrics;
  /** Null: the console is off (NORMA_CONSOLE=off). */
  console: ConsoleRouteOptions | null;
}

export const allRoutes: FastifyPluginAsyncTypebox<RouteOptions> = async (app, { ctx, metrics, console }) => {
  for (const plugin of [healthRoutes, sessionRoutes, turnRoutes, permissionRoutes, questionRoutes, clientToolRoutes, inboxRoutes, sessionStateRoutes, eventRoutes, outputRoutes, checkpointRoutes, evidenceRoutes]) {
    await app.register(plugin, { ctx });
  }
  if (ctx.config.mcpEndpoint.enabled) await app.register(mcpRoutes, { ctx });
  await app.register(metricsRoutes, { metrics });
  if (console) await app.register(consoleRoutes, console);
};
