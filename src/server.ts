// buildServer(config): the composition root, the only place that wires parts together.
import { setMaxListeners } from 'node:events';
import fs from 'node:fs/promises';
import { constants as C } from 'node:fs';
import path from 'node:path';
import type { Socket } from 'node:net';
import Fastify, {
  type FastifyBaseLogger,
  type FastifyError,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  type RawServerDefault,
} from 'fastify';
import type { IncomingMessage, ServerResponse } from 'node:http';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { timingSafeEqual, createHash } from 'node:crypto';
import pino, { type Logger } from 'pino';
import type { AppContext } from './app-context.js';
import type { Config } from './config.js';
import type { ProviderOptions } from './model/index.js';
import { EgressListSchema, EVENT_SCHEMAS, EventSchema, HookRunListSchema, SessionExportSchema } from './contract/events.js';
import * as schemas from './contract/schemas.js';
import type { Problem, Readiness } from './contract/schemas.js';
import { DomainError, type DomainErrorKind } from './errors.js';
import { requestGate } from './http/host-check.js';
import { useDepthCheckedJson } from './http/json-body.js';
import { EventLog } from './events/log.js';
import { HookRegistry, type HookRegistration } from './hooks/registry.js';
import { newId as defaultNewId, systemClock, type Clock, type IdFactory } from './ids.js';
import { InputValidator } from './pipeline/validate.js';
import { grepBackend } from './tools/builtin/grep.js';
import type { SandboxHost, SandboxStatus } from './sandbox/process.js';
import { createSandboxHost, sandboxHostChecks } from './sandbox/host.js';
import { SessionService } from './session/session.js';
import { MemoryStore } from './store/memory.js';
import { SqliteStore } from './store/sqlite.js';
import type { Resolver } from './sandbox/egress.js';
import { Value } from '@sinclair/typebox/value';
import { ConfigError } from './config.js';
import { compileSessionHooks } from './hooks/config.js';
import type { SessionHooks } from './hooks/registry.js';
import { OutputFiles } from './store/outputs.js';
import type { Store } from './store/store.js';
import { eventRoutes } from '../routes/events.js';
import { healthRoutes } from '../routes/health.js';
import { permissionRoutes } from '../routes/permissions.js';
import { sessionRoutes } from '../routes/sessions.js';
import { turnRoutes } from '../routes/turns.js';
import { outputRoutes } from '../routes/outputs.js';
import { PROBLEM_CONTENT_TYPE } from '../routes/common.js';

export interface ServerOptions {
  store?: Store;
  clock?: Clock;
  newId?: IdFactory;
  logger?: Logger;
  /** Operator (trusted, in-process) hooks that run for every session. */
  hooks?: HookRegistration[];
  /**
   * The process sandbox to use (default: NORMA_SANDBOX with bwrap found on PATH, the limits
   * backend the host allows). One given here is shared, not closed with the server.
   */
  processSandbox?: SandboxHost;
  /** DNS resolution for egress checks (default: the system resolver). */
  resolve?: Resolver;
  /** Model provider retries and timeouts (default: DEFAULT_RETRY, DEFAULT_TIMEOUTS). */
  modelOptions?: Omit<ProviderOptions, 'egress'>;
}

export type NormaApp = FastifyInstance<RawServerDefault, IncomingMessage, ServerResponse, FastifyBaseLogger, TypeBoxTypeProvider>;

export interface NormaServer {
  app: NormaApp;
  ctx: AppContext;
  /** Graceful stop: closes sessions (SessionEnd fires), then the HTTP server. */
  close(): Promise<void>;
}

const SHARED_SCHEMAS = [
  schemas.ProblemSchema,
  schemas.PermissionModeSchema,
  schemas.SessionRuleSchema,
  schemas.SessionHooksSchema,
  schemas.ScriptReplySchema,
  schemas.ModelConfigInputSchema,
  schemas.ModelConfigSchema,
  schemas.SessionCreateSchema,
  schemas.SessionLimitsSchema,
  schemas.SessionPatchSchema,
  schemas.SessionSchema,
  schemas.SessionListSchema,
  schemas.ToolDefinitionSchema,
  schemas.ToolListSchema,
  schemas.ToolUseSchema,
  schemas.TextBlockSchema,
  schemas.TruncationSchema,
  schemas.ToolResultSchema,
  schemas.PromptTextBlockSchema,
  schemas.TurnCreateSchema,
  schemas.TurnErrorSchema,
  schemas.UsageSchema,
  schemas.MessageSchema,
  schemas.TurnSchema,
  schemas.TurnListSchema,
  schemas.PermissionRequestSchema,
  schemas.PermissionListSchema,
  schemas.DecisionSchema,
  schemas.DecisionListSchema,
  schemas.PermissionResponseSchema,
  schemas.OutputSchema,
  schemas.OutputListSchema,
  schemas.HealthSchema,
  schemas.ReadinessSchema,
  ...EVENT_SCHEMAS,
  EventSchema,
  SessionExportSchema,
  HookRunListSchema,
  EgressListSchema,
];

