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
    const { events, decisions } = this.store.keys.committedHead(sessionId);
    const head = this.key.sign({
      session_id: sessionId,
      events: { seq: events.seq, hash: events.hash ?? GENESIS },
      decisions: { seq: decisions.seq, hash: decisions.hash ?? GENESIS },
      signed_at: this.clock().toISOString(),
      key_id: this.key.keyId,
    });
    this.store.keys.putSignedHead(head);
    return head;
  }

  /** Signs every session whose chain moved since the last sweep; returns how many. */
  sweep(): number {
    const ids = [...this.moved];
    this.moved.clear();
    let n = 0;
    for (const id of ids) {
      try {
        // A session removed by retention meanwhile has nothing left to sign.
        if (!this.store.getSession(id)) continue;
        const head = this.sign(id);
        n++;
        this.logger.info({ session_id: id, events_seq: head.events.seq, events_hash: head.events.hash, decisions_seq: head.decisions.seq, decisions_hash: head.decisions.hash, signed_at: head.signed_at, key_id: head.key_id, signature: head.signature }, 'chain head signed');
      } catch (err) {
        // The store cannot be reached now: the session is signed at a later sweep.
        this.moved.add(id);
        this.logger.warn({ err, session_id: id }, 'signing a chain head failed');
      }
    }
    return n;
  }
}
