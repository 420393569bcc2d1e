// buildServer(config): the composition root, the only place that wires parts together.
import path from 'node:path';
import type { IncomingMessage, ServerResponse } from 'node:http';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type RawServerDefault } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import pino, { type Logger } from 'pino';
import type { AppContext } from './app-context.js';
import { ConfigError, type Config } from './config.js';
import type { ProviderOptions } from './model/index.js';
import cors from '@fastify/cors';
import rateLimit from '@fastify/rate-limit';
import { installAuth } from './http/auth.js';
import { compileSessionHooks } from './hooks/config.js';
import { KeyRing } from './tenants/key-ring.js';
import { KeysFileError, loadKeysFile, type HookCheck, type LoadedKeys } from './tenants/keys-file.js';
import { TicketBook } from './tenants/tickets.js';
import { ConsoleLogins } from './tenants/console-logins.js';
import { isLoopbackHost } from './config.js';
import { logRequest } from './http/log.js';
import { registerOpenApi, SHARED_SCHEMAS } from './http/docs.js';
import { RequestValidators, ValidationExplainer } from './http/validation.js';
import { requestGate } from './http/host-check.js';
import { useDepthCheckedJson } from './http/json-body.js';
import { installProblemHandling, sendProblem } from './http/problem.js';
import { edgeFastifyOptions, guardRequests, type EdgeOptions } from './http/edge-problems.js';
import { readinessCheck } from './http/readiness.js';
import { sharedRateStore } from './http/rate-store.js';
import { httpShutdown } from './http/shutdown.js';
import { EventLog } from './events/log.js';
import { loadHooksFile } from './hooks/file.js';
import { loadMcpFile } from './mcp/file.js';
import { McpSchemas } from './mcp/schema-check.js';
import { closeUntrustedRegex } from './bounded/regex.js';
import type { McpServers } from './contract/mcp.js';
import { loadOperatorNetwork, type OperatorNetwork } from './sandbox/net/secrets-file.js';
import { loadPriceFile, priceTable, type PriceTable } from './model/prices.js';
import { spendOf } from './store/spend.js';
import { HookRegistry, type HookRegistration, type SessionHooks } from './hooks/registry.js';
import { newId as defaultNewId, systemClock, type Clock, type IdFactory } from './ids.js';
import { InputValidator } from './pipeline/validate.js';
import type { SandboxHost, SandboxStatus } from './sandbox/process.js';
import { createSandboxHost } from './sandbox/host.js';
import { createApplication, INTERNAL } from './app/index.js';
import { retentionSweeps } from './app/sweeps.js';
import { openEvidence } from './app/evidence-setup.js';
import { findRipgrep } from './capabilities/files/grep.js';
import { CATALOG, ToolCatalog } from './tools/catalog.js';
import { HtmlConverter } from './web/html-convert.js';
import { MemoryStore } from './store/memory.js';
import { idempotencyOf } from './store/idempotency.js';
import { SqliteStore } from './store/sqlite.js';
import { PostgresStore } from './store/pg-store.js';
import { StoreOpenError } from './store/sqlite.js';
import type { ClusterNode } from './cluster/node.js';
import { joinAsReplica } from './app/replica-join.js';
import type { Replicas, ReplicaOptions } from './app/replicas.js';
import type { Resolver } from './sandbox/egress.js';
import { OutputFiles } from './store/outputs.js';
import type { Store } from './store/store.js';
import { TenantStreams } from './events/tenant-stream.js';
import { allRoutes } from '../routes/index.js';
import { ServerMetrics } from './telemetry/metrics.js';
import { TimedStore } from './telemetry/timed-store.js';
import { Admission } from './app/admission.js';
import { domainLog } from './telemetry/domain-log.js';
import { AccessLog } from './http/access-log.js';
import { installRequestContext, requestIdOf, tracedChildLogger } from './http/request-context.js';

export interface ServerOptions {
  store?: Store;
  /** Replicas on PostgreSQL: how often dead nodes are looked for, how long a command may take (tests shorten them). */
  replicaOptions?: ReplicaOptions;
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
  /** Pauses before an exited MCP server is started again (default: RESTART_DELAYS_MS). */
  mcpRestartDelaysMs?: readonly number[];
  /** Where the server's log lines go when no `logger` is given (default: stdout). */
  logDestination?: pino.DestinationStream;
}

/** The longest path parameter the router takes: far longer than any id (64), short enough that no path is echoed long. */
const MAX_PARAM_LENGTH = 100;

