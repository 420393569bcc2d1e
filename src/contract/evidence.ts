// Evidence anyone can verify (API.md): signed chain heads, the keys that sign them, the check of a
// stored chain, and encryption at rest's key rotation.
import { Type, type Static } from '@sinclair/typebox';
import { ref, StringEnum } from './common.js';

const Hash = (description: string) => Type.String({ pattern: '^[0-9a-f]{64}$', description });

export const ChainPointSchema = Type.Object(
  {
    seq: Type.Integer({ minimum: 0, description: 'The last record covered (0: none)' }),
    hash: Hash('Its `hash` (64 zeros: none, or records stored before the chain existed)'),
  },
  { $id: 'ChainPoint', additionalProperties: false },
);

export const SignedHeadSchema = Type.Object(
  {
    session_id: Type.String(),
    events: ref(ChainPointSchema, 'The last event covered'),
    decisions: ref(ChainPointSchema, 'The last permission decision covered'),
    signed_at: Type.String({ format: 'date-time' }),
    key_id: Type.String({ description: 'The signing key (its RFC 7638 thumbprint; GET /v1/signing-key)' }),
    alg: Type.Literal('EdDSA'),
    signature: Type.String({
      description:
        'Ed25519 signature (base64url) of the RFC 8785 canonical JSON of {format: "norma.chain-head", version: 1, session_id, events, decisions, signed_at, key_id}',
    }),
  },
  { $id: 'SignedHead', description: 'A session\'s chain head signed by the server at a time' },
);
export type SignedHeadDoc = Static<typeof SignedHeadSchema>;

export const SigningKeySetSchema = Type.Object(
  {
    key_id: Type.String({ description: 'The key signing now' }),
    keys: Type.Array(
      Type.Object({
        kty: Type.Literal('OKP'),
        crv: Type.Literal('Ed25519'),
        x: Type.String(),
        kid: Type.String(),
        use: Type.Literal('sig'),
        alg: Type.Literal('EdDSA'),
        status: StringEnum(['current', 'other'], { description: '`current`: the key this server signs with; `other`: a key another replica signs with, or one used before a rotation (heads it signed still verify)' }),
        created_at: Type.String({ format: 'date-time', description: 'When a server first used it' }),
      }),
      { description: 'Public keys as JWK, the current one first' },
    ),
  },
  { $id: 'SigningKeySet', description: 'The public keys that sign chain heads (a JWK set with `key_id` naming the current one)' },
);

export const ChainExportSchema = Type.Object(
  {
    algorithm: Type.Literal('norma-chain-v1', { description: 'SHA-256 over RFC 8785 canonical JSON, each record after the previous one\'s hash' }),
    head: ref(SignedHeadSchema, 'Signed when the export was made; `events` and `decisions` hold exactly the records up to it'),
    public_key: Type.Object(
      { kty: Type.Literal('OKP'), crv: Type.Literal('Ed25519'), x: Type.String(), kid: Type.String() },
      { description: 'The key that signed (compare with GET /v1/signing-key before trusting it)' },
    ),
  },
  { $id: 'ChainExport', description: 'The evidence chain of an export: check it offline with `npx norma-verify`' },
);

export const ChainVerificationSchema = Type.Object(
  {
    ok: Type.Boolean(),
    session_id: Type.String(),
    events: Type.Integer({ minimum: 0, description: 'Events whose hash verified' }),
    decisions: Type.Integer({ minimum: 0, description: 'Permission decisions whose hash verified' }),
    unchained: Type.Integer({ minimum: 0, description: 'Events and decisions stored before the chain existed (first, without a hash)' }),
    head: Type.Object({ events: ref(ChainPointSchema), decisions: ref(ChainPointSchema) }, { description: 'The last records that verified' }),
    signed_head: Type.Union(
      [Type.Intersect([ref(SignedHeadSchema), Type.Object({ verified: Type.Boolean({ description: 'The signature verifies under a known key, and the chain holds the hashes it signed' }) })]), Type.Null()],
      { description: 'The session\'s last signed head (signed each minute while the chain moves, and by each export); null: none yet' },
    ),
    outputs: Type.Object({
      claimed: Type.Integer({ minimum: 0, description: 'Spill files whose digest a chained event carries' }),
      files_checked: Type.Integer({ minimum: 0, description: 'Of those, files on disk read whole and hashed (decrypted when sealed)' }),
    }),
    first_broken: Type.Optional(
      Type.Object({
        part: StringEnum(['events', 'decisions', 'signed_head', 'outputs']),
        seq: Type.Integer({ minimum: 0, description: 'The event (or decision) seq where the chain first fails' }),
        reason: Type.String(),
      }),
    ),
  },
  { $id: 'ChainVerification', description: 'The stored chain re-read and checked; `first_broken` names the first link that fails' },
);

export const KeyRotationSchema = Type.Object(
  {
    key_id: Type.String({ description: 'The master key in use from now on' }),
    previous_key_id: Type.String(),
    rewrapped: Type.Integer({ minimum: 0, description: 'Tenants\' data keys wrapped again (nothing sealed was rewritten)' }),
  },
  { $id: 'KeyRotation' },
);
