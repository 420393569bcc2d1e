// Evidence anyone can verify (API.md): the public keys that sign chain heads, the check of a
// session's stored chain, and the rotation of encryption at rest's master key.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../src/app-context.js';
import { ChainVerificationSchema, KeyRotationSchema, SigningKeySetSchema, ref } from '../src/contract/schemas.js';
import { SessionParams, commonProblems, problems, scopeOf } from './common.js';

export const evidenceRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.get(
    '/v1/signing-key',
    {
      schema: {
        operationId: 'getSigningKey',
        tags: ['evidence'],
        summary: 'The public keys that sign chain heads (JWK)',
        description:
          'The Ed25519 key this server signs chain heads and exports with (`key_id`, its RFC 7638 thumbprint), and every other ' +
          'key recorded in the store (other replicas\' keys, keys used before a rotation). Pin the key id you fetched here when ' +
          'verifying an export offline: `npx norma-verify export.json --key keys.json`. A public key: no key needed.',
        security: [],
        response: { 200: ref(SigningKeySetSchema, 'The keys'), 403: problems[403], 421: problems[421], 429: problems[429] },
      },
    },
    async () => ctx.app.evidence.signingKeys(),
  );

  app.get(
    '/v1/sessions/:session_id/verify',
    {
      config: { access: 'read' },
      schema: {
        operationId: 'verifySession',
        tags: ['evidence'],
        summary: 'Re-read the session\'s stored chain and report the first broken link',
        description:
          'Checks every stored event and permission decision against its `hash` and the one before it, the session\'s last ' +
          'signed head against the chain and the known keys, and every spill file a chained event claims against its SHA-256 ' +
          '(decrypted when sealed). 200 either way: `ok` says whether it held, `first_broken` where it did not and why (an ' +
          'edited, removed or reordered record; a rewritten chain a signed head no longer matches; a changed spill file).',
        params: SessionParams,
        response: { 200: ref(ChainVerificationSchema, 'The check'), ...commonProblems, 404: problems[404] },
      },
    },
    async (req) => ctx.app.evidence.verify(scopeOf(req), req.params.session_id),
  );

  app.post(
    '/v1/encryption/rotate',
    {
      config: { access: 'admin', operator: true },
      schema: {
        operationId: 'rotateEncryptionKey',
        tags: ['evidence'],
        summary: 'Wrap every tenant\'s data key again under the master key now in NORMA_ENCRYPTION_KEY_FILE',
        description:
          'Write the new master key to NORMA_ENCRYPTION_KEY_FILE (on every replica), then call this once: the server reads the ' +
          'file, re-wraps every data key under it in one transaction (nothing sealed is rewritten) and wraps new ones with it. ' +
          'Sessions go on meanwhile. The operator only (NORMA_TOKEN, an `admin` key of the tenant `default`, or a loopback caller ' +
          'without keys). 409 when encryption is off, the file still holds the key in use, or the file is not a valid key.',
        response: { 200: ref(KeyRotationSchema, 'Rotated'), ...commonProblems, 409: problems[409] },
      },
    },
    async (req) => ctx.app.evidence.rotateEncryptionKey(scopeOf(req)),
  );
};
