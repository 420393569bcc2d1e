import { describe, it, expect } from 'vitest';
import path from 'node:path';
import fs from 'node:fs';
import os from 'node:os';
import { ConfigError, isLoopbackHost, loadConfig } from '../src/config.js';

const CWD = path.resolve('/srv/norma');
const TOKEN = 'a'.repeat(16);

function configError(env: Record<string, string>): ConfigError {
  try {
    loadConfig(env, CWD);
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    return e as ConfigError;
  }
  throw new Error(`expected loadConfig(${JSON.stringify(env)}) to throw`);
}

describe('loadConfig: defaults', () => {
  it('reads the admission settings and refuses a queue share above the queue, a wait above a minute, and anything not a positive integer', () => {
    expect(loadConfig({ NORMA_MAX_RUNNING_TURNS: '4', NORMA_TURN_QUEUE: '10', NORMA_TURN_QUEUE_PER_TENANT: '3', NORMA_TURN_QUEUE_WAIT_MS: '250' }, CWD).admission).toEqual({
      maxRunning: 4,
      maxQueued: 10,
      maxQueuedPerTenant: 3,
      maxWaitMs: 250,
    });
    expect(() => loadConfig({ NORMA_TURN_QUEUE: '10', NORMA_TURN_QUEUE_PER_TENANT: '11' }, CWD)).toThrow(/NORMA_TURN_QUEUE_PER_TENANT \(11\) cannot be more than NORMA_TURN_QUEUE \(10\)/);
    expect(() => loadConfig({ NORMA_TURN_QUEUE_WAIT_MS: '60001' }, CWD)).toThrow(/NORMA_TURN_QUEUE_WAIT_MS must be at most 60000/);
    for (const bad of ['0', '-1', '1.5', 'lots', '1e3']) expect(() => loadConfig({ NORMA_MAX_RUNNING_TURNS: bad }, CWD)).toThrow(/NORMA_MAX_RUNNING_TURNS must be a positive integer/);
  });

  it('fills every default from an empty environment', () => {
    const c = loadConfig({}, CWD);
    expect(c).toEqual({
      port: 7070,
      host: '127.0.0.1',
      dataDir: path.join(CWD, '.norma'),
      workspaceRoot: path.join(CWD, '.norma', 'workspaces'),
      token: undefined,
      apiKeysFile: undefined,
      corsOrigins: [],
      logLevel: 'info',
      sandbox: 'bwrap',
      sandboxUser: undefined,
      sessionHooks: true,
      hooksFile: undefined,
      evidence: { signingKeyFile: undefined, encryptionKeyFile: undefined, signIntervalMs: 60_000 },
      skillsDir: undefined,
      mcpFile: undefined,
      // The server's own node_modules: where MCP servers installed beside it live.
      mcpReadOnlyRoots: [fs.realpathSync(path.resolve(import.meta.dirname, '../node_modules'))],
      egressAllow: [],
      web: {
        proxy: undefined,
        fetchMaxBytes: 10 * 1024 * 1024,
        fetchTimeoutMs: 30_000,
        convertTimeoutMs: 15_000,
        search: { backend: undefined, apiKey: undefined, url: undefined },
      },
      model: { provider: undefined, model: undefined, baseUrl: undefined, apiKey: undefined, script: undefined },
      outputRetentionMs: 7 * 24 * 3600 * 1000,
      outputMaxBytesPerSession: 1024 * 1024 * 1024,
      bodyLimitBytes: 10 * 1024 * 1024,
      sseHeartbeatMs: 15_000,
      sseMaxBufferBytes: 8 * 1024 * 1024,
      sseRetryMs: 2000,
      store: 'sqlite',
      databaseFile: path.join(CWD, '.norma', 'norma.db'),
      databaseUrl: undefined,
      nodeId: expect.stringMatching(/^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/),
      sessionRetentionMs: 30 * 24 * 3600 * 1000,
      shutdownGraceMs: 10_000,
      sandboxLimits: {
        memory_bytes: 2 * 1024 ** 3,
        processes: 512,
        cpu_weight: 50,
        file_size_bytes: 2 * 1024 ** 3,
        open_files: 4096,
        disk_bytes: 10 * 1024 ** 3,
      },
      cgroup: 'auto',
      allowedHosts: null,
      lifecycleTimeoutMs: 10_000,
      trustProxy: [],
      // The package's own build, whatever the working directory.
      console: { enabled: true, dir: path.resolve(import.meta.dirname, '..', 'dist', 'console') },
      checkpoints: { enabled: true, maxFileBytes: 64 * 1024 * 1024, maxSessionBytes: 2 * 1024 * 1024 * 1024, maxEntries: 200_000 },
      admission: { maxRunning: 128, maxQueued: 1024, maxQueuedPerTenant: 256, maxWaitMs: 5_000 },
      mcpEndpoint: { enabled: true, sessionEnd: 'close', idleMs: 900_000, maxSessions: 1000 },
    });
    expect(c.sseHeartbeatMs).toBeLessThanOrEqual(15_000);
  });

  it('treats blank values as unset', () => {
    const c = loadConfig({ PORT: '  ', HOST: '', NORMA_TOKEN: '   ', NORMA_LOG_LEVEL: '' }, CWD);
    expect(c).toMatchObject({ port: 7070, host: '127.0.0.1', token: undefined, logLevel: 'info' });
  });

  it('resolves a relative data dir against cwd, and the default workspace root under it', () => {
    const c = loadConfig({ NORMA_DATA_DIR: 'var/data' }, CWD);
    expect(c.dataDir).toBe(path.join(CWD, 'var', 'data'));
    expect(c.workspaceRoot).toBe(path.join(CWD, 'var', 'data', 'workspaces'));
  });

  it('keeps absolute dirs, and resolves a relative workspace root against cwd', () => {
    const abs = path.resolve('/data/norma');
    expect(loadConfig({ NORMA_DATA_DIR: abs }, CWD)).toMatchObject({ dataDir: abs, workspaceRoot: path.join(abs, 'workspaces') });
    expect(loadConfig({ NORMA_WORKSPACE_ROOT: 'ws' }, CWD).workspaceRoot).toBe(path.join(CWD, 'ws'));
  });

  it('reads valid values', () => {
    const c = loadConfig(
      {
        PORT: '0',
        HOST: '0.0.0.0',
        NORMA_TOKEN: ` ${TOKEN} `,
        NORMA_LOG_LEVEL: 'debug',
        NORMA_SANDBOX: 'off',
        NORMA_SESSION_HOOKS: 'off',
        NORMA_EGRESS_ALLOW: 'example.com, *.example.org,10.0.0.0/8,192.168.1.5,::1,2001:db8::/32,',
        NORMA_MODEL_PROVIDER: 'scripted',
        NORMA_MODEL: 'm-1',
        NORMA_MODEL_BASE_URL: 'https://api.example.com/v1',
        NORMA_MODEL_API_KEY: 'k',
      },
      CWD,
    );
    expect(c).toMatchObject({
      port: 0,
      host: '0.0.0.0',
      token: TOKEN,
      logLevel: 'debug',
      sandbox: 'off',
      sessionHooks: false,
      egressAllow: ['example.com', '*.example.org', '10.0.0.0/8', '192.168.1.5', '::1', '2001:db8::/32'],
      model: { provider: 'scripted', model: 'm-1', baseUrl: 'https://api.example.com/v1', apiKey: 'k' },
    });
  });

  it('reads the user a root server\'s sandboxes run as, and refuses what is not one or is root', () => {
    for (const ok of ['nobody', 'norma-sandbox', '65534', '65534:65534', 'nobody:nogroup', 'svc$', 'a.b_c-d:1000']) {
      expect(loadConfig({ NORMA_SANDBOX_USER: ok }, CWD).sandboxUser, ok).toBe(ok);
    }
    for (const bad of ['root', '0', '000', '65534:0', 'nobody:root', 'no body', 'a:b:c', ':65534', 'nobody:', '-x', '../etc', '1'.repeat(11)]) {
      expect(() => loadConfig({ NORMA_SANDBOX_USER: bad }, CWD), bad).toThrow(/NORMA_SANDBOX_USER must be an unprivileged user/);
    }
  });

  it('reads the proxies to trust, and refuses what is not an address, a range or a range name', () => {
    expect(loadConfig({ NORMA_TRUST_PROXY: ' 10.0.0.5, 172.18.0.0/16,loopback, fd00::/8 ' }, CWD).trustProxy).toEqual(['10.0.0.5', '172.18.0.0/16', 'loopback', 'fd00::/8']);
    for (const bad of ['true', '*', '10.0.0.0/33', 'proxy.example.com', '10.0.0.1/8/8', '::1/129']) {
      expect(() => loadConfig({ NORMA_TRUST_PROXY: bad }, CWD), bad).toThrow(/NORMA_TRUST_PROXY entries must be the addresses or CIDR ranges/);
    }
  });

  it('reads the console switch and directory, and refuses a switch that is neither on nor off', () => {
    expect(loadConfig({ NORMA_CONSOLE: 'off', NORMA_CONSOLE_DIR: 'ui' }, CWD).console).toEqual({ enabled: false, dir: path.join(CWD, 'ui') });
    expect(() => loadConfig({ NORMA_CONSOLE: 'yes' }, CWD)).toThrow(/NORMA_CONSOLE must be "on" or "off", got "yes"/);
  });

  it('reads sandbox limits, the cgroup setting, allowed hosts and the lifecycle bound', () => {
    const c = loadConfig(
      {
        NORMA_SANDBOX_MEMORY_MB: '512',
        NORMA_SANDBOX_PROCESSES: '64',
        NORMA_SANDBOX_CPU_WEIGHT: '20',
        NORMA_SANDBOX_FILE_SIZE_MB: '100',
        NORMA_SANDBOX_OPEN_FILES: '256',
        NORMA_SANDBOX_DISK_MB: '1000',
        NORMA_CGROUP: '/sys/fs/cgroup/norma.slice',
        NORMA_ALLOWED_HOSTS: 'Norma.Example.com, localhost:8080,[::1]:7070',
        NORMA_LIFECYCLE_TIMEOUT_S: '2.5',
      },
      CWD,
    );
    expect(c).toMatchObject({
      sandboxLimits: { memory_bytes: 512 * 1024 ** 2, processes: 64, cpu_weight: 20, file_size_bytes: 100 * 1024 ** 2, open_files: 256, disk_bytes: 1000 * 1024 ** 2 },
      cgroup: '/sys/fs/cgroup/norma.slice',
      allowedHosts: ['norma.example.com', 'localhost:8080', '[::1]:7070'],
      lifecycleTimeoutMs: 2500,
    });
  });

  it.each(['65535', '1', '8080'])('accepts PORT=%s', (p) => {
    expect(loadConfig({ PORT: p }, CWD).port).toBe(Number(p));
  });
});

