// Evidence use cases (API.md "Evidence anyone can verify"): the signing keys a verifier needs,
// a check of a session's stored chain, and the signed chain an export carries.
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { ChainChecker, type ChainBreak, type ChainHeadPoint } from '../evidence/chain.js';
import { verifyHead, type PublicJwk, type SignedHead } from '../evidence/signing.js';
import { claimsOf } from '../evidence/verify-export.js';
import { ChainContinuityError, type ChainSigner } from '../events/chain-signer.js';
import { MasterKey, type Sealer } from '../evidence/encryption.js';
import { DomainError } from '../errors.js';
import type { Parts } from './parts.js';
import type { Scope } from './scope.js';

const PAGE = 500;
/** Verifications of one tenant's sessions running at once on this server. */
const MAX_VERIFIES_PER_TENANT = 2;
/** How long the published key set is served from memory. */
const KEY_SET_TTL_MS = 1000;

/** The public keys (JWK) a verifier of this server's chains needs, the one signing now first. */
export interface SigningKeySet {
  key_id: string;
  keys: (PublicJwk & { kid: string; use: 'sig'; alg: 'EdDSA'; status: 'current' | 'other'; created_at: string })[];
}

export interface ChainVerification {
  ok: boolean;
  session_id: string;
  /** Events whose hash verified. */
  events: number;
  decisions: number;
  /** Events and decisions stored before the chain existed. */
  unchained: number;
  head: { events: ChainHeadPoint; decisions: ChainHeadPoint };
  /** The session's last signed head, and whether it verified against the chain and a known key. */
  signed_head: (SignedHead & { verified: boolean }) | null;
  outputs: { claimed: number; files_checked: number };
  first_broken?: ChainBreak & { part: 'events' | 'decisions' | 'signed_head' | 'outputs' };
}

export class EvidenceUseCases {
  constructor(
    private readonly parts: Parts,
    private readonly signer: ChainSigner,
    private readonly encryption?: { sealer: Sealer; keyFile: string },
  ) {}

  /**
   * The master key file holds a new key: every tenant's data key is wrapped again under it (in
   * one transaction; nothing sealed is rewritten), and it wraps new data keys from now on. The
   * previous key stays in this process's memory only. Other replicas take the new key from the
   * file when they meet a data key it wrapped.
   */
  rotateEncryptionKey(_scope: Scope): { key_id: string; previous_key_id: string; rewrapped: number } {
    if (!this.encryption) throw new DomainError('conflict', 'encryption at rest is off (NORMA_ENCRYPTION_KEY_FILE is not set): there is no key to rotate');
    const { sealer, keyFile } = this.encryption;
    let next: MasterKey;
    try {
      next = MasterKey.fromFile(keyFile);
    } catch (err) {
      throw new DomainError('conflict', `${(err as Error).message}; nothing was changed`);
    }
    const previous = sealer.masterKeyId;
    if (next.id === previous) {
      throw new DomainError('conflict', `NORMA_ENCRYPTION_KEY_FILE still holds the key in use (${previous}): write the new key to it first, then rotate`);
    }
    const rewrapped = sealer.rotate(next);
    this.parts.deps.logger.warn({ key_id: next.id, previous_key_id: previous, rewrapped }, 'encryption master key rotated');
    return { key_id: next.id, previous_key_id: previous, rewrapped };
  }

  signingKeys(): SigningKeySet {
    // Asked without a key: read from the store at most once a second, whatever the callers do.
    const now = this.parts.deps.clock().getTime();
    if (this.keySet && now - this.keySet.at < KEY_SET_TTL_MS) return this.keySet.value;
    const current = this.signer.key;
    const known = this.parts.deps.store.keys.signingKeys();
    if (!known.some((k) => k.key_id === current.keyId)) known.push({ key_id: current.keyId, jwk: current.publicJwk, created_at: this.parts.deps.clock().toISOString() });
    known.sort((a, b) => Number(b.key_id === current.keyId) - Number(a.key_id === current.keyId));
    const value: SigningKeySet = {
      key_id: current.keyId,
      keys: known.map((k) => ({ ...k.jwk, kid: k.key_id, use: 'sig', alg: 'EdDSA', status: k.key_id === current.keyId ? 'current' : 'other', created_at: k.created_at })),
    };
    this.keySet = { at: now, value };
    return value;
  }

  private keySet: { at: number; value: SigningKeySet } | undefined;

  /**
   * Re-reads the session's stored events and decisions, checking each link; the last signed
   * head against the chain and the known keys; and every spill file an event claims against its
   * digest (decrypted when sealed). Stops at the first break. Yields to the event loop between pages.
   */
  async verify(scope: Scope, sessionId: string): Promise<ChainVerification> {
    this.parts.records.get(sessionId, scope.tenant);
    // A check reads every record and spill file of a session: a tenant runs a few at a time.
    const tenant = scope.tenant ?? 'default';
    const running = this.verifying.get(tenant) ?? 0;
    if (running >= MAX_VERIFIES_PER_TENANT) {
      throw new DomainError('limit', `${running} verifications of this tenant's sessions are running; try again when one has finished`);
    }
    this.verifying.set(tenant, running + 1);
    try {
      return await this.check(sessionId);
    } finally {
      const left = (this.verifying.get(tenant) ?? 1) - 1;
      if (left > 0) this.verifying.set(tenant, left);
      else this.verifying.delete(tenant);
    }
  }

  private readonly verifying = new Map<string, number>();

