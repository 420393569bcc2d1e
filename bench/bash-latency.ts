// Bash round trip through the API: `true` in a direct turn (?wait), sandboxed (bubblewrap)
// against unsandboxed (NORMA_SANDBOX=off), both servers measured in the same run.
//   npm run bench:bash            (BENCH_BASH_TURNS=200 sequential turns per server)
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Pool } from 'undici';
import { freePort, quantile, root, startChild, stopChildren } from './lib.js';

const TURNS = Number(process.env.BENCH_BASH_TURNS ?? 200);

async function measure(pool: Pool): Promise<number[]> {
  const created = await pool.request({ method: 'POST', path: '/v1/sessions', body: JSON.stringify({ permission_mode: 'bypassPermissions' }), headers: { 'content-type': 'application/json' } });
  const session = (await created.body.json()) as { id: string; tools: string[] };
  if (!session.tools.includes('Bash')) throw new Error('Bash is not installed in the bench session (is bubblewrap available?)');
  const body = JSON.stringify({ tool_uses: [{ name: 'Bash', input: { command: 'true' } }] });
  const times: number[] = [];
  for (let i = 0; i < TURNS + 10; i++) {
    const t0 = performance.now();
    const res = await pool.request({ method: 'POST', path: `/v1/sessions/${session.id}/turns?wait=30`, body, headers: { 'content-type': 'application/json' } });
    const text = await res.body.text();
    if (res.statusCode !== 200 || !text.includes('"status":"completed"') || !text.includes('Exit code 0.')) throw new Error(`turn failed: ${text.slice(0, 300)}`);
    if (i >= 10) times.push(performance.now() - t0); // the first 10 warm up
  }
  return times.sort((a, b) => a - b);
}

async function main(): Promise<void> {
  await fs.access(path.join(root, 'dist/src/main.js'));
  const dirs = await Promise.all([0, 1].map(() => fs.mkdtemp(path.join(os.tmpdir(), 'norma-bench-bash-'))));
  const children: ChildProcess[] = [];
  try {
    const results: Record<string, number[]> = {};
    for (const [i, mode] of (['bwrap', 'off'] as const).entries()) {
      const port = await freePort();
      children.push(await startChild([path.join(root, 'dist/src/main.js')], { NORMA_DATA_DIR: dirs[i]!, NORMA_LOG_LEVEL: 'warn', NORMA_SANDBOX: mode }, port));
      const pool = new Pool(`http://127.0.0.1:${port}`, { connections: 1 });
      results[mode] = await measure(pool);
      await pool.close();
    }
    console.log(`Bash round trip (direct turn, \`true\`, ?wait), ${TURNS} sequential turns per server, ${os.cpus().length} CPUs, node ${process.version}`);
    for (const mode of ['off', 'bwrap'] as const) {
      const t = results[mode]!;
      console.log(`  ${mode === 'off' ? 'unsandboxed (NORMA_SANDBOX=off)' : 'bubblewrap sandbox            '}   median ${quantile(t, 0.5).toFixed(2).padStart(6)} ms   p90 ${quantile(t, 0.9).toFixed(2).padStart(6)} ms`);
    }
    const ratio = quantile(results.bwrap!, 0.5) / quantile(results.off!, 0.5);
    console.log(`  ratio: the sandbox makes a Bash round trip ${ratio.toFixed(2)}x as long (median)`);
  } finally {
    await stopChildren(children);
    await Promise.all(dirs.map((d) => fs.rm(d, { recursive: true, force: true })));
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
