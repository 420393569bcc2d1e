// Session use cases: create (plan, make, build, store, SessionStart), read, list, change
// rules and mode, list tools, close.
import { DEFAULT_COMPACTION_THRESHOLD } from '../contract/compaction.js';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { PermissionMode, Session, SessionCreate, SessionPatch } from '../contract/schemas.js';
import { DomainError } from '../errors.js';
import { LABEL_KEY_PATTERN } from '../contract/session.js';
import { parseRules } from '../permission/rules.js';
import { buildRuntime } from '../session/build.js';
import { stopRuntimeParts, type SessionRuntime } from '../session/runtime.js';
import { TurnStop } from '../session/turn.js';
import type { ExposedTool } from '../tools/registry.js';
import { matchesAny } from '../tools/name-pattern.js';
import type { Parts } from './parts.js';
import { tenantOf, type Scope } from './scope.js';
import { modeWithin, type EventTicket } from '../contract/tenant.js';
import { budgetProblems, planSession } from './session-create.js';
import { checkSessionLimit } from './limits.js';
import { CommitWatch, runInCommitWatch } from '../store/commit-watch.js';
import type { KeptWork } from '../store/idempotency.js';
import type { SessionRecord } from '../store/store.js';
import { loadInstructions } from '../session/instructions.js';

const MAX_LIST_LIMIT = 200;

/** What makes a new session a fork (checkpoints.ts): its files, its settings beyond the body, its transcript. */
export interface ForkPlan {
  /** Fills the fresh workspace. */
  fill(workspace: string): Promise<void>;
  /** Sets what the create body does not carry (forked_from, the parent's session rules). */
  adjust(record: SessionRecord): void;
  /** Writes, in the transaction that stores the session, what comes with it (the transcript's turns). */
  inCommit(record: SessionRecord): void;
}

export class SessionUseCases {
  constructor(private readonly parts: Parts) {}

  /** Creates a session; with `kept`, the session is settled under that Idempotency-Key in the transaction that stores it. */
  async create(scope: Scope, body: SessionCreate, kept?: KeptWork, fork?: ForkPlan): Promise<Session> {
    const tenant = tenantOf(scope);
    requireModeWithin(this.parts, tenant, body.permission_mode, 'permission_mode');
    // Counted early with this process's creations under way (a refused one does no work), and
    // exactly in the transaction that stores the session (limits.ts).
    const release = this.reserveSession(tenant);
    try {
      return await this.createNow(tenant, body, kept, fork);
    } finally {
      release();
    }
  }

  private reserveSession(tenant: string): () => void {
    const { parts } = this;
    const creating = parts.creating.get(tenant) ?? 0;
    checkSessionLimit(parts, tenant, { held: false, creating });
    parts.creating.set(tenant, creating + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const n = (parts.creating.get(tenant) ?? 1) - 1;
      if (n <= 0) parts.creating.delete(tenant);
      else parts.creating.set(tenant, n);
    };
  }

