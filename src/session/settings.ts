// A live session's settings: its stored record held in memory (mode, rules, warnings, the
// turn it runs), with the rules parsed once per change. Every write of a live session goes
// through here, so reads within a call never go back to the store, and the copy in force
// follows the store only once a write has committed (a rolled-back write — a full disk —
// leaves the rules and mode exactly as stored).
import type { Session, SessionRule, TodoItem } from '../contract/schemas.js';
import type { EventLog } from '../events/log.js';
import type { RuleSet } from '../permission/evaluate.js';
import { parseRules, type ParsedRule } from '../permission/rules.js';
import type { PermissionContext } from '../pipeline/exec-one.js';
import type { SessionRecord, Store } from '../store/store.js';
import type { ToolEffect } from '../tools/tool.js';
import { DomainError } from '../errors.js';
import { clampMode } from '../contract/tenant.js';
import type { CompiledPolicy, TenantPolicies } from '../tenants/policy.js';

export interface SettingsDeps {
  store: Store;
  events: EventLog;
  /** The tenants' policies as in force: the session's tenant's applies to every evaluation. */
  policies: TenantPolicies;
  /** The rules or mode changed (after the commit): waiting requests may now be decided. */
  onPermissionChange(sessionId: string): void;
}

export class SessionSettings {
  private current: SessionRecord;
  private parsed: PermissionContext;
  private key: string;
  /** `parsed` under the tenant's policy, for the policy object it was made with. */
  private governed: { policy: CompiledPolicy | null; context: PermissionContext } | undefined;
  /** The newest write not yet known to be committed: only it is adopted (one re-evaluation per commit). */
  private staged: SessionRecord | undefined;

  constructor(
    record: SessionRecord,
    private readonly deps: SettingsDeps,
  ) {
    this.current = structuredClone(record);
    this.parsed = permissionContext(record.session);
    this.key = permissionKey(record.session);
  }

  get id(): string {
    return this.current.session.id;
  }

  /** The session as stored (do not mutate: change it through `update`). */
  get session(): Readonly<Session> {
    return this.current.session;
  }

  /**
   * The mode and parsed rules every evaluation of this session reads, under its tenant's policy
   * as it is now: its deny rules first, and its max_permission_mode when the session's is looser
   * (a policy tightened after the session chose its mode).
   */
  permission(): PermissionContext {
    const policy = this.policy();
    // Made again only when the policy object changed (a reload) or the session's rules did (adopt).
    if (this.governed === undefined || this.governed.policy !== policy) {
      const context = policy
        ? { ...this.parsed, mode: clampMode(this.parsed.mode, policy.maxMode), policyDeny: policy.deny }
        : this.parsed;
      this.governed = { policy, context };
    }
    return this.governed.context;
  }

  /** The session's tenant's policy as in force. */
  policy(): CompiledPolicy | null {
    return this.deps.policies.policyOf(this.current.session.tenant);
  }

  /**
   * Changes the session: `change` edits a copy, which is stored (with `session.updated` when
   * `announce`), and becomes the copy in force when the write commits. A `change` that returns
   * false leaves the session as it is.
   */
  update(change: (s: Session, record: SessionRecord) => void | boolean, opts: { announce?: boolean } = {}): Session {
    let result: Session | undefined;
    const { store, events } = this.deps;
    store.transaction(() => {
      // Based on the stored record as this transaction sees it: an earlier change in the same
      // transaction is kept, and one that was rolled back is not.
      const next = structuredClone(store.getSession(this.id) ?? this.current);
      next.session.limits ??= this.current.session.limits;
      result = next.session;
      const modeBefore = next.session.permission_mode;
      if (change(next.session, next) === false) return;
      trackPlanMode(next.session, modeBefore);
      next.session.policy = this.policy()?.public ?? null;
      store.putSession(next);
      this.staged = next;
      if (opts.announce) events.emit(next.session.id, { type: 'session.updated', session: next.session });
      store.afterCommit(() => {
        if (this.staged !== next) return;
        this.staged = undefined;
        this.adopt(next);
      });
    });
    return result!;
  }

  /**
   * Points the session at the turn it runs (`null`: none) — with `onlyIf`, only while it points
   * at that turn. A narrow write of that one field (no other field, rule or mode changes), in
   * force here once it commits.
   */
  setActiveTurn(turnId: string | null, onlyIf?: string): void {
    const { store } = this.deps;
    store.transaction(() => {
      if (!store.setActiveTurn(this.id, turnId, onlyIf)) return;
      store.afterCommit(() => {
        // After any whole-record change of the same transaction was adopted (registered earlier),
        // or before one made later in it (which read this value from the store).
        this.current = { ...this.current, session: { ...this.current.session, active_turn_id: turnId } };
      });
    });
  }

