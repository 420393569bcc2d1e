// Turn use cases: start one (direct or prompt), read, list, wait for it to settle, cancel.
import { emptyUsage } from '../session/spending.js';
import type { Turn, TurnCreate } from '../contract/schemas.js';
import { DomainError, notFound } from '../errors.js';
import { newTurnRunner, nothingToResume } from '../session/runner.js';
import { TurnStop } from '../session/turn.js';
import { checkTurnLimit } from './limits.js';
import type { Parts } from './parts.js';
import type { Scope } from './scope.js';

export class TurnUseCases {
  constructor(private readonly parts: Parts) {}

  /** Starts a turn; `inCommit` is called with it inside the transaction that stores it (a throw there stores nothing). */
  start(scope: Scope, sessionId: string, body: TurnCreate, inCommit?: (turn: Turn) => void): Turn {
    const { parts } = this;
    // A live session as its runtime holds it (the stored record as committed), else as stored:
    // 404 for an unknown session or another tenant's, 409 for a closed one.
    const live = parts.runtimes.get(sessionId);
    const session = live && visibleTo(scope, live.settings.session.tenant) ? live.settings.session : parts.records.get(sessionId, scope.tenant).session;
    const rt = parts.runtimes.require(sessionId);
    // The HTTP schema already holds a turn to exactly one kind; callers inside the server are held here.
    const prompt = 'prompt' in body ? body.prompt : undefined;
    const direct = 'tool_uses' in body ? body.tool_uses : undefined;
    if (prompt !== undefined && direct !== undefined) {
      throw new DomainError('invalid', 'a turn has either `tool_uses` (direct) or `prompt`, not both');
    }
    if (prompt === undefined && direct === undefined) throw new DomainError('invalid', 'a turn needs `tool_uses` (direct) or `prompt`');
    if (prompt !== undefined && !rt.model) {
      throw new DomainError(
        'invalid',
        'this session has no model, so it cannot run prompt turns: give `model` when creating the session, or configure NORMA_MODEL_PROVIDER on the server; direct turns (`tool_uses`) work without one',
      );
    }
    const budget = 'budget' in body ? body.budget : undefined;
    if (budget?.max_usd !== undefined && rt.model && !parts.prices.lookup(rt.model.provider, rt.model.model)) {
      throw new DomainError('invalid', `budget.max_usd: ${rt.model.provider} model ${JSON.stringify(rt.model.model)} has no known price (the operator can give one in NORMA_MODEL_PRICES); use max_tokens instead`);
    }
    if (parts.stopping) throw new DomainError('unavailable', 'the server is shutting down; post the turn again once it is back');
    if (rt.compacting) throw new DomainError('conflict', `session ${sessionId} is being compacted (POST …/compact); post the turn once that has ended`);
    if (rt.activeTurn) {
      throw new DomainError('conflict', `session ${sessionId} already runs turn ${rt.activeTurn.id} (${rt.activeTurn.turn.status}); one turn runs at a time`);
    }
    const seen = new Set<string>();
    const toolUses = (direct ?? []).map((tu, i) => {
      const id = tu.id ?? parts.deps.newId('toolu');
      if (seen.has(id)) throw new DomainError('invalid', `tool_uses[${i}].id: ${JSON.stringify(id)} repeats an earlier id in this turn`);
      seen.add(id);
      return { type: 'tool_use' as const, id, name: tu.name, input: tu.input ?? {} };
    });

    const turn: Turn = {
      id: parts.deps.newId('turn'),
      session_id: sessionId,
      kind: prompt !== undefined ? 'prompt' : 'direct',
      status: 'running',
      tool_uses: toolUses,
      results: [],
      pending: [],
      ...(prompt !== undefined
        ? {
            prompt: typeof prompt === 'string' ? [{ type: 'text' as const, text: prompt }] : prompt,
            messages: [],
            model_calls: 0,
            usage: emptyUsage(),
            ...(budget ? { budget } : {}),
          }
        : {}),
      created_at: parts.deps.clock().toISOString(),
    };
    const runner = newTurnRunner(rt, turn, nothingToResume(), parts.runner);
    // The turn, the session's pointer to it and turn.started commit together; only then is it
    // the session's turn in memory too (a failed commit leaves the session free for the next).
    // The tenant's limit is checked in the same transaction, on a count no other replica can
    // change before it commits; `inCommit` records what the caller keeps about the turn with it.
    parts.deps.store.transaction(() => {
      checkTurnLimit(parts, session.tenant);
      parts.deps.store.putTurn(turn);
      rt.settings.setActiveTurn(turn.id);
      runner.announce();
      inCommit?.(structuredClone(turn));
    });
    rt.activeTurn = runner;
    runner.start();
    return structuredClone(runner.turn);
  }

  /** Resolves when the turn, running here, ends or pauses for a person; null when it does not run here. */
  settling(sessionId: string, turnId: string): Promise<void> | null {
    const active = this.parts.runtimes.get(sessionId)?.activeTurn;
    if (active?.id !== turnId) return null;
    return active.waitSettled(6 * 3600_000);
  }

  get(scope: Scope, sessionId: string, turnId: string): Turn {
    this.ensureVisible(scope, sessionId);
    const t = this.parts.deps.store.getTurn(sessionId, turnId);
    if (!t) throw notFound('turn', turnId);
    return t;
  }

  list(scope: Scope, sessionId: string): Turn[] {
    this.ensureVisible(scope, sessionId);
    return this.parts.deps.store.listTurns(sessionId);
  }

  /** Waits up to `seconds` for the turn to finish or pause, then returns it as it is. */
  async wait(scope: Scope, sessionId: string, turnId: string, seconds: number): Promise<Turn> {
    const active = this.parts.runtimes.get(sessionId)?.activeTurn;
    if (active?.id !== turnId) return this.get(scope, sessionId, turnId);
    const until = Date.now() + seconds * 1000;
    await active.waitSettled(seconds * 1000);
    // Its final state commits a moment later with a store that does not wait for commits.
    if (active.isFinal() && !active.stored) await active.waitStored(Math.max(0, until - Date.now()));
    // A direct turn that ended is what its runner last stored (the final write has committed by
    // now): its copy is the answer, without reading the turn back.
    if (active.turn.kind === 'direct' && active.isFinal() && active.stored) {
      this.ensureVisible(scope, sessionId);
      return structuredClone(active.turn);
    }
    return this.get(scope, sessionId, turnId);
  }

  /** 404 for an unknown session or another tenant's; a live one is checked without reading the store. */
  private ensureVisible(scope: Scope, sessionId: string): void {
    const live = this.parts.runtimes.get(sessionId);
    if (live && visibleTo(scope, live.settings.session.tenant)) return;
    this.parts.records.get(sessionId, scope.tenant);
  }

  cancel(scope: Scope, sessionId: string, turnId: string): Turn {
    const turn = this.get(scope, sessionId, turnId);
    const active = this.parts.runtimes.get(sessionId)?.activeTurn;
    if (active?.id === turnId) {
      active.stop(new TurnStop('the turn was cancelled by the client', 'cancel'), 'cancelled', {
        code: 'cancelled',
        message: 'The turn was cancelled by the client.',
      });
      return this.get(scope, sessionId, turnId);
    }
    if (turn.status === 'cancelled') return turn;
    throw new DomainError('conflict', `turn ${turnId} has already ended (${turn.status})`);
  }
}

function visibleTo(scope: Scope, tenant: string): boolean {
  return scope.tenant === null || scope.tenant === tenant;
}
