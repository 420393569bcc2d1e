// The use cases that need a session's live runtime (its turn runner, shells, MCP servers, the
// calls waiting for an answer), by name. With one server they run where they are asked; with
// replicas (replicas.ts) a node that does not run the session asks the node that does, through the
// database, and answers with what that node answered.
import type { ClientToolResponse, PermissionResponse, QuestionResponse, SessionPatch, TurnCreate } from '../contract/schemas.js';
import { DomainError, type DomainErrorKind } from '../errors.js';
import type { Scope } from './scope.js';
import type { InteractionUseCases } from './interactions.js';
import type { RecoveryUseCases } from './recovery.js';
import type { SessionStateUseCases } from './session-state.js';
import type { SessionUseCases } from './sessions.js';
import type { TurnUseCases } from './turns.js';
import type { CheckpointUseCases } from './checkpoints.js';
import type { CompactionUseCases } from './compaction.js';
import type { McpClientRecord, McpClientUseCases } from './mcp-clients.js';
import type { CompactRequest, ForkRequest, RewindRequest } from '../contract/schemas.js';
import type { KeyScope } from '../contract/tenant.js';
import type { IdempotencyKeys, KeptWork } from '../store/idempotency.js';
import type { Store } from '../store/store.js';

/** The use cases the owner calls reach (the application's, without the rest of it). */
export interface Application {
  turns: TurnUseCases;
  sessions: SessionUseCases;
  state: SessionStateUseCases;
  interactions: InteractionUseCases;
  recovery: RecoveryUseCases;
  checkpoints: CheckpointUseCases;
  compaction: CompactionUseCases;
  mcpClients: McpClientUseCases;
}

export const OWNER_CALLS = {
  'turns.start': (app: Application, scope: Scope, sessionId: string, body: TurnCreate) => app.turns.start(scope, sessionId, body),
  'turns.cancel': (app: Application, scope: Scope, sessionId: string, turnId: string) => app.turns.cancel(scope, sessionId, turnId),
  'turns.wait': (app: Application, scope: Scope, sessionId: string, turnId: string, seconds: number) => app.turns.wait(scope, sessionId, turnId, seconds),
  'sessions.patch': (app: Application, scope: Scope, sessionId: string, body: SessionPatch) => app.sessions.patch(scope, sessionId, body),
  'sessions.close': (app: Application, scope: Scope, sessionId: string) => app.sessions.close(scope, sessionId),
  'sessions.tools': (app: Application, scope: Scope, sessionId: string, includeDeferred: boolean) => app.sessions.tools(scope, sessionId, includeDeferred),
  'state.todos': (app: Application, scope: Scope, sessionId: string) => app.state.todos(scope, sessionId),
  'state.mcp': (app: Application, scope: Scope, sessionId: string) => app.state.mcp(scope, sessionId),
  'state.skills': (app: Application, scope: Scope, sessionId: string) => app.state.skills(scope, sessionId),
  'checkpoints.list': (app: Application, scope: Scope, sessionId: string, q: { limit?: number; cursor?: string }) => app.checkpoints.list(scope, sessionId, q),
  'checkpoints.get': (app: Application, scope: Scope, sessionId: string, checkpointId: string) => app.checkpoints.get(scope, sessionId, checkpointId),
  'checkpoints.changes': (app: Application, scope: Scope, sessionId: string, q: { from?: string; to?: string; diff: boolean }) => app.checkpoints.changes(scope, sessionId, q),
  'checkpoints.turnChanges': (app: Application, scope: Scope, sessionId: string, turnId: string, diff: boolean) => app.checkpoints.turnChanges(scope, sessionId, turnId, diff),
  'checkpoints.rewind': (app: Application, scope: Scope, sessionId: string, body: RewindRequest) => app.checkpoints.rewind(scope, sessionId, body),
  'checkpoints.fork': (app: Application, scope: Scope, sessionId: string, body: ForkRequest) => app.checkpoints.fork(scope, sessionId, body),
  'sessions.compact': (app: Application, scope: Scope, sessionId: string, body: CompactRequest) => app.compaction.compact(scope, sessionId, body),
  'mcpClients.connected': (app: Application, scope: Scope, sessionId: string, record: McpClientRecord) => app.mcpClients.connected(scope, sessionId, record),
  'mcpClients.closed': (app: Application, scope: Scope, sessionId: string, mcpSession: string, sessionClosed: boolean) =>
    app.mcpClients.closed(scope, sessionId, mcpSession, sessionClosed),
  'interactions.answerPermission': (app: Application, scope: Scope, sessionId: string, permissionId: string, body: PermissionResponse) =>
    app.interactions.answerPermission(scope, sessionId, permissionId, body),
  'interactions.answerQuestion': (app: Application, scope: Scope, sessionId: string, questionId: string, body: QuestionResponse) =>
    app.interactions.answerQuestion(scope, sessionId, questionId, body),
  'interactions.answerClientTool': (app: Application, scope: Scope, sessionId: string, requestId: string, body: ClientToolResponse) =>
    app.interactions.answerClientTool(scope, sessionId, requestId, body),
} as const;