/** How long after listening the remaining validators are compiled (in the background). */
const WARM_AFTER_LISTEN_MS = 1000;

export type NormaApp = FastifyInstance<RawServerDefault, IncomingMessage, ServerResponse, FastifyBaseLogger, TypeBoxTypeProvider>;

export interface NormaServer {
  app: NormaApp;
  ctx: AppContext;
  /** This server's metrics (its own registry: never prom-client's global one). */
  metrics: ServerMetrics;
  /** Graceful stop: closes sessions (SessionEnd fires), then the HTTP server. */
  close(): Promise<void>;
  /**
   * Reads NORMA_API_KEYS_FILE again (SIGHUP): a good file replaces the keys and policies in
   * force; a bad one changes nothing and is reported (the old keys stay).
   */
  reloadKeys(): Promise<{ ok: true; keys: number; tenants: number; changedPolicies: string[] } | { ok: false; problems: string[] }>;
  /** Compiles every request validator not compiled yet, now (they are otherwise compiled on first use or just after listening); returns how many routes' validators exist. */
  compileValidators(): number;
}

function openStore(config: Config): Store {
  if (config.store === 'memory') return new MemoryStore();
  if (config.store === 'postgres') return new PostgresStore({ url: config.databaseUrl!, nodeId: config.nodeId });
  return new SqliteStore(config.databaseFile);
}

