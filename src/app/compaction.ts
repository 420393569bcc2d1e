// Compaction on demand (POST …/compact): the session's conversation compacted between turns, the
// result recorded on its last prompt turn (what later turns send instead of the messages it
// covers; the full transcript stays). Refused while a turn runs, and for a session without a
// model; a summary that fails, or a budget reached, is a 409 that names why, and nothing changes.
import type { CompactRequest, CompactResult, Compaction, Turn } from '../contract/schemas.js';
import { DomainError } from '../errors.js';
import type { Message } from '../model/provider.js';
import { conversationOf } from '../session/compaction.js';
import { sessionCompactor, sessionModelParts } from '../session/model-parts.js';
import type { Parts } from './parts.js';
import type { Scope } from './scope.js';

export class CompactionUseCases {
  constructor(private readonly parts: Parts) {}

  async compact(scope: Scope, sessionId: string, body: CompactRequest): Promise<CompactResult> {
    const { parts } = this;
    parts.records.get(sessionId, scope.tenant); // 404 for an unknown session (or another tenant's)
    const rt = parts.runtimes.require(sessionId);
    if (!rt.model) throw new DomainError('invalid', 'this session has no model: it has no conversation to compact, and no model to summarise one');
    if (rt.activeTurn) throw new DomainError('conflict', `session ${sessionId} runs turn ${rt.activeTurn.id}; compact when it has ended (a running turn compacts on its own, unless compaction.auto is false)`);
    if (rt.compacting) throw new DomainError('conflict', `session ${sessionId} is being compacted already`);
    const { store, clock } = parts.deps;
    const turns = store.listTurns(sessionId).filter((t) => t.kind === 'prompt' && t.rewound_at === undefined);
    const last = turns.at(-1);
    if (!last) return { compacted: false, turn_id: null, compaction: null, detail: 'the session has no prompt turn yet: there is nothing to compact' };
    rt.compacting = true;
    try {
      const { spending } = sessionModelParts(rt, parts.runner);
      const compactor = sessionCompactor(rt, parts.runner, null);
      const tools = rt.registry.exposed().map((t) => ({ name: t.name, description: t.description, input_schema: t.input_schema }));
      const overhead = (rt.settings.session.system_prompt?.length ?? 0) + JSON.stringify(tools).length;
      // Between turns only the session's and the tenant's budgets apply, and nobody is asked.
      const between = { budget: undefined, usage: undefined } as unknown as Turn;
      const outcome = await compactor.compact({
        conversation: conversationOf(turns) as Message[],
        trigger: 'manual',
        overheadChars: overhead,
        threshold: rt.settings.session.compaction.threshold,
        turn: null,
        gate: async (chars) => {
          const reached = spending.check(between, { inputChars: chars });
          return reached ? { go: false, message: `${reached.reason}; raise it (PATCH the session's budget) or let a turn ask` } : { go: true };
        },
        ...(body.instructions !== undefined ? { instructions: body.instructions } : {}),
        signal: AbortSignal.timeout(10 * 60_000),
      });
      if (!outcome.ok) {
        if (outcome.nothing) return { compacted: false, turn_id: last.id, compaction: null, detail: outcome.reason };
        throw new DomainError('conflict', `the conversation could not be compacted: ${outcome.reason}`);
      }
      const record: Compaction = { id: outcome.id, ...outcome.facts, covers: (last.messages ?? []).length, messages: outcome.messages, created_at: clock().toISOString() };
      if (parts.runtimes.get(sessionId) !== rt) throw new DomainError('conflict', `session ${sessionId} was closed while its conversation was compacted; nothing was recorded`);
      store.transaction(() => {
        // Read again: the turn as stored now (a rewind meanwhile would have marked it).
        const current = store.getTurn(sessionId, last.id);
        if (!current || current.rewound_at !== undefined) throw new DomainError('conflict', `turn ${last.id} was rewound while the conversation was compacted; nothing was recorded`);
        store.putTurn({ ...current, compaction: record });
        parts.deps.events.emit(sessionId, { type: 'compaction.completed', turn_id: last.id, compaction_id: record.id, ...outcome.facts });
      });
      await compactor.completed(outcome, null, AbortSignal.timeout(60_000));
      return { compacted: true, turn_id: last.id, compaction: record };
    } finally {
      rt.compacting = false;
    }
  }
}