  /** Adds allow rules a person chose to remember; the ones already there are kept once. */
  remember(rules: readonly string[], now: string): void {
    this.update(
      (s) => {
        for (const rule of rules) {
          if (!s.rules.some((r) => r.rule === rule && r.behavior === 'allow')) s.rules.push({ rule, behavior: 'allow', source: 'remember', added_at: now });
        }
      },
      { announce: true },
    );
  }

  /**
   * The session changes a tool's result carries (set mode, add rules, a todo list, a skill
   * used), checked first and then stored together with their events (`session.updated`,
   * `todo.updated`) in one transaction; a bad rule changes nothing.
   */
  applyEffects(effects: readonly ToolEffect[], now: string, origin: { turnId: string; toolUseId: string }): void {
    const problems = effects.flatMap((e) => (e.kind === 'add_rules' ? parseRules('rules', e.rules).problems : []));
    if (problems.length > 0) throw new DomainError('invalid', problems.join('; '), problems);
    const announce = effects.some((e) => e.kind !== 'set_todos');
    this.deps.store.transaction(() => {
      this.update(
        (s, record) => {
          for (const e of effects) {
            switch (e.kind) {
              case 'set_mode':
                s.permission_mode = e.mode;
                break;
              case 'add_rules':
                for (const rule of e.rules) {
                  s.rules = s.rules.filter((x) => !(x.rule === rule && x.behavior === e.behavior));
                  s.rules.push({ rule, behavior: e.behavior, source: 'tool', added_at: now });
                }
                break;
              case 'set_todos':
                record.todos = { items: e.items, updated_at: now };
                break;
              case 'unlock':
                s.unlocked_tools = [...new Set([...s.unlocked_tools, ...e.tools])];
                break;
              case 'use_skill':
                if (!s.used_skills.includes(e.skill)) s.used_skills = [...s.used_skills, e.skill];
                s.unlocked_tools = [...new Set([...s.unlocked_tools, ...e.unlock])];
                break;
            }
          }
        },
        { announce },
      );
      for (const e of effects) {
        if (e.kind === 'set_todos') {
          this.deps.events.emit(this.id, { type: 'todo.updated', turn_id: origin.turnId, tool_use_id: origin.toolUseId, items: e.items, updated_at: now });
        }
      }
    });
  }

  /** The session's todo list as stored. */
  todos(): { items: TodoItem[]; updated_at: string | null } {
    return this.current.todos ?? { items: [], updated_at: null };
  }

  private adopt(next: SessionRecord): void {
    this.current = next;
    const key = permissionKey(next.session);
    if (key === this.key) return;
    this.parsed = permissionContext(next.session);
    this.governed = undefined;
    this.key = key;
    this.deps.onPermissionChange(next.session.id);
  }
}

/**
 * Entering plan mode remembers the mode before it (what ExitPlanMode returns to); any change
 * out of plan mode forgets it.
 */
function trackPlanMode(s: Session, before: Session['permission_mode']): void {
  if (s.permission_mode === 'plan') {
    if (before !== 'plan') s.mode_before_plan = before;
  } else {
    s.mode_before_plan = null;
  }
}

function permissionContext(s: Session): PermissionContext {
  const parse = (field: string, texts: string[]): ParsedRule[] => parseRules(field, texts).rules;
  const byBehavior = (b: SessionRule['behavior']) => s.rules.filter((r) => r.behavior === b).map((r) => r.rule);
  const rules: RuleSet = {
    allow: parse('allow', [...s.allowed_tools, ...byBehavior('allow')]),
    deny: parse('deny', [...s.disallowed_tools, ...byBehavior('deny')]),
    ask: parse('ask', [...s.ask_rules, ...byBehavior('ask')]),
  };
  return { mode: s.permission_mode, rules };
}

/** The mode, rule texts and budget pending asks are decided under: a change re-evaluates them. */
function permissionKey(s: Session): string {
  return JSON.stringify([s.permission_mode, s.allowed_tools, s.disallowed_tools, s.ask_rules, s.rules.map((r) => [r.rule, r.behavior]), s.budget ?? null]);
}
