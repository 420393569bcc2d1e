// The kinds of pause a call can make (API.md "Permissions", "Questions", client tools): for each, how its
// request is stored, which events announce and resolve it, and what a timeout or a cancellation
// makes of it. The broker is the same for all; only this table knows a kind's record.
import type { Static, TSchema } from '@sinclair/typebox';
import type { EventInput } from '../contract/events.js';
import type { IdPrefix } from '../ids.js';
import {
  ClientToolResponseSchema,
  PermissionResponseSchema,
  QuestionResponseSchema,
  type ClientToolRequest,
  type ClientToolResponse,
  type PermissionMode,
  type PermissionPreview,
  type PermissionRequest,
  type Question,
  type QuestionItem,
  type ResultBlock,
} from '../contract/schemas.js';
import type { DecisionSchema } from '../contract/schemas.js';
import type { Store } from '../store/store.js';

/** What every stored pause has. */
export interface PauseRecord {
  id: string;
  session_id: string;
  turn_id: string;
  tool_use_id: string;
  status: string;
  created_at: string;
  resolved_at?: string;
}

/** How a stop of the turn (cancel, close, shutdown) resolves a pause. */
export type StopResolver = 'cancel' | 'session_closed';

export interface PauseKind<R extends PauseRecord, A, Resp> {
  readonly name: 'permission' | 'question' | 'client_tool';
  /** The id prefix of new requests (`perm`). */
  readonly idPrefix: IdPrefix;
  /** What a client's answer must look like. */
  readonly responseSchema: TSchema;
  get(store: Store, sessionId: string, id: string): R | undefined;
  put(store: Store, record: R): void;
  requested(record: R): EventInput;
  resolved(record: R): EventInput;
  /** The stored change and the waiting call's answer when the turn stops. */
  onStop(by: StopResolver, reason: string, id: string): Settlement<R, A>;
  /** The same when nobody answered within `seconds`. */
  onTimeout(seconds: number, id: string): Settlement<R, A>;
  /** The same for a client's answer. */
  onAnswer(response: Resp, id: string): Settlement<R, A>;
  /** The stored change for a request nobody waits on any more (after a restart). */
  onAbandon(why: string): Partial<R> & { status: string };
  /**
   * What a client's answer would add to the session beyond settling its request: rules to
   * remember, a mode to switch to. The use case holds it against the answering key's scope
   * before anything is stored (src/app/answer-bounds.ts); a kind whose answers add nothing says so.
   */
  grants(response: Resp): AnswerGrant;
}

/** What an answer adds to its session besides its own outcome. */
export interface AnswerGrant {
  /** Allow rules the answer asks the session to keep. */
  rules: readonly string[];
  /** The mode the answer chooses for the session (ExitPlanMode's approval). */
  mode?: PermissionMode;
}

/** An answer that adds nothing to the session. */
export const NOTHING_GRANTED: AnswerGrant = Object.freeze({ rules: Object.freeze([]) });

export interface Settlement<R, A> {
  update: Partial<R> & { status: string };
  answer: A;
}

// ---- permission requests ---------------------------------------------------------------

/** What a call asks a person about (SPEC §4 ask). */
export interface ApprovalRequest {
  toolUseId: string;
  tool: string;
  input: unknown;
  reason: string;
  suggestions: string[];
  /** What the call would do, stored with the request. */
  preview?: PermissionPreview;
  /** Whether the previewed target changed since (asked when a person answers). */
  stale?: () => boolean;
  /** Makes `preview` and `stale` when a request is stored (not when a hook decides, nor for a request taken up after a restart). */
  makePreview?: () => Promise<{ preview: PermissionPreview; stale?: () => boolean } | null>;
}

type DecidedBy = Static<typeof DecisionSchema>['decided_by'];

/** A rule or mode that decided a waiting request without a person. */
export interface RuleVerdict {
  behavior: 'allow' | 'deny';
  reason: string;
  decidedBy: DecidedBy;
  rules: string[];
}

/** Who ended an ask: a person (client), the timeout, or a rule/mode that changed meanwhile. */
export interface AnswerOrigin {
  by?: 'client' | 'timeout' | 'rule';
  /** With `by: 'rule'`: the verdict that resolved the request. */
  verdict?: RuleVerdict;
  permissionId?: string;
}

