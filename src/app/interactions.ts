// Answering pauses: list a session's permission requests, questions and client-tool requests, answer one. An answer
// and the rules it remembers are stored in one transaction, before the waiting call goes on; an
// approval of ExitPlanMode carries the mode to go on in as its updated input. What an answer adds
// to the session is bounded by the answering key's scope (answer-bounds.ts) before anything is stored.
import type {
  ClientToolRequest,
  ClientToolResponse,
  ClientToolStatus,
  PermissionMode,
  PermissionRequest,
  PermissionResponse,
  PermissionStatus,
  Question,
  QuestionResponse,
  QuestionStatus,
} from '../contract/schemas.js';
import { DomainError, notFound } from '../errors.js';
import { answerBlocks, clientToolKind, permissionKind, questionKind } from '../interaction/kinds.js';
import { MAX_IMAGE_BASE64_CHARS } from '../mcp/content.js';
import { parseRules } from '../permission/rules.js';
import type { Parts } from './parts.js';
import type { Scope } from './scope.js';
import { clampMode } from '../contract/tenant.js';
import { requireModeWithin } from './sessions.js';
import { mayChangeSession, requireAnswerWithin } from './answer-bounds.js';
import { BUDGET_TOOL } from '../session/budget-gate.js';
import { MAX_BUDGET_USD, type BudgetAsk } from '../contract/budget.js';
import { SESSION_CHANGE_ACCESS } from './scope.js';

export class InteractionUseCases {
  constructor(private readonly parts: Parts) {}

  listPermissions(scope: Scope, sessionId: string, status?: PermissionStatus): PermissionRequest[] {
    this.parts.records.get(sessionId, scope.tenant);
    return this.parts.deps.store.listPermissions(sessionId, status);
  }

  getPermission(scope: Scope, sessionId: string, permissionId: string): PermissionRequest {
    this.parts.records.get(sessionId, scope.tenant); // 404 for an unknown session (or another tenant's)
    const request = this.parts.deps.store.getPermission(sessionId, permissionId);
    if (!request) throw notFound('permission request', permissionId);
    return request;
  }

  answerPermission(scope: Scope, sessionId: string, permissionId: string, response: PermissionResponse): PermissionRequest {
    const { session } = this.parts.records.get(sessionId, scope.tenant); // 404 for an unknown session (or another tenant's)
    const remember = response.behavior === 'allow' ? (response.remember ?? []) : [];
    if (remember.length > 0) {
      const { problems } = parseRules('remember', remember);
      if (problems.length > 0) throw new DomainError('invalid', problems.join('; '), problems);
    }
    const request = this.parts.deps.store.getPermission(sessionId, permissionId);
    const rt = this.parts.runtimes.get(sessionId);
    let answer = response;
    // Without a choice, an approval of ExitPlanMode returns to the mode before plan mode.
    let returnTo: PermissionMode | undefined;
    if (response.behavior === 'allow' && request) {
      if (request.tool === 'ExitPlanMode') {
        // The approval says which mode the work goes on in: the person's choice, else the mode
        // before plan mode — never one the model named itself. The call's effect switches to it.
        const input = (response.updated_input ?? request.input) as { next_mode?: PermissionMode };
        const before = rt?.settings.session.mode_before_plan ?? null;
        requireModeWithin(this.parts, session.tenant, response.mode, 'mode');
        // The mode before plan mode may be looser than a policy tightened since: then the maximum.
        returnTo = clampMode(before ?? 'default', this.parts.deps.tenants.policyOf(session.tenant)?.maxMode);
        answer = { ...response, updated_input: { ...(input as object), next_mode: response.mode ?? returnTo } };
      } else if (response.mode !== undefined) {
        throw new DomainError('invalid', `mode: only an approval of ExitPlanMode switches the mode; this request is about ${request.tool}`);
      }
    }
    if (request?.tool === BUDGET_TOOL && request.status === 'pending') checkBudgetAnswer(scope, request, response);
    // What the answer adds (rules, a mode) is bounded by the key's scope; refused, nothing is stored.
    if (request?.status === 'pending') {
      requireAnswerWithin(scope, permissionKind.grants(response), { suggestions: request.suggestions, ...(returnTo !== undefined ? { mode: returnTo } : {}) });
    }
    const now = this.parts.deps.clock().toISOString();
    return this.parts.broker.answer(
      permissionKind,
      sessionId,
      permissionId,
      answer,
      () => {
        if (remember.length > 0 && rt) rt.settings.remember(remember, now);
      },
      scope.key,
    );
  }

