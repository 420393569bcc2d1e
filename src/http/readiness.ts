// What /readyz reports: each dependency the service needs (store, workspace root) or degrades
// without (sandbox, search, web search), checked when asked, with a detail saying what to fix.
import fs from 'node:fs/promises';
import { constants as C } from 'node:fs';
import type { Config } from '../config.js';
import type { Readiness } from '../contract/schemas.js';
import { sandboxHostChecks } from '../sandbox/host.js';
import type { SandboxHost, SandboxStatus } from '../sandbox/process.js';
import type { Store } from '../store/store.js';
import { PostgresStore } from '../store/pg-store.js';
import { grepBackend } from '../capabilities/files/grep.js';

export interface ReadinessSources {
  config: Config;
  store: Store;
  /** The signing key in use, and whether encryption at rest is on (evidence-setup.ts). */
  evidence?: () => { ok: boolean; detail: string }[];
  sandboxHost: SandboxHost;
  sandboxStatus(): Promise<SandboxStatus>;
  /** The web search backend as the sessions see it now. */
  webSearch(): { usable: boolean; configured: boolean; detail: string };
  /** The ripgrep Grep uses (null: the built-in search). */
  rgPath: string | null;
}

export const RIPGREP_MISSING =
  "ripgrep (rg) not found on PATH: Grep uses the slower built-in search (no fast Grep); install Debian's ripgrep package (apt-get install ripgrep)";

/** The checks whose failure leaves a feature out until something is installed (the start-up warning names them). */
const INSTALLABLE = ['sandbox', 'search', 'sandbox_network'];

/** The failed checks of those, each with its detail (what is missing, what it disables, how to install it). */
export function missingPieces(checks: Readiness['checks']): Readiness['checks'] {
  return checks.filter((c) => !c.ok && INSTALLABLE.includes(c.name));
}

function storeDetail(config: Config, store: Store): string {
  if (store instanceof PostgresStore) return `PostgreSQL ${store.where}, node ${store.nodeId}`;
  return store.durable ? `SQLite ${config.databaseFile}` : `${store.constructor.name} (in memory: data does not survive a restart)`;
}

export function readinessCheck({ config, store, evidence, sandboxHost, sandboxStatus, webSearch, rgPath }: ReadinessSources): () => Promise<Readiness> {
  return async () => {
    const checks: Readiness['checks'] = [];
    const reachable = store instanceof PostgresStore ? store.ping() : null;
    checks.push({
      name: 'store',
      ok: reachable === null,
      required: true,
      detail: reachable === null ? storeDetail(config, store) : `${storeDetail(config, store)}: ${reachable}`,
    });
    try {
      await fs.mkdir(config.workspaceRoot, { recursive: true, mode: 0o700 });
      await fs.access(config.workspaceRoot, C.W_OK);
      checks.push({ name: 'workspace_root', ok: true, required: true, detail: `${config.workspaceRoot} is writable` });
    } catch (err) {
      checks.push({ name: 'workspace_root', ok: false, required: true, detail: `${config.workspaceRoot}: ${(err as Error).message}` });
    }
    const [signing, encryption] = evidence?.() ?? [];
    if (signing) checks.push({ name: 'signing', ok: signing.ok, required: false, detail: signing.detail });
    if (encryption) checks.push({ name: 'encryption', ok: encryption.ok, required: false, detail: encryption.detail });
    const sandbox = await sandboxStatus();
    // Not required: without it the service still serves file tools; shell tools are then not
    // installed and a session asking for them is refused with this detail.
    checks.push({ name: 'sandbox', ok: sandbox.usable, required: false, detail: sandbox.detail });
    const grep = grepBackend(rgPath);
    // Not required either: Grep works without ripgrep, slower (ok: false says it is degraded).
    checks.push({
      name: 'search',
      ok: grep.kind === 'ripgrep',
      required: false,
      detail: grep.kind === 'ripgrep' ? `Grep uses ripgrep at ${grep.path}` : RIPGREP_MISSING,
    });
    const web = webSearch();
    checks.push({ name: 'web_search', ok: web.usable || !web.configured, required: false, detail: web.detail });
    checks.push(...sandboxHostChecks(sandboxHost));
    const ready = checks.every((c) => c.ok || !c.required);
    return { status: ready ? 'ready' : 'unready', node_id: config.nodeId, checks };
  };
}
