// Console logins: a key entered once in the web console becomes a random login token in an
// HttpOnly cookie, so the key itself is neither kept by the page nor sent again. A login acts
// for the exact key that made it (its id, not its name) and is checked against that key on every
// use (a key removed, expired, replaced under the same name or moved to another tenant since ends
// its logins). Only the token's SHA-256 is kept; a login lasts CONSOLE_LOGIN_TTL_MS at most, and
// logging out forgets it at once.
import { createHash, randomBytes } from 'node:crypto';
import { MemoryTokens, type TokenShelf } from '../store/tokens.js';

export const CONSOLE_LOGIN_TTL_MS = 12 * 60 * 60_000;
/** Logins one key may hold; the oldest ends when a key logs in once more. */
export const MAX_LOGINS_PER_KEY = 32;

export interface ConsoleLogin {
  /** The key's id (KeyRing): the login acts for this key and no other. '' for a login of an earlier version, which opens nothing. */
  keyId: string;
  /** The key's name. */
  key: string;
  tenant: string;
  expiresAt: number;
}

const KIND = 'login';

export class ConsoleLogins {
  private lastSweep = 0;

  /** `shelf`: where logins are kept (this process by default; the shared database with replicas). */
  constructor(
    private readonly now: () => number = Date.now,
    private readonly shelf: TokenShelf = new MemoryTokens(),
  ) {}

  /** A new login for the key (its id and name): the token for the cookie, and when it ends. */
  open(key: { id: string; name: string }, tenant: string): { token: string; expiresAt: number } {
    const now = this.now();
    this.sweep(now);
    const token = randomBytes(32).toString('base64url');
    const expiresAt = now + CONSOLE_LOGIN_TTL_MS;
    // Counted per exact key: a new key under an old name starts with none.
    this.shelf.put(KIND, digest(token), key.id, JSON.stringify({ key: key.name, keyId: key.id, tenant }), now, expiresAt, MAX_LOGINS_PER_KEY);
    return { token, expiresAt };
  }

  /** The login of this token, while it lasts. */
  find(token: string): ConsoleLogin | null {
    const kept = this.shelf.find(KIND, digest(token), this.now());
    if (!kept) return null;
    const { key, keyId, tenant } = JSON.parse(kept.data) as { key: string; keyId?: string; tenant: string };
    return { keyId: keyId ?? '', key, tenant, expiresAt: kept.expiresAt };
  }

  /** Logs out: the token opens nothing from now on. */
  close(token: string): boolean {
    return this.shelf.drop(KIND, digest(token));
  }

  /** Logins kept here (in this process's shelf). */
  get size(): number {
    return this.shelf instanceof MemoryTokens ? this.shelf.size(KIND) : 0;
  }

  /** Ended logins go at most once a minute, when logins are made. */
  private sweep(now: number): void {
    if (now - this.lastSweep < 60_000) return;
    this.lastSweep = now;
    this.shelf.sweep(KIND, now);
  }
}

function digest(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}
