// Who a root server's sandboxed processes are: the user chosen (NORMA_SANDBOX_USER, default
// nobody), the launcher's drop to it through setpriv — after joining the cgroup and setting the
// rlimits, before bwrap — and the ownership that lets that user work in what the server makes.
// The tests that change users or owners need root and are skipped, saying so, without it.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { launcherArgv } from '../../src/sandbox/launcher.js';
import { RlimitBackend } from '../../src/sandbox/limits.js';
import { blockedAt, handOver, openWay, ownerForCreated } from '../../src/sandbox/ownership.js';
import { Workspace } from '../../src/sandbox/paths.js';
import { findProgram, SANDBOX_PATH, SandboxHost } from '../../src/sandbox/process.js';
import { createSandboxHost, sandboxHostChecks } from '../../src/sandbox/host.js';
import { resolveSandboxIdentity, SandboxUserError, setprivArgv, SETPRIV_MISSING, type AccountLookup } from '../../src/sandbox/sandbox-user.js';

const ROOT = process.getuid?.() === 0;
const NEEDS_ROOT = 'needs root: only a root server changes the user of its sandboxes and the owner of files';
const SETPRIV = findProgram('setpriv', SANDBOX_PATH);
const NOBODY = { uid: 65534, gid: 65534 };

let dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs) await fs.rm(d, { recursive: true, force: true });
  dirs = [];
});
async function tmp(mode = 0o700): Promise<string> {
  const d = await fs.mkdtemp(path.join(os.tmpdir(), 'norma-sbuser-'));
  await fs.chmod(d, mode);
  dirs.push(d);
  return d;
}

/** A host's accounts: nobody/nogroup, a sandbox user, and root. */
const accounts: AccountLookup = {
  user: (key) =>
    [
      { name: 'root', uid: 0, gid: 0 },
      { name: 'nobody', uid: 65534, gid: 65534 },
      { name: 'norma-sandbox', uid: 990, gid: 990 },
    ].find((u) => u.name === key || String(u.uid) === key) ?? null,
  group: (key) =>
    [
      { name: 'root', gid: 0 },
      { name: 'nogroup', gid: 65534 },
      { name: 'sandboxes', gid: 991 },
    ].find((g) => g.name === key || String(g.gid) === key) ?? null,
};
const noAccounts: AccountLookup = { user: () => null, group: () => null };

