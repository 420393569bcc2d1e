// Environment → typed, validated configuration. A bad value stops start-up with a
// message naming the variable and what is allowed (API.md "Configuration").
import { readAdmissionSettings, type AdmissionSettings } from './config-admission.js';
import { readMcpEndpointSettings, type McpEndpointSettings } from './config-mcp-server.js';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import net from 'node:net';
import { Value } from '@sinclair/typebox/value';
import { Type } from '@sinclair/typebox';
import { ScriptReplySchema, type ModelConfigInput } from './contract/schemas.js';
import type { ResourceLimits } from './contract/limits.js';
import { readStoreSettings } from './config-store.js';
import { readSandboxSettings, type SandboxMode, type SandboxSettings } from './config-sandbox.js';

export type { SandboxMode } from './config-sandbox.js';

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
export const MODEL_PROVIDERS = ['anthropic', 'openai', 'scripted'] as const;
/** The WebSearch backends (src/web/search/ implements them). */
export const WEBSEARCH_BACKENDS = ['ddgs', 'brave', 'tavily', 'deepseek', 'searxng'] as const;
export type SearchBackendName = (typeof WEBSEARCH_BACKENDS)[number];

/** A usable search backend's configuration (src/web/search/config.ts checks it). */
export interface SearchConfig {
  backend: SearchBackendName;
  apiKey?: string;
  /**
   * Endpoint override (required for searxng: its base URL, e.g. http://searx.local:8080; optional
   * for others, used by tests/self-hosted proxies).
   */
  url?: string;
}
export type ModelProviderName = (typeof MODEL_PROVIDERS)[number];