describe('loadConfig: each bad value is refused, naming the variable', () => {
  const cases: { env: Record<string, string>; names: string; shows?: string }[] = [
    { env: { PORT: 'abc' }, names: 'PORT', shows: '"abc"' },
    { env: { PORT: '70000' }, names: 'PORT', shows: '"70000"' },
    { env: { PORT: '65536' }, names: 'PORT' },
    { env: { PORT: '-1' }, names: 'PORT' },
    { env: { PORT: '80.5' }, names: 'PORT' },
    { env: { NORMA_LOG_LEVEL: 'loud' }, names: 'NORMA_LOG_LEVEL', shows: '"loud"' },
    { env: { NORMA_SANDBOX: 'docker' }, names: 'NORMA_SANDBOX', shows: '"docker"' },
    { env: { NORMA_SESSION_HOOKS: 'maybe' }, names: 'NORMA_SESSION_HOOKS', shows: '"maybe"' },
    { env: { NORMA_SESSION_HOOKS: 'true' }, names: 'NORMA_SESSION_HOOKS' },
    { env: { NORMA_EGRESS_ALLOW: 'example.com,not a host!' }, names: 'NORMA_EGRESS_ALLOW', shows: '"not a host!"' },
    { env: { NORMA_EGRESS_ALLOW: 'http://example.com' }, names: 'NORMA_EGRESS_ALLOW' },
    { env: { NORMA_EGRESS_ALLOW: '10.0.0.0/33' }, names: 'NORMA_EGRESS_ALLOW' },
    { env: { NORMA_EGRESS_ALLOW: '10.0.0.0/8/8' }, names: 'NORMA_EGRESS_ALLOW' },
    { env: { NORMA_EGRESS_ALLOW: 'host_name' }, names: 'NORMA_EGRESS_ALLOW' },
    { env: { NORMA_MODEL_PROVIDER: 'foo' }, names: 'NORMA_MODEL_PROVIDER', shows: '"foo"' },
    { env: { NORMA_MODEL_BASE_URL: 'ftp://x' }, names: 'NORMA_MODEL_BASE_URL', shows: '"ftp://x"' },
    { env: { NORMA_MODEL_BASE_URL: 'not a url' }, names: 'NORMA_MODEL_BASE_URL' },
    { env: { NORMA_WEBSEARCH_BACKEND: 'google' }, names: 'NORMA_WEBSEARCH_BACKEND', shows: '"google"' },
    { env: { NORMA_EGRESS_PROXY: 'socks5://127.0.0.1:1080' }, names: 'NORMA_EGRESS_PROXY', shows: 'socks5' },
    { env: { NORMA_EGRESS_PROXY: 'not a url' }, names: 'NORMA_EGRESS_PROXY' },
    { env: { NORMA_WEBFETCH_TIMEOUT_S: '0' }, names: 'NORMA_WEBFETCH_TIMEOUT_S' },
    { env: { NORMA_WEBFETCH_TIMEOUT_S: 'soon' }, names: 'NORMA_WEBFETCH_TIMEOUT_S' },
    { env: { NORMA_WEBFETCH_MAX_BYTES: '1e6' }, names: 'NORMA_WEBFETCH_MAX_BYTES' },
    { env: { NORMA_TOKEN: 'short' }, names: 'NORMA_TOKEN' },
    { env: { NORMA_TOKEN: 'a'.repeat(15) }, names: 'NORMA_TOKEN' },
    { env: { HOST: 'bad host!', NORMA_TOKEN: TOKEN }, names: 'HOST', shows: '"bad host!"' },
    { env: { NORMA_SANDBOX_MEMORY_MB: '8' }, names: 'NORMA_SANDBOX_MEMORY_MB' },
    { env: { NORMA_SANDBOX_MEMORY_MB: 'lots' }, names: 'NORMA_SANDBOX_MEMORY_MB', shows: '"lots"' },
    { env: { NORMA_SANDBOX_PROCESSES: '2' }, names: 'NORMA_SANDBOX_PROCESSES' },
    { env: { NORMA_SANDBOX_CPU_WEIGHT: '20000' }, names: 'NORMA_SANDBOX_CPU_WEIGHT' },
    { env: { NORMA_SANDBOX_OPEN_FILES: '3' }, names: 'NORMA_SANDBOX_OPEN_FILES' },
    { env: { NORMA_SANDBOX_DISK_MB: '0' }, names: 'NORMA_SANDBOX_DISK_MB' },
    { env: { NORMA_CGROUP: 'relative/path' }, names: 'NORMA_CGROUP' },
    { env: { NORMA_ALLOWED_HOSTS: 'good.example, bad host' }, names: 'NORMA_ALLOWED_HOSTS', shows: '"bad host"' },
    { env: { NORMA_ALLOWED_HOSTS: 'http://x.example' }, names: 'NORMA_ALLOWED_HOSTS' },
    { env: { NORMA_LIFECYCLE_TIMEOUT_S: '0' }, names: 'NORMA_LIFECYCLE_TIMEOUT_S' },
    { env: { NORMA_CORS_ORIGINS: '*' }, names: 'NORMA_CORS_ORIGINS', shows: '"*"' },
    { env: { NORMA_CORS_ORIGINS: 'https://app.example.com/' }, names: 'NORMA_CORS_ORIGINS', shows: 'trailing slash' },
    { env: { NORMA_CORS_ORIGINS: 'https://app.example.com/path' }, names: 'NORMA_CORS_ORIGINS' },
    { env: { NORMA_CORS_ORIGINS: 'app.example.com' }, names: 'NORMA_CORS_ORIGINS' },
    { env: { NORMA_CORS_ORIGINS: 'ftp://app.example.com' }, names: 'NORMA_CORS_ORIGINS' },
    { env: { NORMA_CORS_ORIGINS: 'https://user:pw@app.example.com' }, names: 'NORMA_CORS_ORIGINS' },
  ];
  it.each(cases.map((c) => ({ ...c, label: JSON.stringify(c.env) })))('$label', ({ env, names, shows }) => {
    const err = configError(env);
    expect(err.name).toBe('ConfigError');
    expect(err.problems).toHaveLength(1);
    expect(err.problems[0]).toContain(names);
    if (shows !== undefined) expect(err.problems[0]).toContain(shows);
    expect(err.message).toContain(err.problems[0]!);
  });

  it('the secret token itself is never echoed', () => {
    const err = configError({ NORMA_TOKEN: 'sekrit-123' });
    expect(err.message).not.toContain('sekrit-123');
  });
});

