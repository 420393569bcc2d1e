// Audit use cases: the decision trail, hook runs, egress evidence, spill outputs, and the
// whole-session export.
import type { Decision, Output } from '../contract/schemas.js';
import type { NormaEvent } from '../contract/events.js';
import { DomainError, notFound } from '../errors.js';
import type { DecisionQuery } from '../store/store.js';
import type { OpenOutput } from '../store/outputs.js';
import type { Parts } from './parts.js';
import type { Scope } from './scope.js';

/** A page of one kind of audit events, and where the next page starts. */
export interface EventPage {
  items: NormaEvent[];
  next_after: number | null;
}

export class AuditUseCases {
  constructor(private readonly parts: Parts) {}

  decisions(scope: Scope, sessionId: string, query: DecisionQuery): { items: Decision[]; next_after: number | null } {
    this.parts.records.get(sessionId, scope.tenant);
    const page = this.parts.deps.store.listDecisions(sessionId, { ...query, limit: query.limit + 1 });
    const items = page.slice(0, query.limit);
    return { items, next_after: page.length > query.limit ? items[items.length - 1]!.seq : null };
  }

  /** Every `hook.completed` / `hook.failed` event of the session, paged by seq. */
  hookRuns(scope: Scope, sessionId: string, afterSeq: number, limit: number): EventPage {
    return this.eventsPage(scope, sessionId, ['hook.completed', 'hook.failed'], afterSeq, limit);
  }

  /** Every `egress.request` event of the session, paged by seq. */
  egress(scope: Scope, sessionId: string, afterSeq: number, limit: number): EventPage {
    return this.eventsPage(scope, sessionId, ['egress.request'], afterSeq, limit);
  }

  /** Every `mcp.request` event of the session, paged by seq. */
  mcpRequests(scope: Scope, sessionId: string, afterSeq: number, limit: number): EventPage {
    return this.eventsPage(scope, sessionId, ['mcp.request'], afterSeq, limit);
  }

  outputs(scope: Scope, sessionId: string): Output[] {
    this.parts.records.get(sessionId, scope.tenant);
    return this.parts.deps.store.listOutputs(sessionId);
  }

  /** The record of an output to serve and the way to open its file; 404 unknown, 410 removed by retention. */
  outputForDownload(scope: Scope, sessionId: string, outputId: string): { output: Output; open: () => Promise<OpenOutput> } {
    this.parts.records.get(sessionId, scope.tenant);
    const output = this.parts.deps.store.getOutput(sessionId, outputId);
    if (!output) throw notFound('output', outputId);
    if (output.status !== 'available') {
      throw new DomainError('gone', `output ${outputId} was removed by retention at ${output.expired_at ?? 'an earlier time'}; its record (sha256 ${output.sha256}) remains`);
    }
    return { output, open: () => this.parts.deps.outputs.open(sessionId, outputId) };
  }

  /**
   * The parts of a session export other than its events (those are streamed page by page), its
   * decisions up to `decisionsUpTo` (the signed head's).
   */
  exportHead(scope: Scope, id: string, decisionsUpTo = Number.MAX_SAFE_INTEGER) {
    const { session, todos } = this.parts.records.get(id, scope.tenant);
    const { store } = this.parts.deps;
    const decisions: Decision[] = [];
    for (let after = 0; ; ) {
      const page = store.listDecisions(id, { afterSeq: after, limit: 1000 });
      decisions.push(...page.filter((d) => d.seq <= decisionsUpTo));
      if (page.length < 1000 || page.at(-1)!.seq >= decisionsUpTo) break;
      after = page.at(-1)!.seq;
    }
    return {
      format: 'norma.session-export' as const,
      version: 1 as const,
      exported_at: this.parts.deps.clock().toISOString(),
      session,
      turns: store.listTurns(id),
      permissions: store.listPermissions(id),
      questions: store.listQuestions(id),
      client_tool_requests: store.listClientToolRequests(id),
      todos: todos ?? { items: [], updated_at: null },
      decisions,
      outputs: store.listOutputs(id),
    };
  }

  /** The session's durable events in seq order up to `upTo` (the signed head's), a page at a time. */
  *exportEvents(scope: Scope, id: string, upTo = Number.MAX_SAFE_INTEGER, pageSize = 1000) {
    this.parts.records.get(id, scope.tenant);
    for (let after = 0; ; ) {
      const page = this.parts.deps.store.eventsAfter(id, after, pageSize).filter((e) => e.seq <= upTo);
      if (page.length > 0) yield page;
      if (page.length < pageSize || page.at(-1)!.seq >= upTo) return;
      after = page.at(-1)!.seq;
    }
  }

  private eventsPage(scope: Scope, sessionId: string, types: string[], afterSeq: number, limit: number): EventPage {
    this.parts.records.get(sessionId, scope.tenant);
    const page = this.parts.deps.store.eventsOfTypes(sessionId, types, afterSeq, limit + 1);
    const items = page.slice(0, limit);
    return { items, next_after: page.length > limit ? items[items.length - 1]!.seq : null };
  }
}
