// NORMA_SECRETS_FILE: the operator's secrets for every session's processes, read and checked at
// start-up (`{NAME: {value, hosts, header?, format?}}`, or that under "secrets") with
// NORMA_EGRESS_CA_FILE's certificates (loadOperatorNetwork). Any problem stops
// start-up, naming the file and the secret; a file others may read is refused, as ssh refuses a
// key others may read.
import fs from 'node:fs/promises';
import { Value } from '@sinclair/typebox/value';
import { ConfigError, type Config } from '../../config.js';
import { SecretsSchema, type Secrets } from '../../contract/secrets.js';
import { checkSecrets } from './secrets.js';
import { upstreamCertificates } from './trust.js';

export async function loadSecretsFile(file: string, sandbox: 'bwrap' | 'off'): Promise<Secrets> {
  let json: unknown;
  try {
    const st = await fs.stat(file);
    if ((st.mode & 0o004) !== 0) throw new Error(`others may read it (mode ${(st.mode & 0o777).toString(8)}); chmod o-r it (600 is best)`);
    json = JSON.parse(await fs.readFile(file, 'utf8'));
  } catch (err) {
    throw new ConfigError([`NORMA_SECRETS_FILE ${file}: ${(err as Error).message}`]);
  }
  const secrets = typeof json === 'object' && json !== null && 'secrets' in json ? (json as { secrets: unknown }).secrets : json;
  if (!Value.Check(SecretsSchema, secrets)) {
    throw new ConfigError([...Value.Errors(SecretsSchema, secrets)].slice(0, 20).map((e) => `NORMA_SECRETS_FILE ${file}: ${e.path || '(root)'} ${e.message}`));
  }
  const problems = checkSecrets(`NORMA_SECRETS_FILE ${file}: secrets`, secrets);
  if (sandbox === 'off' && Object.keys(secrets).length > 0) problems.push(`NORMA_SECRETS_FILE ${file}: with NORMA_SANDBOX=off commands run as the server and could read every value`);
  if (problems.length > 0) throw new ConfigError(problems);
  return secrets;
}

/** What the operator gives every session's network: NORMA_SECRETS_FILE and the certificates servers are verified against. */
export interface OperatorNetwork {
  operatorSecrets?: Secrets;
  upstreamCa: string[];
}

export async function loadOperatorNetwork(config: Pick<Config, 'secretsFile' | 'egressCaFile' | 'sandbox'>): Promise<OperatorNetwork> {
  const operatorSecrets = config.secretsFile ? await loadSecretsFile(config.secretsFile, config.sandbox) : undefined;
  const upstreamCa = await upstreamCertificates(config.egressCaFile).catch((err: Error) => {
    throw new ConfigError([`NORMA_EGRESS_CA_FILE ${config.egressCaFile}: ${err.message}`]);
  });
  if (upstreamCa.length === 0) throw new ConfigError([`no certificate to verify servers with (${config.egressCaFile ?? 'the system store is empty'})`]);
  return { ...(operatorSecrets ? { operatorSecrets } : {}), upstreamCa };
}