export interface Config extends Pick<SandboxSettings, 'secretsFile' | 'egressCaFile'> {
  port: number;
  host: string;
  dataDir: string;
  workspaceRoot: string;
  token: string | undefined;
  /** The API keys, their tenants, scopes and policies (NORMA_API_KEYS_FILE; reloaded on SIGHUP). */
  apiKeysFile: string | undefined;
  /** Origins allowed to call the API from a browser (NORMA_CORS_ORIGINS); empty: CORS is off. */
  corsOrigins: string[];
  logLevel: LogLevel;
  sandbox: SandboxMode;
  /** Who sandboxed processes of a root server run as (NORMA_SANDBOX_USER; unset: `nobody`). */
  sandboxUser: string | undefined;
  sessionHooks: boolean;
  /** A JSON file of operator hooks (the shape of a session's `hooks`) run for every session (NORMA_HOOKS_FILE). */
  hooksFile: string | undefined;
  /** Evidence: the signing key (NORMA_SIGNING_KEY_FILE; unset: `signing-key.pem` in the data directory, made on first start), the master key of encryption at rest (NORMA_ENCRYPTION_KEY_FILE; unset: off), how often moved chains are signed (NORMA_CHAIN_SIGN_INTERVAL_S). */
  evidence: { signingKeyFile: string | undefined; encryptionKeyFile: string | undefined; signIntervalMs: number };
  /** The operator's skills: a folder of skill folders, each with a SKILL.md (NORMA_SKILLS_DIR). */
  skillsDir: string | undefined;
  /** A JSON file of MCP servers (the shape of a session's `mcp_servers`) every session gets (NORMA_MCP_FILE). */
  mcpFile: string | undefined;
  /** Where a session's own MCP servers may name `read_only_paths` (NORMA_MCP_READ_ONLY_ROOTS; default: the server's node_modules). */
  mcpReadOnlyRoots: string[];
  egressAllow: string[];
  /** Web tools: the explicit outbound proxy, WebFetch caps, and the WebSearch backend. */
  web: {
    proxy: string | undefined;
    fetchMaxBytes: number;
    fetchTimeoutMs: number;
    /** Longest an HTML page's conversion may take before the plain-text fallback (NORMA_WEBFETCH_CONVERT_TIMEOUT_S). */
    convertTimeoutMs: number;
    search: { backend: string | undefined; apiKey: string | undefined; url: string | undefined };
  };
  model: {
    provider: ModelProviderName | undefined;
    model: string | undefined;
    baseUrl: string | undefined;
    apiKey: string | undefined;
    /** scripted: the replies, from the JSON file NORMA_MODEL_SCRIPT. */
    script: ModelConfigInput['script'];
    /** NORMA_MODEL_PRICES: the operator's price table (read at start-up, src/model/prices.ts). */
    pricesFile: string | undefined;
  };
  /** Spill files older than this are removed (NORMA_OUTPUT_RETENTION_S). */
  outputRetentionMs: number;
  /** A session's spill files beyond this many bytes are removed, oldest first (NORMA_OUTPUT_MAX_BYTES). */
  outputMaxBytesPerSession: number;
  /** Largest request body accepted, in bytes (413 beyond). */
  bodyLimitBytes: number;
  /** Interval of the SSE `: ping` comment. API.md: at least every 15 s. */
  sseHeartbeatMs: number;
  /** An SSE subscriber whose unsent output passes this is ended with `stream.end` (it resumes). */
  sseMaxBufferBytes: number;
  /** The `retry:` an event stream sends: how long an EventSource waits before reconnecting. */
  sseRetryMs: number;
  /** `sqlite` (durable, the default), `postgres` (durable, shared by replicas) or `memory` (NORMA_STORE). */
  store: 'sqlite' | 'memory' | 'postgres';
  /** NORMA_DATABASE_URL: the PostgreSQL database of NORMA_STORE=postgres. */
  databaseUrl: string | undefined;
  /** NORMA_NODE_ID: this replica's name among those sharing the database (default: the host name). */
  nodeId: string;
  /** The SQLite file: `$NORMA_DATA_DIR/norma.db`. */
  databaseFile: string;
  /** Closed sessions' data is removed this long after they closed (NORMA_SESSION_RETENTION_S). */
  sessionRetentionMs: number;
  /** On SIGTERM, how long running calls may finish before they are cancelled (NORMA_SHUTDOWN_GRACE_S). */
  shutdownGraceMs: number;
  /** How many turns run at once here, and how many wait for a place (NORMA_MAX_RUNNING_TURNS, NORMA_TURN_QUEUE*). */
  admission: AdmissionSettings;
  /** The MCP endpoint at /mcp (NORMA_MCP_ENDPOINT, NORMA_MCP_SESSION_END, NORMA_MCP_IDLE_S, NORMA_MCP_MAX_SESSIONS). */
  mcpEndpoint: McpEndpointSettings;
  /** Resource limits of each session's sandboxed processes (NORMA_SANDBOX_*); sessions may only lower them. */
  sandboxLimits: ResourceLimits;
  /** NORMA_CGROUP: `auto`, `off`, or a delegated cgroup v2 directory. */
  cgroup: string;
  /**
   * Host names (with optional port) requests may name in `Host` besides the loopback names and
   * the bind address with the listening port (NORMA_ALLOWED_HOSTS); null: none. `*` turns the
   * check off.
   */
  allowedHosts: string[] | null;
  /**
   * The reverse proxies in front (NORMA_TRUST_PROXY: addresses, CIDRs, or `loopback`,
   * `linklocal`, `uniquelocal`); empty: none. A request from one of them is taken for the client
   * its X-Forwarded-For names, over the protocol its X-Forwarded-Proto names.
   */
  trustProxy: string[];
  /** Longest a lifecycle request (session create and close) waits for its hooks (NORMA_LIFECYCLE_TIMEOUT_S). */
  lifecycleTimeoutMs: number;
  /**
   * The web console at /console/ (NORMA_CONSOLE, default on) and the directory of its built
   * files (NORMA_CONSOLE_DIR, default the package's dist/console, which `npm run build` writes).
   */
  console: { enabled: boolean; dir: string };
  /**
   * Checkpoints of workspaces: the default of a session's `checkpoints` (NORMA_CHECKPOINTS, on),
   * the largest file captured (NORMA_CHECKPOINT_MAX_FILE_BYTES), the disk a session's checkpoints
   * may take (NORMA_CHECKPOINT_MAX_BYTES) and the entries one holds (NORMA_CHECKPOINT_MAX_ENTRIES).
   */
  checkpoints: { enabled: boolean; maxFileBytes: number; maxSessionBytes: number; maxEntries: number };
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
  }
}

