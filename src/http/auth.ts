// Who is calling: the API key check, and the caller's scope derived from it. Every request gets
// `req.scope`; a protected path without a valid key is refused with 401 before any route runs.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Scope } from '../app/scope.js';
import { sendProblem } from './problem.js';

export type { Scope };

/** Paths any caller may read: probes, the OpenAPI document, and the /docs UI. */
export const PUBLIC_PATHS: ReadonlySet<string> = new Set(['/healthz', '/readyz', '/openapi.json']);

export function isPublicPath(url: string): boolean {
  return PUBLIC_PATHS.has(url) || url === '/docs' || url.startsWith('/docs/');
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The caller's scope; null on a public path reached without a valid key. */
    scope: Scope | null;
  }
}

const KEY_SCOPE: Readonly<Scope> = Object.freeze({ principal: 'key' });
const LOOPBACK_SCOPE: Readonly<Scope> = Object.freeze({ principal: 'loopback' });

export function tokenMatches(expected: string, header: string | undefined): boolean {
  if (!header || !header.startsWith('Bearer ')) return false;
  // Hash both sides so the comparison is constant-time whatever the lengths.
  const a = createHash('sha256').update(expected).digest();
  const b = createHash('sha256').update(header.slice('Bearer '.length)).digest();
  return timingSafeEqual(a, b);
}

/** The caller's scope, or null when a token is configured and the request does not carry it. */
export function callerScope(token: string | undefined, req: Pick<FastifyRequest, 'headers'>): Scope | null {
  if (token === undefined) return LOOPBACK_SCOPE;
  return tokenMatches(token, req.headers.authorization) ? KEY_SCOPE : null;
}

/** Adds the `onRequest` check: sets `req.scope`, and answers 401 on a protected path without one. */
export function installAuth(app: FastifyInstance, token: string | undefined): void {
  app.decorateRequest('scope', null);
  app.addHook('onRequest', async (req, reply) => {
    const url = req.url.split('?')[0]!;
    const isPublic = isPublicPath(url);
    // A public path needs no key: it is checked only when one is sent.
    if (isPublic && token !== undefined && req.headers.authorization === undefined) return;
    req.scope = callerScope(token, req);
    if (req.scope !== null || isPublic) return;
    reply.header('www-authenticate', 'Bearer realm="norma"');
    return sendProblem(reply, req, 401, 'send "Authorization: Bearer <token>" with the configured NORMA_TOKEN');
  });
}
