// Secrets as the session's processes and its egress proxy hold them: each name has a placeholder
// (what the processes' environment holds: `nrm_ph_` and 32 hex digits, the same for a session and
// name across restarts, so a file a process wrote with it keeps working) and the value only the
// proxy holds. Checked here wherever they are declared (operator file, tenant policy, session).
import { createHash } from 'node:crypto';
import type { Secret, Secrets } from '../../contract/secrets.js';
import { hostMatches, parseDomain, type DomainPattern } from '../../egress/domain.js';

export type SecretSource = 'operator' | 'tenant' | 'session';

export interface SecretBinding {
  name: string;
  value: string;
  hosts: DomainPattern[];
  header?: string;
  /** The header's value with `{value}` (default `{value}`). */
  format: string;
  placeholder: string;
  source: SecretSource;
}

export const PLACEHOLDER_PREFIX = 'nrm_ph_';
export const PLACEHOLDER_LENGTH = PLACEHOLDER_PREFIX.length + 32;
/** Any placeholder (of any session): what the proxy looks for in names it would resolve. */
export const ANY_PLACEHOLDER = /nrm_ph_[0-9a-f]{32}/i;

/**
 * Names a secret may not take: what the sandbox sets itself (its paths, the proxy and CA
 * variables, NODE_OPTIONS) and what the loader or shells read on start.
 */
const RESERVED = new Set([
  'PATH', 'HOME', 'TMPDIR', 'LANG', 'LC_ALL', 'TERM', 'PAGER', 'GIT_PAGER', 'NO_COLOR', 'GIT_CONFIG_NOSYSTEM', 'GIT_CONFIG_GLOBAL',
  'INPUTRC', 'HTTP_PROXY', 'HTTPS_PROXY', 'ALL_PROXY', 'NO_PROXY', 'SSL_CERT_FILE', 'SSL_CERT_DIR', 'CURL_CA_BUNDLE', 'GIT_SSL_CAINFO',
  'REQUESTS_CA_BUNDLE', 'NODE_EXTRA_CA_CERTS', 'NODE_OPTIONS', 'PIP_CERT', 'NPM_CONFIG_CAFILE', 'BASH_ENV', 'ENV', 'SHELL', 'PWD',
  'OLDPWD', 'IFS', 'PS4', 'SHELLOPTS', 'BASHOPTS', 'PROMPT_COMMAND', 'PYTHONSTARTUP', 'PYTHONPATH', 'PERL5OPT', 'RUBYOPT',
]);

export function reservedName(name: string): string | null {
  const upper = name.toUpperCase();
  if (RESERVED.has(upper)) return `${name} is set by the sandbox itself (or read by programs as they start)`;
  if (upper.startsWith('LD_')) return `${name}: LD_ variables configure the dynamic loader`;
  if (upper.startsWith('NORMA_')) return `${name}: the NORMA_ prefix is the server's`;
  return null;
}

/** The placeholder of a secret in a session: not secret (processes see it), only unmistakable. */
export function placeholderFor(sessionId: string, name: string): string {
  return PLACEHOLDER_PREFIX + createHash('sha256').update(`${sessionId}\0${name}`).digest('hex').slice(0, 32);
}

/** What is wrong with declared secrets, each problem naming `where` and the secret. */
export function checkSecrets(where: string, secrets: Secrets | null | undefined): string[] {
  const problems: string[] = [];
  for (const [name, s] of Object.entries(secrets ?? {})) {
    const at = `${where}.${name}`;
    if (!/^[A-Za-z_][A-Za-z0-9_]{0,63}$/.test(name)) problems.push(`${at}: ${JSON.stringify(name)} is not an environment variable name (a letter or _, then letters, digits and _)`);
    const reserved = reservedName(name);
    if (reserved) problems.push(`${at}: ${reserved}`);
    problems.push(...checkSecret(at, s));
  }
  return problems;
}

function checkSecret(at: string, s: Secret): string[] {
  const problems: string[] = [];
  if (typeof s.value !== 'string' || s.value.length < 8) problems.push(`${at}.value: a secret has 8 characters or more`);
  else if (/[\u0000-\u001f\u007f]/.test(s.value)) problems.push(`${at}.value: line breaks and control characters cannot travel in a request`);
  else if (ANY_PLACEHOLDER.test(s.value)) problems.push(`${at}.value: holds a placeholder`);
  if (!Array.isArray(s.hosts) || s.hosts.length === 0) problems.push(`${at}.hosts: a secret names the hosts it may be sent to`);
  for (const [i, h] of (s.hosts ?? []).entries()) {
    const d = parseDomain(`domain:${h}`);
    if (typeof d === 'string') problems.push(`${at}.hosts[${i}]: ${d}`);
  }
  if (s.format !== undefined) {
    if (s.header === undefined) problems.push(`${at}.format: a format is for the header the secret names (set "header")`);
    const n = s.format.split('{value}').length - 1;
    if (n !== 1) problems.push(`${at}.format: must hold "{value}" once (it holds it ${n} times)`);
    if (/[\u0000-\u001f\u007f]/.test(s.format)) problems.push(`${at}.format: line breaks and control characters cannot travel in a header`);
  }
  if (s.header !== undefined && /^(host|content-length|transfer-encoding|connection|proxy-authorization|upgrade|te|trailer)$/i.test(s.header)) {
    problems.push(`${at}.header: ${s.header} is not a header a secret may set`);
  }
  return problems;
}

/**
 * The bindings of a session: the operator's secrets, then its tenant's, then its own; a name
 * one source declares cannot be declared again by a later one (a problem).
 */
export function bindSecrets(sessionId: string, sources: readonly { source: SecretSource; secrets: Secrets | null | undefined }[]): { bindings: SecretBinding[]; problems: string[] } {
  const bindings: SecretBinding[] = [];
  const problems: string[] = [];
  const owner = new Map<string, SecretSource>();
  for (const { source, secrets } of sources) {
    for (const [name, s] of Object.entries(secrets ?? {})) {
      const earlier = owner.get(name);
      if (earlier) {
        problems.push(`secrets.${name}: the ${earlier === 'operator' ? "operator's" : "tenant's"} secret of that name is in force; choose another name`);
        continue;
      }
      owner.set(name, source);
      const hosts = s.hosts.map((h) => parseDomain(`domain:${h}`)).filter((d): d is DomainPattern => typeof d !== 'string');
      bindings.push({
        name,
        value: s.value,
        hosts,
        ...(s.header !== undefined ? { header: s.header } : {}),
        format: s.format ?? '{value}',
        placeholder: placeholderFor(sessionId, name),
        source,
      });
    }
  }
  return { bindings, problems };
}

/** Is `host:port` one of the secret's hosts? */
export function boundTo(b: SecretBinding, host: string, port: number): boolean {
  return b.hosts.some((d) => hostMatches(d, host, port));
}