  listQuestions(scope: Scope, sessionId: string, status?: QuestionStatus): Question[] {
    this.parts.records.get(sessionId, scope.tenant);
    return this.parts.deps.store.listQuestions(sessionId, status);
  }

  getQuestion(scope: Scope, sessionId: string, questionId: string): Question {
    this.parts.records.get(sessionId, scope.tenant);
    const asked = this.parts.deps.store.getQuestion(sessionId, questionId);
    if (!asked) throw notFound('question', questionId);
    return asked;
  }

  /** An answer must fit the questions asked; a dismissal always does. Unknown ids are 404, resolved ones 409. */
  answerQuestion(scope: Scope, sessionId: string, questionId: string, response: QuestionResponse): Question {
    this.parts.records.get(sessionId, scope.tenant);
    const asked = this.parts.deps.store.getQuestion(sessionId, questionId);
    if (!asked) throw notFound('question', questionId);
    if (asked.status === 'pending' && !('dismiss' in response)) {
      const problems = answerProblems(asked, response);
      if (problems.length > 0) throw new DomainError('invalid', problems.join('; '), problems);
    }
    if (asked.status === 'pending') requireAnswerWithin(scope, questionKind.grants(response), { suggestions: [] });
    return this.parts.broker.answer(questionKind, sessionId, questionId, response, undefined, scope.key);
  }

  listClientToolRequests(scope: Scope, sessionId: string, status?: ClientToolStatus): ClientToolRequest[] {
    this.parts.records.get(sessionId, scope.tenant);
    return this.parts.deps.store.listClientToolRequests(sessionId, status);
  }

  getClientToolRequest(scope: Scope, sessionId: string, requestId: string): ClientToolRequest {
    this.parts.records.get(sessionId, scope.tenant);
    const request = this.parts.deps.store.getClientToolRequest(sessionId, requestId);
    if (!request) throw notFound('client-tool request', requestId);
    return request;
  }

  /** The client's answer: its content becomes the call's result. Unknown ids are 404, resolved ones 409. */
  answerClientTool(scope: Scope, sessionId: string, requestId: string, response: ClientToolResponse): ClientToolRequest {
    this.parts.records.get(sessionId, scope.tenant);
    if (typeof response.content !== 'string') {
      // An image goes to the model as it is (never capped): as large as an MCP tool's may be, no larger.
      const problems = response.content.flatMap((b, i) =>
        b.type === 'image' && b.source.data.length > MAX_IMAGE_BASE64_CHARS ? [`content[${i}]: the image is ${b.source.data.length} characters of base64; at most ${MAX_IMAGE_BASE64_CHARS} are passed to a model`] : [],
      );
      if (problems.length > 0) throw new DomainError('invalid', problems.join('; '), problems);
    }
    // Stored with the answered request, in its transaction: a restart before the call's result is
    // stored completes the call from it instead of losing what the client sent.
    const store = this.parts.deps.store;
    const keep = () => store.putClientToolAnswer(sessionId, requestId, { content: answerBlocks(response.content), is_error: response.is_error === true });
    return this.parts.broker.answer(clientToolKind, sessionId, requestId, response, keep, scope.key);
  }
}

/**
 * What is wrong with answers to these questions: a question that was not asked, several labels
 * for a single-choice question, a label in a list that was not offered, a repeated label, or a
 * question left without an answer when no free-text `response` stands for it. A single string
 * that is not an offered label is the person's own words (free text).
 */
