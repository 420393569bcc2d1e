// Norma as an MCP server: one `tools/call` of LS by the MCP SDK's client over Streamable HTTP at
// /mcp, against the same call as a direct turn over REST (POST …/turns?wait, one keep-alive
// connection) in the same run, on the same built server and session. Alternating rounds, so both
// see the same machine. p50 and p90 of each, and their ratio (target ≤ 1.3×).
//   npm run bench:mcp-server        (BENCH_CALLS=500 by default)
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Agent } from 'undici';
import { apiCall, freePort, quantile, root, startChild, stopChildren } from './lib.js';

const CALLS = Number(process.env.BENCH_CALLS ?? 500);
const ROUNDS = 5;
const ms = (x: number) => `${x.toFixed(2).padStart(7)} ms`;

async function main(): Promise<void> {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'norma-bench-mcp-server-'));
  const children: ChildProcess[] = [];
  const dispatcher = new Agent({ connections: 1 });
  try {
    const port = await freePort();
    children.push(await startChild([path.join(root, 'dist/src/main.js')], { NORMA_DATA_DIR: dataDir, NORMA_LOG_LEVEL: 'warn', NORMA_SANDBOX: 'off' }, port));
    const base = `http://127.0.0.1:${port}`;
    const client = new Client({ name: 'bench', version: '1' });
    const transport = new StreamableHTTPClientTransport(new URL(`${base}/mcp`));
    await client.connect(transport);
    const sessionId = transport.sessionId!.split('.')[0]!;
    await fs.writeFile(path.join((await apiCall(dispatcher, base, 'GET', `/v1/sessions/${sessionId}`)).workspace, 'a.txt'), 'a');

    const viaMcp = async () => {
      const t0 = performance.now();
      const r = await client.callTool({ name: 'LS', arguments: { path: '.' } });
      if (r.isError) throw new Error(`LS over MCP failed: ${JSON.stringify(r.content)}`);
      return performance.now() - t0;
    };
    const viaRest = async () => {
      const t0 = performance.now();
      const turn = await apiCall(dispatcher, base, 'POST', `/v1/sessions/${sessionId}/turns?wait=30`, { tool_uses: [{ name: 'LS', input: { path: '.' } }] });
      if (turn.status !== 'completed') throw new Error(`LS over REST: ${turn.status}`);
      return performance.now() - t0;
    };
    // Warm-up: both paths compiled and their validators made.
    for (let i = 0; i < 50; i++) {
      await viaMcp();
      await viaRest();
    }
    const mcp: number[] = [];
    const rest: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      for (let i = 0; i < CALLS / ROUNDS; i++) mcp.push(await viaMcp());
      for (let i = 0; i < CALLS / ROUNDS; i++) rest.push(await viaRest());
    }
    mcp.sort((a, b) => a - b);
    rest.sort((a, b) => a - b);
    const [m50, r50, m90, r90] = [quantile(mcp, 0.5), quantile(rest, 0.5), quantile(mcp, 0.9), quantile(rest, 0.9)];
    console.log(`LS, ${CALLS} calls each, one client and one session`);
    console.log(`  REST direct turn (?wait)      p50 ${ms(r50)}   p90 ${ms(r90)}`);
    console.log(`  MCP tools/call (/mcp)         p50 ${ms(m50)}   p90 ${ms(m90)}`);
    console.log(`  MCP / REST                    p50 ${(m50 / r50).toFixed(2)} ×   p90 ${(m90 / r90).toFixed(2)} ×   (target p50 ≤ 1.3 ×)`);
    await client.close();
  } finally {
    await dispatcher.close();
    await stopChildren(children);
    await fs.rm(dataDir, { recursive: true, force: true });
  }
}

await main();
