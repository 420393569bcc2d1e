// Every secret a session's peers could echo back, in one Redactor: the server's (NORMA_TOKEN,
// NORMA_MODEL_API_KEY, the search backend's key, the egress proxy's password), and the session's
// (its model key, the secrets of the http hooks it runs — the operator's, its tenant's and its
// own —, the env and header values of the MCP servers it runs, and its processes' secrets). Text a peer sent (a model
// provider's error, an http hook's answer, an MCP server's error or stderr, a failed fetch) passes
// it before it is stored in a turn, an event or a decision, or shown in an export.
import type { Config } from '../config.js';
import type { Secrets } from '../contract/secrets.js';
import type { McpServers } from '../contract/mcp.js';
import type { SessionHooks } from '../hooks/registry.js';
import { secretsOf } from '../mcp/hub.js';
import { Redactor } from '../redact.js';
import type { SessionRecord } from '../store/store.js';
import type { TenantPolicies } from '../tenants/policy.js';

function hookSecrets(hooks: SessionHooks | null | undefined): string[] {
  const out: string[] = [];
  for (const groups of Object.values(hooks ?? {})) {
    for (const group of groups ?? []) for (const h of group.hooks) if (h.type === 'http' && h.secret) out.push(h.secret);
  }
  return out;
}

function mcpSecrets(servers: McpServers | null | undefined): string[] {
  return Object.values(servers ?? {}).flatMap(secretsOf);
}

/** The password of a proxy URL's credentials, if it has any. */
function proxyPassword(url: string | undefined): string | undefined {
  if (!url) return undefined;
  try {
    const u = new URL(url);
    return u.password ? decodeURIComponent(u.password) : undefined;
  } catch {
    return undefined;
  }
}

export interface SecretSources {
  config: Config;
  operatorHooks?: SessionHooks;
  operatorMcp?: McpServers;
  /** NORMA_SECRETS_FILE's secrets for sandboxed processes. */
  operatorSecrets?: Secrets;
  tenants: TenantPolicies;
}

/** The secrets of the server and of the session `record`. */
export function sessionSecrets(record: SessionRecord, d: SecretSources): string[] {
  const { config } = d;
  return [
    config.token,
    config.model.apiKey,
    config.web.search.apiKey,
    proxyPassword(config.web.proxy),
    record.modelApiKey,
    ...hookSecrets(d.operatorHooks),
    ...hookSecrets(d.tenants.policyOf(record.session.tenant)?.hooks),
    ...hookSecrets(record.hooks),
    ...mcpSecrets(d.operatorMcp),
    ...mcpSecrets(record.mcpServers),
    // Process secrets: the proxy turns an echo back into the placeholder; anything else that
    // carries one (a server's error, a hook's answer) is redacted here.
    ...Object.values(d.operatorSecrets ?? {}).map((x) => x.value),
    ...Object.values(d.tenants.policyOf(record.session.tenant)?.source.secrets ?? {}).map((x) => x.value),
    ...Object.values(record.secrets ?? {}).map((x) => x.value),
  ].filter((s): s is string => typeof s === 'string' && s !== '');
}

/** One Redactor for everything the session's peers send back. */
export function sessionRedactor(record: SessionRecord, d: SecretSources): Redactor {
  return new Redactor(sessionSecrets(record, d));
}