export async function buildServer(config: Config, options: ServerOptions = {}): Promise<NormaServer> {
  const logOptions = { level: config.logLevel, redact: ['req.headers.authorization', '*.api_key', '*.secret'] };
  const logger = options.logger ?? (options.logDestination ? pino(logOptions, options.logDestination) : pino(logOptions));
  const clock = options.clock ?? systemClock;
  const newId = options.newId ?? defaultNewId;
  const metrics = new ServerMetrics(new Set(CATALOG.map((e) => e.name)));
  // The database is opened first: an unusable one stops start-up (StoreOpenError names it).
  const rawStore = options.store ?? openStore(config);
  const store = new TimedStore(rawStore, metrics.storeDuration);
  // Start-up stops on a bad key: the database is released.
  const evidence = openEvidence(config, rawStore, clock, logger, () => !options.store && store.close());
  const events = new EventLog(store, clock);
  // Chains that moved here are signed again within an interval (chain-signer.ts).
  events.observe((e) => evidence.signer.observe(e));
  // Counts and log lines of domain events come from the one point every event passes.
  events.observe(metrics.observeEvent);
  events.observe(domainLog(logger, store));
  const tenantStreams = new TenantStreams(store);
  events.onCommit(() => tenantStreams.wake());
  const hooks = new HookRegistry();
  for (const h of options.hooks ?? []) hooks.register(h);
  const validator = new InputValidator();
  // Binaries are found once, here: Grep's ripgrep (its absence is a readiness note, not a failure).
  const html = new HtmlConverter();
  // MCP servers' input schemas are compiled and enforced in a worker thread with a deadline.
  const mcpSchemas = new McpSchemas();
  const catalog = new ToolCatalog({ rgPath: findRipgrep(), html });
  const outputLimits = { maxAgeMs: config.outputRetentionMs, maxBytesPerSession: config.outputMaxBytesPerSession };
  const outputs = new OutputFiles(path.join(config.dataDir, 'outputs'), store, clock, newId, outputLimits, logger, evidence.encryption?.sealer);
  let sandboxHost: SandboxHost;
  try {
    sandboxHost = options.processSandbox ?? (await createSandboxHost(config.sandbox, config.cgroup, config.sandboxUser));
  } catch (err) {
    if (!options.store) store.close(); // start-up stops: release the database
    throw new ConfigError([(err as Error).message]);
  }
  const ownsSandbox = options.processSandbox === undefined;
  const sandboxStatus = (): Promise<SandboxStatus> => sandboxHost.selfTest(path.join(config.dataDir, 'sandbox', 'selftest'), config.dataDir);
  let operatorHooks: SessionHooks | undefined;
  let operatorMcp: McpServers | undefined;
  let operatorNetwork: OperatorNetwork;
  let prices: PriceTable;
  // A tenant policy's hooks are checked where they would run, like the operator's.
  const checkTenantHooks: HookCheck = async (hooks, where) => {
    const status = await sandboxStatus();
    const egress = { allow: config.egressAllow, ...(options.resolve ? { resolve: options.resolve } : {}) };
    return compileSessionHooks(hooks, { mode: sandboxHost.mode, usable: status.usable, detail: status.detail }, egress, where).problems;
  };
  const readKeys = async (): Promise<LoadedKeys | undefined> => {
    if (!config.apiKeysFile) return undefined;
    const loaded = await loadKeysFile(config.apiKeysFile, checkTenantHooks);
    const problems: string[] = [];
    const probe = new KeyRing(config.token);
    const clash = probe.tokenAmong(loaded);
    if (clash) problems.push(`entry ${clash.name} is NORMA_TOKEN's key (NORMA_TOKEN is the default tenant's admin key; give the file another key)`);
    if (!isLoopbackHost(config.host) && config.token === undefined && loaded.keys.length === 0) {
      problems.push(`lists no key, and HOST=${config.host} is not a loopback address: the server would accept no request`);
    }
    if (problems.length > 0) throw new KeysFileError(config.apiKeysFile, problems);
    return loaded;
  };
  let keys: KeyRing;
  try {
    keys = new KeyRing(config.token, await readKeys());
    operatorHooks = config.hooksFile ? await loadHooksFile(config, sandboxHost, sandboxStatus, options.resolve) : undefined;
    operatorMcp = config.mcpFile ? await loadMcpFile(config, await sandboxStatus()) : undefined;
    operatorNetwork = await loadOperatorNetwork(config);
    prices = priceTable(config.model.pricesFile ? await loadPriceFile(config.model.pricesFile) : undefined);
  } catch (err) {
    if (err instanceof KeysFileError) err = new ConfigError([err.message]);
    if (!options.store) store.close(); // start-up stops: release the database
    if (ownsSandbox) await sandboxHost.limits.close();
    throw err;
  }
  // With replicas on PostgreSQL, tickets and console logins are kept in the database: any replica
  // takes one another made.
  const shared = rawStore instanceof PostgresStore ? rawStore : undefined;
  const tickets = new TicketBook(() => clock().getTime(), shared?.tokens);
  const logins = new ConsoleLogins(() => clock().getTime(), shared?.tokens);
  // The sockets the server listens on: a sandbox's network never reaches them.
  let listening: () => { address: string; port: number }[] = () => [];
  const application = createApplication({
    signer: evidence.signer,
    ...(evidence.encryption ? { encryption: evidence.encryption } : {}),
    ...(options.resolve ? { resolve: options.resolve } : {}),
    modelOptions: {
      ...(options.modelOptions ?? {}),
      onEgress: (outcome, detail) => {
        metrics.modelEgress(outcome);
        options.modelOptions?.onEgress?.(outcome, detail);
      },
    },
    ...(operatorHooks ? { operatorHooks } : {}),
    ...(operatorMcp ? { operatorMcp } : {}),
    ...operatorNetwork,
    ...(options.mcpRestartDelaysMs ? { mcpRestartDelaysMs: options.mcpRestartDelaysMs } : {}),
    mcpSchemas,
    tenants: keys,
    tickets,
    // Idempotency-Key answers and tenants' spending live in the store itself: kept in the transactions that do the work.
    idempotency: idempotencyOf(rawStore),
    spend: spendOf(rawStore),
    prices,
    onModelCall: metrics.modelCall,
    sandbox: sandboxHost,
    sandboxStatus,
    ownAddresses: () => listening(),
    outputs,
    catalog,
    config,
    store,
    events,
    clock,
    newId,
    logger,
    validator,
    hooks,
  });

  metrics.track({ openStreams: () => events.openStreams, pending: () => application.pendingInteractions() });
  // Replicas on PostgreSQL: this node joins (its liveness lock, its notifications), takes its own
  // sessions and those of dead nodes, and asks the owners of the others.
  let replicas: Replicas | undefined;
  let node: ClusterNode | undefined;
  if (rawStore instanceof PostgresStore && config.databaseUrl !== undefined) {
    try {
      ({ node, replicas } = await joinAsReplica({ app: application, store: rawStore, url: config.databaseUrl, logger, options: options.replicaOptions, stop: () => close() }));
    } catch (err) {
      // Start-up stops: what was made so far is let go.
      if (!options.store) rawStore.close();
      if (ownsSandbox) await sandboxHost.limits.close();
      await html.close();
      await mcpSchemas.close();
      throw new StoreOpenError(rawStore.where, (err as Error).message);
    }
  }
  // What a previous process left: paused turns wait again, interrupted ones are answered.
  const recovered = replicas ? await replicas.start() : await application.recovery.recover(INTERNAL);
  if (recovered.sessions > 0) logger.info(recovered, 'recovered sessions from the store');

  const readiness = readinessCheck({ config, store: rawStore, evidence: () => evidence.describe(), sandboxHost, sandboxStatus, webSearch: () => application.webSearch, rgPath: catalog.options.rgPath });

  const shutdown = httpShutdown();
  const ctx: AppContext = {
    config,
    app: application,
    owner: application.owner,
    events,
    tenantStreams,
    admission: new Admission(config.admission),
    readiness,
    sweepOutputs: () => outputs.sweep(),
    sweepSessions: () => application.retention.sweepClosedSessions(INTERNAL),
    shutdown: shutdown.signal,
    keyInForce: (keyId, tenant, access) => keys.stillGrants(keyId, tenant, access, clock().getTime()),
    onKeysReloaded: (listener) => keys.onChange(() => listener()),
  };

  // What goes wrong before a route runs is answered as a problem too (src/http/edge-problems.ts).
  const edge: EdgeOptions = {
    maxParamLength: MAX_PARAM_LENGTH,
    newRequestId: () => newId('req'),
    log: (code, status) => logger.debug({ code, status }, 'request refused before routing'),
  };
  const app: NormaApp = Fastify({
    ...edgeFastifyOptions(edge),
    loggerInstance: logger.child({}, { serializers: { req: logRequest } }) as FastifyBaseLogger,
    // Health checks' access lines at debug (their routes say `accessLog: 'debug'`).
    logController: new AccessLog(),
    childLoggerFactory: tracedChildLogger,
    bodyLimit: config.bodyLimitBytes,
    // Behind the proxies named in NORMA_TRUST_PROXY: the client's address and protocol from their
    // X-Forwarded-For and X-Forwarded-Proto (the login limit per address, a Secure cookie over TLS).
    ...(config.trustProxy.length > 0 ? { trustProxy: config.trustProxy } : {}),
    // A client's X-Request-Id is kept when it is a plain token (≤ 64 of [A-Za-z0-9._:-]); else req_….
    genReqId: (raw) => requestIdOf(raw.headers['x-request-id']) ?? newId('req'),
  }).withTypeProvider<TypeBoxTypeProvider>();
  guardRequests(app.server, { ...edge, closing: () => shutdown.signal.aborted });
  // Requests are validated by src/http/validation.ts (bodies as sent, query strings converted,
  // each validator compiled on first use or right after listening).
  const validators = new RequestValidators(SHARED_SCHEMAS);
  app.setValidatorCompiler(validators.compiler);
  // A second after listening (the first requests are not held up by it), the request validators
  // and the tools' input schemas not compiled yet are compiled, one per turn of the event loop; a
  // request or a call that comes sooner compiles its own. Tests compile every one of them.
  app.addHook('onListen', async () => {
    const specs = catalog.specs();
    const next = () => {
      const spec = specs.shift();
      if (!spec) return validators.warm();
      validator.prepare(spec);
      setImmediate(next).unref();
    };
    setTimeout(next, WARM_AFTER_LISTEN_MS).unref();
  });
  // Asked on every request (the Host check): read from the socket once it is listening, not per request.
  let bound: { address: string; port: number }[] | undefined;
  listening = () => {
    if (bound) return bound;
    const a = app.server.address();
    const now = a !== null && typeof a === 'object' ? [{ address: a.address, port: a.port }] : [];
    if (now.length > 0) bound = now;
    return now;
  };
  app.addHook('onClose', async () => {
    bound = undefined;
  });

  // JSON only: anything else is a clear 415, not a confusing schema error.
  app.removeContentTypeParser('text/plain');
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));
  await registerOpenApi(app);
  // First of all hooks: the request's trace (W3C traceparent) around everything it runs, and
  // its latency once answered.
  installRequestContext(app, metrics);

  const gate = requestGate(config.allowedHosts, config.host, config.corsOrigins);
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
    // With CORS on, OPTIONS is a preflight: one that is not well formed gets a problem, not the
    // CORS plugin's plain-text answer.
    if (req.method === 'OPTIONS' && config.corsOrigins.length > 0 && (req.headers.origin === undefined || req.headers['access-control-request-method'] === undefined)) {
      return sendProblem(reply, req, 400, 'a preflight request (OPTIONS) needs the Origin and Access-Control-Request-Method headers');
    }
  });
  // CORS after the Host/Origin gate (only the server's own and the listed origins get here) and
  // before the key check (a preflight carries no key; it is answered here).
  if (config.corsOrigins.length > 0) {
    await app.register(cors, {
      origin: config.corsOrigins,
      methods: ['GET', 'HEAD', 'POST', 'PATCH', 'DELETE'],
      // traceparent/tracestate: a page's own traces are continued like any client's.
      allowedHeaders: ['Authorization', 'Content-Type', 'Last-Event-ID', 'Range', 'If-None-Match', 'If-Range', 'X-Request-Id', 'traceparent', 'tracestate'],
      exposedHeaders: ['ETag', 'Repr-Digest', 'Content-Range', 'Accept-Ranges', 'Content-Disposition', 'Location', 'X-Request-Id', 'Retry-After', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'],
      credentials: false,
      maxAge: 600,
      strictPreflight: true,
    });
  }
  installAuth(app, { keys, tickets, logins, now: () => clock().getTime() });
  // Per tenant, after the key check (route hooks run after the app's): requests_per_minute.
  await app.register(rateLimit, {
    global: true,
    timeWindow: 60_000,
    // One counter per tenant: room for as many tenants as a keys file can name.
    cache: 10_000,
    keyGenerator: (req) => `tenant:${req.scope?.tenant ?? ''}`,
    // Replicas count in the database: a tenant's limit is one limit, whichever replica it calls.
    ...(shared ? { store: sharedRateStore((key, now, windowMs) => shared.countRequest(key, now, windowMs), () => clock().getTime()), skipOnError: false } : {}),
    allowList: (req) => req.scope?.tenant == null || keys.policyOf(req.scope.tenant)?.source.requests_per_minute === undefined,
    max: (req) => keys.policyOf(req.scope!.tenant!)?.source.requests_per_minute ?? Number.MAX_SAFE_INTEGER,
    addHeadersOnExceeding: { 'x-ratelimit-limit': true, 'x-ratelimit-remaining': true, 'x-ratelimit-reset': true },
    errorResponseBuilder: (req, ctx) =>
      Object.assign(new Error(`tenant ${req.scope?.tenant} made more than ${ctx.max} requests in a minute (its policy's requests_per_minute); retry after ${ctx.after}`), {
        statusCode: 429,
      }),
  });

  useDepthCheckedJson(app);
  installProblemHandling(app, { bodyLimitBytes: config.bodyLimitBytes, explainer: new ValidationExplainer(SHARED_SCHEMAS) });

  // Registered as they are, not encapsulated: hooks and schemas added above apply to every route.
  await allRoutes(app, { ctx, metrics, console: config.console.enabled ? { keys, logins, now: () => clock().getTime(), dir: config.console.dir } : null });

  // Retention: one sweep at start (orphans of a previous process), then periodically.
  const sweep = retentionSweeps(application, outputs, logger);
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
  const signTimer = setInterval(() => evidence.signer.sweep(), config.evidence.signIntervalMs).unref();
  app.addHook('onClose', async () => clearInterval(signTimer));

  shutdown.track(app.server);

  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= (async () => {
      // No new turns; running calls get the grace period; paused turns stay paused in a
      // durable store (a restart resumes them); SSE streams end with stream.end.
      replicas?.stop();
      await application.shutdown(INTERNAL, config.shutdownGraceMs);
      try {
        await shutdown.drain(() => app.close());
      } finally {
        // The node's lock goes last: its sessions are taken over once what it had to write is stored.
        // What moved since the last signing is signed before the database is let go.
        evidence.signer.sweep();
        await node?.close();
        if (!options.store) rawStore.close();
        if (ownsSandbox) await sandboxHost.limits.close();
        await html.close();
        await mcpSchemas.close();
        await closeUntrustedRegex();
      }
    })();
    return closing;
  };
  keys.onChange((changed) => application.policiesChanged(INTERNAL, changed));
  const reloadKeys: NormaServer['reloadKeys'] = async () => {
    try {
      const loaded = await readKeys();
      if (!loaded) return { ok: false, problems: ['NORMA_API_KEYS_FILE is not set: there is nothing to reload'] };
      return { ok: true, ...keys.replace(loaded) };
    } catch (err) {
      return { ok: false, problems: err instanceof KeysFileError ? [err.message] : [(err as Error).message] };
    }
  };
  return { app, ctx, metrics, close, reloadKeys, compileValidators: () => validators.compileAll() };
}
