// Checkpoint use cases (API.md "Checkpoints, changes, rewind and fork"): list a session's
// checkpoints, what changed between two of them (or up to now), rewind the workspace (and the
// transcript), fork a session at a checkpoint. A live session's checkpoints are its runtime's
// (the owner's, with replicas: these run there); a closed one's are read from its directory.
import type { ChangeList, Checkpoint, ForkRequest, RewindRequest, RewindResult, Session, SessionCreate, Turn } from '../contract/schemas.js';
import { CheckpointReader, RewindConflict, type CheckpointRecord, type SessionCheckpoints } from '../checkpoints/session.js';
import { compileSelection } from '../checkpoints/select.js';
import { applyRestore, planRestore } from '../checkpoints/restore.js';
import { DomainError } from '../errors.js';
import { checkpointDir } from '../session/checkpoints.js';
import type { SessionRecord } from '../store/store.js';
import { CommitWatch, runInCommitWatch } from '../store/commit-watch.js';
import type { Parts } from './parts.js';
import type { Scope } from './scope.js';
import type { SessionUseCases } from './sessions.js';

const PAGE_MAX = 1000;

export function publicCheckpoint(r: CheckpointRecord): Checkpoint {
  return {
    id: r.id,
    turn_id: r.turn_id,
    ...(r.tool_use_id ? { tool_use_id: r.tool_use_id } : {}),
    reason: r.reason,
    created_at: r.created_at,
    files: r.files,
    bytes: r.bytes,
    added_bytes: r.added_bytes,
    not_captured: r.not_captured,
    complete: r.complete,
    warnings: r.warnings,
  };
}

interface Opened {
  reader: CheckpointReader | null;
  live: SessionCheckpoints | null;
  close(): Promise<void>;
}

export class CheckpointUseCases {
  constructor(
    private readonly parts: Parts,
    private readonly sessions: SessionUseCases,
  ) {}

  /** The session's checkpoints: its runtime's (once what is queued was recorded), or read from disk. */
  private async open(scope: Scope, sessionId: string): Promise<Opened> {
    this.parts.records.get(sessionId, scope.tenant);
    const live = this.parts.runtimes.get(sessionId)?.checkpoints ?? null;
    if (live) {
      await live.idle();
      return { reader: live, live, close: async () => undefined };
    }
    const reader = await CheckpointReader.open(checkpointDir(this.parts.deps.config.dataDir, sessionId));
    return { reader, live: null, close: async () => reader?.close() };
  }

  private static resolve(reader: CheckpointReader | null, sessionId: string, ref: string, side: 'before' | 'after', field: string): CheckpointRecord {
    const r = reader?.resolve(ref, side);
    if (!r) {
      throw new DomainError(
        'not_found',
        `${field}: ${ref} is neither a checkpoint of session ${sessionId} nor a turn of it that has checkpoints` +
          (reader ? '' : ' (the session has no checkpoints)'),
      );
    }
    return r;
  }

  async list(scope: Scope, sessionId: string, q: { limit?: number; cursor?: string }): Promise<{ items: Checkpoint[]; next_cursor: string | null }> {
    const o = await this.open(scope, sessionId);
    try {
      const all = o.reader?.list() ?? [];
      let from = 0;
      if (q.cursor !== undefined) {
        const at = all.findIndex((r) => r.id === q.cursor);
        if (at < 0) throw new DomainError('invalid', `cursor: ${q.cursor} is not a checkpoint of session ${sessionId}`, [], 'query');
        from = at + 1;
      }
      const limit = Math.min(q.limit ?? 100, PAGE_MAX);
      const page = all.slice(from, from + limit);
      return { items: page.map(publicCheckpoint), next_cursor: from + limit < all.length ? page.at(-1)!.id : null };
    } finally {
      await o.close();
    }
  }

  async get(scope: Scope, sessionId: string, checkpointId: string): Promise<{ checkpoint: Checkpoint; not_captured: { path: string; reason: string }[] }> {
    const o = await this.open(scope, sessionId);
    try {
      const r = o.reader?.get(checkpointId);
      if (!r) throw new DomainError('not_found', `checkpoint ${checkpointId} of session ${sessionId} does not exist`);
      return { checkpoint: publicCheckpoint(r), not_captured: (await o.reader!.manifest(r)).notCaptured };
    } finally {
      await o.close();
    }
  }