  private async createNow(tenant: string, body: SessionCreate, kept: KeptWork | undefined, fork: ForkPlan | undefined): Promise<Session> {
    const { parts } = this;
    const { store, events } = parts.deps;
    const id = parts.deps.newId('ses');
    const plan = await planSession(parts, id, body, tenant);
    if (!plan.ok) {
      throw new DomainError('invalid', `the session configuration has ${plan.problems.length} problem(s): ${plan.problems.join('; ')}`, plan.problems);
    }
    const { record } = plan;
    // Whatever fails from here (the disk, the store) leaves nothing behind: no runtime, no
    // sandbox state, no workspace directory the server made.
    let made: string | undefined;
    let runtime: SessionRuntime | undefined;
    try {
      if (plan.workspace === null) {
        made = path.join(await parts.tenantWorkspaceRoot(tenant), id);
        await fs.mkdir(made, { mode: 0o700 });
        // The user its commands run as (a root server's sandbox user) owns it; a client's keeps its owner.
        await parts.deps.sandbox.handOver(made);
        record.session.workspace = made;
      } else record.session.workspace = plan.workspace;
      if (fork && made) {
        // A fork's workspace holds the parent's files as they were, before anything of it runs.
        await fork.fill(made);
        fork.adjust(record);
      }
      if (plan.workspace !== null) {
        // A fresh workspace has no instruction files; a client's may (they join prompt turns).
        // From the real path the plan checked: never re-resolved, so a link put in its place since is not followed.
        const loaded = await loadInstructions({ root: plan.workspace });
        record.session.instructions = loaded.files;
        record.session.warnings.push(...loaded.problems);
      }
      const built = await buildRuntime(record, await parts.deps.sandboxStatus(), parts.build);
      runtime = built.runtime;
      const problems = [
        ...built.missingTools.map((t) => `tools: "${t}" cannot be installed`),
        ...built.hookProblems,
        ...built.modelProblems,
        ...built.skillProblems,
        ...built.mcpProblems,
        ...built.clientToolProblems,
      ];
      if (problems.length > 0) throw new DomainError('invalid', `the session configuration has ${problems.length} problem(s): ${problems.join('; ')}`, problems);
      // The operator's servers that could not start, and tools a server offered that were left out, are said.
      record.session.warnings.push(...built.mcpWarnings);
      // Taken on once stored: a store that commits without waiting (PostgreSQL) is waited for
      // here, so that a commit that fails leaves nothing behind either (the directory goes).
      const watch = new CommitWatch();
      parts.deps.store.runsHere?.(id, true);
      runInCommitWatch(watch, () =>
        store.transaction(() => {
          checkSessionLimit(parts, tenant, { held: true });
          store.putSession(record);
          events.emit(id, { type: 'session.created', session: record.session });
          fork?.inCommit(record);
          if (kept) parts.keys.settle(kept, record.session);
        }),
      );
      if ((await watch.settled()) !== undefined) {
        const refused = new DomainError('unavailable', 'the work of this request could not be stored, so none of it was kept; try again');
        refused.retryAfterS = 1;
        throw refused;
      }
      built.openEvents();
      parts.runtimes.add(runtime);
    } catch (err) {
      parts.runtimes.delete(id);
      parts.deps.store.forget?.(id);
      if (runtime) await stopRuntimeParts(runtime).catch(() => undefined);
      await runtime?.sandbox.close().catch(() => undefined);
      if (made) await fs.rm(made, { recursive: true, force: true }).catch(() => undefined);
      throw err;
    }
    await parts.audit.lifecycle('SessionStart', record.session, {}, runtime.hooks);
    return record.session;
  }

  get(scope: Scope, id: string): Session {
    const { session } = this.parts.records.get(id, scope.tenant);
    return { ...session, pending: session.status === 'active' ? (this.parts.deps.store.pendingCounts([id]).get(id) ?? 0) : 0 };
  }

  /** A ticket that opens the session's event stream once, within 60 s, for the caller's key. */
  eventTicket(scope: Scope, id: string): EventTicket {
    const { session } = this.parts.records.get(id, scope.tenant);
    const holder = scope.keyId !== null && scope.key !== null ? { id: scope.keyId, name: scope.key } : null;
    const { ticket, expiresAt } = this.parts.deps.tickets.issue(id, holder, session.tenant);
    return { ticket, expires_at: new Date(expiresAt).toISOString() };
  }

  /** The caller's tenant's sessions, newest first, with their pending counts; `label`: `key:value` each. */
  list(scope: Scope, query: SessionListQuery): { items: Session[]; next_cursor: string | null } {
    const take = Math.min(Math.max(query.limit, 1), MAX_LIST_LIMIT);
    let after: { created_at: string; id: string } | undefined;
    if (query.cursor !== undefined) {
      try {
        const parsed = JSON.parse(Buffer.from(query.cursor, 'base64url').toString('utf8')) as { c?: unknown; i?: unknown };
        if (typeof parsed.c !== 'string' || typeof parsed.i !== 'string') throw new Error('shape');
        after = { created_at: parsed.c, id: parsed.i };
      } catch {
        throw new DomainError('invalid', 'cursor: not a cursor this server returned (pass next_cursor unchanged)', [], 'query');
      }
    }
    const labels = parseLabelFilters(query.label ?? []);
    const page = this.parts.deps.store.listSessions({
      limit: take + 1,
      ...(after ? { after } : {}),
      ...(scope.tenant !== null ? { tenant: scope.tenant } : {}),
      ...(labels.length > 0 ? { labels } : {}),
      ...(query.status !== undefined ? { status: query.status } : {}),
    });
    const items = page.slice(0, take).map((r) => this.parts.records.normalized(r).session);
    const counts = this.parts.deps.store.pendingCounts(items.filter((s) => s.status === 'active').map((s) => s.id));
    for (const s of items) s.pending = counts.get(s.id) ?? 0;
    const last = items[items.length - 1];
    const next_cursor = page.length > take && last ? Buffer.from(JSON.stringify({ c: last.created_at, i: last.id })).toString('base64url') : null;
    return { items, next_cursor };
  }