const PUBLIC_PATHS = new Set(['/healthz', '/readyz', '/openapi.json']);

const STATUS_OF: Record<DomainErrorKind, number> = {
  invalid: 400,
  not_found: 404,
  conflict: 409,
  gone: 410,
  range_not_satisfiable: 416,
  not_implemented: 501,
  unavailable: 503,
};

const TITLES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  410: 'Gone',
  416: 'Range Not Satisfiable',
  413: 'Content Too Large',
  421: 'Misdirected Request',
  415: 'Unsupported Media Type',
  500: 'Internal Server Error',
  501: 'Not Implemented',
  503: 'Service Unavailable',
  507: 'Insufficient Storage',
};

/** Stable problem type URIs clients can switch on (RFC 9457 §3.1.1). */
const PROBLEM_TYPES: Record<number, string> = {
  400: 'urn:norma:problem:invalid-request',
  401: 'urn:norma:problem:unauthorized',
  403: 'urn:norma:problem:forbidden',
  404: 'urn:norma:problem:not-found',
  405: 'urn:norma:problem:method-not-allowed',
  409: 'urn:norma:problem:conflict',
  410: 'urn:norma:problem:gone',
  416: 'urn:norma:problem:range-not-satisfiable',
  413: 'urn:norma:problem:body-too-large',
  415: 'urn:norma:problem:unsupported-media-type',
  421: 'urn:norma:problem:misdirected-request',
  500: 'urn:norma:problem:internal-error',
  501: 'urn:norma:problem:not-implemented',
  503: 'urn:norma:problem:unavailable',
  507: 'urn:norma:problem:insufficient-storage',
};

function problemType(status: number): string {
  return PROBLEM_TYPES[status] ?? 'about:blank';
}

function sendProblem(reply: FastifyReply, req: FastifyRequest, status: number, detail: string, errors?: Problem['errors']) {
  const body: Problem = {
    type: problemType(status),
    title: TITLES[status] ?? 'Error',
    status,
    detail,
    instance: req.url.split('?')[0]!,
    ...(errors && errors.length > 0 ? { errors } : {}),
  };
  return reply.code(status).type(PROBLEM_CONTENT_TYPE).send(body);
}

function tokenMatches(expected: string, header: string | undefined): boolean {
  if (!header || !header.startsWith('Bearer ')) return false;
  // Hash both sides so the comparison is constant-time whatever the lengths.
  const a = createHash('sha256').update(expected).digest();
  const b = createHash('sha256').update(header.slice('Bearer '.length)).digest();
  return timingSafeEqual(a, b);
}

/** NORMA_HOOKS_FILE: operator hooks for every session; any problem stops start-up, naming the hook. */
async function loadHooksFile(
  config: Config,
  host: SandboxHost,
  sandboxStatus: () => Promise<SandboxStatus>,
  resolve: Resolver | undefined,
): Promise<SessionHooks> {
  const file = config.hooksFile!;
  let json: unknown;
  try {
    json = JSON.parse(await fs.readFile(file, 'utf8'));
  } catch (err) {
    throw new ConfigError([`NORMA_HOOKS_FILE ${file}: ${(err as Error).message}`]);
  }
  if (!Value.Check(schemas.SessionHooksSchema, json)) {
    const problems = [...Value.Errors(schemas.SessionHooksSchema, json)].map((e) => `NORMA_HOOKS_FILE ${file}: ${e.path || '(root)'} ${e.message}`);
    throw new ConfigError(problems.slice(0, 20));
  }
  const hooks = json as SessionHooks;
  const status = await sandboxStatus();
  const { problems } = compileSessionHooks(hooks, { mode: host.mode, usable: status.usable, detail: status.detail }, {
    allow: config.egressAllow,
    ...(resolve ? { resolve } : {}),
  }, 'NORMA_HOOKS_FILE');
  if (problems.length > 0) throw new ConfigError(problems);
  return hooks;
}

