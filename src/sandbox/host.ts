// The process sandbox the server runs with (NORMA_SANDBOX, NORMA_CGROUP, NORMA_SANDBOX_USER): bwrap
// and the programs the profile needs, found where the sandbox sees programs, the user sandboxes run
// as, and the limits backend the host allows; and what /readyz says about it beyond the self-test.
import { detectLimitBackend, RlimitBackend } from './limits.js';
import { findBwrap, findProgram, SANDBOX_PATH, SandboxHost, type SandboxMode } from './process.js';
import { SOCAT_MISSING } from './install-hints.js';
import { resolveSandboxIdentity } from './sandbox-user.js';

/**
 * Throws when an explicit NORMA_CGROUP or NORMA_SANDBOX_USER cannot be used (the message names
 * it). A root server without a usable sandbox user gets a host whose self-test fails (fail closed).
 */
export async function createSandboxHost(mode: SandboxMode, cgroup: string, sandboxUser?: string): Promise<SandboxHost> {
  if (mode === 'off') return new SandboxHost({ mode: 'off', bwrapPath: null, limits: new RlimitBackend('NORMA_SANDBOX=off'), identity: { kind: 'server' } });
  // setpriv runs on the host, from the system directories (like nice).
  const identity = resolveSandboxIdentity({ spec: sandboxUser, serverUid: process.getuid?.() ?? -1, setpriv: findProgram('setpriv', SANDBOX_PATH) });
  return new SandboxHost({
    mode: 'bwrap',
    bwrapPath: findBwrap(),
    identity,
    limits: await detectLimitBackend(cgroup, identity.kind === 'drop' ? identity.name : undefined),
    // socat and nice run from the sandbox's system directories: looked up there.
    socatPath: findProgram('socat', SANDBOX_PATH),
    nicePath: findProgram('nice', SANDBOX_PATH),
  });
}

export interface HostCheck {
  name: string;
  ok: boolean;
  required: boolean;
  detail: string;
}

/**
 * The limits backend (not ok for rlimits when sandboxes run as root: the process limit is not
 * enforced) and the network bridge.
 */
export function sandboxHostChecks(host: SandboxHost): HostCheck[] {
  const off = host.mode === 'off';
  return [
    {
      name: 'sandbox_limits',
      ok: off || host.limits.enforcement !== 'rlimit' || process.getuid?.() !== 0 || host.sandboxIds() !== null,
      required: false,
      detail: off ? 'no limits: NORMA_SANDBOX=off' : host.limits.detail,
    },
    {
      name: 'sandbox_network',
      ok: off || host.socatPath !== null,
      required: false,
      detail: off
        ? 'NORMA_SANDBOX=off: commands use the host network'
        : host.socatPath
          ? `sessions with sandbox_network reach HTTP(S) through their egress proxy (socat at ${host.socatPath})`
          : SOCAT_MISSING,
    },
  ];
}
