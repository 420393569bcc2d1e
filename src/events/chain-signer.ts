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
import { GENESIS } from '../evidence/chain.js';
import type { SignedHead, SigningKey } from '../evidence/signing.js';
import type { Clock } from '../ids.js';
import type { Store } from '../store/store.js';

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

  /** A durable event or decision of the session committed here. */
  touched(sessionId: string): void {
    this.moved.add(sessionId);
  }

  /** Signs the session's head as committed now, and keeps it as the session's last signed head. */
  sign(sessionId: string): SignedHead {
    return this.signAll([sessionId])[0]!;
  }

  /** Signs each session's head as committed now (one read, one write for them all). */
  private signAll(sessionIds: readonly string[]): SignedHead[] {
    const signedAt = this.clock().toISOString();
    const heads = [...this.store.keys.committedHeads(sessionIds)].map(([id, { events, decisions }]) =>
      this.key.sign({
        session_id: id,
        events: { seq: events.seq, hash: events.hash ?? GENESIS },
        decisions: { seq: decisions.seq, hash: decisions.hash ?? GENESIS },
        signed_at: signedAt,
        key_id: this.key.keyId,
      }),
    );
    this.store.keys.putSignedHeads(heads);
    return heads;
  }

  /** Signs every session whose chain moved since the last sweep, a batch at a time; returns how many. */
  sweep(): number {
    const ids = [...this.moved];
    this.moved.clear();
    let n = 0;
    for (let i = 0; i < ids.length; i += SWEEP_BATCH) {
      const batch = ids.slice(i, i + SWEEP_BATCH);
      try {
        for (const head of this.signAll(batch)) {
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
