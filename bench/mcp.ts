// MCP costs, each against a baseline measured in the same run:
//   - creating a session with two MCP servers (server-everything and server-filesystem, in the
//     sandbox) against creating one without servers, and against the servers' own start-up
//     (the SDK's client starting both directly, unsandboxed, connect + tools/list);
//   - one MCP tool call through the pipeline (POST a direct turn, ?wait) against the same call
//     made straight to the server by the SDK's client (the work itself plus the stdio hop).
//   npm run bench:mcp        (BENCH_SESSIONS=10 BENCH_CALLS=300 by default)
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { Agent } from 'undici';
import { apiCall, freePort, quantile, root, startChild, stopChildren } from './lib.js';

const SESSIONS = Number(process.env.BENCH_SESSIONS ?? 10);
const CALLS = Number(process.env.BENCH_CALLS ?? 300);
const NODE_MODULES = path.join(root, 'node_modules');
const EVERYTHING = path.join(NODE_MODULES, '@modelcontextprotocol/server-everything/dist/index.js');
const FILESYSTEM = path.join(NODE_MODULES, '@modelcontextprotocol/server-filesystem/dist/index.js');

const median = (xs: number[]) => quantile([...xs].sort((a, b) => a - b), 0.5);
const ms = (x: number) => `${x.toFixed(2).padStart(8)} ms`;

async function timed<T>(fn: () => Promise<T>): Promise<[number, T]> {
  const t0 = performance.now();
  const v = await fn();
  return [performance.now() - t0, v];
}

async function directServers(dir: string): Promise<number> {
  const [dt, clients] = await timed(async () =>
    Promise.all(
      [
        [EVERYTHING, 'stdio'],
        [FILESYSTEM, dir],
      ].map(async (args) => {
        const c = new Client({ name: 'bench', version: '1' });
        await c.connect(new StdioClientTransport({ command: process.execPath, args, stderr: 'ignore' }));
        await c.listTools();
        return c;
      }),
    ),
  );
  await Promise.all(clients.map((c) => c.close()));
  return dt;
}

async function main(): Promise<void> {
  await fs.access(path.join(root, 'dist/src/main.js')).catch(() => {
    throw new Error('dist/ is missing: run `npm run build` (npm run bench:mcp does it for you)');
  });
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'norma-bench-'));
  const children: ChildProcess[] = [];
  const agent = new Agent({ connections: 4 });
  try {
    const port = await freePort();
    children.push(await startChild([path.join(root, 'dist/src/main.js')], { NORMA_DATA_DIR: dataDir, NORMA_LOG_LEVEL: 'warn' }, port));
    const base = `http://127.0.0.1:${port}`;
    const servers = {
      ev: { command: 'node', args: [EVERYTHING, 'stdio'], read_only_paths: [NODE_MODULES] },
      fs: { command: 'node', args: [FILESYSTEM, '${NORMA_WORKSPACE}'], read_only_paths: [NODE_MODULES] },
    };
    console.log(`mcp bench: ${SESSIONS} sessions, ${CALLS} calls, ${os.cpus().length} CPUs, node ${process.version}`);

    const plain: number[] = [];
    const withMcp: number[] = [];
    const direct: number[] = [];
    let session = '';
    for (let i = 0; i < SESSIONS; i++) {
      const [a, p] = await timed(() => apiCall(agent, base, 'POST', '/v1/sessions', {}));
      plain.push(a);
      await apiCall(agent, base, 'DELETE', `/v1/sessions/${p.id}`);
      const [b, s] = await timed(() => apiCall(agent, base, 'POST', '/v1/sessions', { mcp_servers: servers, allowed_tools: ['mcp__ev__echo'] }));
      withMcp.push(b);
      if (i < SESSIONS - 1) await apiCall(agent, base, 'DELETE', `/v1/sessions/${s.id}`);
      else session = s.id;
      direct.push(await directServers(os.tmpdir()));
    }
    console.log(`  session, no MCP server                    ${ms(median(plain))} (median)`);
    console.log(`  the two servers started directly (SDK)    ${ms(median(direct))}`);
    console.log(`  session with the two servers, sandboxed   ${ms(median(withMcp))}`);
    console.log(`  ratio: ${(median(withMcp) / median(direct)).toFixed(2)}x the servers' own start-up; +${(median(withMcp) - median(plain)).toFixed(1)} ms over a session without servers`);

    // One call, straight to the server (baseline) and through the pipeline.
    const c = new Client({ name: 'bench', version: '1' });
    await c.connect(new StdioClientTransport({ command: process.execPath, args: [EVERYTHING, 'stdio'], stderr: 'ignore' }));
    const straight: number[] = [];
    const piped: number[] = [];
    const local: number[] = [];
    const body = { tool_uses: [{ name: 'mcp__ev__echo', input: { message: 'hello' } }] };
    // The same pipeline with a local tool (LS of the empty workspace): what the MCP hop adds to it.
    const lsBody = { tool_uses: [{ name: 'LS', input: { path: '.' } }] };
    for (let i = 0; i < CALLS + 20; i++) {
      const [a] = await timed(() => c.callTool({ name: 'echo', arguments: { message: 'hello' } }));
      const [b, turn] = await timed(() => apiCall(agent, base, 'POST', `/v1/sessions/${session}/turns?wait=10`, body));
      if (turn.status !== 'completed' || turn.results[0].is_error) throw new Error(`the call failed: ${JSON.stringify(turn.results)}`);
      const [l, lsTurn] = await timed(() => apiCall(agent, base, 'POST', `/v1/sessions/${session}/turns?wait=10`, lsBody));
      if (lsTurn.status !== 'completed' || lsTurn.results[0].is_error) throw new Error(`LS failed: ${JSON.stringify(lsTurn.results)}`);
      if (i >= 20) {
        straight.push(a);
        piped.push(b);
        local.push(l);
      }
    }
    await c.close();
    console.log(`  echo straight to the server (SDK client)  ${ms(median(straight))} (median of ${CALLS})`);
    console.log(`  echo as a direct turn through the pipeline ${ms(median(piped))} (median of ${CALLS}; HTTP, validation, rules, evidence, cap, store, events)`);
    console.log(`  ratio: ${(median(piped) / median(straight)).toFixed(2)}x; the pipeline and HTTP add ${(median(piped) - median(straight)).toFixed(2)} ms per call`);
    console.log(`  LS as a direct turn (no MCP), same session ${ms(median(local))} (median of ${CALLS}): the MCP call costs ${(median(piped) - median(local)).toFixed(2)} ms more`);
  } finally {
    await agent.close();
    await stopChildren(children);
    await fs.rm(dataDir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
