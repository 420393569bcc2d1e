// What a networked process is given to find its way out: the CA bundle it trusts (the system's,
// plus the session's own authority when the proxy terminates TLS), mounted where curl, git, npm,
// pip, Python, Go and OpenSSL look, with the variables that name it; and a preload that makes
// Node's `fetch` use the proxy variables (Node 20's fetch ignores them), from this server's own
// undici, mounted read-only.
import fs from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';

/** The system bundle (Debian's ca-certificates), the same path inside the sandbox. */
export const SYSTEM_BUNDLE = '/etc/ssl/certs/ca-certificates.crt';
/** Inside the sandbox. */
export const SANDBOX_BUNDLE = '/run/norma/ca-bundle.pem';
export const SANDBOX_CA = '/run/norma/session-ca.pem';
export const SANDBOX_PRELOAD = '/run/norma/node-proxy.cjs';
export const SANDBOX_UNDICI = '/run/norma/undici';

export interface TrustFiles {
  /** Host paths: the bundle (system + session CA) and the session CA alone, when TLS is terminated. */
  bundle?: string;
  ca?: string;
  /** Whether the system bundle exists on the host (the bundle is mounted over it too). */
  systemBundle: boolean;
  preload?: string;
  undiciDir?: string;
}

const PRELOAD = `// Node's fetch through the session's egress proxy (HTTP_PROXY, HTTPS_PROXY, NO_PROXY).
try {
  const undici = require(${JSON.stringify(SANDBOX_UNDICI)});
  undici.setGlobalDispatcher(new undici.EnvHttpProxyAgent());
} catch {}
`;

function findUndici(): string | undefined {
  try {
    return path.dirname(createRequire(import.meta.url).resolve('undici/package.json'));
  } catch {
    return undefined;
  }
}

export async function trustFiles(dir: string, caPem: string | null, undiciDir: string | undefined = findUndici()): Promise<TrustFiles> {
  const system = await fs.readFile(SYSTEM_BUNDLE, 'utf8').catch(() => null);
  const out: TrustFiles = { systemBundle: system !== null };
  if (caPem) {
    out.ca = path.join(dir, 'session-ca.pem');
    out.bundle = path.join(dir, 'ca-bundle.pem');
    await fs.writeFile(out.ca, caPem, { mode: 0o644 });
    await fs.writeFile(out.bundle, `${system ?? ''}\n${caPem}`, { mode: 0o644 });
  }
  if (undiciDir) {
    out.preload = path.join(dir, 'node-proxy.cjs');
    out.undiciDir = undiciDir;
    await fs.writeFile(out.preload, PRELOAD, { mode: 0o644 });
  }
  return out;
}

/** The variables that point programs at the bundle (and Node at the preload). */
export function trustEnvironment(t: TrustFiles): Record<string, string> {
  const env: Record<string, string> = {};
  if (t.bundle) {
    for (const k of ['SSL_CERT_FILE', 'CURL_CA_BUNDLE', 'GIT_SSL_CAINFO', 'REQUESTS_CA_BUNDLE', 'PIP_CERT', 'NPM_CONFIG_CAFILE']) env[k] = SANDBOX_BUNDLE;
    env.NODE_EXTRA_CA_CERTS = SANDBOX_CA;
  }
  if (t.preload && t.undiciDir) env.NODE_OPTIONS = `--require=${SANDBOX_PRELOAD}`;
  return env;
}

/** bwrap's options that mount them. */
export function trustMounts(t: TrustFiles): string[] {
  const a: string[] = [];
  if (t.bundle && t.ca) {
    a.push('--ro-bind', t.bundle, SANDBOX_BUNDLE, '--ro-bind', t.ca, SANDBOX_CA);
    if (t.systemBundle) a.push('--ro-bind', t.bundle, SYSTEM_BUNDLE);
  }
  if (t.preload && t.undiciDir) a.push('--ro-bind', t.preload, SANDBOX_PRELOAD, '--ro-bind', t.undiciDir, SANDBOX_UNDICI);
  return a;
}

/**
 * The certificates real servers are verified against when the proxy terminates TLS: the system's
 * store (Node's own when there is none), plus the operator's NORMA_EGRESS_CA_FILE.
 */
export async function upstreamCertificates(extraFile?: string): Promise<string[]> {
  const { rootCertificates } = await import('node:tls');
  const system = await fs.readFile(SYSTEM_BUNDLE, 'utf8').catch(() => null);
  const split = (pem: string) => pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  const certs = system ? split(system) : [...rootCertificates];
  if (extraFile) certs.push(...split(await fs.readFile(extraFile, 'utf8')));
  return certs;
}