export async function buildServer(config: Config, options: ServerOptions = {}): Promise<NormaServer> {
  const logger =
    options.logger ??
    pino({ level: config.logLevel, redact: ['req.headers.authorization', '*.api_key', '*.secret'] });
  const clock = options.clock ?? systemClock;
  const newId = options.newId ?? defaultNewId;
  // The database is opened first: an unusable one stops start-up (StoreOpenError names it).
  const store = options.store ?? (config.store === 'memory' ? new MemoryStore() : new SqliteStore(config.databaseFile));
  const events = new EventLog(store, clock);
  const hooks = new HookRegistry();
  for (const h of options.hooks ?? []) hooks.register(h);
  const validator = new InputValidator();
  const outputs = new OutputFiles(
    path.join(config.dataDir, 'outputs'),
    store,
    clock,
    newId,
    { maxAgeMs: config.outputRetentionMs, maxBytesPerSession: config.outputMaxBytesPerSession },
    logger,
  );
  let sandboxHost: SandboxHost;
  try {
    sandboxHost = options.processSandbox ?? (await createSandboxHost(config.sandbox, config.cgroup));
  } catch (err) {
    if (!options.store) store.close(); // start-up stops: release the database
    throw new ConfigError([(err as Error).message]);
  }
  const ownsSandbox = options.processSandbox === undefined;
  const sandboxStatus = (): Promise<SandboxStatus> => sandboxHost.selfTest(path.join(config.dataDir, 'sandbox', 'selftest'));
  let operatorHooks: SessionHooks | undefined;
  try {
    operatorHooks = config.hooksFile ? await loadHooksFile(config, sandboxHost, sandboxStatus, options.resolve) : undefined;
  } catch (err) {
    if (!options.store) store.close(); // start-up stops: release the database
    if (ownsSandbox) await sandboxHost.limits.close();
    throw err;
  }
  // The sockets the server listens on: a sandbox's network never reaches them.
  let listening: () => { address: string; port: number }[] = () => [];
  const sessions = new SessionService({
    ...(options.resolve ? { resolve: options.resolve } : {}),
    ...(options.modelOptions ? { modelOptions: options.modelOptions } : {}),
    ...(operatorHooks ? { operatorHooks } : {}),
    sandbox: sandboxHost,
    sandboxStatus,
    ownAddresses: () => listening(),
    outputs,
    config,
    store,
    events,
    clock,
    newId,
    logger,
    validator,
    hooks,
  });

  // What a previous process left: paused turns wait again, interrupted ones are answered.
  const recovered = await sessions.recover();
  if (recovered.sessions > 0) logger.info(recovered, 'recovered sessions from the store');

  const readiness = async (): Promise<Readiness> => {
    const checks: Readiness['checks'] = [];
    checks.push({
      name: 'store',
      ok: true,
      required: true,
      detail: store.durable ? `SQLite ${config.databaseFile}` : `${store.constructor.name} (in memory: data does not survive a restart)`,
    });
    try {
      await fs.mkdir(config.workspaceRoot, { recursive: true, mode: 0o700 });
      await fs.access(config.workspaceRoot, C.W_OK);
      checks.push({ name: 'workspace_root', ok: true, required: true, detail: `${config.workspaceRoot} is writable` });
    } catch (err) {
      checks.push({ name: 'workspace_root', ok: false, required: true, detail: `${config.workspaceRoot}: ${(err as Error).message}` });
    }
    const sandbox = await sandboxStatus();
    // Not required: without it the service still serves file tools; shell tools are then not
    // installed and a session asking for them is refused with this detail.
    checks.push({ name: 'sandbox', ok: sandbox.usable, required: false, detail: sandbox.detail });
    const grep = grepBackend();
    checks.push({
      name: 'search',
      ok: true,
      required: false,
      detail:
        grep.kind === 'ripgrep'
          ? `Grep uses ripgrep at ${grep.path}`
          : 'ripgrep (rg) not found on PATH: Grep uses the slower built-in search (install Debian\'s ripgrep package)',
    });
    const web = sessions.webSearch;
    checks.push({ name: 'web_search', ok: web.usable || !web.configured, required: false, detail: web.detail });
    checks.push(...sandboxHostChecks(sandboxHost));
    const ready = checks.every((c) => c.ok || !c.required);
    return { status: ready ? 'ready' : 'unready', checks };
  };

  const shutdown = new AbortController();
  setMaxListeners(0, shutdown.signal); // one listener per open SSE stream
  const ctx: AppContext = {
    config,
    sessions,
    events,
    readiness,
    sweepOutputs: () => outputs.sweep(),
    sweepSessions: () => sessions.sweepClosedSessions(),
    shutdown: shutdown.signal,
  };

  const app: NormaApp = Fastify({
    loggerInstance: logger as FastifyBaseLogger,
    bodyLimit: config.bodyLimitBytes,
    genReqId: () => newId('req'),
    ajv: {
      customOptions: { removeAdditional: false, coerceTypes: 'array', useDefaults: true, allErrors: true },
    },
  }).withTypeProvider<TypeBoxTypeProvider>();
  listening = () => {
    const a = app.server.address();
    return a !== null && typeof a === 'object' ? [{ address: a.address, port: a.port }] : [];
  };

  for (const s of SHARED_SCHEMAS) app.addSchema(s);
  // JSON only: anything else is a clear 415, not a confusing schema error.
  app.removeContentTypeParser('text/plain');

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Norma Server',
        version: '1.0.0',
        description:
          'Runs an AI agent\'s tool pipeline server-side: schema validation, permissions, hooks, sandbox, output cap, ' +
          'paired tool_results, and Server-Sent Events. Errors are application/problem+json (RFC 9457).',
      },
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
      security: [{ bearer: [] }],
      tags: [
        { name: 'sessions' },
        { name: 'turns' },
        { name: 'permissions' },
        { name: 'events' },
        { name: 'outputs' },
        { name: 'health' },
      ],
    },
    refResolver: { buildLocalReference: (json, _base, _fragment, i) => String(json.$id ?? `def-${i}`) },
  });
  await app.register(swaggerUi, { routePrefix: '/docs', staticCSP: true });

  const gate = requestGate(config.allowedHosts, config.host);
  app.addHook('onRequest', async (req, reply) => {
    reply.header('x-request-id', req.id);
    // Before anything else: a Host this server does not answer to (DNS rebinding), or a
    // cross-origin browser request that would change state.
    const port = listening()[0]?.port ?? null;
    const badHost = gate.checkHost(req.headers.host, port);
    if (badHost) return sendProblem(reply, req, 421, badHost);
    const fetchSite = req.headers['sec-fetch-site'];
    const badOrigin = gate.checkOrigin(req.method, req.headers.origin, typeof fetchSite === 'string' ? fetchSite : undefined, req.headers.host);
    if (badOrigin) return sendProblem(reply, req, 403, badOrigin);
    if (config.token === undefined) return;
    const url = req.url.split('?')[0]!;
    if (PUBLIC_PATHS.has(url) || url === '/docs' || url.startsWith('/docs/')) return;
    if (!tokenMatches(config.token, req.headers.authorization)) {
      reply.header('www-authenticate', 'Bearer realm="norma"');
      return sendProblem(reply, req, 401, 'send "Authorization: Bearer <token>" with the configured NORMA_TOKEN');
    }
  });

  useDepthCheckedJson(app);

  app.setNotFoundHandler((req, reply) => sendProblem(reply, req, 404, `no route ${req.method} ${req.url.split('?')[0]}`));

  app.setErrorHandler((err: FastifyError, req, reply) => {
    if (err instanceof DomainError) {
      const status = STATUS_OF[err.kind];
      return sendProblem(
        reply,
        req,
        status,
        err.message,
        err.problems.map((p) => ({ location: 'body', path: '', message: p })),
      );
    }
    if (err.validation) {
      const location = err.validationContext === 'querystring' ? 'query' : (err.validationContext ?? 'body');
      const errors = err.validation.map((v) => ({
        location,
        path: v.instancePath || '',
        message: describeValidation(v as unknown as { instancePath: string; message?: string; keyword: string; params: Record<string, unknown> }),
      }));
      const detail = `invalid ${location}: ${errors.map((e) => `${e.path || '(root)'} ${e.message}`).join('; ')}`;
      return sendProblem(reply, req, 400, detail, errors);
    }
    switch (err.code) {
      case 'FST_ERR_CTP_INVALID_JSON_BODY':
      case 'FST_ERR_CTP_EMPTY_JSON_BODY':
        return sendProblem(reply, req, 400, `malformed JSON body: ${err.message}`);
      case 'FST_ERR_CTP_BODY_TOO_LARGE':
        return sendProblem(reply, req, 413, `request body is larger than ${config.bodyLimitBytes} bytes`);
      case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
        return sendProblem(reply, req, 415, `unsupported content type ${JSON.stringify(req.headers['content-type'] ?? '')}; send application/json`);
      default:
        break;
    }
    if (err instanceof SyntaxError || (err.statusCode === 400 && /JSON/i.test(err.message))) {
      return sendProblem(reply, req, 400, `malformed JSON body: ${err.message}`);
    }
    if (err.statusCode !== undefined && err.statusCode >= 400 && err.statusCode < 500) {
      return sendProblem(reply, req, err.statusCode, err.message);
    }
    // The store refused a write: its transaction rolled back, so nothing of this request was
    // stored and everything committed before is intact.
    const sqlite = typeof err.code === 'string' && err.code.startsWith('SQLITE_') ? err.code : undefined;
    if (sqlite === 'SQLITE_FULL') {
      req.log.error({ err }, 'store full');
      return sendProblem(reply, req, 507, 'the server\'s storage is full: nothing of this request was stored (what was stored before is intact); retry once space is freed');
    }
    if (sqlite !== undefined) {
      req.log.error({ err }, 'store unavailable');
      return sendProblem(reply, req, 503, `the store cannot be used right now (${sqlite}): nothing of this request was stored; retry later`);
    }
    req.log.error({ err }, 'unhandled error');
    return sendProblem(reply, req, 500, `internal error; quote request id ${req.id} when reporting it`);
  });

  await app.register(healthRoutes, { ctx });
  await app.register(sessionRoutes, { ctx });
  await app.register(turnRoutes, { ctx });
  await app.register(permissionRoutes, { ctx });
  await app.register(eventRoutes, { ctx });
  await app.register(outputRoutes, { ctx });

  // Retention: one sweep at start (orphans of a previous process), then periodically.
  const sweep = (startup = false) =>
    Promise.all([
      outputs.sweep(startup).then(
        (r) => (r.expired > 0 || r.orphanDirs > 0) && logger.info(r, 'spill retention sweep'),
        (err) => logger.warn({ err }, 'spill retention sweep failed'),
      ),
      sessions.sweepClosedSessions().then(
        (n) => n > 0 && logger.info({ removed: n }, 'session retention sweep'),
        (err) => logger.warn({ err }, 'session retention sweep failed'),
      ),
      ...(startup
        ? [
            sessions.sweepSandboxState().then(
              (n) => n > 0 && logger.info({ removed: n }, 'sandbox state of ended sessions removed'),
              (err) => logger.warn({ err }, 'sandbox state sweep failed'),
            ),
          ]
        : []),
    ]);
  const sweepTimer = setInterval(() => {
    void sweep(false);
    // A system file made unreadable since the last scan is masked from now on.
    sandboxHost.refresh().catch((err: Error) => logger.warn({ err }, 'rescanning the system directories for the sandbox failed'));
  }, Math.min(config.outputRetentionMs, config.sessionRetentionMs, 10 * 60_000));
  sweepTimer.unref();
  app.addHook('onReady', async () => {
    await sweep(true);
  });
  app.addHook('onClose', async () => clearInterval(sweepTimer));

  // Connections and how many responses each has in flight, so a shutdown can drop every
  // connection with nothing in flight — including one a client opened but has not used yet,
  // which Node's closeIdleConnections() leaves alone (it would hold close() until the client
  // gives up on it).
  const sockets = new Set<Socket>();
  const inFlight = new WeakMap<Socket, number>();
  app.server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  app.server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const socket = req.socket;
    inFlight.set(socket, (inFlight.get(socket) ?? 0) + 1);
    res.once('close', () => inFlight.set(socket, (inFlight.get(socket) ?? 1) - 1));
  });
  const dropUnused = () => {
    for (const socket of sockets) if (!inFlight.get(socket)) socket.destroy();
  };

  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= (async () => {
      // No new turns; running calls get the grace period; paused turns stay paused in a
      // durable store (a restart resumes them); SSE streams end with stream.end.
      await sessions.shutdown(config.shutdownGraceMs);
      shutdown.abort();
      // server.close() only drops connections idle at that instant; a keep-alive connection
      // whose response finishes a moment later would hold the process for the keep-alive
      // timeout. Keep dropping unused ones until the server has closed.
      dropUnused();
      const reaper = setInterval(dropUnused, 25);
      try {
        await app.close();
      } finally {
        clearInterval(reaper);
        if (!options.store) store.close();
        if (ownsSandbox) await sandboxHost.limits.close();
      }
    })();
    return closing;
  };
  return { app, ctx, close };
}

function describeValidation(v: { instancePath: string; message?: string; keyword: string; params: Record<string, unknown> }): string {
  switch (v.keyword) {
    case 'additionalProperties':
      return `unknown property "${String(v.params.additionalProperty)}" is not allowed`;
    case 'required':
      return `missing required property "${String(v.params.missingProperty)}"`;
    case 'enum':
      return `must be one of ${(v.params.allowedValues as unknown[]).map((x) => JSON.stringify(x)).join(', ')}`;
    default:
      return v.message ?? v.keyword;
  }
}
