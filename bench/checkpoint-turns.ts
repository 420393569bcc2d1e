// Checkpoints through the API, against the same session without them, in one run and on one
// server: two sessions whose workspaces hold BENCH_FILES (5,000) files, 50 MB, one created with
// `checkpoints: false`. Measured with ?wait, BENCH_TURNS (30) rounds, each running every kind of
// turn on both sessions one after the other, medians compared:
//   - an Edit turn (one line of one file), a Bash `true` turn, a Bash turn changing 100 files;
//   - GET …/turns/{id}/changes of that last kind of turn;
//   - a rewind of 100 files;
//   - the checkpoint store after 200 one-line Edit turns of one 1 MB file.
//   npm run bench:checkpoint-turns
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Pool } from 'undici';
import { freePort, quantile, root, startChild, stopChildren } from './lib.js';

const FILES = Number(process.env.BENCH_FILES ?? 5_000);
const TURNS = Number(process.env.BENCH_TURNS ?? 30);
const DIRS = 100;
const SIZE = Math.floor((50 * 1024 * 1024) / FILES);

async function call(pool: Pool, method: string, p: string, body?: unknown, accept?: string): Promise<any> {
  const res = await pool.request({
    method: method as 'POST',
    path: p,
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    headers: { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...(accept ? { accept } : {}) },
  });
  const text = await res.body.text();
  if (res.statusCode >= 300) throw new Error(`${method} ${p}: ${res.statusCode} ${text.slice(0, 300)}`);
  return text.startsWith('{') || text.startsWith('[') ? JSON.parse(text) : text;
}

async function turn(pool: Pool, sid: string, toolUses: unknown[]): Promise<{ id: string; ms: number }> {
  const t0 = performance.now();
  const t = await call(pool, 'POST', `/v1/sessions/${sid}/turns?wait=60`, { tool_uses: toolUses });
  const ms = performance.now() - t0;
  if (t.status !== 'completed' || t.results.some((r: { is_error?: boolean }) => r.is_error)) throw new Error(`turn failed: ${JSON.stringify(t).slice(0, 400)}`);
  return { id: t.id, ms };
}

async function populate(ws: string): Promise<void> {
  const line = 'x'.repeat(60) + '\n';
  const body = line.repeat(Math.ceil(SIZE / line.length)).slice(0, SIZE);
  for (let d = 0; d < DIRS; d++) {
    await fs.mkdir(path.join(ws, `d${d}`));
    await Promise.all(Array.from({ length: FILES / DIRS }, (_, f) => fs.writeFile(path.join(ws, `d${d}`, `f${f}.ts`), `// ${d}/${f}\n${body}`)));
  }
  await fs.writeFile(path.join(ws, 'edit.txt'), 'value 0\n');
}

const median = (xs: number[]) => quantile([...xs].sort((a, b) => a - b), 0.5);

type Kinds = { edit: number[]; bashTrue: number[]; bash100: number[]; lastBash100: string };

/**
 * Each kind of turn on both sessions, one after the other in every round, so both are measured
 * with the server in the same state (the first checkpoint reads 50 MB; what that leaves in the
 * process — its heap, its page tables, which every spawn copies — weighs on both alike).
 */
async function kinds(pool: Pool, sids: string[]): Promise<Kinds[]> {
  const out: Kinds[] = sids.map(() => ({ edit: [], bashTrue: [], bash100: [], lastBash100: '' }));
  for (const sid of sids) {
    await turn(pool, sid, [{ name: 'Read', input: { file_path: 'edit.txt' } }]);
    await turn(pool, sid, [{ name: 'Bash', input: { command: 'mkdir -p b && for i in $(seq 100); do echo 0 > b/f$i; done' } }]);
  }
  for (let i = 0; i < TURNS + 3; i++) {
    for (const [k, sid] of sids.entries()) {
      const e = await turn(pool, sid, [{ name: 'Edit', input: { file_path: 'edit.txt', old_string: `value ${i}`, new_string: `value ${i + 1}` } }]);
      const b = await turn(pool, sid, [{ name: 'Bash', input: { command: 'true' } }]);
      const m = await turn(pool, sid, [{ name: 'Bash', input: { command: `for i in $(seq 100); do echo ${i} >> b/f$i; done` } }]);
      out[k]!.lastBash100 = m.id;
      if (i < 3) continue; // warm-up
      out[k]!.edit.push(e.ms);
      out[k]!.bashTrue.push(b.ms);
      out[k]!.bash100.push(m.ms);
    }
  }
  return out;
}