  /**
   * What changed from `from` (default: the first checkpoint) to `to` (default: `current`, the
   * workspace now; for a closed session, its last checkpoint). A turn id as `from` is the state
   * before it, as `to` the state after it.
   */
  async changes(scope: Scope, sessionId: string, q: { from?: string; to?: string; diff: boolean }): Promise<ChangeList | string> {
    const o = await this.open(scope, sessionId);
    try {
      const first = o.reader?.list()[0];
      const from = q.from !== undefined ? CheckpointUseCases.resolve(o.reader, sessionId, q.from, 'before', 'from') : first;
      if (!from) throw new DomainError('not_found', `session ${sessionId} has no checkpoints`);
      const toRef = q.to ?? 'current';
      let toName: string;
      let toEntries;
      if (toRef === 'current' && o.live) {
        toName = 'current';
        toEntries = await o.live.entriesOf('current');
      } else {
        const to = toRef === 'current' ? o.reader!.list().at(-1)! : CheckpointUseCases.resolve(o.reader, sessionId, toRef, 'after', 'to');
        toName = to.id;
        toEntries = (await o.reader!.manifest(to)).entries;
      }
      const fromEntries = (await o.reader!.manifest(from)).entries;
      if (q.diff) return o.reader!.diff(fromEntries, toEntries);
      return { from: from.id, to: toName, files: await o.reader!.changes(fromEntries, toEntries) };
    } finally {
      await o.close();
    }
  }

  /** What the turn changed: from before it started to after it ended. */
  async turnChanges(scope: Scope, sessionId: string, turnId: string, diff: boolean): Promise<ChangeList | string> {
    this.parts.records.get(sessionId, scope.tenant);
    const turn = this.parts.deps.store.getTurn(sessionId, turnId);
    if (!turn) throw new DomainError('not_found', `turn ${turnId} of session ${sessionId} does not exist`);
    return this.changes(scope, sessionId, { from: turnId, to: turnId, diff });
  }

  async rewind(scope: Scope, sessionId: string, body: RewindRequest): Promise<RewindResult> {
    const { parts } = this;
    parts.records.get(sessionId, scope.tenant);
    const rt = parts.runtimes.require(sessionId);
    const cp = rt.checkpoints;
    if (!cp) throw new DomainError('conflict', `session ${sessionId} takes no checkpoints (created with checkpoints: false), so there is nothing to rewind to`);
    const busy = () => {
      if (rt.activeTurn) throw new DomainError('conflict', `session ${sessionId} runs turn ${rt.activeTurn.id}; rewind once it ended (or cancel it)`);
      if (parts.stopping) throw new DomainError('unavailable', 'the server is shutting down; rewind once it is back');
    };
    busy();
    const selection = compileSelection(body.paths ?? []);
    if (!selection.ok) throw new DomainError('invalid', `paths: ${selection.problems.join('; ')}`, selection.problems);
    const selected = body.paths && body.paths.length > 0 ? selection.test : () => true;
    await cp.idle();
    const target = CheckpointUseCases.resolve(cp, sessionId, body.to, 'before', 'to');
    if (body.conversation && !parts.runtimes.get(sessionId)?.model) {
      throw new DomainError('invalid', 'conversation: only a prompt session (one with a model) has a transcript to rewind');
    }
    const dropped = body.conversation ? this.turnsFrom(sessionId, cp, target) : [];
    if (body.dry_run) {
      const view = await cp.preview(target, selected);
      return { restored: view.restored, deleted: view.deleted, conflicts: view.conflicts, skipped: view.skipped, checkpoint_id: null, dropped_turns: dropped.map((t) => t.id), dry_run: true };
    }
    let done;
    try {
      done = await cp.rewind(target, selected, { force: body.force === true, by: scope.keyId, check: busy });
    } catch (err) {
      if (err instanceof RewindConflict) {
        const refused = new DomainError(
          'conflict',
          `${err.message}: rewinding would overwrite them; look at them, then rewind with force: true to overwrite, or leave them out with paths`,
        );
        refused.conflicts = err.view.conflicts;
        throw refused;
      }
      throw err;
    }
    const { view, before, after } = done;
    const now = parts.deps.clock().toISOString();
    const { store, events } = parts.deps;
    // The rewind's record is stored before it is answered (a store that commits later is waited for).
    const watch = new CommitWatch();
    runInCommitWatch(watch, () => store.transaction(() => {
      for (const t of dropped) store.putTurn({ ...t, rewound_at: now });
      events.emit(sessionId, {
        type: 'workspace.rewound',
        to: target.id,
        checkpoint_id: before.id,
        after_checkpoint_id: after?.id ?? null,
        restored: view.restored,
        deleted: view.deleted,
        forced: view.conflicts.map((c) => c.path),
        paths: body.paths && body.paths.length > 0 ? body.paths : null,
        dropped_turns: dropped.map((t) => t.id),
        by: scope.keyId,
        recovered: false,
      });
    }));
    const failure = await watch.settled();
    if (failure !== undefined) {
      // The workspace is rewound (and its checkpoints say so); the event could not be stored.
      parts.deps.logger.error({ err: failure, session_id: sessionId, checkpoint_id: before.id }, 'the record of a rewind could not be stored');
      throw new DomainError('unavailable', `the workspace was rewound, but its record could not be stored; checkpoint ${before.id} undoes it`);
    }
    return { restored: view.restored, deleted: view.deleted, conflicts: view.conflicts, skipped: view.skipped, checkpoint_id: before.id, dropped_turns: dropped.map((t) => t.id), dry_run: false };
  }

