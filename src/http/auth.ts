// Who is calling, and whether it may do what the route does. Every request gets `req.scope`:
// from its API key (`Authorization: Bearer …`), from an event ticket on the event stream (an
// EventSource cannot send headers), from the web console's login cookie (see consoleToken), or
// the loopback caller when no key is configured. A ticket or a login acts for the exact key that
// made it (its id), as that key is now. Each route declares the access it needs
// (`config.access`); a key without it gets 403 before the route runs, whatever the session — so
// the answer says nothing about other tenants' sessions.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isOperator, LOOPBACK, type Scope } from '../app/scope.js';
import { DEFAULT_TENANT, type KeyScope } from '../contract/tenant.js';
import type { KeyIdentity, KeyRing } from '../tenants/key-ring.js';
import type { TicketBook } from '../tenants/tickets.js';
import type { ConsoleLogins } from '../tenants/console-logins.js';
import { parse as parseCookies } from 'cookie';
import { sendProblem } from './problem.js';

export type { Scope };

/** Paths any caller may read: probes, the OpenAPI document, and the /docs UI. */
export const PUBLIC_PATHS: ReadonlySet<string> = new Set(['/healthz', '/readyz', '/openapi.json', '/v1/signing-key']);

/** Probes, the OpenAPI document, /docs, and the web console (its files, and its login, which checks keys itself). */
export function isPublicPath(url: string): boolean {
  return PUBLIC_PATHS.has(url) || url === '/docs' || url.startsWith('/docs/') || url === '/console' || url.startsWith('/console/');
}

/** The web console's login cookie (HttpOnly, SameSite=Strict; its value is a login token, never a key). */
export const CONSOLE_COOKIE = 'norma_console';
/** The header the console sends with every request: the cookie counts only with it. */
export const CONSOLE_HEADER = 'x-norma-console';

/**
 * The login token of a request that may use the console's cookie, or null. The cookie counts
 * only on a request of the console itself: it carries `X-Norma-Console: 1` (a custom header no
 * other site can make a browser send without a CORS preflight, which a credentialed request
 * from another origin never passes), an Origin, if any, that is this server's own, and a
 * `Sec-Fetch-Site`, if any, of `same-origin`. A form, a link or an image from any other page,
 * same-site ones included, gets no credential from the cookie.
 */
export function consoleToken(req: FastifyRequest): string | null {
  const cookieHeader = req.headers.cookie;
  if (cookieHeader === undefined || notFromConsole(req) !== null) return null;
  const token = parseCookies(cookieHeader)[CONSOLE_COOKIE];
  return token === undefined || token === '' ? null : token;
}

/** Why a request is not one of the console's own (see consoleToken), or null when it is. */
export function notFromConsole(req: FastifyRequest): string | null {
  if (req.headers[CONSOLE_HEADER] !== '1') return 'send "X-Norma-Console: 1" (the console\'s requests carry it)';
  const site = req.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin') return `the request comes from another site or origin (Sec-Fetch-Site: ${site})`;
  const origin = req.headers.origin;
  if (origin === undefined) return null;
  let host = '';
  try {
    host = new URL(origin).host;
  } catch {
    // not a URL: not this origin
  }
  return host === (req.headers.host ?? '').toLowerCase() ? null : 'the request comes from another origin';
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The caller's scope; null on a public path reached without a key. */
    scope: Scope | null;
  }
  interface FastifyContextConfig {
    /** What the route needs of the caller's key; every /v1 route declares it. */
    access?: KeyScope;
    /** The route takes an event ticket (`?ticket=`) instead of a key. */
    ticket?: boolean;
    /**
     * The route shows the whole process (every tenant's work): only the operator may use it
     * (isOperator), so a tenant's `admin` key gets 403 like a key without the access.
     */
    operator?: boolean;
  }
}

/** What each access lets a key do, in the words a 403 uses. */
const WHAT: Record<KeyScope, string> = {
  read: 'read',
  approve: 'answer permission requests and questions',
  write: 'create, change or close sessions and post or cancel turns',
  admin: 'use the operator\'s routes',
};

export interface AuthOptions {
  keys: KeyRing;
  tickets: TicketBook;
  logins: ConsoleLogins;
  now: () => number;
}

/**
 * The key a console login acts for, as it is now (its current scopes); null when the login or its
 * exact key has ended — removed, expired, or replaced under the same name.
 */
