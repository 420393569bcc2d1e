// Restart recovery: what a previous process left in a durable store comes back, built by the
// same code that creates sessions (session/build.ts). An open turn's calls that had started and
// have no result get an "interrupted" result (they may have partly run); if calls still wait on
// permission requests, questions or client-tool requests, the turn stays paused and goes on when they are answered
// (`turn.resumed`); otherwise the turn ends `interrupted` and every call without a result gets one.
import { isOpenStatus, type Session, type Turn } from '../contract/schemas.js';
import { NETWORK_TOOL } from '../permission/network.js';
import { clientToolKind, permissionKind, questionKind } from '../interaction/kinds.js';
import type { Message } from '../model/provider.js';
import { closeTranscript } from '../model/transcript.js';
import { errorResult } from '../pipeline/exec-one.js';
import { buildRuntime } from '../session/build.js';
import { newTurnRunner } from '../session/runner.js';
import { stopRuntimeParts, type SessionRuntime } from '../session/runtime.js';
import type { SessionRecord } from '../store/store.js';
import { newTrace } from '../trace/context.js';
import type { Parts } from './parts.js';
import type { Scope } from './scope.js';

/** How many sessions' runtimes are built at once after a restart. */
const RECOVERY_BUILDS_AT_ONCE = 8;

/** Starts `build` for every item, at most `limit` at a time; the promises settle in any order. */
function buildAll<T, R>(items: readonly T[], build: (item: T) => Promise<R>, limit: number): Promise<R>[] {
  let next = 0;
  const settled: Promise<R>[] = new Array(items.length);
  const resolvers: { resolve: (v: R) => void; reject: (e: unknown) => void }[] = [];
  for (let i = 0; i < items.length; i++) {
    settled[i] = new Promise<R>((resolve, reject) => (resolvers[i] = { resolve, reject }));
    // Awaited in order later: a failure that settles first is not an unhandled rejection meanwhile.
    settled[i]!.catch(() => undefined);
  }
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      await build(items[i]!).then(resolvers[i]!.resolve, resolvers[i]!.reject);
    }
  };
  for (let w = 0; w < Math.min(limit, items.length); w++) void worker();
  return settled;
}

export class RecoveryUseCases {
  constructor(private readonly parts: Parts) {}

  /**
   * Builds the runtimes of the active sessions a previous process left (all of them, or with
   * `only` those sessions: the ones a replica took over) and resumes or interrupts their turns.
   */
  async recover(_scope: Scope, only?: readonly string[]): Promise<{ sessions: number; resumed: number; interrupted: number }> {
    const { parts } = this;
    const out = { sessions: 0, resumed: 0, interrupted: 0 };
    const { store, logger } = parts.deps;
    if (!store.durable) return out;
    const stored =
      only === undefined
        ? store.activeSessions()
        : only.flatMap((id) => {
            const r = store.getSession(id);
            return r && r.session.status === 'active' && !parts.runtimes.has(id) ? [r] : [];
          });
    const records = stored.map((r) => parts.records.normalized(r));
    // Nothing to recover: start-up does not wait for the sandbox's self-test.
    if (records.length === 0) return out;
    const sandbox = await parts.deps.sandboxStatus();
    // Runtimes are built a few at a time (a session's MCP servers take a moment to start); what
    // follows — warnings, resumed turns, SessionStart — goes one session after another, in order.
    const builds = buildAll(records, (record) => buildRuntime(record, sandbox, parts.build), RECOVERY_BUILDS_AT_ONCE);
    for (const [i, record] of records.entries()) {
      const s = record.session;
      let built;
      try {
        built = await builds[i]!;
      } catch (err) {
        logger.warn({ session_id: s.id, err }, 'session workspace unusable after restart; closing the session');
        this.closeUnusable(record, `workspace unusable after restart: ${(err as Error).message}`);
        continue;
      }
      // One session that cannot be recovered never stops start-up: it is closed, the rest go on.
      try {
        await this.recoverBuilt(built, out);
      } catch (err) {
        logger.error({ session_id: s.id, err }, 'recovering the session failed after a restart; closing it');
        parts.runtimes.delete(s.id);
        if (built.runtime.activeTurn) built.runtime.activeTurn = null;
        await stopRuntimeParts(built.runtime).catch(() => undefined);
        try {
          this.closeUnusable(parts.records.get(s.id, null), `recovery after a restart failed: ${(err as Error).message}`);
        } catch (closeErr) {
          logger.error({ session_id: s.id, err: closeErr }, 'the session could not be closed either');
        }
      }
    }
    return out;
  }

