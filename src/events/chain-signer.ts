// Signed chain heads (API.md "Evidence anyone can verify"): the server's key signs a session's
// head (its last event and last decision, with their hashes) as committed, at a time. Each
// session whose chain moved is signed again after at most one interval (NORMA_CHAIN_SIGN_INTERVAL_MS),
// and its head kept in the store and written to the log, so a copy exists outside the database;
// an export signs the head it carries when it is made.
//
// What that guarantees: whoever can write the database but does not hold the signing key cannot
// change, remove or reorder anything up to a signed head without the head failing to verify,
// as long as the head itself survives (in the store, a log shipped elsewhere, an export someone
// kept). It does not stop a holder of the signing key from signing a rewritten chain, nor show
// events appended after the last signed head were not changed since (until the next head).
import type { Logger } from 'pino';
import { GENESIS, type ChainHeadPoint } from '../evidence/chain.js';
import type { CommittedHead } from '../evidence/key-store.js';
import { verifyHead, type PublicJwk, type SignedHead, type SigningKey } from '../evidence/signing.js';
import type { Clock } from '../ids.js';
import type { Store } from '../store/store.js';

/** The stored chain does not hold a head signed before: it is not signed over. */
export class ChainContinuityError extends Error {}

/** Why `now` does not continue from `prior` on one chain (null: it does). */
function brokenSince(prior: { signed_at: string } & Record<'events' | 'decisions', ChainHeadPoint>, now: CommittedHead, chain: 'events' | 'decisions', storedAtPrior: string | null): string | null {
  const p = prior[chain];
  if (p.seq === 0) return null;
  const kind = chain === 'events' ? 'event' : 'decision';
  if (now[chain].seq < p.seq) return `the ${chain} end at ${now[chain].seq}, but a head signed at ${prior.signed_at} covers ${p.seq}: ${chain} were removed`;
  if ((storedAtPrior ?? GENESIS) !== p.hash) return `${kind} ${p.seq}'s hash is not the one signed at ${prior.signed_at}: the chain up to it was changed`;
  return null;
}

/** Sessions signed per read and write of the store. */
const SWEEP_BATCH = 200;

export class ChainSigner {
  /** Sessions whose chain moved here since their head was last signed. */
  private readonly moved = new Set<string>();

  constructor(
    readonly key: SigningKey,
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  /** Records the key's public half in the store, so GET /v1/signing-key lists it after a rotation too. */
  publish(): void {
    this.store.keys.addSigningKey({ key_id: this.key.keyId, jwk: this.key.publicJwk, created_at: this.clock().toISOString() });
  }

  /** A durable event of a session committed here (its decisions are appended with events). */
  observe(event: { session_id: string; type: string }): void {
    this.moved.add(event.session_id);
    // Its last head is remembered until the closed session's final head is signed.
    if (event.type === 'session.closed') this.closed.add(event.session_id);
  }

  private readonly closed = new Set<string>();

  /**
   * Signs the session's head as committed now, and keeps it as the session's last signed head;
   * ChainContinuityError when the chain no longer holds the head signed before (see signAll).
   */
  sign(sessionId: string): SignedHead {
    const { signed, refused } = this.signAll([sessionId]);
    if (refused.length > 0) throw new ChainContinuityError(refused[0]!.reason);
    return signed[0]!;
  }

  /**
   * Signs each session's head as committed now (a few reads and one write for them all). A
   * session whose chain no longer holds the head signed before it (this process's last one, or
   * the store's) is not signed: a rewritten or cut chain is never signed over.
   */
  private signAll(sessionIds: readonly string[]): { signed: SignedHead[]; refused: { session_id: string; reason: string }[] } {
    const signedAt = this.clock().toISOString();
    const { keys } = this.store;
    const now = keys.committedHeads(sessionIds);
    const stored = keys.signedHeads(sessionIds.filter((id) => !this.last.has(id)));
    const before = new Map<string, { events: ChainHeadPoint; decisions: ChainHeadPoint; signed_at: string }>(stored);
    for (const id of sessionIds) if (this.last.has(id)) before.set(id, this.last.get(id)!);
    // A stored head is trusted as the previous one only when its signature verifies.
    const known = stored.size > 0 ? new Map(keys.signingKeys().map((k) => [k.key_id, k.jwk])) : new Map<string, PublicJwk>();
    known.set(this.key.keyId, this.key.publicJwk);
    const at = (chain: 'events' | 'decisions') => keys.hashesAt(chain, [...before].map(([id, h]) => [id, h[chain].seq] as const));
    const [eventsAt, decisionsAt] = [at('events'), at('decisions')];
    const signed: SignedHead[] = [];
    const refused: { session_id: string; reason: string }[] = [];
    for (const [id, head] of now) {
      const prior = before.get(id);
      const forged = stored.get(id);
      const broken =
        forged && !(known.has(forged.key_id) && verifyHead(forged, known.get(forged.key_id)!))
          ? `the stored signed head (signed at ${forged.signed_at}) does not verify under a known key: it was changed`
          : prior
            ? brokenSince(prior, head, 'events', eventsAt.get(id) ?? null) ?? brokenSince(prior, head, 'decisions', decisionsAt.get(id) ?? null)
            : null;
      if (broken) {
        refused.push({ session_id: id, reason: broken });
        continue;
      }
      signed.push(
        this.key.sign({
          session_id: id,
          events: { seq: head.events.seq, hash: head.events.hash ?? GENESIS },
          decisions: { seq: head.decisions.seq, hash: head.decisions.hash ?? GENESIS },
          signed_at: signedAt,
          key_id: this.key.keyId,
        }),
      );
    }
    keys.putSignedHeads(signed);
    for (const h of signed) {
      if (this.closed.delete(h.session_id)) this.last.delete(h.session_id);
      else this.last.set(h.session_id, { events: h.events, decisions: h.decisions, signed_at: h.signed_at });
    }
    return { signed, refused };
  }

  /** The head this process last signed for the session, while it is open. */
  remembered(sessionId: string): { events: ChainHeadPoint; decisions: ChainHeadPoint; signed_at: string } | undefined {
    return this.last.get(sessionId);
  }

  /** The head this process last signed for each session: a copy a writer of the database cannot change. */
  private readonly last = new Map<string, { events: ChainHeadPoint; decisions: ChainHeadPoint; signed_at: string }>();

  /** Signs every session whose chain moved since the last sweep, a batch at a time; returns how many. */
  sweep(): number {
    const ids = [...this.moved];
    this.moved.clear();
    let n = 0;
    for (let i = 0; i < ids.length; i += SWEEP_BATCH) {
      const batch = ids.slice(i, i + SWEEP_BATCH);
      try {
        const { signed, refused } = this.signAll(batch);
        for (const r of refused) this.logger.error({ session_id: r.session_id, reason: r.reason }, 'chain head not signed: the stored chain no longer holds the head signed before');
        for (const head of signed) {
          n++;
          const { session_id, events, decisions, signed_at, key_id, signature } = head;
          this.logger.info({ session_id, events_seq: events.seq, events_hash: events.hash, decisions_seq: decisions.seq, decisions_hash: decisions.hash, signed_at, key_id, signature }, 'chain head signed');
        }
      } catch (err) {
        // The store cannot be reached now: these are signed at a later sweep.
        for (const id of batch) this.moved.add(id);
        this.logger.warn({ err, sessions: batch.length }, 'signing chain heads failed');
      }
    }
    return n;
  }
}
