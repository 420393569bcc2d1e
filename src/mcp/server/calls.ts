// `tools/call` over MCP: one direct turn of the session with the one call, through the whole
// pipeline (rules, asks, hooks, sandbox, output cap, audit trail), watched through the session's
// events: its progress becomes `notifications/progress`, its permission requests and questions
// become elicitations when the client declared them (and stay answerable over the REST API and
// the console: the first answer wins), and its tool_result becomes the call's result. A cancelled
// MCP request cancels the turn.
import type { FastifyBaseLogger } from 'fastify';
import type { AppContext } from '../../app-context.js';
import type { Scope } from '../../app/scope.js';
import type { NormaEvent } from '../../contract/events.js';
import type { Turn } from '../../contract/schemas.js';
import { DomainError } from '../../errors.js';
import type { CallToolResult, ElicitRequestFormParams, ElicitResult, ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import { callToolResult } from './content.js';
import { permissionAnswer, permissionForm, questionAnswer, questionForm } from './asks.js';

/** What a call needs of its MCP session. */
export interface CallLink {
  readonly sessionId: string;
  /** The client declared form elicitation. */
  readonly elicitation: boolean;
  /** Sends `elicitation/create` on the call's stream. */
  elicit(params: ElicitRequestFormParams, options: { relatedRequestId: string | number; signal: AbortSignal }): Promise<ElicitResult>;
  /** Called when the session's tools or settings change (what may be called is read again). */
  toolsChanged: () => void;
  /** The MCP session is being let go (idle, room, shutdown): its calls' aborts are not the client's cancellations. */
  readonly lettingGo: boolean;
  /** Marks a call running: the MCP session is not let go while it runs. Returns the release. */
  hold(): () => void;
}

export type CallExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

const FINAL = new Set(['turn.completed', 'turn.failed', 'turn.cancelled', 'turn.interrupted']);
/** Calls of one session that may wait here behind the one running; more are answered at once. */
export const MAX_QUEUED_CALLS = 8;
/** The longest progress message sent (a tool's output chunk can be large; the result has it all). */
const PROGRESS_CHARS = 2000;

export class ToolCalls {
  /** The last call of each session here: a session runs one turn at a time, so its calls queue. */
  private readonly queues = new Map<string, Promise<unknown>>();
  /** Calls of each session here that have not ended (the running one and those queued). */
  private readonly depth = new Map<string, number>();

  constructor(
    private readonly ctx: AppContext,
    private readonly log: FastifyBaseLogger,
  ) {}

  /** Runs the call once the session's earlier MCP calls here have ended. */
  run(link: CallLink, scope: Scope, name: string, input: Record<string, unknown>, extra: CallExtra): Promise<CallToolResult> {
    const sessionId = link.sessionId;
    const depth = this.depth.get(sessionId) ?? 0;
    if (depth > MAX_QUEUED_CALLS) {
      return Promise.resolve({ content: [{ type: 'text', text: `The call did not run: ${depth} calls of this session are already running or waiting here (at most ${MAX_QUEUED_CALLS} wait); try again when one has ended.` }], isError: true });
    }
    this.depth.set(sessionId, depth + 1);
    const release = link.hold();
    const before = this.queues.get(sessionId) ?? Promise.resolve();
    const mine = before.then(() => (extra.signal.aborted ? cancelledResult() : this.runNow(link, scope, name, input, extra)));
    const settled = mine.catch(() => {});
    this.queues.set(sessionId, settled);
    void settled.then(() => {
      release();
      const left = (this.depth.get(sessionId) ?? 1) - 1;
      if (left > 0) this.depth.set(sessionId, left);
      else this.depth.delete(sessionId);
      if (this.queues.get(sessionId) === settled) this.queues.delete(sessionId);
    });
    return mine;
  }

  private async runNow(link: CallLink, scope: Scope, name: string, input: Record<string, unknown>, extra: CallExtra): Promise<CallToolResult> {
    const { ctx } = this;
    const sessionId = link.sessionId;
    const place = await ctx.admission.enter(scope.tenant ?? '', extra.signal);
    let turnId: string | undefined;
    const early: NormaEvent[] = [];
    const asking = new Map<string, AbortController>();
    let progress = 0;
    let settle!: (turn: Turn) => void;
    const ended = new Promise<Turn>((resolve) => (settle = resolve));

    const onEvent = (e: NormaEvent) => {
      if (turnId === undefined) return void early.push(e);
      const of = 'turn' in e && typeof e.turn === 'object' ? e.turn.id : 'turn_id' in e ? e.turn_id : undefined;
      if (of !== turnId) return;
      if (FINAL.has(e.type) && 'turn' in e && typeof e.turn === 'object') return settle(e.turn);
      if (e.type === 'tool.progress' && e.parent_tool_use_id === undefined) {
        const token = extra._meta?.progressToken;
        if (token === undefined) return;
        progress++;
        void extra
          .sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress, message: e.chunk.slice(0, PROGRESS_CHARS) } })
          .catch(() => {});
        return;
      }
      if (e.type === 'permission.requested' || e.type === 'question.asked') {
        if (!link.elicitation) return;
        const id = e.type === 'permission.requested' ? e.permission.id : e.question.id;
        const abort = new AbortController();
        asking.set(id, abort);
        void this.ask(link, scope, e, extra, abort.signal).finally(() => asking.delete(id));
        return;
      }
      if (e.type === 'permission.resolved' || e.type === 'question.answered') {
        // Answered elsewhere (the REST API, the console, a rule, the timeout): the form is withdrawn.
        const id = e.type === 'permission.resolved' ? e.permission.id : e.question.id;
        asking.get(id)?.abort(new Error(`${id} was resolved`));
      }
    };

    const subscription = ctx.events.subscribe(sessionId, ctx.events.lastSeq(sessionId), onEvent);
    const cancel = () => {
      // Letting the MCP session go (the SDK aborts every handler on close) is not the client
      // cancelling: the turn goes on, and its result stays in the session.
      if (turnId === undefined || link.lettingGo) return;
      ctx.owner.call(scope, 'turns.cancel', sessionId, turnId).catch((err: Error) => this.log.warn({ err, session_id: sessionId }, 'cancelling an MCP call\'s turn failed'));
    };
    extra.signal.addEventListener('abort', cancel, { once: true });
    try {
      let turn: Turn;
      try {
        turn = await ctx.owner.call(scope, 'turns.start', sessionId, { tool_uses: [{ name, input }] });
      } catch (err) {
        place.release();
        // Another client's turn runs (a REST turn, or another MCP session's): said as the call's result.
        if (err instanceof DomainError && err.kind === 'conflict') return { content: [{ type: 'text', text: `The call did not run: ${err.message}.` }], isError: true };
        throw err;
      }
      turnId = turn.id;
      const settling = ctx.app.turns.settling(sessionId, turn.id);
      if (settling) void settling.finally(() => place.release());
      else place.release();
      for (const e of early.splice(0)) onEvent(e);
      if (extra.signal.aborted) cancel();
      if (!settling) {
        // Run by another replica: its final event may have come before this subscription saw the turn's id.
        const stored = await ctx.owner.call(scope, 'turns.wait', sessionId, turn.id, 0);
        if (isFinal(stored)) settle(stored);
      }
      const final = await ended;
      const result = final.results.find((r) => r.tool_use_id === turn.tool_uses[0]?.id);
      if (!result) return { content: [{ type: 'text', text: `The call has no result: the turn ended ${final.status}.` }], isError: true };
      return callToolResult(sessionId, result);
    } finally {
      extra.signal.removeEventListener('abort', cancel);
      subscription.close();
      for (const a of asking.values()) a.abort(new Error('the call ended'));
    }
  }

  /** Asks a pending request through the client's elicitation; an answer that fits is given as the REST API would take it. */
  private async ask(link: CallLink, scope: Scope, e: NormaEvent, extra: CallExtra, signal: AbortSignal): Promise<void> {
    const sessionId = link.sessionId;
    try {
      if (e.type === 'permission.requested') {
        const result = await link.elicit(permissionForm(e.permission), { relatedRequestId: extra.requestId, signal });
        const answer = permissionAnswer(e.permission, result);
        if (answer) await this.ctx.owner.call(scope, 'interactions.answerPermission', sessionId, e.permission.id, answer);
      } else if (e.type === 'question.asked') {
        const result = await link.elicit(questionForm(e.question), { relatedRequestId: extra.requestId, signal });
        const answer = questionAnswer(e.question, result);
        if (answer) await this.ctx.owner.call(scope, 'interactions.answerQuestion', sessionId, e.question.id, answer);
      }
    } catch (err) {
      // Answered first elsewhere (409), withdrawn, refused by the key's scope, or not fitting the
      // form: the request stays as it is, answerable over the REST API until its timeout.
      if (signal.aborted || (err instanceof DomainError && err.kind === 'conflict')) return;
      this.log.info({ err, session_id: sessionId }, 'an MCP client\'s answer to a request was not taken');
    }
  }
}

function cancelledResult(): CallToolResult {
  return { content: [{ type: 'text', text: 'The call was cancelled before it ran.' }], isError: true };
}

function isFinal(turn: Turn): boolean {
  return turn.status === 'completed' || turn.status === 'failed' || turn.status === 'cancelled' || turn.status === 'interrupted';
}
