// The server's Ed25519 signing key (NORMA_SIGNING_KEY_FILE) and what it signs: a session's chain
// head (chain.ts) at a time. The key id is the public key's RFC 7638 JWK thumbprint, so anyone
// holding the public key computes the same id. A head is signed as the canonical JSON of its
// fields with `format: "norma.chain-head"`, so a signature over one is never one over anything else.
import { constants as C, openSync, writeSync, closeSync, fstatSync, fsyncSync, linkSync, readFileSync, statSync, unlinkSync } from 'node:fs';
import { createHash, createPrivateKey, randomBytes, createPublicKey, generateKeyPairSync, sign, verify, type KeyObject } from 'node:crypto';
import { canonicalJson } from './canonical.js';
import type { ChainHeadPoint } from './chain.js';

/** An Ed25519 public key as a JWK. */
export interface PublicJwk {
  kty: 'OKP';
  crv: 'Ed25519';
  x: string;
  kid?: string;
}

/** What a head signature covers. */
export interface ChainHead {
  session_id: string;
  events: ChainHeadPoint;
  decisions: ChainHeadPoint;
  signed_at: string;
  key_id: string;
}

export interface SignedHead extends ChainHead {
  alg: 'EdDSA';
  /** Ed25519 signature (base64url) of headPayload(head). */
  signature: string;
}

export class SigningKeyError extends Error {}

/** The RFC 7638 thumbprint (base64url SHA-256) of an Ed25519 public JWK. */
export function keyIdOf(jwk: { crv: string; kty: string; x: string }): string {
  return createHash('sha256').update(canonicalJson({ crv: jwk.crv, kty: jwk.kty, x: jwk.x })).digest('base64url');
}

/** The bytes a head signature is over. */
export function headPayload(h: ChainHead): Buffer {
  return Buffer.from(
    canonicalJson({ format: 'norma.chain-head', version: 1, session_id: h.session_id, events: h.events, decisions: h.decisions, signed_at: h.signed_at, key_id: h.key_id }),
  );
}

/** Whether `head`'s signature verifies under `jwk` (and names that key). Never throws. */
export function verifyHead(head: SignedHead, jwk: PublicJwk): boolean {
  try {
    if (head.alg !== 'EdDSA' || head.key_id !== keyIdOf(jwk)) return false;
    const key = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: jwk.x }, format: 'jwk' });
    return verify(null, headPayload(head), key, Buffer.from(head.signature, 'base64url'));
  } catch {
    return false;
  }
}

/** A public JWK from outside (a --key file, an export): checked to be an Ed25519 key. */
export function publicJwkOf(value: unknown): PublicJwk {
  const v = value as Partial<PublicJwk> | null;
  if (typeof v !== 'object' || v === null || v.kty !== 'OKP' || v.crv !== 'Ed25519' || typeof v.x !== 'string' || !/^[A-Za-z0-9_-]{43}$/.test(v.x)) {
    throw new SigningKeyError('not an Ed25519 public key (a JWK with kty "OKP", crv "Ed25519" and a 32-byte x)');
  }
  return { kty: 'OKP', crv: 'Ed25519', x: v.x };
}

export class SigningKey {
  readonly keyId: string;
  readonly publicJwk: PublicJwk;

  constructor(private readonly key: KeyObject) {
    if (key.asymmetricKeyType !== 'ed25519') throw new SigningKeyError(`the signing key is ${key.asymmetricKeyType ?? 'not an asymmetric key'}, not Ed25519`);
    const jwk = createPublicKey(key).export({ format: 'jwk' }) as { x: string };
    this.publicJwk = { kty: 'OKP', crv: 'Ed25519', x: jwk.x };
    this.keyId = keyIdOf(this.publicJwk);
  }

  /** A key that lives as long as the process (a server without a data directory). */
  static ephemeral(): SigningKey {
    return new SigningKey(generateKeyPairSync('ed25519').privateKey);
  }

  /**
   * The key in `file` (PKCS#8 PEM). A missing file is made (mode 0600) when `create`, else an
   * error; a file others may read, or that is not an Ed25519 private key, is an error.
   */
  static fromFile(file: string, create: boolean): SigningKey {
    let exists = true;
    try {
      statSync(file);
    } catch {
      exists = false;
    }
    if (!exists) {
      if (!create) throw new SigningKeyError(`NORMA_SIGNING_KEY_FILE ${file} does not exist`);
      const key = generateKeyPairSync('ed25519').privateKey;
      // Written whole under a name of its own, then linked into place: replicas starting together
      // on one data directory never read a half-written key, and the first link wins.
      const tmp = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
      const fd = openSync(tmp, C.O_WRONLY | C.O_CREAT | C.O_EXCL | C.O_NOFOLLOW, 0o600);
      try {
        writeSync(fd, key.export({ format: 'pem', type: 'pkcs8' }) as string);
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
      try {
        linkSync(tmp, file);
        return new SigningKey(key);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
        // Another process made it first: its key is the one.
      } finally {
        unlinkSync(tmp);
      }
    }
    let fd: number;
    try {
      fd = openSync(file, C.O_RDONLY | C.O_NOFOLLOW);
    } catch (err) {
      throw new SigningKeyError(`the signing key file ${file} cannot be opened: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
    }
    let pem: string;
    try {
      const st = fstatSync(fd);
      if (!st.isFile()) throw new SigningKeyError(`the signing key file ${file} is not a regular file`);
      if ((st.mode & 0o077) !== 0) {
        throw new SigningKeyError(`the signing key file ${file} may be read by others (mode ${(st.mode & 0o777).toString(8).padStart(4, '0')}): make it 0600`);
      }
      if (st.size > 16 * 1024) throw new SigningKeyError(`the signing key file ${file} is ${st.size} bytes: not a key`);
      pem = readFileSync(fd, 'utf8');
    } finally {
      closeSync(fd);
    }
    let key: KeyObject;
    try {
      key = createPrivateKey({ key: pem, format: 'pem' });
    } catch {
      throw new SigningKeyError(`the signing key file ${file} does not hold a PEM private key`);
    }
    return new SigningKey(key);
  }

  sign(head: ChainHead): SignedHead {
    if (head.key_id !== this.keyId) throw new Error('a head names the key that signs it');
    return { ...head, alg: 'EdDSA', signature: sign(null, headPayload(head), this.key).toString('base64url') };
  }
}