export type ApprovalAnswer =
  | ({ behavior: 'allow'; updatedInput?: unknown } & AnswerOrigin)
  | ({ behavior: 'deny'; message?: string; interrupt?: boolean } & AnswerOrigin)
  | { behavior: 'cancelled'; reason: string; permissionId?: string };

/**
 * Evaluates the waiting call again under the session's current rules and mode; a verdict
 * resolves the pending request without a person. Null: a person is still needed.
 */
export type Reevaluate = () => Promise<RuleVerdict | null>;

export type PermissionAnswerBody = Static<typeof PermissionResponseSchema>;

export const permissionKind: PauseKind<PermissionRequest, ApprovalAnswer, PermissionAnswerBody> = {
  name: 'permission',
  idPrefix: 'perm',
  responseSchema: PermissionResponseSchema,
  get: (store, sessionId, id) => store.getPermission(sessionId, id),
  put: (store, record) => store.putPermission(record),
  requested: (p) => ({ type: 'permission.requested', turn_id: p.turn_id, permission: p }),
  resolved: (p) => ({ type: 'permission.resolved', turn_id: p.turn_id, permission: p }),
  onStop: (by, reason, id) => ({
    update: { status: 'cancelled', resolved_by: by },
    answer: { behavior: 'cancelled', reason, permissionId: id },
  }),
  onTimeout: (seconds, id) => ({
    update: { status: 'denied', resolved_by: 'timeout', message: `no answer within permission_timeout_s (${seconds} s)` },
    answer: { behavior: 'deny', message: `no answer within ${seconds} s`, by: 'timeout', permissionId: id },
  }),
  onAbandon: (why) => ({ status: 'cancelled', resolved_by: 'cancel', message: why }),
  grants: (response) =>
    response.behavior === 'allow' ? { rules: response.remember ?? [], ...(response.mode !== undefined ? { mode: response.mode } : {}) } : NOTHING_GRANTED,
  onAnswer: (response, id) =>
    response.behavior === 'allow'
      ? {
          update: {
            status: 'allowed',
            resolved_by: 'client',
            ...(response.updated_input !== undefined ? { updated_input: response.updated_input } : {}),
            ...(response.remember ? { remember: response.remember } : {}),
            ...(response.mode ? { mode: response.mode } : {}),
          },
          answer: {
            behavior: 'allow',
            by: 'client',
            permissionId: id,
            ...(response.updated_input !== undefined ? { updatedInput: response.updated_input } : {}),
          },
        }
      : {
          update: {
            status: 'denied',
            resolved_by: 'client',
            ...(response.message !== undefined ? { message: response.message } : {}),
            ...(response.interrupt !== undefined ? { interrupt: response.interrupt } : {}),
          },
          answer: {
            behavior: 'deny',
            by: 'client',
            permissionId: id,
            ...(response.message !== undefined ? { message: response.message } : {}),
            ...(response.interrupt !== undefined ? { interrupt: response.interrupt } : {}),
          },
        },
};

/** A rule's verdict on a waiting permission request, as stored and as the call sees it. */
export function ruleSettlement(v: RuleVerdict, id: string): Settlement<PermissionRequest, ApprovalAnswer> {
  const rules = v.rules.length > 0 ? { rules: v.rules } : {};
  return v.behavior === 'allow'
    ? { update: { status: 'allowed', resolved_by: 'rule', ...rules }, answer: { behavior: 'allow', by: 'rule', verdict: v, permissionId: id } }
    : {
        update: { status: 'denied', resolved_by: 'rule', message: v.reason, ...rules },
        answer: { behavior: 'deny', by: 'rule', verdict: v, permissionId: id, message: v.reason },
      };
}

// ---- questions (AskUser) ---------------------------------------------------------------

/** What a call asks a person (AskUser). */
export interface QuestionAsk {
  toolUseId: string;
  questions: QuestionItem[];
}

/** How a question ended, as the waiting call learns it. */
export type QuestionAnswer =
  | { outcome: 'answered'; answers: Record<string, string | string[]>; response?: string; questionId: string }
  | { outcome: 'dismissed'; message?: string; by: 'client' | 'timeout'; questionId: string }
  | { outcome: 'cancelled'; reason: string; questionId: string };

/** A client's answer, checked against the questions asked (interactions use case) before it gets here. */
export type QuestionAnswerBody = Static<typeof QuestionResponseSchema>;

