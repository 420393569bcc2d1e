// /readyz says how to install what is missing: bubblewrap, socat; and what to check when bwrap is
// there but cannot create its namespaces. None of them is required: the server stays ready.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../helpers/server.js';
import { failingBwrap, hostWithBwrap } from '../helpers/sandbox.js';
import type { SandboxHost } from '../../src/sandbox/process.js';

let servers: TestServer[] = [];
let dirs: string[] = [];
afterEach(async () => {
  await Promise.all(servers.map((s) => s.close()));
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  servers = [];
  dirs = [];
});

type Check = { name: string; ok: boolean; required: boolean; detail: string };

async function readyz(processSandbox: SandboxHost): Promise<{ status: number; checks: Record<string, Check> }> {
  const t = await startServer({}, { processSandbox });
  servers.push(t);
  const r = await t.api.get('/readyz');
  return { status: r.status, checks: Object.fromEntries((r.body.checks as Check[]).map((c) => [c.name, c])) };
}

describe('/readyz install hints', () => {
  it('bwrap missing: apt-get install bubblewrap, and what is not available', async () => {
    const r = await readyz(hostWithBwrap(null));
    expect(r.status).toBe(200);
    expect(r.checks.sandbox).toMatchObject({ ok: false, required: false });
    expect(r.checks.sandbox!.detail).toContain('bubblewrap (bwrap) not found on PATH: shell tools (Bash, background tasks, PTY shells)');
    expect(r.checks.sandbox!.detail).toContain("install Debian's bubblewrap package (apt-get install bubblewrap)");
  });

  it('bwrap that cannot create namespaces: what to check; socat missing: apt-get install socat', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'norma-readyz-'));
    dirs.push(dir);
    const bwrap = failingBwrap(dir, 'bwrap: setting up uid map: Permission denied');
    const r = await readyz(hostWithBwrap(bwrap, null));
    expect(r.status).toBe(200);
    const sandbox = r.checks.sandbox!;
    expect(sandbox.ok).toBe(false);
    expect(sandbox.detail).toContain(`bubblewrap at ${bwrap} failed its self-test (exit 1): bwrap: setting up uid map: Permission denied`);
    expect(sandbox.detail).toContain('check that unprivileged user namespaces are allowed');
    expect(sandbox.detail).toContain('kernel.apparmor_restrict_unprivileged_userns=0');
    expect(sandbox.detail).toContain('seccomp profile that allows creating namespaces');
    expect(r.checks.sandbox_network).toMatchObject({ ok: false, detail: expect.stringContaining('(apt-get install socat)') });
    // ripgrep is installed here (CI installs it): the search check is ok.
    expect(r.checks.search).toMatchObject({ ok: true, detail: expect.stringMatching(/^Grep uses ripgrep at /) });
  });
});