  /** What follows a session's build after a restart: its warnings, its open turn, SessionStart. */
  private async recoverBuilt(built: Awaited<ReturnType<typeof buildRuntime>>, out: { sessions: number; resumed: number; interrupted: number }): Promise<void> {
    const { parts } = this;
    const { store, logger } = parts.deps;
    const rt = built.runtime;
    const s = rt.settings.session;
    if (built.missingTools.length > 0) warn(rt, `after a restart these tools could not be installed again: ${built.missingTools.join(', ')}`);
    if (built.hookProblems.length > 0) {
      // A hook that cannot run any more (its program is gone, the sandbox broke) is said, not dropped silently.
      logger.warn({ session_id: s.id, problems: built.hookProblems }, 'session hooks could not all be installed again after a restart');
      warn(rt, `after a restart these hooks could not be installed again: ${built.hookProblems.join('; ')}`);
    }
    if (built.skillProblems.length > 0) warn(rt, `after a restart these skills could not be loaded again: ${built.skillProblems.join('; ')}`);
    if (built.modelProblems.length > 0) warn(rt, `after a restart the session's model could not be configured again: ${built.modelProblems.join('; ')}`);
    built.openEvents();
    const mcp = [...built.mcpProblems, ...built.mcpWarnings];
    if (mcp.length > 0) warn(rt, `after a restart these MCP servers or tools could not be started again: ${mcp.join('; ')}`);
    if (built.clientToolProblems.length > 0) warn(rt, `after a restart these client tools could not be registered again: ${built.clientToolProblems.join('; ')}`);
    parts.runtimes.add(rt);
    parts.deps.store.runsHere?.(rt.id);
    out.sessions++;

    const turnId = s.active_turn_id;
    const turn = turnId ? store.getTurn(s.id, turnId) : undefined;
    if (turn && isOpenStatus(turn.status)) {
      if (this.resumeTurn(rt, turn)) out.resumed++;
      else out.interrupted++;
    } else if (turnId) {
      // The turn ended but its end was not recorded on the session (the store failed then).
      rt.settings.update((x) => {
        x.active_turn_id = null;
      });
    }
    await parts.audit.lifecycle('SessionStart', rt.settings.session, { reason: 'resume' }, rt.hooks);
  }

  /** Recovery of one open turn; true when it waits on permission requests, questions or client-tool requests again. */
  private resumeTurn(rt: SessionRuntime, turn: Turn): boolean {
    const { store, events, clock } = this.parts.deps;
    const sessionId = rt.id;
    const done = new Set(turn.results.map((r) => r.tool_use_id));
    const started = new Set(store.turnEvents(sessionId, turn.id, 'tool.started').map((e) => (e as { tool_use_id: string }).tool_use_id));
    const ofTurn = <R extends { turn_id: string; tool_use_id: string }>(rs: R[]) => rs.filter((r) => r.turn_id === turn.id && !done.has(r.tool_use_id));
    // A connection that waited for a person died with the process that held it: its request is
    // answered as refused (the process, if anything of it were left, would see a refused connection).
    const left = store.listPermissions(sessionId, 'pending');
    for (const p of left.filter((x) => x.tool === NETWORK_TOOL)) this.parts.broker.refuseLeft(p, 'the server restarted while the connection waited; it was refused');
    const permissions = new Map(ofTurn(left.filter((x) => x.tool !== NETWORK_TOOL)).map((p) => [p.tool_use_id, p]));
    const questions = new Map(ofTurn(store.listQuestions(sessionId, 'pending')).map((q) => [q.tool_use_id, q]));
    const clientTools = new Map(ofTurn(store.listClientToolRequests(sessionId, 'pending')).map((r) => [r.tool_use_id, r]));
    // Answered by the client, but the process stopped before the call's result was stored (its
    // PostToolUse hooks were running, say): the call is run again and takes the stored answer.
    // Only the turn's own calls: a subagent's call is not run again (its parent call is what ran).
    const own = new Set(turn.tool_uses.map((tu) => tu.id));
    const answeredClientTools = new Map(
      ofTurn(store.listClientToolRequests(sessionId, 'answered').filter((r) => own.has(r.tool_use_id))).flatMap((request) => {
        const answer = store.getClientToolAnswer(sessionId, request.id);
        return answer ? [[request.tool_use_id, { request, answer }] as const] : [];
      }),
    );
    if (turn.kind === 'prompt' && !rt.model) {
      // Its model loop cannot go on: the calls it waits for are not asked about any more.
      const why = 'after the restart the session has no usable model';
      for (const p of permissions.values()) this.parts.broker.abandon(permissionKind, p, why);
      for (const q of questions.values()) this.parts.broker.abandon(questionKind, q, why);
      for (const r of clientTools.values()) this.parts.broker.abandon(clientToolKind, r, why);
      permissions.clear();
      questions.clear();
      clientTools.clear();
      answeredClientTools.clear();
    }
    const waiting = new Set([...permissions.keys(), ...questions.keys(), ...clientTools.keys(), ...answeredClientTools.keys()]);
    const results = new Map(turn.results.map((r) => [r.tool_use_id, r]));
    for (const tu of turn.tool_uses) {
      if (results.has(tu.id) || waiting.has(tu.id)) continue;
      if (started.has(tu.id)) {
        results.set(tu.id, errorResult(tu.id, 'Interrupted: the server restarted while this call was running; it may have partly run.'));
      } else if (waiting.size === 0) {
        results.set(tu.id, errorResult(tu.id, 'Not run: the server restarted before this call started.'));
      }
    }
    const ordered = turn.tool_uses.flatMap((tu) => (results.has(tu.id) ? [results.get(tu.id)!] : []));
    const added = ordered.filter((r) => !done.has(r.tool_use_id));
    const emitAdded = () => {
      for (const r of added) {
        const tu = turn.tool_uses.find((t) => t.id === r.tool_use_id)!;
        events.emit(sessionId, { type: 'tool.completed', turn_id: turn.id, tool_use_id: tu.id, tool: tu.name, result: r });
      }
    };

    if (waiting.size === 0) {
      const ended: Turn = {
        ...turn,
        results: ordered,
        pending: [],
        status: 'interrupted',
        error: { code: 'server_restart', message: 'The server stopped while the turn was running; unfinished calls got error results.' },
        ended_at: clock().toISOString(),
      };
      if (ended.messages) ended.messages = closeTranscript(ended.messages as Message[], results);
      store.transaction(() => {
        store.putTurn(ended);
        emitAdded();
        events.emit(sessionId, { type: 'turn.interrupted', turn: structuredClone(ended) });
        rt.settings.update((x) => {
          x.active_turn_id = null;
        });
      });
      return false;
    }

    const pending = [...permissions.values(), ...questions.values(), ...clientTools.values()].map((r) => r.id);
    const status = permissions.size > 0 ? 'awaiting_permission' : questions.size + clientTools.size > 0 ? 'awaiting_input' : 'running';
    const paused: Turn = { ...turn, results: ordered, pending, status };
    // A trace of its own: the request that posted the turn belonged to another process.
    const runner = newTurnRunner(rt, paused, { permissions, questions, clientTools, answeredClientTools }, this.parts.runner, newTrace());
    rt.activeTurn = runner;
    store.transaction(() => {
      store.putTurn(paused);
      emitAdded();
      runner.resume();
    });
    return true;
  }

