// What the sandbox says when bubblewrap or socat is missing or bwrap cannot set a sandbox up:
// what is missing, what that disables, and what to install or check.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { bwrapFailureHint, type SysctlReader } from '../../src/sandbox/install-hints.js';
import { sandboxHostChecks } from '../../src/sandbox/host.js';
import { failingBwrap, hostWithBwrap } from '../helpers/sandbox.js';

let dirs: string[] = [];
afterEach(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  dirs = [];
});
function tmp(): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'norma-hints-'));
  dirs.push(d);
  return d;
}

const NO_USERNS = 'bwrap: No permissions to create new namespace, likely because the kernel does not allow non-privileged user namespaces.';

describe('the sandbox self-test', () => {
  it('without bwrap: names the package and the command, and what is not available', async () => {
    const st = await hostWithBwrap(null).selfTest(tmp());
    expect(st.usable).toBe(false);
    expect(st.detail).toBe(
      "bubblewrap (bwrap) not found on PATH: shell tools (Bash, background tasks, PTY shells), command hooks and stdio MCP servers are not available; install Debian's bubblewrap package (apt-get install bubblewrap)",
    );
  });

  it('with a bwrap that cannot create namespaces: quotes it and says what to check', async () => {
    const st = await hostWithBwrap(failingBwrap(tmp(), NO_USERNS)).selfTest(tmp());
    expect(st.usable).toBe(false);
    expect(st.detail).toContain(`failed its self-test (exit 1): ${NO_USERNS}: shell tools (Bash, background tasks, PTY shells)`);
    for (const what of ['kernel.unprivileged_userns_clone=1', 'user.max_user_namespaces', 'kernel.apparmor_restrict_unprivileged_userns=0', 'seccomp=unconfined', 'apparmor=unconfined']) {
      expect(st.detail).toContain(what);
    }
    expect(st.detail).not.toContain('systempaths');
  });

  it('with a bwrap that cannot mount /proc (a container\'s masked paths): names systempaths=unconfined', async () => {
    const st = await hostWithBwrap(failingBwrap(tmp(), "bwrap: Can't mount proc on /newroot/proc: Operation not permitted")).selfTest(tmp());
    expect(st.usable).toBe(false);
    expect(st.detail).toContain('systempaths=unconfined');
    expect(st.detail).toContain('unmask=ALL');
  });
});

describe('the hint for a failing bwrap', () => {
  const reader = (values: Record<string, string>): SysctlReader => (name) => values[name] ?? null;

  it('names the settings of this host that block user namespaces, with their values', () => {
    const ubuntu = bwrapFailureHint('bwrap: setting up uid map: Permission denied', reader({ 'kernel.apparmor_restrict_unprivileged_userns': '1', 'user.max_user_namespaces': '63000' }));
    expect(ubuntu).toMatch(/; this host has kernel\.apparmor_restrict_unprivileged_userns=1$/);
    const debian = bwrapFailureHint(NO_USERNS, reader({ 'kernel.unprivileged_userns_clone': '0', 'user.max_user_namespaces': '0' }));
    expect(debian).toMatch(/; this host has kernel\.unprivileged_userns_clone=0, user\.max_user_namespaces=0$/);
  });

  it('names none when nothing blocks them (a container\'s profile is then the likely cause)', () => {
    const hint = bwrapFailureHint(NO_USERNS, reader({ 'kernel.unprivileged_userns_clone': '1', 'user.max_user_namespaces': '63000', 'kernel.apparmor_restrict_unprivileged_userns': '0' }));
    expect(hint).not.toContain('this host has');
    expect(hint).toContain("Docker's default refuses it");
  });
});

describe('the sandbox network check', () => {
  it('without socat: names the package and the command', () => {
    const net = sandboxHostChecks(hostWithBwrap('/usr/bin/bwrap', null)).find((c) => c.name === 'sandbox_network')!;
    expect(net.ok).toBe(false);
    expect(net.detail).toBe("socat not found: sessions cannot have sandbox_network; install Debian's socat package (apt-get install socat)");
  });
});
