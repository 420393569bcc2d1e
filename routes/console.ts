// The web console: its files at /console/ (built by `npm run build` into dist/console), and its
// login. The console is a page of this server's own origin that uses the public API like any
// client; what it adds is how it authenticates: a key entered once is exchanged here for a
// login token in an HttpOnly, SameSite=Strict cookie (src/http/auth.ts says when the cookie
// counts), so the page never keeps the key.
import fs from 'node:fs';
import path from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { serialize as serializeCookie } from 'cookie';
import { CONSOLE_COOKIE, consoleToken, notFromConsole } from '../src/http/auth.js';
import { sendProblem } from '../src/http/problem.js';
import { ConsoleLoginSchema, ConsoleSessionSchema, ref, type ConsoleSession } from '../src/contract/schemas.js';
import { CONSOLE_LOGIN_TTL_MS, type ConsoleLogins } from '../src/tenants/console-logins.js';
import type { KeyRing } from '../src/tenants/key-ring.js';
import { DEFAULT_TENANT, KEY_SCOPES, type KeyScope } from '../src/contract/tenant.js';
import { problems } from './common.js';

export interface ConsoleRouteOptions {
  keys: KeyRing;
  logins: ConsoleLogins;
  now: () => number;
  /** The built console (index.html and assets/). */
  dir: string;
}

/**
 * What every console answer carries: the page runs only its own scripts and styles, talks only
 * to this origin, is never framed, and sends no Referer (session ids are in its URLs).
 */
export const CONSOLE_SECURITY_HEADERS: Record<string, string> = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
    "base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
};

/** Logins tried from one address in a minute (keys are 128+ random bits: this only keeps logs quiet). */
const LOGINS_PER_MINUTE = 20;

function cookie(req: FastifyRequest, value: string, maxAgeS: number): string {
  return serializeCookie(CONSOLE_COOKIE, value, {
    httpOnly: true,
    sameSite: 'strict',
    path: '/',
    maxAge: maxAgeS,
    // Over TLS (a proxy in front that says so, or HTTPS here) the cookie never travels in clear.
    secure: req.protocol === 'https',
  });
}

