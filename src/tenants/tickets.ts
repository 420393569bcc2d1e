// Event tickets: how a browser's EventSource, which cannot send headers, opens a session's
// event stream without a long-lived key in its URL. A ticket is 32 random bytes, good for one
// GET of one session's events within 60 s, on behalf of the key that took it (checked again
// when it is used: a key removed since cannot use its tickets). Only the ticket's SHA-256 is
// kept; a ticket is spent when presented, whatever the outcome.
import { createHash, randomBytes } from 'node:crypto';
import { DomainError } from '../errors.js';
import { MemoryTokens, type TokenShelf } from '../store/tokens.js';

export const TICKET_TTL_MS = 60_000;
/** Unspent tickets one key may hold. */
export const MAX_TICKETS_PER_KEY = 256;

interface Issued {
  sessionId: string;
  /** The key's name; null: the loopback caller of a server without keys. */
  key: string | null;
  tenant: string;
}

export type Redemption = { ok: true; key: string | null; tenant: string } | { ok: false; detail: string };

const KIND = 'ticket';

export class TicketBook {
  private lastSweep = 0;

  /** `shelf`: where tickets are kept (this process by default; the shared database with replicas). */
  constructor(
    private readonly now: () => number = Date.now,
    private readonly shelf: TokenShelf = new MemoryTokens(),
  ) {}

  issue(sessionId: string, key: string | null, tenant: string): { ticket: string; expiresAt: number } {
    const now = this.now();
    this.sweep(now);
    if (this.shelf.count(KIND, key ?? '', now) >= MAX_TICKETS_PER_KEY) {
      throw new DomainError('limit', `${key === null ? 'the caller' : `key ${key}`} holds ${MAX_TICKETS_PER_KEY} unspent event tickets; use them or let them expire (60 s) before taking more`);
    }
    const ticket = randomBytes(32).toString('base64url');
    const expiresAt = now + TICKET_TTL_MS;
    this.shelf.put(KIND, digest(ticket), key ?? '', JSON.stringify({ sessionId, key, tenant } satisfies Issued), now, expiresAt, Number.MAX_SAFE_INTEGER);
    return { ticket, expiresAt };
  }

  /** Spends the ticket: it opens `sessionId`'s events once, before it expires. */
  redeem(ticket: string, sessionId: string): Redemption {
    const now = this.now();
    const kept = this.shelf.take(KIND, digest(ticket));
    if (!kept) return { ok: false, detail: 'the event ticket is unknown or already used; take a new one with POST /v1/sessions/{session_id}/events/tickets' };
    const t = JSON.parse(kept.data) as Issued;
    if (now >= kept.expiresAt) return { ok: false, detail: 'the event ticket expired (tickets are good for 60 s); take a new one' };
    if (t.sessionId !== sessionId) return { ok: false, detail: 'the event ticket was taken for another session\'s events; it is spent now' };
    return { ok: true, key: t.key, tenant: t.tenant };
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