async function main(): Promise<void> {
  await fs.access(path.join(root, 'dist/src/main.js'));
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'norma-bench-ckpt-turns-'));
  const children: ChildProcess[] = [];
  try {
    const port = await freePort();
    children.push(await startChild([path.join(root, 'dist/src/main.js')], { NORMA_DATA_DIR: dataDir, NORMA_LOG_LEVEL: 'warn' }, port));
    const pool = new Pool(`http://127.0.0.1:${port}`, { connections: 1 });
    const make = async (checkpoints: boolean) => {
      const s = await call(pool, 'POST', '/v1/sessions', { permission_mode: 'bypassPermissions', checkpoints });
      await populate(s.workspace);
      return s as { id: string; workspace: string };
    };
    const off = await make(false);
    const on = await make(true);
    console.log(`checkpoints through the API: ${FILES} files, ${((FILES * SIZE) / 1024 / 1024).toFixed(0)} MB per workspace, ${TURNS} turns of each kind, ${os.cpus().length} CPUs, node ${process.version}`);
    const [base, withCk] = (await kinds(pool, [off.id, on.id])).map((k) => ({ ...k, edit: median(k.edit), bashTrue: median(k.bashTrue), bash100: median(k.bash100) })) as [
      { edit: number; bashTrue: number; bash100: number; lastBash100: string },
      { edit: number; bashTrue: number; bash100: number; lastBash100: string },
    ];
    const row = (name: string, a: number, b: number, target: number) =>
      console.log(`  ${name.padEnd(34)} without ${a.toFixed(1).padStart(7)} ms   with ${b.toFixed(1).padStart(7)} ms   ${(b / a).toFixed(2)}x (target ≤ ${target}x)`);
    row('Edit turn, median', base.edit, withCk.edit, 1.3);
    row('Bash `true` turn, median', base.bashTrue, withCk.bashTrue, 1.5);
    row('Bash turn changing 100 files', base.bash100, withCk.bash100, 2);

    const changes: number[] = [];
    for (let i = 0; i < 10; i++) {
      const t0 = performance.now();
      const c = await call(pool, 'GET', `/v1/sessions/${on.id}/turns/${withCk.lastBash100}/changes`);
      changes.push(performance.now() - t0);
      if (c.files.length !== 100) throw new Error(`expected 100 changed files, got ${c.files.length}`);
    }
    console.log(`  changes of one turn (100 files)    median ${median(changes).toFixed(1)} ms (target ≤ 50 ms)`);

    const rewinds: number[] = [];
    for (let i = 0; i < 5; i++) {
      const t0 = performance.now();
      const r = await call(pool, 'POST', `/v1/sessions/${on.id}/rewind`, { to: withCk.lastBash100, paths: ['b'] });
      rewinds.push(performance.now() - t0);
      if (r.restored.length !== 100) throw new Error(`expected 100 restored files, got ${r.restored.length}`);
      // Undo it, for the next round.
      await call(pool, 'POST', `/v1/sessions/${on.id}/rewind`, { to: r.checkpoint_id, paths: ['b'] });
    }
    console.log(`  rewind of 100 files                median ${median(rewinds).toFixed(1)} ms (target ≤ 500 ms)`);

    // 200 one-line edits of a 1 MB file, in a session of its own.
    const big = await call(pool, 'POST', '/v1/sessions', { permission_mode: 'bypassPermissions' });
    const lines = Array.from({ length: 16_384 }, (_, i) => `line ${String(i).padStart(6, '0')} ${'y'.repeat(50)}`);
    await fs.writeFile(path.join(big.workspace, 'big.txt'), `${lines.join('\n')}\n`);
    await turn(pool, big.id, [{ name: 'Read', input: { file_path: 'big.txt', limit: 1 } }]);
    for (let i = 0; i < 200; i++) {
      const n = (i * 7919) % lines.length;
      const old = lines[n]!;
      lines[n] = `${old.slice(0, 12)}edit ${i}`;
      await turn(pool, big.id, [{ name: 'Edit', input: { file_path: 'big.txt', old_string: old, new_string: lines[n] } }]);
    }
    const packs = path.join(dataDir, 'checkpoints', big.id);
    let bytes = 0;
    const walk = async (d: string) => {
      for (const e of await fs.readdir(d, { withFileTypes: true })) {
        if (e.isDirectory()) await walk(path.join(d, e.name));
        else bytes += (await fs.stat(path.join(d, e.name)).catch(() => ({ size: 0 }))).size;
      }
    };
    await walk(packs);
    console.log(`  200 one-line edits of a 1 MB file  ${(bytes / 1024 / 1024).toFixed(2)} MB of checkpoint store (target ≤ 2 MB)`);
    await pool.close();
  } finally {
    await stopChildren(children);
    await fs.rm(dataDir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