export const consoleRoutes: FastifyPluginAsyncTypebox<ConsoleRouteOptions> = async (app, { keys, logins, now, dir }) => {
  app.addHook('onSend', async (_req, reply, payload) => {
    reply.headers(CONSOLE_SECURITY_HEADERS);
    return payload;
  });

  const view = (tenant: string, key: string, access: ReadonlySet<KeyScope>, expiresAt: number | null): ConsoleSession => ({
    keys_required: true,
    tenant,
    key,
    scopes: KEY_SCOPES.filter((s) => access.has(s)),
    ...(expiresAt !== null ? { expires_at: new Date(expiresAt).toISOString() } : {}),
  });
  const describe = (req: FastifyRequest): ConsoleSession | null => {
    if (!keys.required) return { keys_required: false, tenant: DEFAULT_TENANT, scopes: [...KEY_SCOPES] };
    const scope = req.scope;
    if (!scope || scope.key === null || scope.tenant === null) return null;
    const token = scope.principal === 'console' ? consoleToken(req) : null;
    const login = token === null ? null : logins.find(token);
    return view(scope.tenant, scope.key, scope.access, login?.expiresAt ?? null);
  };

  app.post(
    '/console/session',
    {
      config: {
        rateLimit: {
          max: LOGINS_PER_MINUTE,
          timeWindow: 60_000,
          keyGenerator: (req: FastifyRequest) => `console-login:${req.ip}`,
          allowList: () => false,
          // Only a refusal says when to retry; the tenant limits' headers are not about this.
          addHeadersOnExceeding: { 'x-ratelimit-limit': false, 'x-ratelimit-remaining': false, 'x-ratelimit-reset': false },
          addHeaders: { 'x-ratelimit-limit': false, 'x-ratelimit-remaining': false, 'x-ratelimit-reset': false, 'retry-after': true },
          errorResponseBuilder: (_req: FastifyRequest, ctx: { after: string }) =>
            Object.assign(new Error(`more than ${LOGINS_PER_MINUTE} console logins were tried from this address in a minute; retry after ${ctx.after}`), { statusCode: 429 }),
        },
      },
      schema: {
        operationId: 'createConsoleSession',
        tags: ['console'],
        summary: 'Log the console in with a key',
        description:
          'Checks the key and answers with an HttpOnly, SameSite=Strict cookie holding a login token (never the key) that acts ' +
          `for the key for at most ${CONSOLE_LOGIN_TTL_MS / 3_600_000} hours. The cookie counts only on requests with ` +
          '`X-Norma-Console: 1` from this server\'s origin; this request needs the same. 409 on a server without keys (the ' +
          `console needs no login there). At most ${LOGINS_PER_MINUTE} tries a minute from one address.`,
        security: [],
        body: ref(ConsoleLoginSchema),
        response: {
          201: {
            description: 'Logged in; the cookie is set',
            headers: { 'set-cookie': { type: 'string', description: `${CONSOLE_COOKIE}=<login token>; Path=/; HttpOnly; SameSite=Strict; Max-Age=…` } },
            content: { 'application/json': { schema: ref(ConsoleSessionSchema) } },
          },
          400: problems[400],
          401: problems[401],
          403: problems[403],
          409: problems[409],
          413: problems[413],
          415: problems[415],
          421: problems[421],
          429: problems[429],
          500: problems[500],
        },
      },
    },
    async (req, reply) => {
      const refused = notFromConsole(req);
      if (refused) return sendProblem(reply, req, 403, `the console's login takes the console's own requests only: ${refused}`);
      if (!keys.required) return sendProblem(reply, req, 409, 'this server has no keys: the console needs no login (it acts as the loopback caller)');
      const auth = keys.authenticate(req.body.key, now());
      if (!auth.ok) return sendProblem(reply, req, 401, auth.reason === 'expired' ? 'this API key has expired' : 'unknown API key');
      const { token, expiresAt } = logins.open(auth.key, auth.key.tenant);
      req.log.info({ event: 'console.login', tenant: auth.key.tenant, key: auth.key.name }, 'console login');
      reply.header('set-cookie', cookie(req, token, Math.floor(CONSOLE_LOGIN_TTL_MS / 1000))).header('cache-control', 'no-store');
      return reply.code(201).send(view(auth.key.tenant, auth.key.name, auth.key.access, expiresAt));
    },
  );

  app.get(
    '/console/session',
    {
      schema: {
        operationId: 'getConsoleSession',
        tags: ['console'],
        summary: 'Who the console is logged in as',
        description:
          'The login of the console\'s cookie (or of a Bearer key): tenant, key and scopes. On a server without keys, the ' +
          'loopback caller with `keys_required: false`. 401 when not logged in.',
        security: [],
        response: {
          200: ref(ConsoleSessionSchema, 'The login'),
          401: problems[401],
          403: problems[403],
          421: problems[421],
          500: problems[500],
        },
      },
    },
    async (req, reply) => {
      const found = describe(req);
      reply.header('cache-control', 'no-store');
      if (!found) {
        reply.header('www-authenticate', 'Bearer realm="norma"');
        return sendProblem(reply, req, 401, 'the console is not logged in: log in with a key (POST /console/session)');
      }
      return found;
    },
  );

  app.delete(
    '/console/session',
    {
      schema: {
        operationId: 'deleteConsoleSession',
        tags: ['console'],
        summary: 'Log the console out',
        description: 'Ends the login at once (its token opens nothing from now on) and clears the cookie. 204 also when there was no login.',
        security: [],
        response: {
          204: Type.Null({
            description: 'Logged out; the cookie is cleared',
            headers: { 'set-cookie': { type: 'string', description: `${CONSOLE_COOKIE}=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict` } },
          }),
          403: problems[403],
          421: problems[421],
          500: problems[500],
        },
      },
    },
    async (req, reply) => {
      const refused = notFromConsole(req);
      if (refused) return sendProblem(reply, req, 403, `the console's logout takes the console's own requests only: ${refused}`);
      const token = consoleToken(req);
      if (token !== null && logins.close(token)) req.log.info({ event: 'console.logout', tenant: req.scope?.tenant, key: req.scope?.key }, 'console logout');
      return reply.header('set-cookie', cookie(req, '', 0)).header('cache-control', 'no-store').code(204).send(null);
    },
  );

  // The files. Built names carry a content hash (cached for a year); index.html is asked for
  // again every time, so a new build shows at the next load.
  if (!fs.existsSync(path.join(dir, 'index.html'))) {
    const missing = async (req: FastifyRequest, reply: FastifyReply) =>
      sendProblem(reply, req, 503, `the console is not built (no index.html in ${dir}): run "npm run build", or set NORMA_CONSOLE_DIR`);
    app.get('/console', { schema: { hide: true } }, missing);
    app.get('/console/', { schema: { hide: true } }, missing);
    app.get('/console/assets/*', { schema: { hide: true } }, missing);
    return;
  }
  // /console → /console/: the page's relative URLs resolve under it.
  app.get('/console', { schema: { hide: true } }, async (_req, reply) => reply.redirect('/console/', 308));
  await app.register(fastifyStatic, {
    root: dir,
    prefix: '/console/',
    index: ['index.html'],
    // The build writes .br and .gz beside the script and stylesheet: sent to browsers that take them.
    preCompressed: true,
    decorateReply: false,
    dotfiles: 'ignore',
    serveDotFiles: false,
    etag: true,
    lastModified: false,
    cacheControl: false,
    setHeaders: (res, file) => {
      const asset = file.includes(`${path.sep}assets${path.sep}`);
      res.setHeader('cache-control', asset ? 'public, max-age=31536000, immutable' : 'no-cache');
      // Which bytes were sent depends on Accept-Encoding: a cache in between must know.
      if (asset) res.setHeader('vary', 'accept-encoding');
    },
  } as Parameters<typeof fastifyStatic>[1]);
};
