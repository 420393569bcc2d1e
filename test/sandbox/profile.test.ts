// The process sandbox's profile, checked from inside: the seccomp filter, no nested user
// namespaces, masks over system files an unprivileged user could not read, the launcher's
// clean descriptor table and environment, and the limits backends' cgroup files.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { execOne } from '../../src/pipeline/exec-one.js';
import { detectLimitBackend, DEFAULT_LIMITS, niceFor, rlimitSpec } from '../../src/sandbox/limits.js';
import { findBwrap, SandboxHost } from '../../src/sandbox/process.js';
import { blockedSyscalls, seccompProgram } from '../../src/sandbox/seccomp.js';
import { findUnreadable, scanSystemView, SYSTEM_DIRS } from '../../src/sandbox/system-view.js';
import { launcherArgv, printfEscapes } from '../../src/sandbox/launcher.js';
import { bashTool } from '../helpers/tools.js';
import { pipelineHarness, type PipelineHarness } from '../helpers/pipeline.js';
import { testSandboxHost } from '../helpers/sandbox.js';

let h: PipelineHarness;
let tmp: string;
beforeEach(async () => {
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'norma-profile-'));
});
afterEach(async () => {
  await h?.cleanup();
  await fs.rm(tmp, { recursive: true, force: true });
});

async function run(command: string): Promise<string> {
  const { result } = await execOne({ id: 't', name: 'Bash', input: { command } }, h.env);
  return result.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
}

describe('seccomp and namespaces', () => {
  it('refuses ptrace (of the sandbox init or anything), process_vm_readv and nested user namespaces', async () => {
    h = await pipelineHarness([bashTool], { sandbox: 'bwrap' });
    h.setMode('bypassPermissions');
    const out = await run(
      [
        'grep Seccomp: /proc/self/status',
        // PTRACE_ATTACH (16) to the sandbox init, PTRACE_TRACEME (0), process_vm_readv (310)
        'perl -e \'printf "attach %d %d\\n", syscall(101, 16, 1, 0, 0), $!+0\'',
        'perl -e \'printf "traceme %d %d\\n", syscall(101, 0, 0, 0, 0), $!+0\'',
        'perl -e \'printf "vm_readv %d %d\\n", syscall(310, 1, 0, 0, 0, 0, 0), $!+0\'',
        'perl -e \'printf "keyctl %d %d\\n", syscall(250, 0, 0, 0, 0, 0), $!+0\'',
        'unshare -U true 2>/dev/null && echo NESTED-USERNS || echo no-userns',
        'unshare -r true 2>/dev/null && echo NESTED-ROOT || echo no-root',
      ].join('; '),
    );
    expect(out).toMatch(/^Seccomp:\s+2$/m);
    expect(out).toContain('attach -1 1');
    expect(out).toContain('traceme -1 1');
    expect(out).toContain('vm_readv -1 1');
    expect(out).toContain('keyctl -1 1');
    expect(out).toContain('no-userns');
    expect(out).toContain('no-root');
  });

  it('the filter program checks the architecture, refuses other ABIs and lists the calls it blocks', () => {
    const prog = seccompProgram('x64')!;
    expect(prog.length % 8).toBe(0);
    // First instruction loads seccomp_data.arch (offset 4); then jumps unless it is x86_64.
    expect(prog.readUInt16LE(0)).toBe(0x20);
    expect(prog.readUInt32LE(4)).toBe(4);
    expect(prog.readUInt32LE(12)).toBe(0xc000003e);
    // The last two instructions return EPERM and ENOSYS.
    expect(prog.readUInt32LE(prog.length - 12)).toBe(0x00050001);
    expect(prog.readUInt32LE(prog.length - 4)).toBe(0x00050026);
    expect(blockedSyscalls('x64')).toEqual(expect.arrayContaining(['ptrace', 'process_vm_readv', 'bpf', 'io_uring_setup', 'mount', 'keyctl', 'pidfd_getfd']));
    expect(blockedSyscalls('arm64')).toEqual(blockedSyscalls('x64'));
    expect(seccompProgram('riscv64')).toBeNull();
  });
});

