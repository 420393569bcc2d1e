// Event tickets: how a browser's EventSource, which cannot send headers, opens a session's
// event stream without a long-lived key in its URL. A ticket is 32 random bytes, good for one
// GET of one session's events within 60 s, on behalf of the key that took it (checked again
// when it is used: a key removed since cannot use its tickets). Only the ticket's SHA-256 is
// kept; a ticket is spent when presented, whatever the outcome.
import { createHash, randomBytes } from 'node:crypto';
import { DomainError } from '../errors.js';

export const TICKET_TTL_MS = 60_000;
/** Unspent tickets one key may hold. */
export const MAX_TICKETS_PER_KEY = 256;

interface Issued {
  sessionId: string;
  /** The key's name; null: the loopback caller of a server without keys. */
  key: string | null;
  tenant: string;
  expiresAt: number;
}

export type Redemption = { ok: true; key: string | null; tenant: string } | { ok: false; detail: string };

export class TicketBook {
  private readonly issued = new Map<string, Issued>();
  private readonly perKey = new Map<string, number>();
  private lastSweep = 0;

  constructor(private readonly now: () => number = Date.now) {}

  issue(sessionId: string, key: string | null, tenant: string): { ticket: string; expiresAt: number } {
    const now = this.now();
    this.sweep(now);
    if ((this.perKey.get(key ?? '') ?? 0) >= MAX_TICKETS_PER_KEY) {
      throw new DomainError('limit', `${key === null ? 'the caller' : `key ${key}`} holds ${MAX_TICKETS_PER_KEY} unspent event tickets; use them or let them expire (60 s) before taking more`);
    }
    const ticket = randomBytes(32).toString('base64url');
    const expiresAt = now + TICKET_TTL_MS;
    this.issued.set(digest(ticket), { sessionId, key, tenant, expiresAt });
    this.perKey.set(key ?? '', (this.perKey.get(key ?? '') ?? 0) + 1);
    return { ticket, expiresAt };
  }

  /** Spends the ticket: it opens `sessionId`'s events once, before it expires. */
  redeem(ticket: string, sessionId: string): Redemption {
    const now = this.now();
    const d = digest(ticket);
    const t = this.issued.get(d);
    if (!t) return { ok: false, detail: 'the event ticket is unknown or already used; take a new one with POST /v1/sessions/{session_id}/events/tickets' };
    this.forget(d, t);
    if (now >= t.expiresAt) return { ok: false, detail: 'the event ticket expired (tickets are good for 60 s); take a new one' };
    if (t.sessionId !== sessionId) return { ok: false, detail: 'the event ticket was taken for another session\'s events; it is spent now' };
    return { ok: true, key: t.key, tenant: t.tenant };
  }

  get size(): number {
    return this.issued.size;
  }

  private forget(d: string, t: Issued): void {
    this.issued.delete(d);
    const k = t.key ?? '';
    const n = (this.perKey.get(k) ?? 1) - 1;
    if (n <= 0) this.perKey.delete(k);
    else this.perKey.set(k, n);
  }

  /** Expired tickets go at most once a second, when tickets are taken. */
  private sweep(now: number): void {
    if (now - this.lastSweep < 1000) return;
    this.lastSweep = now;
    for (const [d, t] of this.issued) if (now >= t.expiresAt) this.forget(d, t);
  }
}

function digest(ticket: string): string {
  return createHash('sha256').update(ticket).digest('hex');
}