  patch(scope: Scope, id: string, body: SessionPatch): Session {
    const record = this.parts.records.get(id, scope.tenant);
    if (record.session.status !== 'active') throw new DomainError('conflict', `session ${id} is closed`);
    const rt = this.parts.runtimes.require(id);
    requireModeWithin(this.parts, record.session.tenant, body.permission_mode, 'permission_mode');
    const problems = [
      ...parseRules('allowed_tools', body.allowed_tools ?? []).problems,
      ...parseRules('disallowed_tools', body.disallowed_tools ?? []).problems,
      ...parseRules('ask_rules', body.ask_rules ?? []).problems,
      ...parseRules('add_rules', (body.add_rules ?? []).map((r) => r.rule)).problems,
      ...parseRules('remove_rules', body.remove_rules ?? []).problems,
    ];
    const known = new Set(rt.settings.session.rules.map((r) => r.rule));
    for (const [i, r] of (body.remove_rules ?? []).entries()) if (!known.has(r)) problems.push(`remove_rules[${i}]: ${JSON.stringify(r)} is not a session rule`);
    if (body.budget) problems.push(...budgetProblems(this.parts, rt.model, body.budget, undefined));
    if (problems.length > 0) throw new DomainError('invalid', `the change has ${problems.length} problem(s): ${problems.join('; ')}`, problems);

    const now = this.parts.deps.clock().toISOString();
    return rt.settings.update(
      (s) => {
        if (body.permission_mode !== undefined) s.permission_mode = body.permission_mode;
        if (body.allowed_tools !== undefined) s.allowed_tools = body.allowed_tools;
        if (body.disallowed_tools !== undefined) s.disallowed_tools = body.disallowed_tools;
        if (body.ask_rules !== undefined) s.ask_rules = body.ask_rules;
        if (body.name !== undefined) s.name = body.name;
        if (body.labels !== undefined) s.labels = body.labels;
        if (body.budget !== undefined) s.budget = body.budget;
        if (body.compaction !== undefined) s.compaction = { auto: body.compaction.auto ?? true, threshold: body.compaction.threshold ?? DEFAULT_COMPACTION_THRESHOLD };
        if (body.remove_rules) s.rules = s.rules.filter((r) => !body.remove_rules!.includes(r.rule));
        for (const r of body.add_rules ?? []) {
          s.rules = s.rules.filter((x) => !(x.rule === r.rule && x.behavior === r.behavior));
          s.rules.push({ rule: r.rule, behavior: r.behavior, source: 'patch', added_at: now });
        }
      },
      { announce: true },
    );
  }

  /** The tools as exposed to a model; a closed session keeps describing the tools it had. */
  tools(scope: Scope, id: string, includeDeferred = false): ExposedTool[] {
    const record = this.parts.records.get(id, scope.tenant);
    const rt = this.parts.runtimes.get(id);
    if (!rt) {
      // A closed session describes the catalog tools it had and its client tools, its deferred ones as it kept them.
      const s = record.session;
      const client = (record.clientTools ?? []).map((t) => ({ ...t, client: true }));
      const described = [...this.parts.deps.catalog.describe(s.tools), ...client].map((t) => {
        const deferred = matchesAny(s.deferred_tools, t.name);
        return { ...t, deferred, unlocked: !deferred || matchesAny(s.unlocked_tools, t.name) };
      });
      return includeDeferred ? described : described.filter((t) => !t.deferred).map(({ deferred: _d, unlocked: _u, ...t }) => t);
    }
    if (!includeDeferred) return rt.registry.exposed();
    return rt.registry.names().map((name) => {
      const t = rt.registry.lookup(name)!;
      const deferred = rt.registry.isDeferred(name);
      return { name, description: t.prompt, input_schema: t.inputSchema, deferred, unlocked: !deferred || rt.isUnlocked(name), ...(t.client ? { client: true } : {}) };
    });
  }