describe('loadConfig: non-loopback binds need a token', () => {
  it.each(['0.0.0.0', '10.0.0.1', '::', 'example.com'])('HOST=%s without NORMA_TOKEN is refused', (host) => {
    const err = configError({ HOST: host });
    expect(err.problems).toHaveLength(1);
    expect(err.problems[0]).toContain(`HOST=${host}`);
    expect(err.problems[0]).toContain('NORMA_TOKEN');
  });

  it.each(['0.0.0.0', '10.0.0.1', '::', 'example.com'])('HOST=%s with a 16-character token is allowed', (host) => {
    const c = loadConfig({ HOST: host, NORMA_TOKEN: TOKEN }, CWD);
    expect(c.host).toBe(host);
    expect(c.token).toBe(TOKEN);
  });

  it('HOST=0.0.0.0 with a too-short token is still refused', () => {
    const err = configError({ HOST: '0.0.0.0', NORMA_TOKEN: 'x'.repeat(15) });
    expect(err.problems.some((p) => p.includes('NORMA_TOKEN'))).toBe(true);
  });

  it('a keys file is enough to bind elsewhere (start-up then checks that it lists a key)', () => {
    expect(loadConfig({ HOST: '0.0.0.0', NORMA_API_KEYS_FILE: 'keys.json' }, CWD)).toMatchObject({ host: '0.0.0.0', token: undefined, apiKeysFile: path.join(CWD, 'keys.json') });
  });

  it('CORS origins are kept in the form browsers send them, once each', () => {
    const c = loadConfig({ NORMA_CORS_ORIGINS: 'https://App.Example.com, http://localhost:5173,https://app.example.com:443, http://[::1]:8080' }, CWD);
    expect(c.corsOrigins).toEqual(['https://app.example.com', 'http://localhost:5173', 'http://[::1]:8080']);
  });

  it.each(['127.0.0.1', '127.5.5.5', '::1', '[::1]', 'localhost'])('HOST=%s needs no token', (host) => {
    expect(loadConfig({ HOST: host }, CWD)).toMatchObject({ host, token: undefined });
  });
});

