// NORMA_SECRETS_FILE and NORMA_EGRESS_CA_FILE at start-up: every bad file stops the server with a
// message naming it, and never prints a value.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadSecretsFile } from '../../src/sandbox/net/secrets-file.js';
import { upstreamCertificates } from '../../src/sandbox/net/trust.js';
import { SessionAuthority } from '../../src/sandbox/net/ca.js';

// One directory per test, made once even when files are asked for at the same time.
let dir: Promise<string> | undefined;
afterEach(async () => {
  if (dir) await fs.rm(await dir, { recursive: true, force: true });
  dir = undefined;
});

async function file(content: string, mode = 0o600): Promise<string> {
  dir ??= fs.mkdtemp(path.join(os.tmpdir(), 'norma-secrets-file-'));
  const f = path.join(await dir, `s${Math.random().toString(16).slice(2)}.json`);
  await fs.writeFile(f, content);
  await fs.chmod(f, mode);
  return f;
}

const VALUE = 'operator-value-9f8e7d6c';

describe('NORMA_SECRETS_FILE', () => {
  it('loads a good file, bare or under "secrets"', async () => {
    const bare = { REGISTRY_TOKEN: { value: VALUE, hosts: ['registry.example.com'] } };
    expect(await loadSecretsFile(await file(JSON.stringify(bare)), 'bwrap')).toEqual(bare);
    expect(await loadSecretsFile(await file(JSON.stringify({ secrets: bare })), 'bwrap')).toEqual(bare);
  });
  it('refuses a file others may read, one that is not JSON, bad secrets, and any secret with the sandbox off; never echoing a value', async () => {
    const good = JSON.stringify({ A_TOKEN: { value: VALUE, hosts: ['a.example'] } });
    const cases: [Promise<string>, 'bwrap' | 'off', RegExp][] = [
      [file(good, 0o644), 'bwrap', /others may read it/],
      [file('{not json', 0o600), 'bwrap', /NORMA_SECRETS_FILE/],
      [file(JSON.stringify({ A: { value: VALUE, hosts: [] } })), 'bwrap', /hosts/],
      [file(JSON.stringify({ PATH: { value: VALUE, hosts: ['a.example'] } })), 'bwrap', /PATH is set by the sandbox/],
      [file(JSON.stringify({ A: { value: VALUE, hosts: ['*.*.a.example'] } })), 'bwrap', /only wildcard/],
      [file(good), 'off', /NORMA_SANDBOX=off/],
    ];
    for (const [f, sandbox, why] of cases) {
      const err = await loadSecretsFile(await f, sandbox).then(
        () => null,
        (e: Error) => e,
      );
      expect(err, String(why)).not.toBeNull();
      expect(err!.message).toMatch(why);
      expect(err!.message).not.toContain(VALUE);
    }
  });
});

describe('NORMA_EGRESS_CA_FILE', () => {
  it('adds its certificates to the system store; a missing file is an error', async () => {
    const system = await upstreamCertificates();
    expect(system.length).toBeGreaterThan(10);
    const ca = new SessionAuthority('extra');
    const withExtra = await upstreamCertificates(await file(ca.certPem));
    expect(withExtra.length).toBe(system.length + 1);
    expect(withExtra.at(-1)!.trim()).toBe(ca.certPem.trim());
    await expect(upstreamCertificates('/nonexistent/ca.pem')).rejects.toThrow();
  });
});
