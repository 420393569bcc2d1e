// What an answer may add to its session, by the answering key's scope. Answering is one door,
// changing the session's rules and mode (PATCH) another; the first must not open the second. A
// key with the access PATCH needs may remember any rule and choose any mode an approval can take
// (the tenant's policy is checked apart, and its deny rules come first at every evaluation
// whatever a session keeps). A key that may only answer may remember only the rules the request
// itself suggests — made by the server from the call's subject, each one shown to allow that
// call, and stored with the request for everyone to see — and may end plan mode only into the
// mode the approval returns to without a choice, or a stricter one. Anything else is refused
// before the answer is stored: the request stays pending.
import { modeWithin } from '../contract/tenant.js';
import type { PermissionMode } from '../contract/schemas.js';
import { DomainError } from '../errors.js';
import type { AnswerGrant } from '../interaction/kinds.js';
import { SESSION_CHANGE_ACCESS, type Scope } from './scope.js';

/** What the request itself offers, which any key that may answer it may take. */
export interface Offered {
  /** The request's suggested rules. */
  suggestions: readonly string[];
  /** The mode the approval switches to when it names none (ExitPlanMode); absent: none. */
  mode?: PermissionMode;
}

/** Whether the caller may change the session's rules and mode itself (PATCH). */
export function mayChangeSession(scope: Scope): boolean {
  return scope.access.has(SESSION_CHANGE_ACCESS);
}

/** 403 naming each rule or mode the answer would add beyond what its key may add. */
export function requireAnswerWithin(scope: Scope, grant: AnswerGrant, offered: Offered): void {
  if (mayChangeSession(scope)) return;
  const suggested = new Set(offered.suggestions.map((r) => r.trim()));
  const problems: string[] = [];
  for (const [i, rule] of grant.rules.entries()) {
    if (!suggested.has(rule.trim())) problems.push(`remember[${i}]: ${JSON.stringify(rule)} is not one of this request's suggestions`);
  }
  if (grant.mode !== undefined && (offered.mode === undefined || !modeWithin(grant.mode, offered.mode))) {
    problems.push(
      offered.mode === undefined
        ? `mode: ${JSON.stringify(grant.mode)} cannot be chosen by this answer`
        : `mode: ${JSON.stringify(grant.mode)} is looser than ${JSON.stringify(offered.mode)}, the mode this approval returns to`,
    );
  }
  if (problems.length === 0) return;
  const who = scope.key !== null ? `key ${scope.key}` : 'the caller';
  // Scopes are kept widest first (expandScopes): the first is the one the key was given.
  const has = [...scope.access][0] ?? 'none';
  const may = [
    grant.rules.length > 0 ? `remember only the rules the request suggests (${offered.suggestions.length > 0 ? offered.suggestions.map((r) => JSON.stringify(r)).join(', ') : 'none'})` : '',
    grant.mode !== undefined && offered.mode !== undefined ? `choose only ${JSON.stringify(offered.mode)} or a stricter mode` : '',
  ].filter((x) => x !== '');
  const change = [grant.rules.length > 0 ? 'other rules' : '', grant.mode !== undefined ? 'a looser mode' : ''].filter((x) => x !== '').join(' or ');
  throw new DomainError(
    'forbidden',
    `${who} has the "${has}" scope: an answer with it may ${may.length > 0 ? may.join(' and ') : 'add nothing to the session'}; ${problems.join('; ')}. ` +
      `Giving the session ${change} changes it, which needs "${SESSION_CHANGE_ACCESS}" (as PATCH /v1/sessions/{session_id} does). Nothing was answered: the request is still pending`,
    problems,
  );
}