describe('loadConfig: several problems are reported at once', () => {
  it('collects every problem into one ConfigError', () => {
    const err = configError({
      PORT: 'abc',
      HOST: '0.0.0.0',
      NORMA_LOG_LEVEL: 'loud',
      NORMA_SANDBOX: 'docker',
      NORMA_SESSION_HOOKS: 'maybe',
      NORMA_EGRESS_ALLOW: 'ok.example, bad host',
      NORMA_MODEL_PROVIDER: 'foo',
      NORMA_MODEL_BASE_URL: 'ftp://x',
    });
    const vars = ['PORT', 'HOST', 'NORMA_LOG_LEVEL', 'NORMA_SANDBOX', 'NORMA_SESSION_HOOKS', 'NORMA_EGRESS_ALLOW', 'NORMA_MODEL_PROVIDER', 'NORMA_MODEL_BASE_URL'];
    expect(err.problems).toHaveLength(vars.length);
    for (const v of vars) {
      expect(err.problems.some((p) => p.startsWith(v))).toBe(true);
      expect(err.message).toContain(v);
    }
  });

  it('reports each bad egress entry separately', () => {
    const err = configError({ NORMA_EGRESS_ALLOW: 'a b, good.example, c/d, 1.2.3.4/99' });
    expect(err.problems).toHaveLength(3);
    expect(err.problems.every((p) => p.startsWith('NORMA_EGRESS_ALLOW'))).toBe(true);
    expect(err.problems.join('\n')).not.toContain('good.example');
  });
});

