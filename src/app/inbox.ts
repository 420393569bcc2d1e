// The inbox use cases (API.md "An inbox for people"): what waits for a person across the caller's
// tenant, oldest first. The answers go to each session's own permission and question routes.
import type { PendingItem, PendingList } from '../contract/schemas.js';
import { DEFAULT_TENANT, type EventTicket } from '../contract/tenant.js';
import { TENANT_STREAM } from '../tenants/tickets.js';
import { DomainError } from '../errors.js';
import { pendingKey } from '../store/store.js';
import type { Parts } from './parts.js';
import type { Scope } from './scope.js';

const MAX_PAGE = 200;

export class InboxUseCases {
  constructor(private readonly parts: Parts) {}

  /** The tenant whose stream the caller follows (the keyless loopback caller's: the default one). */
  streamTenant(scope: Scope): string {
    return scope.tenant ?? DEFAULT_TENANT;
  }

  /** A ticket that opens the caller's tenant's event stream once, within 60 s, for the caller's key. */
  eventTicket(scope: Scope): EventTicket {
    const holder = scope.keyId !== null && scope.key !== null ? { id: scope.keyId, name: scope.key } : null;
    const { ticket, expiresAt } = this.parts.deps.tickets.issue(TENANT_STREAM, holder, this.streamTenant(scope));
    return { ticket, expires_at: new Date(expiresAt).toISOString() };
  }

  /** Pending permission requests and questions of the caller's tenant's sessions, oldest first. */
  pending(scope: Scope, limit: number, cursor: string | undefined): PendingList {
    const take = Math.min(Math.max(Math.floor(limit), 1), MAX_PAGE);
    const after = cursor === undefined ? undefined : parseCursor(cursor);
    const store = this.parts.deps.store;
    const page = store.listPending({ limit: take + 1, ...(after ? { after } : {}), ...(scope.tenant !== null ? { tenant: scope.tenant } : {}) });
    const sessions = new Map<string, PendingItem['session'] | null>();
    const sessionOf = (id: string): PendingItem['session'] | null => {
      if (!sessions.has(id)) {
        const r = store.getSession(id, scope.tenant ?? undefined);
        sessions.set(id, r ? { id, name: r.session.name ?? null, labels: r.session.labels ?? {}, permission_mode: r.session.permission_mode } : null);
      }
      return sessions.get(id)!;
    };
    const items: PendingItem[] = [];
    for (const entry of page.slice(0, take)) {
      const record = entry.kind === 'permission' ? entry.request : entry.question;
      const session = sessionOf(record.session_id);
      // A session removed between the two reads (retention) has nothing waiting any more.
      if (!session) continue;
      items.push(entry.kind === 'permission' ? { kind: 'permission', session, permission: entry.request } : { kind: 'question', session, question: entry.question });
    }
    const last = page[take - 1];
    const next_cursor = page.length > take && last ? Buffer.from(JSON.stringify(pendingKey(last))).toString('base64url') : null;
    return { items, next_cursor };
  }
}

function parseCursor(cursor: string): { created_at: string; id: string } {
  try {
    const parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { created_at?: unknown; id?: unknown };
    if (typeof parsed.created_at !== 'string' || typeof parsed.id !== 'string') throw new Error('shape');
    return { created_at: parsed.created_at, id: parsed.id };
  } catch {
    throw new DomainError('invalid', 'cursor: not a cursor this server returned (pass next_cursor unchanged)', [], 'query');
  }
}