describe('the sandbox user', () => {
  it('is nobody for a root server by default, or the user NORMA_SANDBOX_USER names (name or number, with a group)', () => {
    const setpriv = '/usr/bin/setpriv';
    expect(resolveSandboxIdentity({ spec: undefined, serverUid: 0, setpriv, lookup: accounts })).toEqual({ kind: 'drop', uid: 65534, gid: 65534, name: 'nobody', setpriv });
    expect(resolveSandboxIdentity({ spec: 'norma-sandbox', serverUid: 0, setpriv, lookup: accounts })).toMatchObject({ kind: 'drop', uid: 990, gid: 990, name: 'norma-sandbox' });
    expect(resolveSandboxIdentity({ spec: 'norma-sandbox:sandboxes', serverUid: 0, setpriv, lookup: accounts })).toMatchObject({ uid: 990, gid: 991 });
    // A number that names no account is used as it is; its group is the same number unless given.
    expect(resolveSandboxIdentity({ spec: '4242', serverUid: 0, setpriv, lookup: accounts })).toMatchObject({ uid: 4242, gid: 4242, name: '4242' });
    expect(resolveSandboxIdentity({ spec: '4242:991', serverUid: 0, setpriv, lookup: accounts })).toMatchObject({ uid: 4242, gid: 991 });
  });

  it('fails closed for a root server without a default user or without setpriv: the sandbox is unusable, with the reason', () => {
    const none = resolveSandboxIdentity({ spec: undefined, serverUid: 0, setpriv: '/usr/bin/setpriv', lookup: noAccounts });
    expect(none).toMatchObject({ kind: 'unusable' });
    expect(none.kind === 'unusable' && none.reason).toMatch(/runs as root .* no user "nobody" .* set NORMA_SANDBOX_USER/);
    expect(resolveSandboxIdentity({ spec: undefined, serverUid: 0, setpriv: null, lookup: accounts })).toEqual({ kind: 'unusable', reason: SETPRIV_MISSING });
    expect(SETPRIV_MISSING).toContain('apt-get install util-linux');
  });

  it('refuses start-up for a user that cannot be had: unknown, root, or another user for a server that is not root', () => {
    const resolve = (spec: string, serverUid = 0) => () => resolveSandboxIdentity({ spec, serverUid, setpriv: '/usr/bin/setpriv', lookup: accounts });
    expect(resolve('no-such-user')).toThrow(SandboxUserError);
    expect(resolve('no-such-user')).toThrow('there is no user "no-such-user"');
    expect(resolve('nobody:no-such-group')).toThrow('there is no group "no-such-group"');
    expect(resolve('root')).toThrow('never root');
    expect(resolve('nobody:root')).toThrow('never root');
    expect(resolve('nobody', 1000)).toThrow('only a server running as root starts its sandboxes as another user');
    // Not root: its sandboxes run as itself, as they always did (naming itself changes nothing).
    expect(resolveSandboxIdentity({ spec: undefined, serverUid: 1000, setpriv: null, lookup: accounts })).toEqual({ kind: 'server' });
    expect(resolveSandboxIdentity({ spec: '990', serverUid: 990, setpriv: null, lookup: accounts })).toEqual({ kind: 'server' });
  });

  it('an explicit user this host does not have stops start-up where the sandbox is made', async () => {
    await expect(createSandboxHost('bwrap', 'off', 'no-such-user-here')).rejects.toThrow('NORMA_SANDBOX_USER=no-such-user-here: there is no user "no-such-user-here"');
  });

  it('a host whose sandbox user is missing starts nothing: the self-test fails with the reason, and no launch is made', async () => {
    const host = new SandboxHost({
      mode: 'bwrap',
      bwrapPath: '/usr/bin/bwrap',
      limits: new RlimitBackend('test'),
      view: { mounts: [], masks: [], scannedAt: new Date(0).toISOString() },
      identity: { kind: 'unusable', reason: 'no user to run as' },
    });
    const st = await host.selfTest(await tmp());
    expect(st).toEqual({ usable: false, detail: 'no user to run as: shell tools (Bash, background tasks, PTY shells), command hooks and stdio MCP servers are not available' });
    expect(() => host.launch({ argv: ['/bin/true'], workspace: '/tmp', home: '/tmp', tmp: '/tmp', cgroupProcs: [], rlimits: '', nice: 0 })).toThrow('no user to run as');
  });

  it('with rlimits, the process limit counts the sandbox user\'s processes, and /readyz takes it as enforced', () => {
    expect(new RlimitBackend('why', 'nobody').detail).toContain('the process limit counts every process of the sandbox user nobody, all sessions together');
    const host = new SandboxHost({
      mode: 'bwrap',
      bwrapPath: '/usr/bin/bwrap',
      limits: new RlimitBackend('why', 'nobody'),
      view: { mounts: [], masks: [], scannedAt: new Date(0).toISOString() },
      identity: { kind: 'drop', uid: 65534, gid: 65534, name: 'nobody', setpriv: '/usr/bin/setpriv' },
    });
    expect(sandboxHostChecks(host).find((c) => c.name === 'sandbox_limits')!.ok).toBe(true);
  });
});

describe('the launcher drops to the sandbox user', () => {
  it('puts setpriv with the user\'s ids, no other group and no capability before bwrap', () => {
    const drop = setprivArgv({ setpriv: '/usr/bin/setpriv', uid: 65534, gid: 65534 });
    expect(drop).toEqual(['/usr/bin/setpriv', '--reuid=65534', '--regid=65534', '--clear-groups', '--inh-caps=-all', '--']);
    const argv = launcherArgv({ keepFds: [], cgroupProcs: [], rlimits: '', nice: null, seccomp: null, bwrapPath: '/usr/bin/bwrap', bwrapArgs: [], command: ['/bin/true'], drop });
    expect(argv.slice(5)).toEqual(['norma-sandbox', '', '', '', '0', '', drop.join(' '), '--', '/usr/bin/bwrap', '0', '/bin/true']);
    expect(() => launcherArgv({ keepFds: [], cgroupProcs: [], rlimits: '', nice: null, seccomp: null, bwrapPath: '/b', bwrapArgs: [], command: [], drop: ['/a dir/setpriv'] })).toThrow('cannot travel');
  });

  it('after joining the cgroup and setting rlimits as root, and before bwrap starts', async ({ skip }) => {
    skip(!ROOT || SETPRIV === null, !ROOT ? NEEDS_ROOT : 'needs setpriv (util-linux)');
    // A cgroup.procs stand-in only root may write, and a "bwrap" that reports who it runs as.
    const dir = await tmp(0o711);
    const procs = path.join(dir, 'cgroup.procs');
    await fs.writeFile(procs, '', { mode: 0o600 });
    const bwrap = path.join(dir, 'bwrap');
    await fs.writeFile(
      bwrap,
      '#!/bin/bash\necho "pid=$$ uid=$(id -u) gid=$(id -g) groups=$(id -G) nofile=$(ulimit -n) cwd=$PWD args=$*"\ngrep -E "^Cap(Inh|Prm|Eff|Amb):" /proc/self/status\n',
      { mode: 0o755 },
    );
    const argv = launcherArgv({ keepFds: [], cgroupProcs: [procs], rlimits: 'n=64 c=0', nice: null, seccomp: null, bwrapPath: bwrap, bwrapArgs: ['--x'], command: ['cmd'], drop: setprivArgv({ setpriv: SETPRIV!, uid: NOBODY.uid, gid: NOBODY.gid }) });
    const r = spawnSync(argv[0]!, argv.slice(1), { env: {}, encoding: 'utf8', cwd: dir });
    expect(r.stderr).toBe('');
    const pid = /pid=(\d+)/.exec(r.stdout)?.[1];
    expect(r.stdout).toContain(`uid=65534 gid=65534 groups=65534 nofile=64 cwd=/ args=--args 4 -- cmd`);
    for (const cap of ['CapInh', 'CapPrm', 'CapEff', 'CapAmb']) expect(r.stdout).toMatch(new RegExp(`^${cap}:\\s+0+$`, 'm'));
    // The process that became "bwrap" joined the cgroup first, while it still could.
    expect((await fs.readFile(procs, 'utf8')).trim()).toBe(pid);
  });
});