describe('isLoopbackHost', () => {
  it.each([
    ['127.0.0.1', true],
    ['127.5.5.5', true],
    ['127.255.255.255', true],
    ['::1', true],
    ['[::1]', true],
    ['0:0:0:0:0:0:0:1', true],
    ['localhost', true],
    ['::ffff:127.0.0.1', true],
    ['[::ffff:127.0.0.1]', true],
    ['0.0.0.0', false],
    ['10.0.0.1', false],
    ['128.0.0.1', false],
    ['::', false],
    ['[::]', false],
    ['::ffff:10.0.0.1', false],
    ['example.com', false],
    ['127.0.0.1.example.com', false],
    ['localhost.example.com', false],
    ['', false],
  ] as const)('%s → %s', (host, expected) => {
    expect(isLoopbackHost(host)).toBe(expected);
  });
});

describe('isLoopbackHost: case', () => {
  it('treats host names case-insensitively', () => {
    expect(isLoopbackHost('LOCALHOST')).toBe(true);
    expect(isLoopbackHost('::FFFF:127.0.0.1')).toBe(true);
  });
});

describe('loadConfig: spill retention', () => {
  it('reads the retention age and byte budget, refusing non-positive values', () => {
    const c = loadConfig({ NORMA_OUTPUT_RETENTION_S: '60', NORMA_OUTPUT_MAX_BYTES: '1000' }, '/srv');
    expect(c.outputRetentionMs).toBe(60_000);
    expect(c.outputMaxBytesPerSession).toBe(1000);
    expect(() => loadConfig({ NORMA_OUTPUT_RETENTION_S: '0' }, '/srv')).toThrow(/NORMA_OUTPUT_RETENTION_S must be a positive integer/);
    expect(() => loadConfig({ NORMA_OUTPUT_MAX_BYTES: '1e9' }, '/srv')).toThrow(/NORMA_OUTPUT_MAX_BYTES must be a positive integer/);
  });
});