describe('system files an unprivileged user could not read', () => {
  it('are found by one walk: files without o+r, directories without o+rx (not walked into), links left alone', async () => {
    const sys = path.join(tmp, 'sys');
    await fs.mkdir(path.join(sys, 'closed', 'inner'), { recursive: true });
    await fs.mkdir(path.join(sys, 'open'));
    await fs.writeFile(path.join(sys, 'public.conf'), 'public\n', { mode: 0o644 });
    await fs.writeFile(path.join(sys, 'secret.key'), 'secret\n', { mode: 0o600 });
    await fs.writeFile(path.join(sys, 'group-only'), 'group\n', { mode: 0o640 });
    await fs.writeFile(path.join(sys, 'open', 'nested.key'), 'nested\n', { mode: 0o400 });
    await fs.writeFile(path.join(sys, 'closed', 'inner', 'x'), 'x\n', { mode: 0o644 });
    await fs.chmod(path.join(sys, 'closed'), 0o700);
    await fs.symlink('secret.key', path.join(sys, 'link'));
    const masks = await findUnreadable([sys]);
    expect(masks.sort((a, b) => a.path.localeCompare(b.path))).toEqual([
      { kind: 'dir', path: path.join(sys, 'closed') },
      { kind: 'file', path: path.join(sys, 'group-only') },
      { kind: 'file', path: path.join(sys, 'open', 'nested.key') },
      { kind: 'file', path: path.join(sys, 'secret.key') },
    ]);
  });

  it('are masked inside the sandbox, though the server (root here) can read them', async () => {
    const real = await testSandboxHost();
    const sys = path.join(tmp, 'sys');
    await fs.mkdir(path.join(sys, 'private'), { recursive: true });
    await fs.writeFile(path.join(sys, 'public.conf'), 'public-content\n', { mode: 0o644 });
    await fs.writeFile(path.join(sys, 'secret.key'), 'secret-content\n', { mode: 0o600 });
    await fs.writeFile(path.join(sys, 'private', 'db.conf'), 'private-content\n', { mode: 0o644 });
    await fs.chmod(path.join(sys, 'private'), 0o700);
    const base = await scanSystemView();
    const extra = await scanSystemView([sys]);
    // The masks alone: processes run as the server's user (root here), not as the sandbox user a
    // root server's sandboxes have, so only the masks keep these files out.
    const host = new SandboxHost({
      mode: 'bwrap',
      bwrapPath: findBwrap(),
      limits: real.limits,
      view: { mounts: [...base.mounts, ...extra.mounts], masks: [...base.masks, ...extra.masks], scannedAt: base.scannedAt },
      identity: { kind: 'server' },
    });
    h = await pipelineHarness([bashTool], { sandbox: host });
    h.setMode('bypassPermissions');
    const out = await run(`cat ${sys}/public.conf ${sys}/secret.key ${sys}/private/db.conf 2>&1; ls ${sys}/private | wc -l`);
    expect(out).toContain('public-content');
    expect(out).not.toContain('secret-content');
    expect(out).not.toContain('private-content');
    expect(out).toMatch(/^0$/m);
    // The host's own: whatever this machine has that others may not read stays unreadable inside.
    const hostMasks = base.masks.filter((m) => m.kind === 'file').slice(0, 10);
    expect(hostMasks.length).toBeGreaterThan(0); // /etc/shadow at least
    for (const m of hostMasks) {
      const inside = await run(`head -c 1 ${JSON.stringify(m.path)} | wc -c`);
      expect(inside, m.path).toMatch(/^0$/m);
      // Running as root, the server itself can read them: only the mask keeps them out.
      if (process.getuid?.() === 0) await expect(fs.readFile(m.path)).resolves.toBeInstanceOf(Buffer);
    }
    expect(base.mounts.map((m) => m.path)).toEqual(expect.arrayContaining(SYSTEM_DIRS.filter((d) => ['/usr', '/etc'].includes(d))));
  });
});