describe('ownership for the sandbox user', () => {
  it('opens the way through the server\'s private directories by their group, and leaves an operator\'s group alone', async ({ skip }) => {
    skip(!ROOT, NEEDS_ROOT);
    const top = await tmp(0o700);
    const a = path.join(top, 'a');
    const b = path.join(a, 'b');
    await fs.mkdir(b, { recursive: true, mode: 0o700 });
    await fs.chmod(a, 0o750); // an operator's: group root may read it
    expect(await blockedAt(path.join(b, 'x'), NOBODY)).toBe(top);
    await openWay(b, top, NOBODY);
    const [st, sa, sb] = await Promise.all([fs.stat(top), fs.stat(a), fs.stat(b)]);
    expect([st.gid, st.mode & 0o7777]).toEqual([65534, 0o710]);
    expect([sb.gid, sb.mode & 0o7777]).toEqual([65534, 0o710]);
    expect([sa.gid, sa.mode & 0o7777]).toEqual([0, 0o750]);
    expect(await blockedAt(path.join(b, 'x'), NOBODY)).toBe(a);
    // Nothing above `from` changes.
    expect((await fs.stat(os.tmpdir())).mode & 0o7777).toBe(0o1777);
  });

  it('hands what the server makes to the sandbox user, never through a link', async ({ skip }) => {
    skip(!ROOT, NEEDS_ROOT);
    const top = await tmp();
    const d = path.join(top, 'home');
    await fs.mkdir(d);
    await handOver(d, NOBODY);
    expect(await fs.stat(d)).toMatchObject(NOBODY);
    const target = path.join(top, 'target');
    await fs.writeFile(target, '');
    await fs.symlink(target, path.join(top, 'link'));
    await handOver(path.join(top, 'link'), NOBODY);
    expect(await fs.stat(target)).toMatchObject({ uid: 0 });
  });

  it('files and directories the tools create in a workspace take the root\'s owner; a replaced file keeps its own', async ({ skip }) => {
    skip(!ROOT, NEEDS_ROOT);
    const ws = await tmp();
    await handOver(ws, NOBODY);
    expect(await ownerForCreated(ws)).toEqual(NOBODY);
    const w = await Workspace.open(ws);
    await w.writeFileAtomic('made/deep/new.txt', 'one\n');
    for (const p of ['made', 'made/deep', 'made/deep/new.txt']) expect(await fs.stat(path.join(ws, p)), p).toMatchObject(NOBODY);
    await fs.writeFile(path.join(ws, 'roots.txt'), 'root\n', { mode: 0o640 });
    await w.writeFileAtomic('roots.txt', 'still root\n');
    expect(await fs.stat(path.join(ws, 'roots.txt'))).toMatchObject({ uid: 0, gid: 0, mode: 0o100640 });
    await w.writeFileAtomic('made/deep/new.txt', 'two\n');
    expect(await fs.stat(path.join(ws, 'made/deep/new.txt'))).toMatchObject(NOBODY);
    await w.close();
    // A root-owned workspace: nothing to hand over.
    expect(await ownerForCreated(await tmp())).toBeNull();
  });
});

describe('the self-test', () => {
  it('hosts sharing a data directory self-test at once: each passes, and none leaves its scratch behind', async () => {
    // Replicas started together on one data directory run their self-tests in the same place.
    const dataDir = await tmp();
    const scratch = path.join(dataDir, 'sandbox', 'selftest');
    const hosts = await Promise.all(Array.from({ length: 6 }, () => createSandboxHost('bwrap', 'off')));
    try {
      const results = await Promise.all(hosts.map((h) => h.selfTest(scratch, dataDir)));
      for (const st of results) expect(st.detail).toContain('passed its self-test');
      expect(results.every((st) => st.usable)).toBe(true);
      expect(await fs.readdir(scratch)).toEqual([]);
    } finally {
      for (const h of hosts) h.limits.closeSync();
    }
  });
});