export function answerProblems(asked: Question, response: Extract<QuestionResponse, { answers: unknown }>): string[] {
  const problems: string[] = [];
  const byText = new Map(asked.questions.map((q) => [q.question, q]));
  for (const [text, answer] of Object.entries(response.answers)) {
    const q = byText.get(text);
    if (!q) {
      problems.push(`answers: ${JSON.stringify(text)} is not one of the questions asked (${[...byText.keys()].map((t) => JSON.stringify(t)).join(', ')})`);
      continue;
    }
    if (!Array.isArray(answer)) continue;
    if (!q.multiSelect && answer.length > 1) problems.push(`answers[${JSON.stringify(text)}]: this question takes one answer, not ${answer.length}`);
    const labels = new Set(q.options.map((o) => o.label));
    const seen = new Set<string>();
    for (const label of answer) {
      if (!labels.has(label)) {
        problems.push(`answers[${JSON.stringify(text)}]: ${JSON.stringify(label)} is not an offered option (${[...labels].map((l) => JSON.stringify(l)).join(', ')}); give free text as a single string`);
      } else if (seen.has(label)) {
        problems.push(`answers[${JSON.stringify(text)}]: ${JSON.stringify(label)} is given twice`);
      }
      seen.add(label);
    }
  }
  if (response.response === undefined) {
    const missing = asked.questions.filter((q) => !(q.question in response.answers)).map((q) => JSON.stringify(q.question));
    if (missing.length > 0) problems.push(`answers: no answer to ${missing.join(', ')} (answer every question, or explain in \`response\`)`);
  }
  return problems;
}

/**
 * An answer to a `Budget` request: nothing to remember, and an updated input only as a new limit
 * for the turn or the session, above what is spent. Raising a limit changes the session, which a
 * key that may only answer cannot do (as PATCH).
 */
function checkBudgetAnswer(scope: Scope, request: PermissionRequest, response: PermissionResponse): void {
  if (response.behavior !== 'allow') return;
  const ask = request.input as BudgetAsk;
  const problems: string[] = [];
  if (ask.scope === 'tenant') {
    throw new DomainError(
      'invalid',
      'behavior: the tenant\'s daily budget (max_usd_per_day) is the operator\'s, and an answer cannot let a turn past it: the request is decided when the operator raises it (a reload of NORMA_API_KEYS_FILE), or ends with a denial or the timeout. Nothing was answered: the request is still pending',
    );
  }
  if ((response.remember ?? []).length > 0) problems.push('remember: a Budget request has no rules to remember');
  if (response.updated_input !== undefined) {
    const given = response.updated_input as { limit?: unknown } | null;
    const keys = given && typeof given === 'object' && !Array.isArray(given) ? Object.keys(given) : null;
    const limit = given?.limit;
    if (keys === null || keys.length !== 1 || keys[0] !== 'limit') problems.push('updated_input: must be {"limit": N}, the new limit');
    else if (typeof limit !== 'number' || !Number.isFinite(limit) || (ask.unit === 'tokens' && !Number.isInteger(limit))) {
      problems.push(`updated_input.limit: must be ${ask.unit === 'tokens' ? 'a whole number of tokens' : 'a number of US dollars'}`);
    } else if (limit <= ask.spent) problems.push(`updated_input.limit: ${limit} is not above what is spent (${ask.spent})`);
    else if (limit > (ask.unit === 'usd' ? MAX_BUDGET_USD : 1_000_000_000_000)) problems.push(`updated_input.limit: ${limit} is above the most a budget may name`);
  }
  if (problems.length > 0) throw new DomainError('invalid', problems.join('; '), problems);
  if (response.updated_input !== undefined && !mayChangeSession(scope)) {
    throw new DomainError(
      'forbidden',
      `${scope.key !== null ? `key ${scope.key}` : 'the caller'} may answer but not raise a budget: that changes the session, which needs "${SESSION_CHANGE_ACCESS}". Allow without updated_input lets the next call go on. Nothing was answered: the request is still pending`,
    );
  }
}
