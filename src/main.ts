// Process entry: config → buildServer → listen → graceful shutdown.
import { ConfigError, loadConfig } from './config.js';
import { missingPieces } from './http/readiness.js';
import { buildServer } from './server.js';
import { StoreOpenError } from './store/sqlite.js';

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`norma-server: ${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
  let server;
  try {
    server = await buildServer(config);
  } catch (err) {
    if (err instanceof StoreOpenError) {
      process.stderr.write(`norma-server: ${err.message}\n`);
      process.exit(3);
    }
    if (err instanceof ConfigError) {
      process.stderr.write(`norma-server: ${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
  const address = await server.app.listen({ port: config.port, host: config.host });
  const auth = config.apiKeysFile ? 'API keys (NORMA_API_KEYS_FILE)' : config.token ? 'bearer token' : 'none (loopback only)';
  server.app.log.info({ url: address, auth, cors: config.corsOrigins }, `Norma Server listening on ${address}`);
  // The sandbox's system scan and self-test run now, not when the first session needs them. What
  // is missing or unusable (bubblewrap, ripgrep, socat) is one warning that says what it
  // disables and how to install it.
  server.ctx.readiness().then(
    (r) => {
      const missing = missingPieces(r.checks);
      if (missing.length === 0) server.app.log.info({ checks: r.checks.filter((c) => c.name.startsWith('sandbox')) }, 'sandbox ready');
      else server.app.log.warn({ checks: missing }, `not everything can run here (see /readyz): ${missing.map((c) => `${c.name}: ${c.detail}`).join(' | ')}`);
    },
    (err) => server.app.log.warn({ err }, 'readiness check failed'),
  );

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    server.app.log.info({ signal }, 'shutting down');
    const force = setTimeout(() => process.exit(1), config.shutdownGraceMs + 10_000);
    force.unref();
    server.close().then(
      () => process.exit(0),
      (err) => {
        server.app.log.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  // SIGHUP: NORMA_API_KEYS_FILE again. A bad file keeps the keys in force and says why, loudly.
  process.on('SIGHUP', () => {
    server.reloadKeys().then((r) => {
      if (r.ok) server.app.log.info({ keys: r.keys, tenants: r.tenants, changed_policies: r.changedPolicies }, 'API keys reloaded');
      else server.app.log.error({ problems: r.problems }, 'API KEYS NOT RELOADED: the file has problems; the keys loaded before stay in force');
    });
  });
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

main().catch((err) => {
  process.stderr.write(`norma-server: failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