describe('loadConfig: PostgreSQL and the node id', () => {
  it('takes a postgres URL with NORMA_STORE=postgres, and a node id (the host name by default)', () => {
    const c = loadConfig({ NORMA_STORE: 'postgres', NORMA_DATABASE_URL: 'postgresql://norma:pw@db:5432/norma', NORMA_NODE_ID: 'replica-a' }, '/srv');
    expect(c).toMatchObject({ store: 'postgres', databaseUrl: 'postgresql://norma:pw@db:5432/norma', nodeId: 'replica-a' });
    expect(loadConfig({}, '/srv').nodeId).toMatch(/^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/);
  });

  it('refuses postgres without a URL, a URL that is not postgres (never echoing it), a URL without postgres, and a bad node id', () => {
    expect(() => loadConfig({ NORMA_STORE: 'postgres' }, '/srv')).toThrow(/NORMA_STORE=postgres needs NORMA_DATABASE_URL/);
    let message = '';
    try {
      loadConfig({ NORMA_STORE: 'postgres', NORMA_DATABASE_URL: 'mysql://u:s3cret-pw@h/db' }, '/srv');
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toMatch(/NORMA_DATABASE_URL must be a postgres:\/\/ or postgresql:\/\/ URL/);
    expect(message).not.toContain('s3cret');
    expect(() => loadConfig({ NORMA_DATABASE_URL: 'postgres://h/db' }, '/srv')).toThrow(/NORMA_DATABASE_URL is set but NORMA_STORE is "sqlite"/);
    for (const bad of ['-a', 'a b', 'x'.repeat(64), 'ä']) {
      expect(() => loadConfig({ NORMA_NODE_ID: bad }, '/srv')).toThrow(/NORMA_NODE_ID must be 1-63 letters/);
    }
  });
});

describe('loadConfig: store, session retention and shutdown grace', () => {
  it('reads them, refusing unknown stores and non-positive durations', () => {
    const c = loadConfig({ NORMA_STORE: 'memory', NORMA_SESSION_RETENTION_S: '3600', NORMA_SHUTDOWN_GRACE_S: '2', NORMA_DATA_DIR: '/var/norma' }, '/srv');
    expect(c).toMatchObject({ store: 'memory', sessionRetentionMs: 3_600_000, shutdownGraceMs: 2000, databaseFile: '/var/norma/norma.db' });
    expect(() => loadConfig({ NORMA_STORE: 'mysql' }, '/srv')).toThrow(/NORMA_STORE must be "sqlite", "postgres" or "memory", got "mysql"/);
    expect(() => loadConfig({ NORMA_SESSION_RETENTION_S: '-1' }, '/srv')).toThrow(/NORMA_SESSION_RETENTION_S must be a positive integer/);
    expect(() => loadConfig({ NORMA_SHUTDOWN_GRACE_S: 'soon' }, '/srv')).toThrow(/NORMA_SHUTDOWN_GRACE_S must be a positive integer/);
  });
});

describe('loadConfig: the server default model', () => {
  it('needs NORMA_MODEL with a provider, and a key for a public endpoint', () => {
    expect(configError({ NORMA_MODEL_PROVIDER: 'scripted' }).problems).toEqual(['NORMA_MODEL must name the model when NORMA_MODEL_PROVIDER is set']);
    expect(configError({ NORMA_MODEL_PROVIDER: 'anthropic', NORMA_MODEL: 'm' }).problems[0]).toContain('NORMA_MODEL_API_KEY is required');
    // A local OpenAI-compatible server needs no key.
    const local = loadConfig({ NORMA_MODEL_PROVIDER: 'openai', NORMA_MODEL: 'llama', NORMA_MODEL_BASE_URL: 'http://127.0.0.1:11434/v1' });
    expect(local.model).toMatchObject({ provider: 'openai', model: 'llama', baseUrl: 'http://127.0.0.1:11434/v1', apiKey: undefined });
  });

  it('reads and checks NORMA_MODEL_SCRIPT', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'norma-cfg-'));
    try {
      const good = path.join(dir, 'good.json');
      fs.writeFileSync(good, JSON.stringify([{ content: [{ type: 'text', text: 'hi' }] }, { error: 'boom' }]));
      const bad = path.join(dir, 'bad.json');
      fs.writeFileSync(bad, JSON.stringify([{ content: 'not blocks' }]));
      expect(loadConfig({ NORMA_MODEL_PROVIDER: 'scripted', NORMA_MODEL: 'd', NORMA_MODEL_SCRIPT: good }).model.script).toHaveLength(2);
      expect(configError({ NORMA_MODEL_PROVIDER: 'scripted', NORMA_MODEL: 'd', NORMA_MODEL_SCRIPT: bad }).problems[0]).toContain('must be a JSON array of replies');
      expect(configError({ NORMA_MODEL_PROVIDER: 'scripted', NORMA_MODEL: 'd', NORMA_MODEL_SCRIPT: path.join(dir, 'missing.json') }).problems[0]).toContain('ENOENT');
      expect(configError({ NORMA_MODEL_SCRIPT: good }).problems).toEqual(['NORMA_MODEL_SCRIPT is only used with NORMA_MODEL_PROVIDER=scripted']);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('loadConfig: the MCP endpoint', () => {
  it('reads its switch, what DELETE does, the idle time and the bound, and names a bad value', () => {
    const c = loadConfig({ NORMA_MCP_ENDPOINT: 'off', NORMA_MCP_SESSION_END: 'keep', NORMA_MCP_IDLE_S: '60', NORMA_MCP_MAX_SESSIONS: '5' }, CWD);
    expect(c.mcpEndpoint).toEqual({ enabled: false, sessionEnd: 'keep', idleMs: 60_000, maxSessions: 5 });
    expect(() => loadConfig({ NORMA_MCP_ENDPOINT: 'yes' }, CWD)).toThrow(/NORMA_MCP_ENDPOINT must be on or off/);
    expect(() => loadConfig({ NORMA_MCP_SESSION_END: 'delete' }, CWD)).toThrow(/NORMA_MCP_SESSION_END must be close or keep/);
    expect(() => loadConfig({ NORMA_MCP_MAX_SESSIONS: '0' }, CWD)).toThrow(/NORMA_MCP_MAX_SESSIONS/);
  });
});

