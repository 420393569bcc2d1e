// What the evidence chain and encryption at rest keep in the store (store/keys.ts implements it
// for each store): the public half of every signing key, each session's last signed head, and
// each tenant's data key wrapped by the master key.
import type { PublicJwk, SignedHead } from './signing.js';

export interface SigningKeyRow {
  key_id: string;
  jwk: PublicJwk;
  created_at: string;
}

export interface DataKeyRow {
  tenant: string;
  /** The data key's id (stored with each value it sealed). */
  id: string;
  /** The data key sealed by the master key (base64). */
  wrapped: string;
  /** Which master key wrapped it. */
  master_key_id: string;
  created_at: string;
}

export interface KeyStore {
  /** Records a signing key's public half (kept when already there). */
  addSigningKey(row: SigningKeyRow): void;
  /** Every signing key recorded, oldest first. */
  signingKeys(): SigningKeyRow[];
  /** Replaces each head's session's last signed head; a session that no longer exists gets none. */
  putSignedHeads(heads: readonly SignedHead[]): void;
  signedHead(sessionId: string): SignedHead | undefined;
  /** The last signed heads of these sessions (absent: none). */
  signedHeads(sessionIds: readonly string[]): Map<string, SignedHead>;
  /** The stored hash of each (session, seq) of one chain, as committed (null: no such record, or one without a hash). */
  hashesAt(chain: 'events' | 'decisions', points: readonly (readonly [string, number])[]): Map<string, string | null>;
  /** Each session's last event and decision as committed (one read for them all). */
  committedHeads(sessionIds: readonly string[]): Map<string, CommittedHead>;
  /** Every tenant's data key. */
  dataKeys(): DataKeyRow[];
  /** Stores the tenant's data key unless it has one; returns the one it has then. */
  addDataKey(row: DataKeyRow): DataKeyRow;
  /** Replaces wrapped keys (a master key rotation) in one transaction; only rows still wrapped by `from`. Returns how many changed. */
  rewrapDataKeys(rows: readonly DataKeyRow[], from: string): number;
}

/** A session's last event and decision (seq and hash; 0 and null: none) as committed. */
export interface CommittedHead {
  events: { seq: number; hash: string | null };
  decisions: { seq: number; hash: string | null };
}
