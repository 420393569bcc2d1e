// Short-lived tokens the server hands out (event tickets, console logins), kept by their SHA-256:
// in this process (MemoryTokens), or in PostgreSQL when replicas share a database (the
// PostgresStore's), so a ticket taken on one replica opens a stream on another and a console
// login made on one is valid on all. Times are the server clock's milliseconds.

export interface TokenRecord {
  data: string;
  expiresAt: number;
}

export interface TokenShelf {
  /** Keeps a token; the oldest of its group beyond `keep` go. */
  put(kind: string, digest: string, group: string, data: string, now: number, expiresAt: number, keep: number): void;
  /** How many unexpired tokens the group holds. */
  count(kind: string, group: string, now: number): number;
  /** Removes the token and returns it (expired or not): a token is spent once. */
  take(kind: string, digest: string): TokenRecord | null;
  /** The token while it lasts (an expired one is removed). */
  find(kind: string, digest: string, now: number): TokenRecord | null;
  drop(kind: string, digest: string): boolean;
  /** Removes expired tokens of the kind. */
  sweep(kind: string, now: number): void;
}

interface Kept extends TokenRecord {
  group: string;
}

export class MemoryTokens implements TokenShelf {
  /** kind → digest → token, in the order they were made (Map order: oldest first). */
  private readonly kinds = new Map<string, Map<string, Kept>>();

  private of(kind: string): Map<string, Kept> {
    let m = this.kinds.get(kind);
    if (!m) this.kinds.set(kind, (m = new Map()));
    return m;
  }

  put(kind: string, digest: string, group: string, data: string, _now: number, expiresAt: number, keep: number): void {
    const m = this.of(kind);
    const mine = [...m].filter(([, t]) => t.group === group);
    for (const [d] of mine.slice(0, Math.max(0, mine.length - keep + 1))) m.delete(d);
    m.set(digest, { group, data, expiresAt });
  }

  count(kind: string, group: string, now: number): number {
    let n = 0;
    for (const t of this.of(kind).values()) if (t.group === group && now < t.expiresAt) n++;
    return n;
  }

  take(kind: string, digest: string): TokenRecord | null {
    const m = this.of(kind);
    const t = m.get(digest);
    if (!t) return null;
    m.delete(digest);
    return { data: t.data, expiresAt: t.expiresAt };
  }

  find(kind: string, digest: string, now: number): TokenRecord | null {
    const m = this.of(kind);
    const t = m.get(digest);
    if (!t) return null;
    if (now >= t.expiresAt) {
      m.delete(digest);
      return null;
    }
    return { data: t.data, expiresAt: t.expiresAt };
  }

  drop(kind: string, digest: string): boolean {
    return this.of(kind).delete(digest);
  }

  sweep(kind: string, now: number): void {
    const m = this.of(kind);
    for (const [d, t] of m) if (now >= t.expiresAt) m.delete(d);
  }

  /** Tokens kept of the kind (expired ones not swept yet included). */
  size(kind: string): number {
    return this.of(kind).size;
  }
}
