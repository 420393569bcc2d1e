// Norma as an MCP server: one `tools/call` of LS at /mcp against the same call as a direct turn
// over REST (POST …/turns?wait), in the same run, on the same built server and session.
// Alternating rounds, so every path sees the same machine. Three MCP clients:
//  - the same HTTP client as the REST side (undici, one keep-alive connection) posting the
//    JSON-RPC message: what the server adds (target p50 ≤ 1.3×);
//  - the MCP SDK's own Client over undici's fetch on that connection;
//  - the MCP SDK's Client as it comes (Node's built-in fetch): what an MCP client pays besides.
//   npm run bench:mcp-server        (BENCH_CALLS=500 by default)
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Agent, fetch as undiciFetch, request } from 'undici';
import { apiCall, freePort, quantile, root, startChild, stopChildren } from './lib.js';

const CALLS = Number(process.env.BENCH_CALLS ?? 500);
const ROUNDS = 5;
const ms = (x: number) => `${x.toFixed(2).padStart(7)} ms`;

async function main(): Promise<void> {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'norma-bench-mcp-server-'));
  const children: ChildProcess[] = [];
  const dispatcher = new Agent({ connections: 1 });
  const sdkDispatcher = new Agent(); // the SDK client holds its GET stream open on a connection of its own
  const clients: Client[] = [];
  try {
    const port = await freePort();
    children.push(await startChild([path.join(root, 'dist/src/main.js')], { NORMA_DATA_DIR: dataDir, NORMA_LOG_LEVEL: 'warn', NORMA_SANDBOX: 'off' }, port));
    const base = `http://127.0.0.1:${port}`;
    const connect = async (fetch?: typeof undiciFetch) => {
      const client = new Client({ name: 'bench', version: '1' });
      const transport = new StreamableHTTPClientTransport(new URL(`${base}/mcp`), fetch ? { fetch: fetch as never } : {});
      await client.connect(transport);
      clients.push(client);
      return { client, transport };
    };
    // One session for every path: the SDK clients attach to the one the first made.
    const first = await connect();
    const mcpSessionId = first.transport.sessionId!;
    const sessionId = mcpSessionId.split('.')[0]!;
    const attached = new StreamableHTTPClientTransport(new URL(`${base}/mcp?session=${sessionId}`), {
      fetch: ((u: string, init: object) => undiciFetch(u, { ...init, dispatcher: sdkDispatcher })) as never,
    });
    const viaUndiciFetch = new Client({ name: 'bench', version: '1' });
    await viaUndiciFetch.connect(attached);
    clients.push(viaUndiciFetch);
    await fs.writeFile(path.join((await apiCall(dispatcher, base, 'GET', `/v1/sessions/${sessionId}`)).workspace, 'a.txt'), 'a');

    const sdkCall = (client: Client) => async () => {
      const t0 = performance.now();
      const r = await client.callTool({ name: 'LS', arguments: { path: '.' } });
      if (r.isError) throw new Error(`LS over MCP failed: ${JSON.stringify(r.content)}`);
      return performance.now() - t0;
    };
    let rpcId = 1000;
    const rawCall = async () => {
      const t0 = performance.now();
      const res = await request(`${base}/mcp`, {
        method: 'POST',
        dispatcher,
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': mcpSessionId, 'mcp-protocol-version': '2025-06-18' },
        body: JSON.stringify({ jsonrpc: '2.0', id: rpcId++, method: 'tools/call', params: { name: 'LS', arguments: { path: '.' } } }),
      });
      const answer = JSON.parse(await res.body.text());
      if (res.statusCode !== 200 || answer.result?.isError !== false) throw new Error(`LS over MCP failed: ${res.statusCode} ${JSON.stringify(answer)}`);
      return performance.now() - t0;
    };
    const restCall = async () => {
      const t0 = performance.now();
      const turn = await apiCall(dispatcher, base, 'POST', `/v1/sessions/${sessionId}/turns?wait=30`, { tool_uses: [{ name: 'LS', input: { path: '.' } }] });
      if (turn.status !== 'completed') throw new Error(`LS over REST: ${turn.status}`);
      return performance.now() - t0;
    };
    const paths = [
      { name: 'REST direct turn (?wait)', run: restCall, times: [] as number[] },
      { name: 'MCP tools/call, undici', run: rawCall, times: [] as number[] },
      { name: 'MCP SDK Client, undici fetch', run: sdkCall(viaUndiciFetch), times: [] as number[] },
      { name: 'MCP SDK Client, built-in fetch', run: sdkCall(first.client), times: [] as number[] },
    ];
    // Warm-up: every path compiled and its validators made.
    for (let i = 0; i < 50; i++) for (const p of paths) await p.run();
    for (let round = 0; round < ROUNDS; round++) for (const p of paths) for (let i = 0; i < CALLS / ROUNDS; i++) p.times.push(await p.run());
    const rest = paths[0]!;
    for (const p of paths) p.times.sort((a, b) => a - b);
    const [r50, r90] = [quantile(rest.times, 0.5), quantile(rest.times, 0.9)];
    console.log(`LS, ${CALLS} calls each, one session`);
    for (const p of paths) {
      const [p50, p90] = [quantile(p.times, 0.5), quantile(p.times, 0.9)];
      const ratio = p === rest ? '' : `   ×REST p50 ${(p50 / r50).toFixed(2)}  p90 ${(p90 / r90).toFixed(2)}`;
      console.log(`  ${p.name.padEnd(32)} p50 ${ms(p50)}   p90 ${ms(p90)}${ratio}`);
    }
    console.log('  target: MCP tools/call (undici) p50 ≤ 1.3 × REST');
  } finally {
    for (const c of clients) await c.close().catch(() => {});
    await dispatcher.close();
    await sdkDispatcher.close();
    await stopChildren(children);
    await fs.rm(dataDir, { recursive: true, force: true });
  }
}

await main();