  /** Closes a session: cancels its turn, runs SessionEnd hooks, emits the final event. Idempotent. */
  async close(scope: Scope, id: string, reason = 'closed by the client'): Promise<void> {
    // Whose it is first: another tenant's session is a 404, closing or not.
    const status = this.parts.records.get(id, scope.tenant).session.status;
    // Concurrent closes share one run: SessionEnd and session.closed happen once.
    const inProgress = this.parts.closing.get(id);
    if (inProgress) return inProgress;
    if (status === 'closed') return;
    const run = this.closeNow(id, reason).finally(() => this.parts.closing.delete(id));
    this.parts.closing.set(id, run);
    return run;
  }

  /**
   * Stops running a session here without recording anything (replicas: another node took it
   * over while this one was cut off; what it has stored stays for that node).
   */
  async release(_scope: Scope, id: string): Promise<void> {
    const rt = this.parts.runtimes.delete(id);
    if (!rt) return;
    // First the waiting calls, so that the turn's stop does not answer their requests.
    this.parts.broker.detachSession(id);
    rt.activeTurn?.abandon(new TurnStop('another node runs this session now', 'shutdown'));
    rt.activeTurn = null;
    await stopRuntimeParts(rt).catch(() => undefined);
    await rt.sandbox.close().catch(() => undefined);
  }

  /** Closes every active session (graceful shutdown with a store that does not survive): SessionEnd fires for each. */
  async closeAll(scope: Scope, reason: string): Promise<void> {
    const ids = new Set([...this.parts.runtimes.ids(), ...this.parts.closing.keys()]);
    await Promise.all([...ids].map((id) => this.close(scope, id, reason)));
  }

  private async closeNow(id: string, reason: string): Promise<void> {
    const { parts } = this;
    // Gone from the runtimes at once: no turn can start while the session winds down.
    const rt = parts.runtimes.delete(id);
    const by = reason === 'server shutdown' ? 'shutdown' : 'session_closed';
    rt?.activeTurn?.stop(new TurnStop(`the session was closed (${reason})`, by), 'cancelled', {
      code: 'session_closed',
      message: `The session was closed (${reason}) while the turn ran.`,
    });
    if (rt) await stopRuntimeParts(rt);
    const now = parts.deps.clock().toISOString();
    const close = (s: Session) => {
      s.status = 'closed';
      s.active_turn_id = null;
      s.closed_at = now;
    };
    let closed: Readonly<Session>;
    if (rt) closed = rt.settings.update(close);
    else {
      const record = parts.records.get(id, null);
      close(record.session);
      parts.deps.store.putSession(record);
      closed = record.session;
    }
    await parts.audit.lifecycle('SessionEnd', closed, { reason }, rt?.hooks ?? parts.deps.hooks);
    // After SessionEnd: its command hooks run in the session's sandbox too.
    await rt?.sandbox.close();
    parts.deps.events.emit(id, { type: 'session.closed', reason });
  }
}

/** 403, naming the policy, when `mode` (as the request's `field`) is looser than the tenant's max_permission_mode. */
export function requireModeWithin(parts: Parts, tenant: string, mode: PermissionMode | undefined, field: string): void {
  if (mode === undefined) return;
  const max = parts.deps.tenants.policyOf(tenant)?.maxMode;
  if (modeWithin(mode, max)) return;
  throw new DomainError('forbidden', `the policy of tenant ${tenant} does not allow this: ${field} "${mode}" is looser than the tenant's max_permission_mode "${max}"`);
}

export interface SessionListQuery {
  limit: number;
  cursor?: string;
  /** `key:value` filters, all of which a listed session has. */
  label?: readonly string[];
  status?: 'active' | 'closed';
}

const LABEL_KEY = new RegExp(LABEL_KEY_PATTERN);

/** `key:value` label filters as pairs; a malformed one is a 400 naming it. */
function parseLabelFilters(filters: readonly string[]): [string, string][] {
  const problems: string[] = [];
  const pairs: [string, string][] = [];
  for (const [i, f] of filters.entries()) {
    const at = f.indexOf(':');
    const key = at < 0 ? f : f.slice(0, at);
    if (at < 0 || !LABEL_KEY.test(key)) {
      problems.push(`label[${i}]: ${JSON.stringify(f.slice(0, 100))} is not key:value with a label key (letters, digits, ._/-, at most 63)`);
      continue;
    }
    pairs.push([key, f.slice(at + 1)]);
  }
  if (problems.length > 0) throw new DomainError('invalid', problems.join('; '), problems, 'query');
  return pairs;
}
