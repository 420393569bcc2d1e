// The parts the use cases share: the stored records, the live runtimes, the broker, the hook
// audit, and how runtimes and turn runners are built. Made once by the composition root.
import fs from 'node:fs/promises';
import type { McpServers } from '../contract/mcp.js';
import type { McpSchemas } from '../mcp/schema-check.js';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { Session } from '../contract/schemas.js';
import type { EventLog } from '../events/log.js';
import type { HookRegistry, SessionHooks } from '../hooks/registry.js';
import type { Clock, IdFactory } from '../ids.js';
import { InteractionBroker } from '../interaction/broker.js';
import type { ProviderOptions } from '../model/index.js';
import type { InputValidator } from '../pipeline/validate.js';
import type { EgressPolicy, Resolver } from '../sandbox/egress.js';
import type { SandboxHost, SandboxStatus } from '../sandbox/process.js';
import type { BuildDeps } from '../session/build.js';
import { TenantCheckpointBudgets } from '../session/checkpoint-budget.js';
import { HookAudit } from '../session/lifecycle.js';
import { SessionRecords } from '../session/records.js';
import type { ChainSigner } from '../events/chain-signer.js';
import type { Sealer } from '../evidence/encryption.js';
import { makeTenantWorkspaceRoot } from '../session/data-dirs.js';
import type { ModelCallObserver, RunnerDeps } from '../session/runner.js';
import { priceTable, type PriceTable } from '../model/prices.js';
import { spendOf, type SpendLedger } from '../store/spend.js';
import { RuntimeTable } from '../session/runtime.js';
import type { OutputFiles } from '../store/outputs.js';
import type { Store } from '../store/store.js';
import { idempotencyOf, type IdempotencyKeys } from '../store/idempotency.js';
import type { ToolCatalog } from '../tools/catalog.js';
import { searchStatus, type SearchStatus } from '../web/state.js';
import type { TenantPolicies } from '../tenants/policy.js';
import type { TicketBook } from '../tenants/tickets.js';
import type { Secrets } from '../contract/secrets.js';

export interface AppDeps {
  config: Config;
  /** Signs the sessions' chain heads (default: a key of this process's own, published nowhere else). */
  signer?: ChainSigner;
  /** Encryption at rest, when on: the tenants' data keys, and where the master key is read from. */
  encryption?: { sealer: Sealer; keyFile: string };
  store: Store;
  events: EventLog;
  clock: Clock;
  newId: IdFactory;
  logger: Logger;
  validator: InputValidator;
  /** Operator-configured (trusted) in-process hooks; they run for every session. */
  hooks: HookRegistry;
  outputs: OutputFiles;
  /** The tools this server has (made once by the composition root). */
  catalog: ToolCatalog;
  sandbox: SandboxHost;
  /** The sandbox's self-test, run once on first need. */
  sandboxStatus: () => Promise<SandboxStatus>;
  /** DNS resolution for egress checks (tests inject one); default: the system resolver. */
  resolve?: Resolver;
  /** Operator hooks from NORMA_HOOKS_FILE (checked at start-up), run for every session before its own. */
  operatorHooks?: SessionHooks;
  /** Retry and timeout settings for model providers (tests shorten them). */
  modelOptions?: Omit<ProviderOptions, 'egress'>;
  /** The server's own listening sockets (a sandbox's network never reaches them). */
  ownAddresses?: () => { address: string; port: number }[];
  /** The operator's MCP servers from NORMA_MCP_FILE (checked at start-up), which every session gets. */
  operatorMcp?: McpServers;
  /** The operator's secrets from NORMA_SECRETS_FILE (checked at start-up), which every session's processes may use. */
  operatorSecrets?: Secrets;
  /** The certificates real servers are verified against when a session's proxy terminates TLS. */
  upstreamCa?: string[];
  /** MCP tools' input schemas, compiled once per distinct schema. */
  mcpSchemas: McpSchemas;
  /** Pauses before an exited MCP server is started again (tests shorten them). */
  mcpRestartDelaysMs?: readonly number[];
  /** The tenants' policies as in force (the key ring, reloaded on SIGHUP). */
  tenants: TenantPolicies;
  /** Event tickets taken and not yet used. */
  tickets: TicketBook;
  /** Idempotency-Key answers, kept by the store (in its transactions); default: the store's own, if it keeps them. */
  idempotency?: IdempotencyKeys;
  /** Model prices (NORMA_MODEL_PRICES over the built-in table); default: the built-in table. */
  prices?: PriceTable;
  /** What tenants spend per day, kept by the store; default: the store's own, if it keeps one. */
  spend?: SpendLedger;
  /** Told of every model call's usage and cost (metrics). */
  onModelCall?: ModelCallObserver;
}