export function consoleKey(logins: ConsoleLogins, keys: KeyRing, token: string, now: number): KeyIdentity | null {
  const login = logins.find(token);
  if (!login) return null;
  const key = keys.inForce(login.keyId, now);
  if (!key || key.tenant !== login.tenant) {
    logins.close(token);
    return null;
  }
  return key;
}

function keyScope(key: KeyIdentity, principal: 'key' | 'ticket' | 'console'): Scope {
  return { principal, tenant: key.tenant, access: key.access, key: key.name, keyId: key.id };
}

function refuse(reply: FastifyReply, req: FastifyRequest, detail: string) {
  reply.header('www-authenticate', 'Bearer realm="norma"');
  return sendProblem(reply, req, 401, detail);
}

/** Adds the `onRequest` check and refuses to start with a /v1 route that does not say what it needs. */
export function installAuth(app: FastifyInstance, { keys, tickets, logins, now }: AuthOptions): void {
  app.decorateRequest('scope', null);
  app.addHook('onRoute', (route) => {
    if (route.url.startsWith('/v1/') && !PUBLIC_PATHS.has(route.url) && route.config?.access === undefined) {
      throw new Error(`route ${String(route.method)} ${route.url} does not declare config.access`);
    }
  });
  app.addHook('onRequest', async (req, reply) => {
    const url = req.url.split('?')[0]!;
    const isPublic = isPublicPath(url);
    const header = req.headers.authorization;
    const config = req.routeOptions.config;
    const ticket = config.ticket === true ? (req.query as { ticket?: unknown }).ticket : undefined;

    if (typeof ticket === 'string' && header === undefined) {
      const sessionId = (req.params as { session_id?: string }).session_id ?? '';
      const spent = tickets.redeem(ticket, sessionId);
      if (!spent.ok) return refuse(reply, req, spent.detail);
      if (spent.keyId === null) {
        // Taken while the server had no key; keys are required now (a reload added them).
        if (keys.required) return refuse(reply, req, 'the key that took this event ticket is no longer valid');
        req.scope = LOOPBACK;
      } else {
        const key = keys.inForce(spent.keyId, now());
        // The exact key that took it was removed, expired, replaced under its name or moved to another tenant since.
        if (!key || key.tenant !== spent.tenant) return refuse(reply, req, 'the key that took this event ticket is no longer valid');
        req.scope = keyScope(key, 'ticket');
      }
    } else if (!keys.required) {
      // A key sent to a server that has none is a client configured for another server (or a
      // server started without its keys): told, not silently served as anyone.
      if (header !== undefined && !isPublic) {
        return refuse(reply, req, 'this server has no API keys (NORMA_TOKEN and NORMA_API_KEYS_FILE are unset), so the key sent is not one of its keys: send no Authorization header to a keyless loopback server, or start the server with its keys');
      }
      req.scope = LOOPBACK;
    } else if (header === undefined) {
      const token = consoleToken(req);
      const key = token === null ? null : consoleKey(logins, keys, token, now());
      if (key) req.scope = keyScope(key, 'console');
      else if (isPublic) return;
      else if (token !== null) return refuse(reply, req, 'the console login ended (logged out, expired, or its key was removed): log in again');
      else return refuse(reply, req, 'send "Authorization: Bearer <key>" with an API key (NORMA_TOKEN or one of NORMA_API_KEYS_FILE), or ?ticket= on the event stream');
    } else {
      if (!header.startsWith('Bearer ') || header.length === 'Bearer '.length) {
        return refuse(reply, req, 'the Authorization header must be "Bearer <key>"');
      }
      const auth = keys.authenticate(header.slice('Bearer '.length), now());
      if (!auth.ok) return refuse(reply, req, auth.reason === 'expired' ? 'this API key has expired' : 'unknown API key');
      req.scope = keyScope(auth.key, 'key');
    }

    const scope = req.scope;
    if (scope.key !== null) req.log = req.log.child({ tenant: scope.tenant, key: scope.key });
    const needed = config.access;
    if (needed !== undefined && !scope.access.has(needed)) {
      const has = [...scope.access][0] ?? 'none';
      return sendProblem(reply, req, 403, `key ${scope.key ?? ''} has the "${has}" scope, which may not ${WHAT[needed]}; this needs "${needed}"`);
    }
    if (config.operator === true && !isOperator(scope)) {
      return sendProblem(
        reply,
        req,
        403,
        `key ${scope.key ?? ''} belongs to the tenant "${scope.tenant ?? ''}"; this view of the whole server is the operator's (NORMA_TOKEN, or an "admin" key of the tenant "${DEFAULT_TENANT}")`,
      );
    }
  });
}
