// Idempotency keys (the Idempotency-Key header of the POSTs that create work): what a request did
// under its key, kept in the store every replica shares, so a retry that reaches any replica gets
// the first answer instead of doing the work again.
//
// A key is claimed before the work, by a request that holds it ("in flight") until it finishes.
// The work stores what it made (`settle`) in the very transaction that makes it, so "the key has
// a value" and "the work happened" commit together: a holder that dies before that commit leaves
// a key without a value, which the next retry takes and does the work for (nothing was done); one
// that dies after leaves the value, which a retry answers with (nothing is done twice). A settle
// for a key another attempt has taken since fails its transaction: the work is not kept either.
import { randomBytes } from 'node:crypto';

/** How long a key's answer is kept (a retry after that does the work again). */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

export interface KeyClaim {
  tenant: string;
  key: string;
  /** What the request was (method, path, body), hashed: the same key for another request is refused. */
  fingerprint: string;
  now: number;
  expiresAt: number;
}

/** The attempt that holds a key: what its work's transaction settles. Plain data (it travels in a replica's command). */
export interface KeptWork {
  tenant: string;
  key: string;
  token: string;
}

/** A finished request's answer as the HTTP edge sent it. */
export interface StoredResponse {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

export type KeyState =
  /** The key is this request's: do the work (settling `work`), then finish or release it. */
  | { kind: 'new'; work: KeptWork }
  /** The key was used for another request (another fingerprint). */
  | { kind: 'mismatch' }
  /** A request with this key is still being answered. */
  | { kind: 'in_flight' }
  /** The first request's own answer. */
  | { kind: 'replay'; response: StoredResponse }
  /** The first request's work committed but it never answered (its process went away): what the work made. */
  | { kind: 'made'; value: unknown };

export interface IdempotencyKeys {
  claim(c: KeyClaim): KeyState;
  /**
   * Inside the transaction that does the work: what it made. Throws (failing that transaction)
   * when the key is no longer this attempt's.
   */
  settle(work: KeptWork, value: unknown): void;
  /** The request answered: its answer is what a retry gets. */
  finish(work: KeptWork, response: StoredResponse): void;
  /**
   * The request failed. Without a settled value nothing was done and the key is free again; with
   * one (the work committed, what came after failed) a retry gets what the work made.
   */
  release(work: KeptWork): void;
  /** Removes keys past their expiry; returns how many. */
  sweep(now: number): number;
}

/** A stored key as the stores read it back. */
export interface KeyRow {
  fingerprint: string;
  token: string;
  value: string | null;
  response: string | null;
  finished: boolean;
  expiresAt: number;
  /** Its holder is still answering it (the same process, or a live one that started before the claim). */
  alive: boolean;
}

/** What a claim that found `row` answers; `retake`: the holder died before its work committed, `expired`: the row is stale. */
export function judgeKey(row: KeyRow, c: KeyClaim): KeyState | 'retake' | 'expired' {
  if (row.expiresAt <= c.now) return 'expired';
  if (row.fingerprint !== c.fingerprint) return { kind: 'mismatch' };
  if (row.response !== null) return { kind: 'replay', response: JSON.parse(row.response) as StoredResponse };
  if (row.finished || !row.alive) return row.value !== null ? { kind: 'made', value: JSON.parse(row.value) } : 'retake';
  return { kind: 'in_flight' };
}

export function newKeyToken(): string {
  return randomBytes(16).toString('base64url');
}

export class KeyTakenError extends Error {
  constructor(work: KeptWork) {
    super(`the Idempotency-Key ${JSON.stringify(work.key)} is no longer this request's (a retry took it over); its work is not kept`);
    this.name = 'KeyTakenError';
  }
}

interface MemoryKey extends Omit<KeyRow, 'alive'> {
  tenant: string;
  key: string;
}

/** Keys in this process (the in-memory store): every holder is this process, so alive while not finished. */
export class MemoryIdempotency implements IdempotencyKeys {
  private readonly keys = new Map<string, MemoryKey>();

  private id(tenant: string, key: string): string {
    return `${tenant}\0${key}`;
  }

  claim(c: KeyClaim): KeyState {
    const id = this.id(c.tenant, c.key);
    const row = this.keys.get(id);
    const judged = row ? judgeKey({ ...row, alive: true }, c) : 'expired';
    if (judged !== 'expired' && judged !== 'retake') return judged;
    const token = newKeyToken();
    this.keys.set(id, { tenant: c.tenant, key: c.key, fingerprint: c.fingerprint, token, value: null, response: null, finished: false, expiresAt: c.expiresAt });
    return { kind: 'new', work: { tenant: c.tenant, key: c.key, token } };
  }

  private mine(work: KeptWork): MemoryKey | undefined {
    const row = this.keys.get(this.id(work.tenant, work.key));
    return row?.token === work.token ? row : undefined;
  }

  settle(work: KeptWork, value: unknown): void {
    const row = this.mine(work);
    if (!row || row.value !== null || row.finished) throw new KeyTakenError(work);
    row.value = JSON.stringify(value);
  }

  finish(work: KeptWork, response: StoredResponse): void {
    const row = this.mine(work);
    if (!row) return;
    row.response = JSON.stringify(response);
    row.finished = true;
  }

  release(work: KeptWork): void {
    const row = this.mine(work);
    if (!row) return;
    if (row.value === null) this.keys.delete(this.id(work.tenant, work.key));
    else row.finished = true;
  }

  sweep(now: number): number {
    let n = 0;
    for (const [id, row] of this.keys) {
      if (row.expiresAt <= now) {
        this.keys.delete(id);
        n++;
      }
    }
    return n;
  }
}

/** The store's keys when it keeps them (SQLite, PostgreSQL, memory); a store made elsewhere gets its own in-memory ones. */
export function idempotencyOf(store: object): IdempotencyKeys {
  const own = (store as { idempotency?: IdempotencyKeys }).idempotency;
  return own ?? new MemoryIdempotency();
}