export interface Parts {
  deps: AppDeps;
  records: SessionRecords;
  runtimes: RuntimeTable;
  broker: InteractionBroker;
  audit: HookAudit;
  egress: EgressPolicy;
  /** The operator's search backend, checked once. */
  webSearch: SearchStatus;
  build: BuildDeps;
  runner: RunnerDeps;
  /** Set by shutdown: no new turn starts. */
  stopping: boolean;
  /** Closes in progress, by session: concurrent closes share one. */
  closing: Map<string, Promise<void>>;
  /** Session creations under way, by tenant (counted against max_sessions). */
  creating: Map<string, number>;
  /**
   * What a tenant's policy limits count: its active sessions, and (`held`) its active sessions or
   * its unfinished turns inside the transaction that adds one, with every other process's such
   * transaction for the tenant held back until it ends (limits.ts). This process's runtimes alone;
   * every replica's when replicas share a database (replicas.ts).
   */
  tenantCounts: {
    activeSessions(tenant: string): number;
    held(tenant: string, what: 'sessions' | 'turns'): number;
  };
  /** Idempotency-Key answers (src/store/idempotency.ts). */
  keys: IdempotencyKeys;
  /** Model prices in force. */
  prices: PriceTable;
  /** NORMA_WORKSPACE_ROOT, made if missing, as a real path. */
  workspaceRoot(): Promise<string>;
  /** Where the tenant's workspaces lie (made if missing), as a real path. */
  tenantWorkspaceRoot(tenant: string): Promise<string>;
  /** The limits a session runs under when it stored none (sessions of an earlier version). */
  defaultLimits(): Session['limits'];
}

export function createParts(deps: AppDeps): Parts {
  const { config, store, events, clock, newId, logger } = deps;
  const defaultLimits = (): Session['limits'] => ({
    enforcement: deps.sandbox.mode === 'off' ? 'none' : deps.sandbox.limits.enforcement,
    ...config.sandboxLimits,
  });
  const broker = new InteractionBroker({ store, events, clock, newId });
  const audit = new HookAudit(events, logger, config.lifecycleTimeoutMs);
  const egress: EgressPolicy = { allow: config.egressAllow, ...(deps.resolve ? { resolve: deps.resolve } : {}) };
  const webSearch = searchStatus(config.web.search);
  let root: string | undefined;
  const runtimes = new RuntimeTable();
  const prices = deps.prices ?? priceTable();
  return {
    deps,
    records: new SessionRecords(store, defaultLimits, deps.tenants),
    runtimes,
    broker,
    audit,
    egress,
    webSearch,
    build: {
      config,
      store,
      events,
      clock,
      newId,
      sandbox: deps.sandbox,
      hooks: deps.hooks,
      ...(deps.operatorHooks ? { operatorHooks: deps.operatorHooks } : {}),
      ...(deps.operatorMcp ? { operatorMcp: deps.operatorMcp } : {}),
      ...(deps.operatorSecrets ? { operatorSecrets: deps.operatorSecrets } : {}),
      ...(deps.upstreamCa ? { upstreamCa: deps.upstreamCa } : {}),
      broker,
      ...(deps.mcpRestartDelaysMs ? { mcpRestartDelaysMs: deps.mcpRestartDelaysMs } : {}),
      mcpSchemas: deps.mcpSchemas,
      egress,
      audit,
      webSearch,
      catalog: deps.catalog,
      ownAddresses: deps.ownAddresses ?? (() => []),
      // A new rule or mode may decide requests that wait for a person.
      onPermissionChange: (sessionId) => void broker.reevaluatePending(sessionId),
      tenants: deps.tenants,
      checkpointBudgets: new TenantCheckpointBudgets({ dataDir: config.dataDir, store, tenants: deps.tenants, now: () => clock().getTime() }),
      logger,
    },
    runner: {
      config,
      store,
      events,
      clock,
      logger,
      validator: deps.validator,
      outputs: deps.outputs,
      broker,
      audit,
      egress,
      ...(deps.modelOptions ? { modelOptions: deps.modelOptions } : {}),
      newId,
      prices,
      spend: deps.spend ?? spendOf(store),
      ...(deps.onModelCall ? { onModelCall: deps.onModelCall } : {}),
    },
    stopping: false,
    closing: new Map(),
    creating: new Map(),
    // One process: the runtimes are the count, and a check and the commit after it run without
    // anything else in between (the store is synchronous), so nothing needs holding back.
    tenantCounts: {
      activeSessions: (tenant) => runtimes.countOf(tenant),
      held: (tenant, what) => (what === 'sessions' ? runtimes.countOf(tenant) : runtimes.turnsOf(tenant)),
    },
    keys: deps.idempotency ?? idempotencyOf(store),
    prices,
    workspaceRoot: async () => {
      if (root === undefined) {
        await fs.mkdir(config.workspaceRoot, { recursive: true, mode: 0o700 });
        const real = await fs.realpath(config.workspaceRoot);
        // The sandbox user (a root server's) passes through to the workspaces: from the data
        // directory when the root lies in it, as it does by default.
        const data = await fs.realpath(config.dataDir).catch(() => config.dataDir);
        await deps.sandbox.openWay(real, real === data || real.startsWith(`${data}/`) ? data : real);
        root = real;
      }
      return root;
    },
    defaultLimits,
    async tenantWorkspaceRoot(tenant) {
      const base = await this.workspaceRoot();
      const dir = await makeTenantWorkspaceRoot(base, tenant);
      await deps.sandbox.openWay(dir, base);
      return dir;
    },
  };
}
