// Console logins: a key entered once in the web console becomes a random login token in an
// HttpOnly cookie, so the key itself is neither kept by the page nor sent again. A login acts
// for the key that made it and is checked against that key on every use (a key removed,
// expired or moved to another tenant since ends its logins). Only the token's SHA-256 is kept;
// a login lasts CONSOLE_LOGIN_TTL_MS at most, and logging out forgets it at once.
import { createHash, randomBytes } from 'node:crypto';
import { MemoryTokens, type TokenShelf } from '../store/tokens.js';

export const CONSOLE_LOGIN_TTL_MS = 12 * 60 * 60_000;
/** Logins one key may hold; the oldest ends when a key logs in once more. */
export const MAX_LOGINS_PER_KEY = 32;

export interface ConsoleLogin {
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

  /** A new login for the key: the token for the cookie, and when it ends. */
  open(key: string, tenant: string): { token: string; expiresAt: number } {
    const now = this.now();
    this.sweep(now);
    const token = randomBytes(32).toString('base64url');
    const expiresAt = now + CONSOLE_LOGIN_TTL_MS;
    this.shelf.put(KIND, digest(token), key, JSON.stringify({ key, tenant }), now, expiresAt, MAX_LOGINS_PER_KEY);
    return { token, expiresAt };
  }

  /** The login of this token, while it lasts. */
  find(token: string): ConsoleLogin | null {
    const kept = this.shelf.find(KIND, digest(token), this.now());
    if (!kept) return null;
    const { key, tenant } = JSON.parse(kept.data) as { key: string; tenant: string };
    return { key, tenant, expiresAt: kept.expiresAt };
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
