// Resource limits per session, end to end: a command that exceeds one is stopped with the reason
// in its result, while the server and another session go on as if nothing happened. The inputs
// are bounded: every runaway here stops by itself within seconds even if a limit failed.
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../helpers/server.js';
import { processesStartingWith } from '../helpers/processes.js';

let t: TestServer;
beforeAll(async () => {
  t = await startServer();
});
afterAll(async () => {
  await t?.close();
});

const MiB = 1024 * 1024;

async function session(limits: Record<string, number>) {
  const res = await t.api.post('/v1/sessions', { permission_mode: 'bypassPermissions', limits });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: string; workspace: string; limits: Record<string, unknown> };
}

async function bash(sessionId: string, command: string, timeout = 60_000) {
  const turn = (await t.api.post(`/v1/sessions/${sessionId}/turns?wait=120`, { tool_uses: [{ name: 'Bash', input: { command, timeout } }] })).body;
  expect(turn.status).toBe('completed');
  const r = turn.results[0];
  return { isError: r.is_error as boolean, text: (r.content as { text: string }[]).map((c) => c.text).join('\n') };
}

describe('limits a session carries', () => {
  it('reports them, with how they are enforced, in the session and /readyz; a session may only lower them', async () => {
    const s = await session({ memory_bytes: 256 * MiB, processes: 64 });
    const enforcement = s.limits.enforcement;
    expect(['cgroup2', 'cgroup1', 'rlimit']).toContain(enforcement);
    expect(s.limits).toMatchObject({ memory_bytes: 256 * MiB, processes: 64, cpu_weight: 50, open_files: 4096 });
    const ready = (await t.api.get('/readyz')).body.checks.find((c: { name: string }) => c.name === 'sandbox_limits');
    expect(ready.detail).toContain(enforcement === 'rlimit' ? 'rlimit' : `cgroup ${enforcement === 'cgroup2' ? 'v2' : 'v1'}`);
    const higher = await t.api.post('/v1/sessions', { limits: { memory_bytes: 64 * 1024 ** 3 } });
    expect(higher.status).toBe(400);
    expect(higher.body.detail).toContain("limits.memory_bytes: 68719476736 is above the operator's limit");
    const unknown = await t.api.post('/v1/sessions', { limits: { gpu: 1 } });
    expect(unknown.status).toBe(400);
  });

  it('memory: a read-only command that would take the machine\'s memory is stopped; another session is unaffected', async () => {
    const s = await session({ memory_bytes: 64 * MiB });
    const other = await session({});
    // tail -n1 keeps the (endless) last line of /dev/zero in memory: it grows until stopped.
    const [hog, calm, health] = await Promise.all([
      bash(s.id, 'tail -n1 /dev/zero', 30_000),
      (async () => {
        await new Promise((r) => setTimeout(r, 200));
        return bash(other.id, 'echo still here');
      })(),
      (async () => {
        await new Promise((r) => setTimeout(r, 300));
        return (await fetch(`${t.url}/healthz`)).status;
      })(),
    ]);
    expect(hog.isError).toBe(true);
    expect(hog.text).not.toContain('Killed after the 30000 ms timeout');
    if (s.limits.enforcement === 'rlimit') expect(hog.text).toMatch(/memory exhausted|Cannot allocate memory/);
    else expect(hog.text).toContain("Stopped: the session's memory limit of 64 MiB was exceeded");
    expect(calm).toEqual({ isError: false, text: 'still here\n\nExit code 0.' });
    expect(health).toBe(200);
    // The session goes on.
    expect(await bash(s.id, 'echo next')).toEqual({ isError: false, text: 'next\n\nExit code 0.' });
  });

  it('processes: a fork flood is stopped at the session\'s process limit and leaves nothing running', async () => {
    const s = await session({ processes: 32 });
    const marker = `${Math.floor(Math.random() * 1e6)}.777`;
    const flood = await bash(s.id, `for i in $(seq 200); do sleep ${marker} & done; wait`, 30_000);
    expect(flood.isError).toBe(true);
    if (s.limits.enforcement === 'rlimit') expect(flood.text).toMatch(/Resource temporarily unavailable/);
    else expect(flood.text).toContain("Stopped: the session's process limit of 32 was reached");
    expect(flood.text).not.toContain('Killed after the 30000 ms timeout');
    expect(await processesStartingWith(`sleep\u0000${marker}`)).toEqual([]);
    expect((await bash(s.id, 'echo ok')).text).toBe('ok\n\nExit code 0.');
  });

  it('file size: a write past the per-file limit is stopped and the file stays at the limit', async () => {
    const s = await session({ file_size_bytes: 2 * MiB });
    const res = await bash(s.id, 'head -c 10M /dev/zero > big.bin; echo after');
    expect(res.isError).toBe(false); // the shell goes on after head was stopped
    expect(res.text).toMatch(/File size limit exceeded/);
    expect((await fs.stat(path.join(s.workspace, 'big.bin'))).size).toBe(2 * MiB);
    const direct = await bash(s.id, 'head -c 10M /dev/zero > /tmp/big.bin');
    expect(direct.isError).toBe(true);
  });

  it('open files: a process cannot hold more descriptors than the limit', async () => {
    const s = await session({ open_files: 64 });
    const res = await bash(s.id, 'ulimit -n; for i in $(seq 100); do exec {fd}</dev/null || { echo "stopped at $i"; break; }; done');
    expect(res.text).toMatch(/^64\n/);
    expect(res.text).toMatch(/stopped at (5\d|6\d)/);
    expect(res.text).toContain('Too many open files');
  });

  it('disk: filling the workspace past the limit stops the command; removing files works again', async () => {
    const s = await session({ disk_bytes: 8 * MiB });
    const fill = await bash(s.id, 'for i in $(seq 60); do head -c 1M /dev/zero > f$i; sleep 0.1; done; echo finished', 30_000);
    expect(fill.isError).toBe(true);
    expect(fill.text).toContain("Stopped: the session's disk limit of 8 MiB was exceeded");
    expect(fill.text).not.toContain('finished');
    const written = (await fs.readdir(s.workspace)).filter((f) => /^f\d+$/.test(f)).length;
    expect(written).toBeGreaterThan(8);
    expect(written).toBeLessThan(60);
    expect(await bash(s.id, 'rm -f f*; echo cleaned')).toEqual({ isError: false, text: 'cleaned\n\nExit code 0.' });
    expect(await bash(s.id, 'head -c 1M /dev/zero > one; echo fits')).toEqual({ isError: false, text: 'fits\n\nExit code 0.' });
  });

  it('CPU share and memory are set on the session\'s cgroup, as seen from the host', async (ctx) => {
    const s = await session({ cpu_weight: 20, memory_bytes: 300 * MiB, processes: 40 });
    if (s.limits.enforcement === 'rlimit') ctx.skip();
    const marker = `${Math.floor(Math.random() * 1e6)}.888`;
    const pending = bash(s.id, `sleep ${marker}`, 3000);
    let pid: number | undefined;
    for (let i = 0; i < 100 && pid === undefined; i++) {
      pid = (await processesStartingWith(`sleep\u0000${marker}`))[0];
      if (pid === undefined) await new Promise((r) => setTimeout(r, 20));
    }
    expect(pid).toBeDefined();
    const cgroups = await fs.readFile(`/proc/${pid}/cgroup`, 'utf8');
    const read = async (controller: string, file: string) => {
      const line = cgroups.split('\n').find((l) => l.split(':')[1]!.split(',').includes(controller) || (controller === '' && l.startsWith('0::')))!;
      const rel = line.split(':')[2]!;
      const mount = s.limits.enforcement === 'cgroup2' ? '/sys/fs/cgroup' : `/sys/fs/cgroup/${controller}`;
      // The limits are on the session's cgroup, the parent of the command's leaf.
      return (await fs.readFile(path.join(mount, path.dirname(rel), file), 'utf8')).trim();
    };
    if (s.limits.enforcement === 'cgroup1') {
      expect(await read('cpu', 'cpu.shares')).toBe(String(Math.round((20 * 1024) / 100)));
      expect(await read('memory', 'memory.limit_in_bytes')).toBe(String(300 * MiB));
      expect(await read('pids', 'pids.max')).toBe('40');
    } else {
      expect(await read('', 'cpu.weight')).toBe('20');
      expect(await read('', 'memory.max')).toBe(String(300 * MiB));
      expect(await read('', 'pids.max')).toBe('40');
    }
    await pending;
  });
});
