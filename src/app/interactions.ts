// Answering pauses: list a session's permission requests, answer one. An answer and the rules
// it asks to remember are stored in one transaction, before the waiting call goes on.
import type { PermissionRequest, PermissionResponse, PermissionStatus } from '../contract/schemas.js';
import { DomainError } from '../errors.js';
import { permissionKind } from '../interaction/kinds.js';
import { parseRules } from '../permission/rules.js';
import type { Parts } from './parts.js';
import type { Scope } from './scope.js';

export class InteractionUseCases {
  constructor(private readonly parts: Parts) {}

  listPermissions(_scope: Scope, sessionId: string, status?: PermissionStatus): PermissionRequest[] {
    this.parts.records.get(sessionId);
    return this.parts.deps.store.listPermissions(sessionId, status);
  }

  answerPermission(_scope: Scope, sessionId: string, permissionId: string, response: PermissionResponse): PermissionRequest {
    this.parts.records.get(sessionId); // 404 for an unknown session
    const remember = response.behavior === 'allow' ? (response.remember ?? []) : [];
    if (remember.length > 0) {
      const { problems } = parseRules('remember', remember);
      if (problems.length > 0) throw new DomainError('invalid', problems.join('; '), problems);
    }
    const rt = this.parts.runtimes.get(sessionId);
    const now = this.parts.deps.clock().toISOString();
    return this.parts.broker.answer(permissionKind, sessionId, permissionId, response, () => {
      if (remember.length > 0 && rt) rt.settings.remember(remember, now);
    });
  }
}