const LOG_LEVELS: readonly LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/** True for 127.0.0.0/8, ::1 and `localhost`: the only binds allowed without a token. */
export function isLoopbackHost(hostName: string): boolean {
  const host = hostName.toLowerCase();
  if (host === 'localhost') return true;
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  if (net.isIPv4(bare)) return bare.startsWith('127.');
  if (net.isIPv6(bare)) {
    const lower = bare.toLowerCase();
    if (lower === '::1' || lower === '0:0:0:0:0:0:0:1') return true;
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
    return mapped !== null && mapped[1]!.startsWith('127.');
  }
  return false;
}

/** The port `npm start` listens on without PORT. */
export const DEFAULT_PORT = 7070;

export function loadConfig(env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): Config {
  const problems: string[] = [];
  const get = (name: string): string | undefined => {
    const v = env[name];
    return v === undefined || v.trim() === '' ? undefined : v.trim();
  };

  let port = DEFAULT_PORT;
  const rawPort = get('PORT');
  if (rawPort !== undefined) {
    if (!/^\d+$/.test(rawPort) || Number(rawPort) > 65535) {
      problems.push(`PORT must be an integer from 0 to 65535 (0 = any free port), got ${JSON.stringify(rawPort)}`);
    } else port = Number(rawPort);
  }

  const host = get('HOST') ?? '127.0.0.1';
  if (host !== 'localhost' && net.isIP(host.replace(/^\[|\]$/g, '')) === 0 && !/^[A-Za-z0-9.-]+$/.test(host)) {
    problems.push(`HOST must be an IP address or host name, got ${JSON.stringify(host)}`);
  }

  const token = get('NORMA_TOKEN');
  if (token !== undefined && token.length < 16) {
    problems.push('NORMA_TOKEN must be at least 16 characters long');
  }
  const file = (name: string) => (get(name) !== undefined ? path.resolve(cwd, get(name)!) : undefined);
  const apiKeysFile = file('NORMA_API_KEYS_FILE');
  if (!isLoopbackHost(host) && token === undefined && apiKeysFile === undefined) {
    problems.push(`HOST=${host} is not a loopback address: set NORMA_TOKEN or NORMA_API_KEYS_FILE to bind there (clients must then send "Authorization: Bearer <key>")`);
  }
  const corsOrigins: string[] = [];
  for (const raw of (get('NORMA_CORS_ORIGINS') ?? '').split(',').map((o) => o.trim()).filter((o) => o !== '')) {
    const origin = parseOrigin(raw);
    if (origin === null) {
      problems.push(`NORMA_CORS_ORIGINS entries must be origins such as https://app.example.com or http://localhost:5173 (scheme, host and port only; no "*", path or trailing slash), got ${JSON.stringify(raw)}`);
    } else if (!corsOrigins.includes(origin)) corsOrigins.push(origin);
  }

  const dataDir = path.resolve(cwd, get('NORMA_DATA_DIR') ?? '.norma');
  const workspaceRoot = path.resolve(cwd, get('NORMA_WORKSPACE_ROOT') ?? path.join(dataDir, 'workspaces'));

  const logLevel = (get('NORMA_LOG_LEVEL') ?? 'info') as LogLevel;
  if (!LOG_LEVELS.includes(logLevel)) {
    problems.push(`NORMA_LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got ${JSON.stringify(logLevel)}`);
  }

  const rawHooks = get('NORMA_SESSION_HOOKS') ?? 'on';
  if (rawHooks !== 'on' && rawHooks !== 'off') {
    problems.push(`NORMA_SESSION_HOOKS must be "on" or "off", got ${JSON.stringify(rawHooks)}`);
  }

  const egressAllow = (get('NORMA_EGRESS_ALLOW') ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  for (const entry of egressAllow) {
    const [addr, bits, extra] = entry.split('/');
    const validHost = /^[A-Za-z0-9.*-]+$/.test(entry) || net.isIP(entry) !== 0;
    const validCidr =
      extra === undefined &&
      bits !== undefined &&
      net.isIP(addr ?? '') !== 0 &&
      /^\d+$/.test(bits) &&
      Number(bits) <= (net.isIPv4(addr ?? '') ? 32 : 128);
    if (!validHost && !validCidr) {
      problems.push(`NORMA_EGRESS_ALLOW entries must be host names, IP addresses or CIDRs, got ${JSON.stringify(entry)}`);
    }
  }

  const provider = get('NORMA_MODEL_PROVIDER') as ModelProviderName | undefined;
  if (provider !== undefined && !MODEL_PROVIDERS.includes(provider)) {
    problems.push(`NORMA_MODEL_PROVIDER must be one of ${MODEL_PROVIDERS.join(', ')}, got ${JSON.stringify(provider)}`);
  }
  const baseUrl = get('NORMA_MODEL_BASE_URL');
  if (baseUrl !== undefined && !['http:', 'https:'].includes(URL.canParse(baseUrl) ? new URL(baseUrl).protocol : '')) {
    problems.push(`NORMA_MODEL_BASE_URL must be an http(s) URL, got ${JSON.stringify(baseUrl)}`);
  }

  const knownProvider = provider !== undefined && MODEL_PROVIDERS.includes(provider);
  if (knownProvider && get('NORMA_MODEL') === undefined) {
    problems.push('NORMA_MODEL must name the model when NORMA_MODEL_PROVIDER is set');
  }
  if ((provider === 'anthropic' || provider === 'openai') && baseUrl === undefined && get('NORMA_MODEL_API_KEY') === undefined) {
    problems.push(`NORMA_MODEL_API_KEY is required for NORMA_MODEL_PROVIDER=${provider} with its public endpoint (set NORMA_MODEL_BASE_URL for a local server without a key)`);
  }
  let script: ModelConfigInput['script'];
  const scriptFile = get('NORMA_MODEL_SCRIPT');
  if (scriptFile !== undefined) {
    try {
      const parsed: unknown = JSON.parse(fs.readFileSync(path.resolve(cwd, scriptFile), 'utf8'));
      if (!Value.Check(Type.Array(ScriptReplySchema), parsed)) {
        problems.push(`NORMA_MODEL_SCRIPT ${scriptFile}: must be a JSON array of replies ({"content": [...]} or {"error": "..."})`);
      } else script = parsed;
    } catch (err) {
      problems.push(`NORMA_MODEL_SCRIPT ${scriptFile}: ${(err as Error).message}`);
    }
    if (provider !== 'scripted') problems.push('NORMA_MODEL_SCRIPT is only used with NORMA_MODEL_PROVIDER=scripted');
  }

  const positiveInt = (name: string, fallback: number): number => {
    const raw = get(name);
    if (raw === undefined) return fallback;
    if (!/^\d+$/.test(raw) || Number(raw) < 1 || !Number.isSafeInteger(Number(raw))) {
      problems.push(`${name} must be a positive integer, got ${JSON.stringify(raw)}`);
      return fallback;
    }
    return Number(raw);
  };
  const outputRetentionS = positiveInt('NORMA_OUTPUT_RETENTION_S', 7 * 24 * 3600);
  const sessionRetentionS = positiveInt('NORMA_SESSION_RETENTION_S', 30 * 24 * 3600);
  const [shutdownGraceS, signIntervalS] = [positiveInt('NORMA_SHUTDOWN_GRACE_S', 10), positiveInt('NORMA_CHAIN_SIGN_INTERVAL_S', 60)];
  const positiveNumber = (name: string, fallback: number): number => {
    const raw = get(name);
    if (raw === undefined) return fallback;
    const n = Number(raw);
    if (!/^\d+(\.\d+)?$/.test(raw) || !(n > 0)) {
      problems.push(`${name} must be a positive number, got ${JSON.stringify(raw)}`);
      return fallback;
    }
    return n;
  };
  const fetchMaxBytes = positiveInt('NORMA_WEBFETCH_MAX_BYTES', 10 * 1024 * 1024);
  const fetchTimeoutS = positiveNumber('NORMA_WEBFETCH_TIMEOUT_S', 30);
  const convertTimeoutS = positiveNumber('NORMA_WEBFETCH_CONVERT_TIMEOUT_S', 15);
  const proxy = get('NORMA_EGRESS_PROXY');
  if (proxy !== undefined) {
    let ok = false;
    try {
      ok = ['http:', 'https:'].includes(new URL(proxy).protocol);
    } catch {
      ok = false;
    }
    if (!ok) problems.push(`NORMA_EGRESS_PROXY must be an http(s) URL of a proxy, got ${JSON.stringify(proxy)}`);
  }
  const searchBackend = get('NORMA_WEBSEARCH_BACKEND');
  if (searchBackend !== undefined && !WEBSEARCH_BACKENDS.includes(searchBackend as never)) {
    problems.push(`NORMA_WEBSEARCH_BACKEND must be one of ${WEBSEARCH_BACKENDS.join(', ')}, got ${JSON.stringify(searchBackend)}`);
  }
  const { store, databaseUrl, nodeId } = readStoreSettings(get, problems);
  const outputMaxBytes = positiveInt('NORMA_OUTPUT_MAX_BYTES', 1024 * 1024 * 1024);
  const { sandbox, sandboxUser, sandboxLimits, cgroup, secretsFile, egressCaFile } = readSandboxSettings(get, positiveInt, problems, cwd);
  const admission = readAdmissionSettings(positiveInt, problems);
  const mcpEndpoint = readMcpEndpointSettings(get, positiveInt, problems);
  let allowedHosts: string[] | null = null;
  const rawHosts = get('NORMA_ALLOWED_HOSTS');
  if (rawHosts !== undefined) {
    allowedHosts = rawHosts
      .split(',')
      .map((h) => h.trim().toLowerCase())
      .filter((h) => h !== '');
    for (const h of allowedHosts) {
      if (h !== '*' && !/^(\[[0-9a-f:.]+\]|[a-z0-9.-]+)(:\d{1,5})?$/.test(h)) {
        problems.push(`NORMA_ALLOWED_HOSTS entries must be host names or addresses, optionally with :port ([v6] in brackets), or "*", got ${JSON.stringify(h)}`);
      }
    }
  }
  const lifecycleTimeoutS = positiveNumber('NORMA_LIFECYCLE_TIMEOUT_S', 10);
  let mcpReadOnlyRoots = ownNodeModules();
  const rawRoots = get('NORMA_MCP_READ_ONLY_ROOTS');
  if (rawRoots !== undefined) {
    mcpReadOnlyRoots = rawRoots.split(',').map((r) => r.trim()).filter((r) => r !== '');
    for (const r of mcpReadOnlyRoots) {
      if (!path.isAbsolute(r)) problems.push(`NORMA_MCP_READ_ONLY_ROOTS: ${JSON.stringify(r)} is not an absolute path (a comma-separated list of absolute directories)`);
      else if (r === '/') problems.push('NORMA_MCP_READ_ONLY_ROOTS: "/" would let a session\'s MCP server read the whole host; name the directories where servers are installed');
    }
  }

  const trustProxy = (get('NORMA_TRUST_PROXY') ?? '').split(',').map((p) => p.trim()).filter((p) => p !== '');
  for (const p of trustProxy) {
    if (!isProxyAddress(p)) {
      problems.push(`NORMA_TRUST_PROXY entries must be the addresses or CIDR ranges of the proxies in front (e.g. 10.0.0.5, 172.18.0.0/16, loopback), got ${JSON.stringify(p)}`);
    }
  }
  const consoleSwitch = get('NORMA_CONSOLE') ?? 'on';
  if (consoleSwitch !== 'on' && consoleSwitch !== 'off') problems.push(`NORMA_CONSOLE must be "on" or "off", got ${JSON.stringify(consoleSwitch)}`);
  const consoleDir = get('NORMA_CONSOLE_DIR') !== undefined ? path.resolve(cwd, get('NORMA_CONSOLE_DIR')!) : path.join(packageRoot(), 'dist', 'console');

  const checkpointSwitch = get('NORMA_CHECKPOINTS') ?? 'on';
  if (checkpointSwitch !== 'on' && checkpointSwitch !== 'off') problems.push(`NORMA_CHECKPOINTS must be "on" or "off", got ${JSON.stringify(checkpointSwitch)}`);
  const checkpoints = {
    enabled: checkpointSwitch === 'on',
    maxFileBytes: positiveInt('NORMA_CHECKPOINT_MAX_FILE_BYTES', 64 * 1024 * 1024),
    maxSessionBytes: positiveInt('NORMA_CHECKPOINT_MAX_BYTES', 2 * 1024 * 1024 * 1024),
    maxEntries: positiveInt('NORMA_CHECKPOINT_MAX_ENTRIES', 200_000),
  };

  if (problems.length > 0) throw new ConfigError(problems);

  return {
    checkpoints,
    port,
    host,
    dataDir,
    workspaceRoot,
    token,
    apiKeysFile,
    corsOrigins,
    logLevel,
    sandbox,
    sandboxUser,
    sessionHooks: rawHooks === 'on',
    hooksFile: file('NORMA_HOOKS_FILE'),
    evidence: { signingKeyFile: file('NORMA_SIGNING_KEY_FILE'), encryptionKeyFile: file('NORMA_ENCRYPTION_KEY_FILE'), signIntervalMs: signIntervalS * 1000 },
    skillsDir: file('NORMA_SKILLS_DIR'),
    mcpFile: file('NORMA_MCP_FILE'),
    mcpReadOnlyRoots,
    egressAllow,
    web: {
      proxy,
      fetchMaxBytes,
      fetchTimeoutMs: fetchTimeoutS * 1000,
      convertTimeoutMs: convertTimeoutS * 1000,
      search: { backend: searchBackend, apiKey: get('NORMA_WEBSEARCH_API_KEY'), url: get('NORMA_WEBSEARCH_URL') },
    },
    model: { provider, model: get('NORMA_MODEL'), baseUrl, apiKey: get('NORMA_MODEL_API_KEY'), script, pricesFile: file('NORMA_MODEL_PRICES') },
    outputRetentionMs: outputRetentionS * 1000,
    outputMaxBytesPerSession: outputMaxBytes,
    bodyLimitBytes: 10 * 1024 * 1024,
    sseHeartbeatMs: 15_000,
    sseMaxBufferBytes: 8 * 1024 * 1024,
    sseRetryMs: 2000,
    store,
    databaseFile: path.join(dataDir, 'norma.db'),
    databaseUrl,
    nodeId,
    sessionRetentionMs: sessionRetentionS * 1000,
    shutdownGraceMs: shutdownGraceS * 1000,
    sandboxLimits,
    cgroup,
    secretsFile,
    egressCaFile,
    allowedHosts,
    lifecycleTimeoutMs: lifecycleTimeoutS * 1000,
    trustProxy,
    console: { enabled: consoleSwitch === 'on', dir: consoleDir },
    admission,
    mcpEndpoint,
  };
}

/** `scheme://host[:port]` of http(s), in the form browsers send in Origin (lower case, default port left out); null otherwise. */
export function parseOrigin(raw: string): string | null {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return null;
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return null;
  // Exactly an origin: nothing after the authority, no credentials.
  if (u.username !== '' || u.password !== '' || u.search !== '' || u.hash !== '') return null;
  if (!/^https?:\/\/[^/]+$/i.test(raw)) return null;
  return u.origin;
}

/** The node_modules directory this server runs from (where MCP servers installed beside it live). */
/** An address, a CIDR range, or a name of one (proxy-addr's `loopback`, `linklocal`, `uniquelocal`). */
function isProxyAddress(entry: string): boolean {
  if (entry === 'loopback' || entry === 'linklocal' || entry === 'uniquelocal') return true;
  const [address, bits, more] = entry.split('/');
  if (more !== undefined || !address || net.isIP(address) === 0) return false;
  if (bits === undefined) return true;
  return /^\d{1,3}$/.test(bits) && Number(bits) <= (net.isIP(address) === 4 ? 32 : 128);
}

/** The directory of the server's package.json (above src/ when run from sources, above dist/ when built). */
function packageRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (fs.existsSync(path.join(dir, 'package.json'))) return dir;
    const up = path.dirname(dir);
    if (up === dir) return process.cwd();
    dir = up;
  }
}

function ownNodeModules(): string[] {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = path.join(dir, 'node_modules');
    try {
      if (fs.statSync(candidate).isDirectory()) return [fs.realpathSync(candidate)];
    } catch {
      // not here: one level up
    }
    const up = path.dirname(dir);
    if (up === dir) return [];
    dir = up;
  }
}