  private async check(sessionId: string): Promise<ChainVerification> {
    const { store, outputs } = this.parts.deps;
    const signed = store.keys.signedHead(sessionId) ?? null;
    // The head this process signed last: a copy a writer of the database cannot change or remove.
    const mine = this.signer.remembered(sessionId);
    const heads = [signed, mine].filter((h) => h !== null && h !== undefined);
    const events = new ChainChecker('event', sessionId, new Set(heads.map((h) => h.events.seq)));
    const decisions = new ChainChecker('decision', sessionId, new Set(heads.map((h) => h.decisions.seq)));
    const claims = new Map<string, { sha256: string; seq: number }>();
    for (let after = 0; ; ) {
      const page = store.eventsAfter(sessionId, after, PAGE);
      for (const e of page) if (!events.push(e)) break;
      for (const c of claimsOf(page)) if (!claims.has(c.id)) claims.set(c.id, { sha256: c.sha256, seq: c.seq });
      if (events.broken || page.length < PAGE) break;
      after = page.at(-1)!.seq;
      await yieldToLoop();
    }
    for (let after = 0; !events.broken; ) {
      const page = store.listDecisions(sessionId, { afterSeq: after, limit: PAGE });
      for (const d of page) if (!decisions.push(d)) break;
      if (decisions.broken || page.length < PAGE) break;
      after = page.at(-1)!.seq;
      await yieldToLoop();
    }
    const result: ChainVerification = {
      ok: false,
      session_id: sessionId,
      events: events.count,
      decisions: decisions.count,
      unchained: events.unchained + decisions.unchained,
      head: { events: events.head, decisions: decisions.head },
      signed_head: null,
      outputs: { claimed: claims.size, files_checked: 0 },
    };
    if (events.broken) return { ...result, first_broken: { part: 'events', ...events.broken } };
    if (decisions.broken) return { ...result, first_broken: { part: 'decisions', ...decisions.broken } };
    if (signed) {
      const broken = this.checkSigned(signed, events, decisions);
      result.signed_head = { ...signed, verified: broken === null };
      if (broken) return { ...result, first_broken: { part: 'signed_head', ...broken } };
    }
    if (mine) {
      const broken = !signed
        ? { seq: mine.events.seq, reason: `the session's signed head was removed from the store (this server signed one at ${mine.signed_at})` }
        : continuity(mine, events, decisions);
      if (broken) return { ...result, first_broken: { part: 'signed_head', ...broken } };
    }
    for (const [id, claim] of claims) {
      const record = store.getOutput(sessionId, id);
      if (!record) return { ...result, first_broken: { part: 'outputs', seq: claim.seq, reason: `output ${id}, claimed by event ${claim.seq}, has no record` } };
      if (record.sha256 !== claim.sha256) {
        return { ...result, first_broken: { part: 'outputs', seq: claim.seq, reason: `output ${id}'s record says sha256 ${record.sha256}, but event ${claim.seq} claims ${claim.sha256}` } };
      }
      if (record.status !== 'available') continue;
      let digest: string;
      try {
        digest = await outputs.digest(sessionId, id);
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        const why = code === 'ENOENT' ? 'is missing' : `cannot be read: ${code ?? (err as Error).message}`;
        return { ...result, first_broken: { part: 'outputs', seq: claim.seq, reason: `output ${id}'s file ${why}` } };
      }
      result.outputs.files_checked++;
      if (digest !== claim.sha256) {
        return { ...result, first_broken: { part: 'outputs', seq: claim.seq, reason: `output ${id}'s file has sha256 ${digest}, but event ${claim.seq} claims ${claim.sha256}: the file was changed` } };
      }
    }
    return { ...result, ok: true };
  }

  /** Why the signed head does not hold for the chain as stored (null: it holds). */
  private checkSigned(signed: SignedHead, events: ChainChecker, decisions: ChainChecker): ChainBreak | null {
    const key = this.signingKeys().keys.find((k) => k.kid === signed.key_id);
    if (!key) return { seq: signed.events.seq, reason: `the last signed head names key ${signed.key_id}, which this server does not know` };
    if (!verifyHead(signed, key)) return { seq: signed.events.seq, reason: `the last signed head's signature does not verify under key ${signed.key_id}: the head was changed` };
    return continuity(signed, events, decisions);
  }

  /**
   * The chain an export carries: its head signed now (as committed), and the key. The export's
   * events and decisions are then read up to that head exactly.
   */
  exportChain(scope: Scope, sessionId: string): { algorithm: 'norma-chain-v1'; head: SignedHead; public_key: PublicJwk & { kid: string } } {
    this.parts.records.get(sessionId, scope.tenant);
    let head: SignedHead;
    try {
      head = this.signer.sign(sessionId);
    } catch (err) {
      if (err instanceof ChainContinuityError) throw new DomainError('conflict', `the session's stored chain is not exported: ${err.message}; GET /v1/sessions/${sessionId}/verify says where it breaks`);
      throw err;
    }
    return { algorithm: 'norma-chain-v1', head, public_key: { ...this.signer.key.publicJwk, kid: this.signer.key.keyId } };
  }
}

/** Why the chains as read do not hold a head signed before (null: they hold it). */
function continuity(head: { events: ChainHeadPoint; decisions: ChainHeadPoint; signed_at: string }, events: ChainChecker, decisions: ChainChecker): ChainBreak | null {
  for (const [kind, checker, point] of [['event', events, head.events], ['decision', decisions, head.decisions]] as const) {
    if (checker.head.seq < point.seq) {
      return { seq: checker.head.seq + 1, reason: `the ${kind}s end at ${checker.head.seq}, but a head signed at ${head.signed_at} covers ${point.seq}: ${kind}s were removed` };
    }
    if (checker.hashAt(point.seq) !== point.hash) {
      return { seq: point.seq, reason: `${kind} ${point.seq}'s hash is not the one signed at ${head.signed_at}: the chain up to it was rewritten` };
    }
  }
  return null;
}
