// Start-up of the evidence chain's signing and of encryption at rest: the signing key is read (or
// made, the first time, in the data directory), published in the store, and the master key opens
// every stored data key before anything is served. A key file others may read, a malformed key,
// or a master key that does not open the stored data keys stops start-up with the reason; a store
// that holds encrypted data never starts without its key (never half-readable).
import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';
import { ConfigError, type Config } from '../config.js';
import { ChainSigner } from '../events/chain-signer.js';
import { EncryptionKeyError, MasterKey, Sealer } from '../evidence/encryption.js';
import { SigningKey, SigningKeyError } from '../evidence/signing.js';
import type { Clock } from '../ids.js';
import type { ColumnSealer } from '../store/sqlite-rows.js';
import type { Store } from '../store/store.js';

export interface Evidence {
  signer: ChainSigner;
  /** Encryption at rest when on. */
  encryption: { sealer: Sealer; keyFile: string } | undefined;
  /** What /readyz says about both. */
  describe(): { ok: boolean; detail: string }[];
}

/** `store` is the store as opened (its `sealer` is set here when encryption is on); `release` lets it go when start-up stops here. */
export function openEvidence(config: Config, store: Store & { sealer?: ColumnSealer | undefined }, clock: Clock, logger: Logger, release: () => void): Evidence {
  const { signingKeyFile, encryptionKeyFile } = config.evidence;
  let key: SigningKey;
  let encryption: Evidence['encryption'];
  try {
    if (signingKeyFile) {
      key = SigningKey.fromFile(signingKeyFile, false);
    } else {
      fs.mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
      key = SigningKey.fromFile(path.join(config.dataDir, 'signing-key.pem'), true);
    }
    if (encryptionKeyFile) {
      const sealer = new Sealer(MasterKey.fromFile(encryptionKeyFile), store.keys, () => clock().toISOString(), () => MasterKey.fromFile(encryptionKeyFile));
      const opened = sealer.checkAll();
      encryption = { sealer, keyFile: encryptionKeyFile };
      if ('sealer' in store) store.sealer = sealer;
      logger.info({ master_key_id: sealer.masterKeyId, data_keys: opened }, 'encryption at rest is on');
    } else if (store.keys.dataKeys().length > 0) {
      throw new EncryptionKeyError('the store holds data sealed by encryption at rest, and NORMA_ENCRYPTION_KEY_FILE is not set: start with the key it was sealed with');
    }
  } catch (err) {
    release();
    if (err instanceof SigningKeyError || err instanceof EncryptionKeyError) throw new ConfigError([err.message]);
    throw err;
  }
  const signer = new ChainSigner(key, store, clock, logger);
  signer.publish();
  return {
    signer,
    encryption,
    describe: () => [
      { ok: true, detail: `chain heads are signed with Ed25519 key ${key.keyId} (${signingKeyFile ? 'NORMA_SIGNING_KEY_FILE' : 'made in the data directory'}); GET /v1/signing-key publishes it` },
      encryption
        ? { ok: true, detail: `on: spill files and stored secrets (hooks, model keys, MCP env and headers, session secrets) are sealed with AES-256-GCM under per-tenant data keys wrapped by master key ${encryption.sealer.masterKeyId}; not encrypted: events, transcripts, workspaces, checkpoints` }
        : { ok: true, detail: 'off (NORMA_ENCRYPTION_KEY_FILE is not set): spill files and stored secrets are in clear on disk' },
    ],
  };
}
