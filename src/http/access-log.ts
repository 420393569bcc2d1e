// Fastify's access lines ("incoming request", "request completed") at info, except for routes
// that say `config.accessLog: 'debug'` (the health checks, polled every few seconds by probes):
// theirs are written at debug, so they appear only when NORMA_LOG_LEVEL asks for debug. (A
// route's `logLevel` sets its logger's threshold instead — `debug` there would make it chattier.)
import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The level of the route's access lines (default info). */
    accessLog?: 'debug';
  }
}

function quiet(request: FastifyRequest): boolean {
  return request.routeOptions?.config?.accessLog === 'debug';
}

export class AccessLog extends LogController {
  override incomingRequest(request: FastifyRequest, reply: FastifyReply): void {
    if (!quiet(request)) return super.incomingRequest(request, reply);
    if (!this.isLogDisabled(request)) request.log.debug({ req: request }, 'incoming request');
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (error || !quiet(request)) return super.requestCompleted(error, request, reply);
    if (!this.isLogDisabled(request)) reply.log.debug({ res: reply, responseTime: reply.elapsedTime }, 'request completed');
  }
}