  /** The session's prompt turns that started at or after `target` (and are not dropped yet). */
  private turnsFrom(sessionId: string, cp: CheckpointReader, target: CheckpointRecord): Turn[] {
    const firstOf = new Map<string, CheckpointRecord>();
    for (const r of cp.list()) if (r.turn_id && !firstOf.has(r.turn_id)) firstOf.set(r.turn_id, r);
    return this.parts.deps.store
      .listTurns(sessionId)
      .filter((t) => t.kind === 'prompt' && t.rewound_at === undefined)
      .filter((t) => {
        const start = firstOf.get(t.id);
        return start ? start.seq >= target.seq : t.created_at >= target.created_at;
      });
  }

  /**
   * A new session of the same tenant with the parent's settings and rules, a workspace holding
   * the files as they were at `at` (default: now), and the prompt turns that had ended by then.
   */
  async fork(scope: Scope, sessionId: string, body: ForkRequest): Promise<Session> {
    const { parts } = this;
    const record = parts.records.get(sessionId, scope.tenant);
    const o = await this.open(scope, sessionId);
    try {
      let target: CheckpointRecord;
      if (body.at !== undefined) target = CheckpointUseCases.resolve(o.reader, sessionId, body.at, 'before', 'at');
      else if (o.live) target = await o.live.take({ reason: 'fork', turnId: null });
      else {
        const last = o.reader?.list().at(-1);
        if (!last) throw new DomainError('conflict', `session ${sessionId} has no checkpoints to fork from`);
        target = last;
      }
      const reader = o.reader ?? o.live!;
      const entries = (await reader.manifest(target)).entries;
      const turns = this.turnsEndedBy(sessionId, reader, target);
      const created = await this.sessions.create(scope, forkBody(record), undefined, {
        fill: (workspace) => applyRestore(workspace, planRestore(entries, []), reader.content),
        adjust: (r) => {
          r.session.forked_from = { session_id: sessionId, checkpoint_id: target.id };
          r.session.rules = structuredClone(record.session.rules);
          r.session.unlocked_tools = [...record.session.unlocked_tools];
        },
        inCommit: (r) => {
          for (const t of turns) parts.deps.store.putTurn({ ...structuredClone(t), id: parts.deps.newId('turn'), session_id: r.session.id });
        },
      });
      return created;
    } finally {
      await o.close();
    }
  }

  /**
   * Prompt turns that had ended at `target`, oldest first: their last checkpoint is not after it,
   * and it is their end, or a checkpoint of a later turn (turns of a session run one after the
   * other), or one made between turns after they ended. A checkpoint inside a turn, not its end,
   * does not take the turn: the model's last words came after it.
   */
  private turnsEndedBy(sessionId: string, cp: CheckpointReader, target: CheckpointRecord): Turn[] {
    const lastOf = new Map<string, CheckpointRecord>();
    for (const r of cp.list()) if (r.turn_id) lastOf.set(r.turn_id, r);
    return this.parts.deps.store
      .listTurns(sessionId)
      .filter((t) => t.kind === 'prompt' && t.rewound_at === undefined && t.ended_at !== undefined)
      .filter((t) => {
        const end = lastOf.get(t.id);
        if (!end) return t.ended_at! <= target.created_at;
        if (end.seq > target.seq) return false;
        if (end.reason === 'turn_end') return true;
        if (target.turn_id === t.id) return false;
        return target.turn_id !== null || t.ended_at! <= target.created_at;
      });
  }
}

/** The create body that gives a fork its parent's settings (a fresh workspace of the server's). */
function forkBody(record: SessionRecord): SessionCreate {
  const s = record.session;
  const { enforcement: _e, ...limits } = s.limits;
  return {
    ...(s.name !== null ? { name: s.name } : {}),
    labels: s.labels,
    permission_mode: s.permission_mode,
    allowed_tools: s.allowed_tools,
    disallowed_tools: s.disallowed_tools,
    ask_rules: s.ask_rules,
    tools: s.tools,
    ...(record.hooks ? { hooks: record.hooks } : {}),
    output_cap_chars: s.output_cap_chars,
    ...(s.permission_timeout_s !== null ? { permission_timeout_s: s.permission_timeout_s } : {}),
    ...(s.question_timeout_s !== null ? { question_timeout_s: s.question_timeout_s } : {}),
    ...(s.memory_store !== null ? { memory_store: s.memory_store } : {}),
    skills: s.skills,
    ...(record.model ? { model: { ...record.model, ...(record.modelApiKey ? { api_key: record.modelApiKey } : {}) } as SessionCreate['model'] } : {}),
    ...(s.system_prompt !== null ? { system_prompt: s.system_prompt } : {}),
    sandbox_network: s.sandbox_network,
    ...(record.secrets && Object.keys(record.secrets).length > 0 ? { secrets: record.secrets } : {}),
    ...(record.mcpServers ? { mcp_servers: record.mcpServers } : {}),
    ...(record.clientTools && record.clientTools.length > 0 ? { client_tools: record.clientTools } : {}),
    deferred_tools: s.deferred_tools,
    limits,
    checkpoints: s.checkpoints,
    ...(s.budget ? { budget: s.budget } : {}),
    compaction: s.compaction,
  };
}
