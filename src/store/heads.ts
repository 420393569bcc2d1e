// What a store keeps in memory of the sessions it writes: the seq and hash of each one's last
// event and last decision, so an append needs no read. Read from the database on first need (one
// indexed read gives both), and kept while `keep` says nothing else can append (SQLite: always;
// PostgreSQL: a session this process runs, outside a transaction that read it). Forgotten when a
// transaction rolls back, a session closes or is removed.
export type Chain = 'events' | 'decisions';

export interface Head {
  seq: number;
  /** Null: none yet, or stored before the chain existed. */
  hash: string | null;
}

export class SessionHeads {
  private readonly known: Record<Chain, Map<string, Head>> = { events: new Map(), decisions: new Map() };

  constructor(
    private readonly read: (chain: Chain, sessionId: string) => Head,
    private readonly keep: (sessionId: string) => boolean = () => true,
  ) {}

  head(chain: Chain, sessionId: string): Head {
    let h = this.known[chain].get(sessionId);
    if (!h) {
      h = this.read(chain, sessionId);
      if (this.keep(sessionId)) this.known[chain].set(sessionId, h);
    }
    return h;
  }

  /** A record was appended (in the transaction under way: cleared if it rolls back). */
  appended(chain: Chain, sessionId: string, seq: number, hash: string | undefined): void {
    this.known[chain].set(sessionId, { seq, hash: hash ?? null });
  }

  /** A session made here just now: nothing of it is stored yet. */
  fresh(sessionId: string): void {
    for (const chain of ['events', 'decisions'] as const) if (!this.known[chain].has(sessionId)) this.known[chain].set(sessionId, { seq: 0, hash: null });
  }

  forget(sessionId: string): void {
    this.known.events.delete(sessionId);
    this.known.decisions.delete(sessionId);
  }

  clear(): void {
    this.known.events.clear();
    this.known.decisions.clear();
  }
}

/** A head from the row a store read (none: seq 0). */
export function headOf(row: { seq: unknown; hash: unknown } | undefined): Head {
  return row ? { seq: Number(row.seq), hash: typeof row.hash === 'string' ? row.hash : null } : { seq: 0, hash: null };
}