describe('the launcher', () => {
  it('passes bwrap its options through a pipe and the seccomp program as printf escapes', () => {
    const argv = launcherArgv({ keepFds: [3], cgroupProcs: ['/cg/a/cgroup.procs', '/cg/b/cgroup.procs'], rlimits: 'f=1 n=64', nice: null, seccomp: Buffer.from([0, 1, 255]), bwrapPath: '/usr/bin/bwrap', bwrapArgs: ['--ro-bind', '/usr', '/usr'], command: ['/bin/true'] });
    expect(argv.slice(0, 4)).toEqual(['/bin/bash', '--noprofile', '--norc', '-c']);
    expect(argv.slice(5)).toEqual(['norma-sandbox', '3', '/cg/a/cgroup.procs:/cg/b/cgroup.procs', 'f=1 n=64', '0', '\\x00\\x01\\xff', '', '--', '/usr/bin/bwrap', '3', '--ro-bind', '/usr', '/usr', '/bin/true']);
    expect(printfEscapes(Buffer.from('A'))).toBe('\\x41');
    expect(() => launcherArgv({ keepFds: [], cgroupProcs: [], rlimits: '', nice: null, seccomp: null, bwrapPath: '/usr/bin/bwrap', bwrapArgs: [], command: ['a\0b'] })).toThrow('NUL');
  });

  it('turns limits into ulimit letters and a CPU weight into nice only without cgroups', () => {
    expect(rlimitSpec(DEFAULT_LIMITS, 'cgroup1')).toBe('f=2097152 n=4096 c=0');
    expect(rlimitSpec({ ...DEFAULT_LIMITS, memory_bytes: 64 * 1024 * 1024, processes: 10 }, 'rlimit')).toBe('f=2097152 n=4096 c=0 d=65536 u=10');
    expect(niceFor(50, 'cgroup2')).toBe(0);
    expect(niceFor(100, 'rlimit')).toBe(0);
    expect(niceFor(50, 'rlimit')).toBe(5);
    expect(niceFor(1, 'rlimit')).toBe(19);
  });
});

describe('the cgroup v2 backend', () => {
  it('writes the session limits and a leaf per command into a delegated directory', async () => {
    // A directory shaped like a delegated cgroup v2 (plain files here; the kernel's are the same names).
    const cg = path.join(tmp, 'cg');
    await fs.mkdir(cg);
    await fs.writeFile(path.join(cg, 'cgroup.subtree_control'), 'cpu memory pids\n');
    const backend = await detectLimitBackend(cg);
    expect(backend.enforcement).toBe('cgroup2');
    const session = (await backend.session('ses_x', { ...DEFAULT_LIMITS, memory_bytes: 100 * 1024 * 1024, processes: 20, cpu_weight: 30 }))!;
    const [base] = (await fs.readdir(cg, { withFileTypes: true })).filter((e) => e.isDirectory()).map((e) => path.join(cg, e.name));
    const dir = path.join(base!, 'ses_x');
    expect(await fs.readFile(path.join(base!, 'cgroup.subtree_control'), 'utf8')).toBe('+memory +pids +cpu');
    expect(await fs.readFile(path.join(dir, 'memory.max'), 'utf8')).toBe(String(100 * 1024 * 1024));
    expect(await fs.readFile(path.join(dir, 'memory.swap.max'), 'utf8')).toBe('0');
    expect(await fs.readFile(path.join(dir, 'pids.max'), 'utf8')).toBe('20');
    expect(await fs.readFile(path.join(dir, 'cpu.weight'), 'utf8')).toBe('30');
    const cmd = await session.command('c1');
    expect(cmd.procs).toEqual([path.join(dir, 'c1', 'cgroup.procs')]);
    expect(await fs.readFile(path.join(dir, 'c1', 'memory.oom.group'), 'utf8')).toBe('1');
    await fs.writeFile(path.join(dir, 'c1', 'memory.events'), 'low 0\nhigh 0\nmax 3\noom 1\noom_kill 2\n');
    await fs.writeFile(path.join(dir, 'pids.events'), 'max 5\n');
    expect(await cmd.counters()).toEqual({ oomKills: 2, pidsMax: 0 });
    expect(await session.counters()).toEqual({ oomKills: 0, pidsMax: 5 });
  });

  it('an explicit NORMA_CGROUP that does not delegate memory and pids stops start-up', async () => {
    const cg = path.join(tmp, 'cg');
    await fs.mkdir(cg);
    await fs.writeFile(path.join(cg, 'cgroup.subtree_control'), 'cpu\n');
    await expect(detectLimitBackend(cg)).rejects.toThrow(`NORMA_CGROUP ${cg}: not a writable cgroup v2 directory with memory and pids enabled`);
    expect((await detectLimitBackend('off')).enforcement).toBe('rlimit');
  });
});
