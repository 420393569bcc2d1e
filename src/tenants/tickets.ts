// Event tickets: how a browser's EventSource, which cannot send headers, opens a session's
// event stream without a long-lived key in its URL. A ticket is 32 random bytes, good for one
// GET of one session's events within 60 s, on behalf of the exact key that took it (its id,
// checked again when the ticket is used: a key removed, expired or replaced under the same name
// since cannot use its tickets). Only the ticket's SHA-256 is kept; a ticket is spent when
// presented, whatever the outcome.
import { createHash, randomBytes } from 'node:crypto';
import { DomainError } from '../errors.js';
import { MemoryTokens, type TokenShelf } from '../store/tokens.js';

export const TICKET_TTL_MS = 60_000;
/** What a ticket for the tenant's own stream (GET /v1/events) names instead of a session. */
export const TENANT_STREAM = '';
/** Unspent tickets one key may hold. */
export const MAX_TICKETS_PER_KEY = 256;

/** The key a ticket is taken for: its id (KeyRing) and name; null: the loopback caller of a server without keys. */
export type TicketHolder = { id: string; name: string } | null;

interface Issued {
  sessionId: string;
  /** The key's name (for people reading the table); null: the loopback caller. */
  key: string | null;
  /** The key's id: what the ticket is bound to. Absent in tickets of an earlier version, which open nothing. */
  keyId?: string | null;
  tenant: string;
}

/** `keyId`: the exact key that took the ticket; null: the loopback caller; '' a key no longer known. */
export type Redemption = { ok: true; keyId: string | null; tenant: string } | { ok: false; detail: string };

const KIND = 'ticket';

export class TicketBook {
  private lastSweep = 0;

  /** `shelf`: where tickets are kept (this process by default; the shared database with replicas). */
  constructor(
    private readonly now: () => number = Date.now,
    private readonly shelf: TokenShelf = new MemoryTokens(),
  ) {}

  issue(sessionId: string, holder: TicketHolder, tenant: string): { ticket: string; expiresAt: number } {
    const now = this.now();
    this.sweep(now);
    // Counted per exact key: a new key under an old name starts with none.
    const group = holder?.id ?? '';
    if (this.shelf.count(KIND, group, now) >= MAX_TICKETS_PER_KEY) {
      throw new DomainError('limit', `${holder === null ? 'the caller' : `key ${holder.name}`} holds ${MAX_TICKETS_PER_KEY} unspent event tickets; use them or let them expire (60 s) before taking more`);
    }
    const ticket = randomBytes(32).toString('base64url');
    const expiresAt = now + TICKET_TTL_MS;
    const issued: Issued = { sessionId, key: holder?.name ?? null, keyId: holder?.id ?? null, tenant };
    this.shelf.put(KIND, digest(ticket), group, JSON.stringify(issued), now, expiresAt, Number.MAX_SAFE_INTEGER);
    return { ticket, expiresAt };
  }

  /** Spends the ticket: it opens `sessionId`'s events once, before it expires. */
  redeem(ticket: string, sessionId: string): Redemption {
    const now = this.now();
    const kept = this.shelf.take(KIND, digest(ticket));
    if (!kept) return { ok: false, detail: 'the event ticket is unknown or already used; take a new one with POST /v1/sessions/{session_id}/events/tickets' };
    const t = JSON.parse(kept.data) as Issued;
    if (now >= kept.expiresAt) return { ok: false, detail: 'the event ticket expired (tickets are good for 60 s); take a new one' };
    if (t.sessionId !== sessionId) return { ok: false, detail: `the event ticket was taken for ${t.sessionId === TENANT_STREAM ? 'the tenant\'s stream (GET /v1/events)' : 'another session\'s events'}; it is spent now` };
    // A ticket of an earlier version names its key only: no key is known by that any more.
    const keyId = t.keyId !== undefined ? t.keyId : t.key === null ? null : '';
    return { ok: true, keyId, tenant: t.tenant };
  }

  /** Unspent tickets kept here (in this process's shelf). */
  get size(): number {
    return this.shelf instanceof MemoryTokens ? this.shelf.size(KIND) : 0;
  }

  /** Expired tickets go at most once a second, when tickets are taken. */
  private sweep(now: number): void {
    if (now - this.lastSweep < 1000) return;
    this.lastSweep = now;
    this.shelf.sweep(KIND, now);
  }
}

function digest(ticket: string): string {
  return createHash('sha256').update(ticket).digest('hex');
}
