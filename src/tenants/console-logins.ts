// Console logins: a key entered once in the web console becomes a random login token in an
// HttpOnly cookie, so the key itself is neither kept by the page nor sent again. A login acts
// for the key that made it and is checked against that key on every use (a key removed,
// expired or moved to another tenant since ends its logins). Only the token's SHA-256 is kept;
// a login lasts CONSOLE_LOGIN_TTL_MS at most, and logging out forgets it at once.
import { createHash, randomBytes } from 'node:crypto';

export const CONSOLE_LOGIN_TTL_MS = 12 * 60 * 60_000;
/** Logins one key may hold; the oldest ends when a key logs in once more. */
export const MAX_LOGINS_PER_KEY = 32;

export interface ConsoleLogin {
  /** The key's name. */
  key: string;
  tenant: string;
  expiresAt: number;
}

export class ConsoleLogins {
  /** Token digest → login, in the order they were made (Map order: oldest first). */
  private readonly logins = new Map<string, ConsoleLogin>();
  private lastSweep = 0;

  constructor(private readonly now: () => number = Date.now) {}

  /** A new login for the key: the token for the cookie, and when it ends. */
  open(key: string, tenant: string): { token: string; expiresAt: number } {
    const now = this.now();
    this.sweep(now);
    const mine = [...this.logins].filter(([, l]) => l.key === key);
    for (const [d] of mine.slice(0, Math.max(0, mine.length - MAX_LOGINS_PER_KEY + 1))) this.logins.delete(d);
    const token = randomBytes(32).toString('base64url');
    const expiresAt = now + CONSOLE_LOGIN_TTL_MS;
    this.logins.set(digest(token), { key, tenant, expiresAt });
    return { token, expiresAt };
  }

  /** The login of this token, while it lasts. */
  find(token: string): ConsoleLogin | null {
    const d = digest(token);
    const login = this.logins.get(d);
    if (!login) return null;
    if (this.now() >= login.expiresAt) {
      this.logins.delete(d);
      return null;
    }
    return login;
  }

  /** Logs out: the token opens nothing from now on. */
  close(token: string): boolean {
    return this.logins.delete(digest(token));
  }

  get size(): number {
    return this.logins.size;
  }

  /** Ended logins go at most once a minute, when logins are made. */
  private sweep(now: number): void {
    if (now - this.lastSweep < 60_000) return;
    this.lastSweep = now;
    for (const [d, l] of this.logins) if (now >= l.expiresAt) this.logins.delete(d);
  }
}

function digest(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}
