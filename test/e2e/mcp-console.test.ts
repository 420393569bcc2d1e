// An MCP client's call that asks, answered by a person in the web console (Debian's Chromium,
// driven by playwright-core) while the client waits with its own form open: the console's answer
// wins, the client's form is withdrawn, and the call returns its result.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { buildConsole } from '../../scripts/build-console.mjs';
import { newKey, startWithKeys, type KeyedServer } from '../helpers/tenants.js';

const CHROMIUM = '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'];
const agent = newKey('agent');
const person = newKey('person');
let t: KeyedServer;
let browser: Browser;
let built: string;

beforeAll(async () => {
  built = await fs.mkdtemp(path.join(os.tmpdir(), 'norma-mcp-console-build-'));
  await buildConsole(built);
  t = await startWithKeys(
    [
      { key: agent, tenant: 'acme', scopes: ['write'], name: 'mcp-agent' },
      { key: person, tenant: 'acme', scopes: ['approve'], name: 'reviewer' },
    ],
    { NORMA_CONSOLE_DIR: built },
  );
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ARGS });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await t?.close();
  await fs.rm(built, { recursive: true, force: true });
});

describe('an MCP call that asks, answered in the console', () => {
  it('the console\'s allow wins while the client waits; the client\'s form is withdrawn; the call returns', async () => {
    let withdrawn = false;
    let asked = false;
    const client = new Client({ name: 'waiting-agent', version: '1.0.0' }, { capabilities: { elicitation: { form: {} } } });
    client.setRequestHandler(ElicitRequestSchema, (_req, extra) => {
      asked = true;
      // Nobody answers in the client.
      return new Promise<ElicitResult>((_resolve, reject) =>
        extra.signal.addEventListener('abort', () => {
          withdrawn = true;
          reject(new Error('withdrawn'));
        }),
      );
    });
    const transport = new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${agent}` } } });
    await client.connect(transport);
    const sessionId = transport.sessionId!.split('.')[0]!;
    const workspace = ((await (await fetch(`${t.url}/v1/sessions/${sessionId}`, { headers: { authorization: `Bearer ${agent}` } })).json()) as { workspace: string }).workspace;
    const call = client.callTool({ name: 'Write', arguments: { file_path: 'from-mcp.txt', content: 'written over MCP\n' } });

    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    try {
      const page = await context.newPage();
      await page.goto(`${t.url}/console/`);
      await page.getByLabel('API key').fill(person);
      await page.getByRole('button', { name: 'Log in' }).click();
      await page.getByRole('heading', { name: 'Inbox' }).waitFor();
      const list = page.getByRole('list', { name: 'Waiting' });
      await expect.poll(() => list.getByRole('listitem').allTextContents(), { timeout: 15_000 }).toEqual([expect.stringContaining('Write')]);
      expect(asked).toBe(true);
      // The diff of what the call would write, then allow with the keyboard.
      await expect.poll(() => page.getByRole('figure', { name: 'Diff of from-mcp.txt' }).textContent(), { timeout: 10_000 }).toContain('+written over MCP');
      await page.keyboard.press('a');
      await page.getByText('Nothing waits for you.').waitFor({ timeout: 10_000 });
    } finally {
      await context.close();
    }
    const result = await call;
    expect(result.isError).toBe(false);
    expect(await fs.readFile(path.join(workspace, 'from-mcp.txt'), 'utf8')).toBe('written over MCP\n');
    await expect.poll(() => withdrawn).toBe(true);
    const permissions = ((await (await fetch(`${t.url}/v1/sessions/${sessionId}/permissions`, { headers: { authorization: `Bearer ${agent}` } })).json()) as { items: unknown[] }).items;
    expect(permissions).toEqual([expect.objectContaining({ status: 'allowed', resolved_by: 'client', answered_by: 'reviewer' })]);
    await client.close();
  }, 90_000);
});
