// The evidence chain (API.md "Evidence anyone can verify"): each stored event, and each stored
// permission decision, carries `hash` = SHA-256 of the previous record's hash, a newline, and the
// record's canonical JSON (canonical.ts) without its own `hash`. The first record of a session
// follows GENESIS. Changing, removing or reordering a record changes every hash after it, so a
// head (seq and hash) that was signed or seen elsewhere pins everything before it.
//
// Records stored before the chain existed have no hash; they may only come first (the chain then
// starts after them, from GENESIS) and are counted as `unchained`.
import crypto from 'node:crypto';
import { canonicalJson } from './canonical.js';

/** What the first record of a session follows. */
export const GENESIS = '0'.repeat(64);

export const HASH_PATTERN = /^[0-9a-f]{64}$/;

/** The hash of `record` (its own `hash`, if any, left out) following `prev`. */
export function chainHash(prev: string, record: object): string {
  return sha256Hex(`${prev}\n${canonicalJson(record, 'hash')}`);
}

// One-shot hashing spares a Hash object per record.
const sha256Hex = (text: string) => crypto.hash('sha256', text, 'hex');

/** The canonical JSON each record was hashed over, by record, for its stored form (recordJson). */
const hashedOver = new WeakMap<object, string>();

/** `record` given its hash following `prev` (null: it is the first, or follows records without one); the record itself, not a copy. */
export function chained<T extends object>(record: T, prev: string | null): T & { hash: string } {
  const r = record as T & { hash: string };
  const canonical = canonicalJson(record, 'hash');
  r.hash = sha256Hex(`${prev ?? GENESIS}\n${canonical}`);
  hashedOver.set(r, canonical);
  return r;
}

/**
 * The JSON a store keeps of a record: for one chained() just made, the canonical JSON it was hashed
 * over with its hash added last (no second encoding of the record: the store writes what was
 * hashed); for any other, JSON.stringify. Either reads back as the same value.
 */
export function recordJson(record: object): string {
  const canonical = hashedOver.get(record);
  const hash = (record as { hash?: unknown }).hash;
  if (canonical === undefined || typeof hash !== 'string' || !HASH_PATTERN.test(hash)) return JSON.stringify(record);
  return canonical === '{}' ? `{"hash":"${hash}"}` : `${canonical.slice(0, -1)},"hash":"${hash}"}`;
}

/** Where a chain is first broken, and why. */
export interface ChainBreak {
  /** The seq of the first record that does not verify (or that is missing). */
  seq: number;
  reason: string;
}

export interface ChainHeadPoint {
  seq: number;
  hash: string;
}

/**
 * Checks a chain record by record, in the order read (seq order). After the first break it
 * stops judging; `head` is the last record that verified.
 */
export class ChainChecker {
  private last = 0;
  private prev: string | null = null;
  broken: ChainBreak | null = null;
  /** Records that verified. */
  count = 0;
  /** Records before the chain started (stored before it existed). */
  unchained = 0;
  /** Each verified record's hash by seq, for the heads checked against it afterwards. */
  private readonly kept = new Map<number, string>();

  constructor(
    /** What the records are, for reasons: "event", "decision". */
    private readonly kind: string,
    private readonly sessionId: string,
    /** Seqs whose hashes are kept for `hashAt` (signed heads); empty: none. */
    private readonly keep: ReadonlySet<number> = new Set(),
  ) {}

  /** Checks the next record; false once the chain is broken. */
  push(record: unknown): boolean {
    if (this.broken) return false;
    const r = record as { seq?: unknown; hash?: unknown; session_id?: unknown };
    const expected = this.last + 1;
    if (typeof r !== 'object' || r === null || !Number.isSafeInteger(r.seq)) return this.fail(expected, `${this.kind} ${expected} is not a record with a seq`);
    const seq = r.seq as number;
    if (seq > expected) return this.fail(expected, `${this.kind} ${expected} is missing or out of place (the next one stored says it is ${seq})`);
    if (seq < expected) return this.fail(seq, `${this.kind} ${seq} is out of order (after ${this.last})`);
    if (r.session_id !== this.sessionId) return this.fail(seq, `${this.kind} ${seq} belongs to another session`);
    if (r.hash === undefined) {
      if (this.prev !== null) return this.fail(seq, `${this.kind} ${seq} has no hash, after ${this.kind}s that had one`);
      this.unchained++;
      this.last = seq;
      // A head signed over records without hashes names GENESIS as their hash.
      if (this.keep.has(seq)) this.kept.set(seq, GENESIS);
      return true;
    }
    if (typeof r.hash !== 'string' || !HASH_PATTERN.test(r.hash)) return this.fail(seq, `${this.kind} ${seq} has a malformed hash`);
    let want: string;
    try {
      want = chainHash(this.prev ?? GENESIS, r);
    } catch (err) {
      return this.fail(seq, `${this.kind} ${seq} cannot be encoded: ${(err as Error).message}`);
    }
    if (want !== r.hash) {
      return this.fail(seq, `${this.kind} ${seq} does not match its hash: it was changed, or an earlier ${this.kind} was changed, removed or reordered`);
    }
    this.prev = r.hash;
    this.last = seq;
    this.count++;
    if (this.keep.has(seq)) this.kept.set(seq, r.hash);
    return true;
  }

  /** The last record that verified (seq 0 and GENESIS: none). */
  get head(): ChainHeadPoint {
    return { seq: this.last, hash: this.prev ?? GENESIS };
  }

  /** The verified hash at `seq`, when it was asked to be kept and verified. */
  hashAt(seq: number): string | undefined {
    if (seq === 0) return GENESIS;
    return this.kept.get(seq);
  }

  private fail(seq: number, reason: string): false {
    this.broken = { seq, reason };
    return false;
  }
}
