// The process sandbox for tests: one SandboxHost per test file (its system scan and limits
// backend are made once), and a session sandbox over a test's workspace. What the host made
// (its cgroups) is removed when the test process exits, or by the run's global teardown.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createSandboxHost } from '../../src/sandbox/host.js';
import { DEFAULT_LIMITS, RlimitBackend, type ResourceLimits } from '../../src/sandbox/limits.js';
import { SandboxHost } from '../../src/sandbox/process.js';
import { SessionSandbox } from '../../src/sandbox/session-sandbox.js';
import type { ProxyEvidence } from '../../src/sandbox/net-proxy.js';

let shared: Promise<SandboxHost> | undefined;

/** The bwrap sandbox with the strongest limits backend this machine allows, shared by a test file. */
export function testSandboxHost(): Promise<SandboxHost> {
  shared ??= (async () => {
    const host = await createSandboxHost('bwrap', 'auto');
    process.once('exit', () => host.limits.closeSync());
    // The self-test needs its scratch directories only while it runs.
    const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'norma-selftest-'));
    const status = await host.selfTest(scratch).finally(() => fs.rmSync(scratch, { recursive: true, force: true }));
    if (!status.usable) throw new Error(`the test sandbox is unusable: ${status.detail}`);
    return host;
  })();
  return shared;
}

/**
 * An executable `bwrap` in `dir` that fails as bubblewrap does when it cannot set a sandbox up:
 * `message` on stderr, exit 1. `dir` is made passable, so the sandbox user of a root server can
 * run it too.
 */
export function failingBwrap(dir: string, message: string): string {
  const file = path.join(dir, 'bwrap');
  fs.writeFileSync(file, `#!/bin/sh\necho ${JSON.stringify(message)} >&2\nexit 1\n`, { mode: 0o755 });
  fs.chmodSync(dir, 0o711);
  return file;
}

/**
 * A bwrap host with the given bwrap and socat (null: not installed), over an empty system view:
 * for what the host reports, not for running commands.
 */
export function hostWithBwrap(bwrapPath: string | null, socatPath: string | null = '/usr/bin/socat'): SandboxHost {
  return new SandboxHost({ mode: 'bwrap', bwrapPath, limits: new RlimitBackend('test'), socatPath, view: { mounts: [], masks: [], scannedAt: new Date(0).toISOString() } });
}

/** NORMA_SANDBOX=off, for tests that run processes without a sandbox. */
export function unsandboxedHost(): SandboxHost {
  return new SandboxHost({ mode: 'off', bwrapPath: null, limits: new RlimitBackend('NORMA_SANDBOX=off') });
}

export interface TestSessionSandboxOptions {
  network?: boolean;
  limits?: Partial<ResourceLimits>;
  egressAllow?: string[];
  ownAddresses?: { address: string; port: number }[];
  evidence?: ProxyEvidence[];
}

/** A session sandbox over `workspace`, its state under `stateDir`. */
export function testSessionSandbox(host: SandboxHost, workspace: string, stateDir: string, o: TestSessionSandboxOptions = {}): SessionSandbox {
  return new SessionSandbox(host, {
    sessionId: `ses_test${Math.random().toString(36).slice(2, 10)}`,
    workspace,
    network: o.network ?? false,
    limits: { ...DEFAULT_LIMITS, ...(o.limits ?? {}) },
    stateDir,
    egress: { allow: o.egressAllow ?? [] },
    ownAddresses: () => o.ownAddresses ?? [],
    onEgress: (e) => o.evidence?.push(e),
  });
}
