// The application: the use cases the HTTP edge calls, over one set of shared parts.
import { AuditUseCases } from './audit.js';
import { EvidenceUseCases } from './evidence.js';
import { ChainSigner } from '../events/chain-signer.js';
import { SigningKey } from '../evidence/signing.js';
import { InteractionUseCases } from './interactions.js';
import { InboxUseCases } from './inbox.js';
import { createParts, type AppDeps } from './parts.js';
import { RecoveryUseCases } from './recovery.js';
import { RetentionUseCases } from './retention.js';
import type { Scope } from './scope.js';
import { SessionStateUseCases } from './session-state.js';
import { SessionUseCases } from './sessions.js';
import { shutdownSessions } from './shutdown.js';
import { TurnUseCases } from './turns.js';
import { CheckpointUseCases } from './checkpoints.js';
import { CompactionUseCases } from './compaction.js';
import { McpClientUseCases } from './mcp-clients.js';
import { IdempotencyUseCases } from './idempotency.js';
import type { SearchStatus } from '../web/state.js';
import type { ClusterNode } from '../cluster/node.js';
import type { PostgresStore } from '../store/pg-store.js';
import { localOwner, type OwnerRouter } from './owner.js';
import { Replicas, type ReplicaOptions } from './replicas.js';

export type { AppDeps } from './parts.js';
export { INTERNAL, type Scope } from './scope.js';

export interface Application {
  sessions: SessionUseCases;
  /** A session's todo list, memory files and skills. */
  state: SessionStateUseCases;
  turns: TurnUseCases;
  interactions: InteractionUseCases;
  /** What waits for a person across a tenant's sessions. */
  inbox: InboxUseCases;
  audit: AuditUseCases;
  /** Signing keys, the check of a stored chain, the signed chain of an export, the master key's rotation. */
  evidence: EvidenceUseCases;
  retention: RetentionUseCases;
  recovery: RecoveryUseCases;
  /** A session's checkpoints, changes, rewind and fork. */
  checkpoints: CheckpointUseCases;
  /** Compaction of a session's conversation on demand. */
  compaction: CompactionUseCases;
  /** The record of MCP sessions opened on a session at /mcp. */
  mcpClients: McpClientUseCases;
  /** Idempotency-Key answers of the POSTs that create work. */
  idempotency: IdempotencyUseCases;
  /** The operator's search backend, as checked at start-up (readiness reports it). */
  webSearch: SearchStatus;
  shutdown(scope: Scope, graceMs: number): Promise<void>;
  /**
   * The keys file was reloaded and these tenants' policies changed: their live sessions' waiting
   * requests are evaluated again (a new deny rule of the policy decides them at once).
   */
  policiesChanged(scope: Scope, tenants: ReadonlySet<string>): void;
  /** Permission requests, questions and client-tool requests waiting for an answer now, every tenant's (metrics). */
  pendingInteractions(): { permission: number; question: number; client_tool: number };
  /** Where the use cases that need a session's runtime run: here (one server), or on its owner once `replicate` was called. */
  readonly owner: OwnerRouter;
  /** Makes this server one of several replicas on `store`'s PostgreSQL database (replicas.ts). */
  replicate(node: ClusterNode, store: PostgresStore, options?: ReplicaOptions): Replicas;
}

export function createApplication(deps: AppDeps): Application {
  const parts = createParts(deps);
  const sessions = new SessionUseCases(parts);
  let owner: OwnerRouter | undefined;
  const app: Application = {
    sessions,
    state: new SessionStateUseCases(parts),
    turns: new TurnUseCases(parts),
    interactions: new InteractionUseCases(parts),
    inbox: new InboxUseCases(parts),
    audit: new AuditUseCases(parts),
    evidence: new EvidenceUseCases(parts, deps.signer ?? new ChainSigner(SigningKey.ephemeral(), deps.store, deps.clock, deps.logger), deps.encryption),
    retention: new RetentionUseCases(parts),
    recovery: new RecoveryUseCases(parts),
    checkpoints: new CheckpointUseCases(parts, sessions),
    compaction: new CompactionUseCases(parts),
    mcpClients: new McpClientUseCases(parts),
    idempotency: new IdempotencyUseCases(parts),
    webSearch: parts.webSearch,
    shutdown: (scope, graceMs) => shutdownSessions(parts, sessions, scope, graceMs),
    pendingInteractions: () => parts.broker.pendingCounts(),
    policiesChanged: (_scope, tenants) => {
      for (const rt of parts.runtimes.all()) {
        if (!tenants.has(rt.settings.session.tenant)) continue;
        const problems = rt.refreshTenantHooks();
        if (problems.length > 0) deps.logger.error({ session_id: rt.id, problems }, 'the tenant\'s new hooks cannot be installed in this session; its hooks stay as they were');
        void parts.broker.reevaluatePending(rt.id);
      }
    },
    get owner() {
      return (owner ??= localOwner(
        () => app,
        () => ({ store: deps.store, keys: parts.keys }),
      ));
    },
    replicate: (node, store, options) => {
      const replicas = new Replicas(node, app, parts, store, deps.events, options);
      owner = replicas;
      return replicas;
    },
  };
  return app;
}