export const questionKind: PauseKind<Question, QuestionAnswer, QuestionAnswerBody> = {
  name: 'question',
  idPrefix: 'q',
  responseSchema: QuestionResponseSchema,
  get: (store, sessionId, id) => store.getQuestion(sessionId, id),
  put: (store, record) => store.putQuestion(record),
  requested: (q) => ({ type: 'question.asked', turn_id: q.turn_id, question: q }),
  resolved: (q) => ({ type: 'question.answered', turn_id: q.turn_id, question: q }),
  onStop: (by, reason, id) => ({
    update: { status: 'cancelled', resolved_by: by, message: reason },
    answer: { outcome: 'cancelled', reason, questionId: id },
  }),
  onTimeout: (seconds, id) => {
    const message = `no answer within question_timeout_s (${seconds} s)`;
    return { update: { status: 'timed_out', resolved_by: 'timeout', message }, answer: { outcome: 'dismissed', message, by: 'timeout', questionId: id } };
  },
  onAbandon: (why) => ({ status: 'cancelled', resolved_by: 'cancel', message: why }),
  // An answer is the call's result: it changes nothing else in the session.
  grants: () => NOTHING_GRANTED,
  onAnswer: (response, id) =>
    'dismiss' in response
      ? {
          update: { status: 'dismissed', resolved_by: 'client', ...(response.message !== undefined ? { message: response.message } : {}) },
          answer: { outcome: 'dismissed', by: 'client', questionId: id, ...(response.message !== undefined ? { message: response.message } : {}) },
        }
      : {
          update: { status: 'answered', resolved_by: 'client', answers: response.answers, ...(response.response !== undefined ? { response: response.response } : {}) },
          answer: { outcome: 'answered', answers: response.answers, questionId: id, ...(response.response !== undefined ? { response: response.response } : {}) },
        },
};

// ---- client tools ----------------------------------------------------------------------

/** A call of a tool the session's client runs. */
export interface ClientToolCall {
  toolUseId: string;
  name: string;
  input: unknown;
}

/** How a client-tool request ended, as the waiting call learns it. */
export type ClientToolAnswer =
  | { outcome: 'answered'; content: ResultBlock[]; isError: boolean; requestId: string }
  | { outcome: 'timed_out'; message: string; requestId: string }
  | { outcome: 'cancelled'; reason: string; requestId: string };

/** The answer's content as tool_result blocks: a string is one text block (an empty one, none). */
export function answerBlocks(content: ClientToolResponse['content']): ResultBlock[] {
  if (typeof content !== 'string') return content;
  return content === '' ? [] : [{ type: 'text', text: content }];
}

export const clientToolKind: PauseKind<ClientToolRequest, ClientToolAnswer, ClientToolResponse> = {
  name: 'client_tool',
  idPrefix: 'ct',
  responseSchema: ClientToolResponseSchema,
  get: (store, sessionId, id) => store.getClientToolRequest(sessionId, id),
  put: (store, record) => store.putClientToolRequest(record),
  requested: (r) => ({ type: 'client_tool.requested', turn_id: r.turn_id, request: r }),
  resolved: (r) => ({ type: 'client_tool.resolved', turn_id: r.turn_id, request: r }),
  onStop: (by, reason, id) => ({
    update: { status: 'cancelled', resolved_by: by, message: reason },
    answer: { outcome: 'cancelled', reason, requestId: id },
  }),
  // The same setting as questions: both wait for the other side of the API to answer.
  onTimeout: (seconds, id) => {
    const message = `the client did not answer within ${seconds} s (question_timeout_s)`;
    return { update: { status: 'timed_out', resolved_by: 'timeout', message }, answer: { outcome: 'timed_out', message, requestId: id } };
  },
  onAbandon: (why) => ({ status: 'cancelled', resolved_by: 'cancel', message: why }),
  // The answer is the call's result: it changes nothing else in the session.
  grants: () => NOTHING_GRANTED,
  // The content is not stored with the request: it becomes the call's tool_result, which is capped
  // and spilled like any tool's output (a request record stays small however large the answer).
  onAnswer: (response, id) => {
    const isError = response.is_error === true;
    return {
      update: { status: 'answered', resolved_by: 'client', is_error: isError },
      answer: { outcome: 'answered', content: answerBlocks(response.content), isError, requestId: id },
    };
  },
};
