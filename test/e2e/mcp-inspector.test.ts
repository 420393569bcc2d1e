// The MCP Inspector's CLI mode (from npm, a client no one here wrote) against a running server:
// it lists the session's tools and calls one; without a key it is refused.
import { createRequire } from 'node:module';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../helpers/server.js';
import { keysFile, newKey } from '../helpers/tenants.js';

const cli = path.join(path.dirname(createRequire(import.meta.url).resolve('@modelcontextprotocol/inspector-cli/package.json')), 'build', 'index.js');
const key = newKey('inspector');
let keys: Awaited<ReturnType<typeof keysFile>>;
let t: TestServer;

beforeAll(async () => {
  keys = await keysFile([{ key, tenant: 'acme', scopes: ['write'] }]);
  t = await startServer({ NORMA_SANDBOX: 'off', NORMA_API_KEYS_FILE: keys.file });
});
afterAll(async () => {
  await t?.close();
  await keys?.remove();
});

async function inspect(args: string[], headers: string[] = [`Authorization: Bearer ${key}`]) {
  const r = await execa(process.execPath, [cli, `${t.url}/mcp`, '--transport', 'http', ...headers.flatMap((h) => ['--header', h]), ...args], {
    reject: false,
    timeout: 60_000,
    // It finds its own package.json relative to the working directory.
    cwd: path.dirname(cli),
  });
  return { code: r.exitCode, out: r.stdout, err: r.stderr };
}

describe('the MCP Inspector CLI against /mcp', { timeout: 120_000 }, () => {
  it('lists the tools and calls one', async () => {
    const listed = await inspect(['--method', 'tools/list']);
    expect(listed.code, listed.err).toBe(0);
    const names = (JSON.parse(listed.out) as { tools: { name: string }[] }).tools.map((x) => x.name);
    expect(names).toContain('LS');
    expect(names).toContain('Write');
    const called = await inspect(['--method', 'tools/call', '--tool-name', 'LS', '--tool-arg', 'path=.']);
    expect(called.code, called.err).toBe(0);
    expect(JSON.parse(called.out)).toMatchObject({ isError: false, content: [{ type: 'text' }] });
    // Each run of the CLI is an MCP session of its own, on a session made for it.
    const sessions = (await t.api.get('/v1/sessions', { headers: { authorization: `Bearer ${key}` } })).body.items as { id: string }[];
    expect(sessions.length).toBeGreaterThanOrEqual(2);
  });

  it('is refused without a key', async () => {
    const refused = await inspect(['--method', 'tools/list'], []);
    expect(refused.code).not.toBe(0);
    expect(refused.out + refused.err).toMatch(/401|Unauthorized|unauthori/i);
  });
});