  /** A session whose live parts cannot be made again is closed, its open turn ended. */
  private closeUnusable(record: SessionRecord, reason: string): void {
    const { store, events, clock } = this.parts.deps;
    const s = record.session;
    this.endOpenTurn(record, 'The server restarted and the session workspace is gone.', 'server_restart');
    const current = this.parts.records.get(s.id, null);
    current.session.status = 'closed';
    current.session.closed_at = clock().toISOString();
    store.transaction(() => {
      store.putSession(current);
      events.emit(s.id, { type: 'session.closed', reason });
    });
  }

  /** Ends a session's open turn without resuming it (its session cannot go on). */
  private endOpenTurn(record: SessionRecord, message: string, code: string): void {
    const { store, events, clock } = this.parts.deps;
    const turnId = record.session.active_turn_id;
    const turn = turnId ? store.getTurn(record.session.id, turnId) : undefined;
    if (!turn || !isOpenStatus(turn.status)) return;
    const results = new Map(turn.results.map((r) => [r.tool_use_id, r]));
    const ended: Turn = {
      ...turn,
      results: turn.tool_uses.map((tu) => results.get(tu.id) ?? errorResult(tu.id, `Interrupted: ${message}`)),
      pending: [],
      status: 'interrupted',
      error: { code, message },
      ended_at: clock().toISOString(),
    };
    store.transaction(() => {
      for (const p of store.listPermissions(record.session.id, 'pending')) {
        if (p.turn_id === turn.id) this.parts.broker.abandon(permissionKind, p, message);
      }
      for (const q of store.listQuestions(record.session.id, 'pending')) {
        if (q.turn_id === turn.id) this.parts.broker.abandon(questionKind, q, message);
      }
      for (const r of store.listClientToolRequests(record.session.id, 'pending')) {
        if (r.turn_id === turn.id) this.parts.broker.abandon(clientToolKind, r, message);
      }
      store.putTurn(ended);
      events.emit(record.session.id, { type: 'turn.interrupted', turn: structuredClone(ended) });
    });
  }
}

/** A warning on the session, once. */
function warn(rt: SessionRuntime, warning: string): void {
  rt.settings.update((s: Session) => {
    if (s.warnings.includes(warning)) return false;
    s.warnings = [...s.warnings, warning];
  });
}