export type OwnerCalls = typeof OWNER_CALLS;
export type OwnerCallName = keyof OwnerCalls;
type Rest<F> = F extends (app: Application, scope: Scope, sessionId: string, ...rest: infer R) => unknown ? R : never;
export type OwnerCallArgs<N extends OwnerCallName> = Rest<OwnerCalls[N]>;
export type OwnerCallResult<N extends OwnerCallName> = Awaited<ReturnType<OwnerCalls[N]>>;

/**
 * Calls whose whole effect is one store transaction (no await inside): run for another node, their
 * work and their answer commit together, so a node that dies in between leaves neither.
 */
export const ATOMIC_CALLS: ReadonlySet<OwnerCallName> = new Set(['interactions.answerPermission', 'interactions.answerQuestion', 'interactions.answerClientTool', 'sessions.patch', 'mcpClients.connected', 'mcpClients.closed']);

/**
 * Calls whose work commits in one transaction that can carry more: the atomic ones, and starting
 * a turn (the turn, the session's pointer to it and turn.started; the runner starts after the
 * commit). What is recorded about the call — a command taken and answered, an Idempotency-Key's
 * value — goes in that transaction: it is true exactly when the work happened.
 */
export const COMMITTED_CALLS: ReadonlySet<OwnerCallName> = new Set([...ATOMIC_CALLS, 'turns.start']);

/** The calls a request with an Idempotency-Key makes (POSTs that create work): what they make is kept under the key. */
export type KeptCallName = 'turns.start' | 'interactions.answerPermission' | 'interactions.answerQuestion' | 'interactions.answerClientTool';

/**
 * Runs a call of COMMITTED_CALLS with `inCommit` called inside the transaction of its work, with
 * the value it answers; whatever `inCommit` throws rolls the work back.
 */
export function callInCommit(app: Application, store: Store, name: OwnerCallName, scope: Scope, sessionId: string, args: unknown[], inCommit: (value: unknown) => void): unknown {
  if (name === 'turns.start') return app.turns.start(scope, sessionId, args[0] as TurnCreate, inCommit);
  if (!ATOMIC_CALLS.has(name)) throw new Error(`${name} does not commit its work in one transaction`);
  const f = OWNER_CALLS[name] as (a: Application, s: Scope, id: string, ...rest: unknown[]) => unknown;
  return store.transaction(() => {
    const value = f(app, scope, sessionId, ...args);
    inCommit(value);
    return value;
  });
}

export interface OwnerRouter {
  call<N extends OwnerCallName>(scope: Scope, name: N, sessionId: string, ...args: OwnerCallArgs<N>): Promise<OwnerCallResult<N>>;
  /** The same, for a request with an Idempotency-Key: what the call makes is settled under `kept` in the transaction that makes it. */
  callKept<N extends KeptCallName>(kept: KeptWork, scope: Scope, name: N, sessionId: string, ...args: OwnerCallArgs<N>): Promise<OwnerCallResult<N>>;
}

/** One server: every session's runtime is here. */
export function localOwner(app: () => Application, stores: () => { store: Store; keys: IdempotencyKeys }): OwnerRouter {
  return {
    call: async (scope, name, sessionId, ...args) => {
      const f = OWNER_CALLS[name] as (app: Application, scope: Scope, sessionId: string, ...rest: unknown[]) => unknown;
      return f(app(), scope, sessionId, ...args) as never;
    },
    callKept: async (kept, scope, name, sessionId, ...args) => {
      const { store, keys } = stores();
      return callInCommit(app(), store, name, scope, sessionId, args, (value) => keys.settle(kept, value)) as never;
    },
  };
}

// ── what travels in a command ─────────────────────────────────────────────────────────────

export interface ScopeWire {
  principal: Scope['principal'];
  tenant: string | null;
  access: KeyScope[];
  key: string | null;
  /** Absent in commands of a node that did not send it yet. */
  keyId?: string | null;
}

export function scopeToWire(scope: Scope): ScopeWire {
  return { principal: scope.principal, tenant: scope.tenant, access: [...scope.access], key: scope.key, keyId: scope.keyId };
}

export function scopeFromWire(w: ScopeWire): Scope {
  return Object.freeze({ principal: w.principal, tenant: w.tenant, access: new Set(w.access), key: w.key, keyId: w.keyId ?? null });
}

/** What a command's owner answered: the call's value, or the DomainError it refused with. */
export type Outcome =
  | { ok: true; value: unknown }
  | { ok: false; error: { kind: DomainErrorKind; message: string; problems: string[]; location: DomainError['location']; conflicts?: DomainError['conflicts'] } };

export function outcomeOf(err: unknown): Outcome {
  if (err instanceof DomainError) {
    return { ok: false, error: { kind: err.kind, message: err.message, problems: err.problems, location: err.location, ...(err.conflicts ? { conflicts: err.conflicts } : {}) } };
  }
  // Anything else is the owner's own failure: the caller is told it failed there, not why.
  return { ok: false, error: { kind: 'unavailable', message: 'the node that runs this session failed to carry out the request; try again', problems: [], location: 'body' } };
}

export function valueOf(outcome: Outcome): unknown {
  if (outcome.ok) return outcome.value;
  const e = outcome.error;
  const err = new DomainError(e.kind, e.message, e.problems, e.location);
  if (e.conflicts) err.conflicts = e.conflicts;
  throw err;
}
