// The web console in a real browser (Debian's Chromium, driven by playwright-core), against a
// real server with keys: log in once; open a session from the live list; a Write asks, live;
// approve it remembering a rule and see the result as a diff; answer an AskUser question;
// approve a plan with the mode to switch to; reload in the middle of a turn and lose nothing;
// keep following through a dropped connection; the read and approve scopes; the desktop
// notification of a hidden tab; logout; and no accessibility violation axe-core can find.
// Screenshots of the main views go to a temp dir (kept only when NORMA_CONSOLE_SCREENSHOTS
// names a directory to copy them to).
import fs from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildConsole } from '../../scripts/build-console.mjs';
import { newKey, startWithKeys, type KeyedServer } from '../helpers/tenants.js';
import { closeFixtures } from '../helpers/http-fixture.js';
import { mcpAddServer } from '../helpers/mcp-http.js';

const CHROMIUM = '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'];
const require = createRequire(import.meta.url);

const writer = newKey('writer');
const reader = newKey('reader');
const approver = newKey('approver');
const admin = newKey('admin');
// A tenant of its own for the inbox test: its inbox holds only what that test asks.
const kbWriter = newKey('kb_writer');
const kbApprover = newKey('kb_approver');
let t: KeyedServer;
let browser: Browser;
let built: string;
let shots: string;

beforeAll(async () => {
  if (!(await fs.stat(CHROMIUM).catch(() => null))) throw new Error(`${CHROMIUM} is missing: install Debian's chromium package (apt-get install chromium)`);
  built = await fs.mkdtemp(path.join(os.tmpdir(), 'norma-console-build-'));
  shots = await fs.mkdtemp(path.join(os.tmpdir(), 'norma-console-shots-'));
  await buildConsole(built);
  t = await startWithKeys(
    [
      { key: writer, tenant: 'acme', scopes: ['write'], name: 'alice' },
      { key: reader, tenant: 'acme', scopes: ['read'], name: 'watcher' },
      { key: approver, tenant: 'acme', scopes: ['approve'], name: 'approver' },
      { key: admin, tenant: 'acme', scopes: ['admin'], name: 'operator' },
      { key: kbWriter, tenant: 'kbd', scopes: ['write'], name: 'kb-backend' },
      { key: kbApprover, tenant: 'kbd', scopes: ['approve'], name: 'kb-person' },
    ],
    // Loopback egress: the Streamable HTTP MCP server of the last test.
    { NORMA_CONSOLE_DIR: built, NORMA_EGRESS_ALLOW: '127.0.0.1' },
  );
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ARGS });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await t?.close();
  await closeFixtures();
  const keep = process.env.NORMA_CONSOLE_SCREENSHOTS;
  if (keep && shots) await fs.cp(shots, keep, { recursive: true });
  await fs.rm(built, { recursive: true, force: true });
  await fs.rm(shots, { recursive: true, force: true });
});

/** The API as a Bearer client (what a backend does next to the person at the console). */
async function api(method: string, url: string, body?: unknown, key = writer): Promise<any> {
  const res = await fetch(`${t.url}${url}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  if (res.status >= 400) throw new Error(`${method} ${url} → ${res.status} ${text}`);
  return text === '' ? null : JSON.parse(text);
}

async function until<T>(what: string, f: () => Promise<T | undefined | null | false>, ms = 10_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await f();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function newSession(tools = ['Read', 'Write', 'Edit', 'AskUser', 'ExitPlanMode', 'EnterPlanMode']): Promise<{ id: string; workspace: string }> {
  return api('POST', '/v1/sessions', { tools });
}

async function exported(id: string): Promise<{ events: { seq: number; type: string }[] }> {
  return api('GET', `/v1/sessions/${id}/export`);
}

/** Script errors and console errors of each page. */
const pageErrors = new WeakMap<Page, string[]>();

async function watchedPage(context: BrowserContext): Promise<Page> {
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  // A 401 the page asked for (who is logged in, before login; a wrong key) is logged by the
  // browser as a failed load, and so is a request while the test holds the browser offline;
  // anything else is an error of the page.
  page.on('console', (m) => {
    if (m.type() === 'error' && !/Failed to load resource: (.* 401|net::ERR_INTERNET_DISCONNECTED)/.test(m.text())) errors.push(m.text());
  });
  pageErrors.set(page, errors);
  return page;
}

async function logIn(context: BrowserContext, key: string): Promise<Page> {
  const page = await watchedPage(context);
  await page.goto(`${t.url}/console/`);
  await page.getByLabel('API key').fill(key);
  await page.getByRole('button', { name: 'Log in' }).click();
  // The inbox is the first view after a login.
  await page.getByRole('heading', { name: 'Inbox' }).waitFor();
  return page;
}

/** The seqs the timeline shows, in page order. */
async function timelineSeqs(page: Page): Promise<number[]> {
  return page.locator('ol[aria-label="Event timeline"] > li[data-seq]').evaluateAll((lis) => lis.map((li) => Number(li.getAttribute('data-seq'))));
}

/** Waits until the timeline shows exactly the server's events 1..N, in order, once each. */
async function timelineMatchesServer(page: Page, sessionId: string): Promise<number[]> {
  let last: number[] = [];
  let expected: number[] = [];
  try {
    return await until('the timeline to show every event once, in order', async () => {
      expected = (await exported(sessionId)).events.map((e) => e.seq);
      last = await timelineSeqs(page);
      return JSON.stringify(last) === JSON.stringify(expected) && last;
    });
  } catch (err) {
    throw new Error(`${(err as Error).message}: shown ${JSON.stringify(last)}, stored ${JSON.stringify(expected)}`);
  }
}

async function shot(page: Page, name: string): Promise<void> {
  const file = path.join(shots, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  const png = await fs.readFile(file);
  expect(png.subarray(1, 4).toString()).toBe('PNG');
  expect(png.length).toBeGreaterThan(5_000);
}

async function axe(page: Page): Promise<void> {
  // Through the DevTools protocol: the page's CSP refuses a script element with axe inline.
  await page.evaluate(await fs.readFile(require.resolve('axe-core/axe.min.js'), 'utf8'));
  const result = (await page.evaluate(`axe.run(document, { resultTypes: ['violations'] })`)) as { violations: { id: string; impact: string; nodes: { target: string[] }[] }[] };
  const found = result.violations.map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).slice(0, 3).join(', ')}`);
  expect(found).toEqual([]);
}

describe('the web console', () => {
  it('the inbox: an approve key clears requests from three sessions with the keyboard alone, seeing each diff before answering', async () => {
    const made: { id: string; name: string; workspace: string }[] = [];
    for (const name of ['alpha', 'beta', 'gamma']) made.push(await api('POST', '/v1/sessions', { name, tools: ['Write'], labels: { team: 'kb' } }, kbWriter));
    for (const s of made) {
      const turn = await api('POST', `/v1/sessions/${s.id}/turns?wait=10`, { tool_uses: [{ name: 'Write', input: { file_path: 'hello.txt', content: `hello from ${s.name}\n` } }] }, kbWriter);
      expect(turn.status).toBe('awaiting_permission');
    }
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    try {
      const page = await logIn(context, kbApprover);
      const list = page.getByRole('list', { name: 'Waiting' });
      await expect.poll(() => list.getByRole('listitem').allTextContents(), { timeout: 10_000 }).toEqual(['alpha: Write', 'beta: Write', 'gamma: Write']);
      await shot(page, '09-inbox');
      await axe(page);
      const selected = () => list.locator('li[aria-current="true"]').textContent();
      const diffShows = async (name: string) => {
        const diff = page.getByRole('figure', { name: 'Diff of hello.txt' });
        await expect.poll(() => diff.textContent(), { timeout: 10_000 }).toContain(`+hello from ${name}`);
      };
      // The oldest is selected; its diff shows before anything is answered.
      expect(await selected()).toBe('alpha: Write');
      await diffShows('alpha');
      await page.keyboard.press('a');
      await expect.poll(selected, { timeout: 10_000 }).toBe('beta: Write');
      await diffShows('beta');
      // j and k move; the diff follows the selection.
      await page.keyboard.press('j');
      await expect.poll(selected, { timeout: 10_000 }).toBe('gamma: Write');
      await diffShows('gamma');
      await page.keyboard.press('k');
      await expect.poll(selected, { timeout: 10_000 }).toBe('beta: Write');
      await diffShows('beta');
      await page.keyboard.press('d');
      await expect.poll(selected, { timeout: 10_000 }).toBe('gamma: Write');
      await diffShows('gamma');
      await page.keyboard.press('a');
      await page.getByText('Nothing waits for you.').waitFor({ timeout: 10_000 });
      // What the keys did, as the API says it.
      const outcome = async (s: { id: string }) => (await api('GET', `/v1/sessions/${s.id}/permissions`, undefined, kbWriter)).items.map((p: { status: string; answered_by?: string }) => `${p.status} by ${p.answered_by}`);
      expect(await outcome(made[0]!)).toEqual(['allowed by kb-person']);
      expect(await outcome(made[1]!)).toEqual(['denied by kb-person']);
      expect(await outcome(made[2]!)).toEqual(['allowed by kb-person']);
      expect((await api('GET', '/v1/pending', undefined, kbWriter)).items).toEqual([]);
      for (const [i, s] of made.entries()) {
        await until('the turn to end', async () => (await api('GET', `/v1/sessions/${s.id}/turns`, undefined, kbWriter)).items.every((x: { status: string }) => x.status === 'completed'));
        const written = await fs.readFile(path.join(s.workspace, 'hello.txt'), 'utf8').catch(() => null);
        expect(written, s.name).toBe(i === 1 ? null : `hello from ${s.name}\n`);
      }
      expect(pageErrors.get(page)).toEqual([]);
    } finally {
      await context.close();
    }
  }, 60_000);

  it('the sessions list shows names, labels and what waits, follows the tenant stream and filters by label and status', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    try {
      const page = await logIn(context, kbWriter);
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Sessions' }).click();
      await page.getByRole('heading', { name: 'Sessions' }).waitFor();
      await page.getByText('Updated as sessions change.').waitFor({ timeout: 10_000 });
      // Made after the list was shown: it comes by the stream, with its name, labels and, once it asks, its waiting count.
      const s = await api('POST', '/v1/sessions', { name: 'delta fix', tools: ['Write'], labels: { team: 'web', env: 'prod' } }, kbWriter);
      const row = page.getByRole('row').filter({ has: page.getByRole('link', { name: s.id }) });
      await row.waitFor({ timeout: 10_000 });
      expect(await row.textContent()).toContain('delta fix');
      expect(await row.textContent()).toContain('team: web');
      await api('POST', `/v1/sessions/${s.id}/turns`, { tool_uses: [{ name: 'Write', input: { file_path: 'd.txt', content: 'd' } }] }, kbWriter);
      await expect.poll(() => row.textContent(), { timeout: 10_000 }).toContain('1 waiting');
      // Filter: only the labelled session; then status closed: none of them.
      await page.getByLabel('Labels (key:value, separated by spaces)').fill('team:web env:prod');
      await page.getByRole('button', { name: 'Filter' }).click();
      await expect.poll(() => page.locator('tbody tr').count(), { timeout: 10_000 }).toBe(1);
      await page.getByLabel('Status').selectOption('closed');
      await page.getByRole('button', { name: 'Filter' }).click();
      await page.getByText('No session matches the filter.').waitFor({ timeout: 10_000 });
      expect(pageErrors.get(page)).toEqual([]);
    } finally {
      await context.close();
    }
  }, 60_000);

  it('logs in once, answers a Write live with a remembered rule, a question and a plan, and survives a reload mid-turn', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    try {
      // Log in: the key becomes an HttpOnly SameSite=Strict cookie; the page keeps no key.
      const page = await watchedPage(context);
      await page.goto(`${t.url}/console/`);
      await page.getByLabel('API key').waitFor();
      await shot(page, '01-login');
      await axe(page);
      await page.getByLabel('API key').fill('wrong-key-wrong-key');
      await page.getByRole('button', { name: 'Log in' }).click();
      await expect.poll(() => page.getByRole('alert').first().textContent()).toContain('unknown API key');
      await page.getByLabel('API key').fill(writer);
      await page.getByRole('button', { name: 'Log in' }).click();
      await page.getByRole('heading', { name: 'Inbox' }).waitFor();
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Sessions' }).click();
      await page.getByRole('heading', { name: 'Sessions' }).waitFor();
      const cookies = await context.cookies();
      expect(cookies).toHaveLength(1);
      expect(cookies[0]).toMatchObject({ name: 'norma_console', httpOnly: true, sameSite: 'Strict', path: '/' });
      expect(cookies[0]!.value).not.toContain(writer);
      const stored = (await page.evaluate('JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }) + document.cookie')) as string;
      expect(stored).not.toContain(writer);
      expect(await page.getByText('alice').count()).toBeGreaterThan(0);

      // The live list: a session created elsewhere appears without a reload.
      const s = await newSession();
      await fs.writeFile(path.join(s.workspace, 'notes.md'), 'first line\nold line\nlast line\n');
      const link = page.getByRole('link', { name: s.id });
      await link.waitFor({ timeout: 10_000 });
      await shot(page, '02-sessions');
      await axe(page);
      await link.click();
      await page.getByRole('heading', { name: `Session ${s.id}` }).waitFor();

      // A Write asks, live.
      await api('POST', `/v1/sessions/${s.id}/turns`, {
        tool_uses: [
          { name: 'Read', input: { file_path: 'notes.md' } },
          { name: 'Write', input: { file_path: 'notes.md', content: 'first line\nnew line\nlast line\n' } },
        ],
      });
      const card = page.getByRole('region', { name: 'Permission request Write' });
      await card.waitFor({ timeout: 10_000 });
      const [request] = (await api('GET', `/v1/sessions/${s.id}/permissions?status=pending`)).items;
      expect(request.tool).toBe('Write');
      expect(request.suggestions.length).toBeGreaterThan(0);
      expect(await card.textContent()).toContain(request.reason);
      expect(await card.textContent()).toContain('new line');
      await shot(page, '03-permission');
      await axe(page);
      // Approve, remembering the first suggestion.
      const rule = request.suggestions[0] as string;
      await card.getByLabel(`Remember: ${rule}`).check();
      await card.getByRole('button', { name: 'Allow', exact: true }).click();
      await card.waitFor({ state: 'detached', timeout: 10_000 });
      const decided = await api('GET', `/v1/sessions/${s.id}/permissions/${request.id}`);
      expect(decided).toMatchObject({ status: 'allowed', resolved_by: 'client', answered_by: 'alice', remember: [rule] });
      expect((await api('GET', `/v1/sessions/${s.id}`)).rules.map((r: { rule: string }) => r.rule)).toContain(rule);
      // The result, as a diff: the removed and the added line, marked as such.
      const diff = page.getByLabel('Diff of notes.md');
      await diff.waitFor({ timeout: 10_000 });
      expect(await fs.readFile(path.join(s.workspace, 'notes.md'), 'utf8')).toBe('first line\nnew line\nlast line\n');
      const removed = await diff.locator('del, .del').allTextContents();
      const added = await diff.locator('ins, .add').allTextContents();
      expect(removed.join('\n')).toContain('old line');
      expect(added.join('\n')).toContain('new line');
      expect(removed.join('\n')).not.toContain('new line');
      await shot(page, '04-result-diff');

      // The remembered rule holds: the next Write of that file runs without asking.
      const again = await api('POST', `/v1/sessions/${s.id}/turns?wait=10`, {
        tool_uses: [{ name: 'Write', input: { file_path: 'notes.md', content: 'first line\nnewer line\nlast line\n' } }],
      });
      expect(again.status).toBe('completed');
      expect(again.pending).toEqual([]);
      expect(again.results[0].is_error).toBe(false);

      // An AskUser question, answered by picking an option.
      await api('POST', `/v1/sessions/${s.id}/turns`, {
        tool_uses: [{ name: 'AskUser', input: { questions: [{ question: 'Which colour?', header: 'Colour', options: [{ label: 'Red', description: 'warm' }, { label: 'Blue', description: 'cool' }] }] } }],
      });
      const question = page.getByRole('region', { name: 'Question' });
      await question.waitFor({ timeout: 10_000 });
      expect(await question.textContent()).toContain('Which colour?');
      await question.getByLabel('Blue').check();
      await shot(page, '05-question');
      await question.getByRole('button', { name: 'Answer' }).click();
      await question.waitFor({ state: 'detached', timeout: 10_000 });
      const [answered] = (await api('GET', `/v1/sessions/${s.id}/questions`)).items;
      expect(answered).toMatchObject({ status: 'answered', answers: { 'Which colour?': 'Blue' }, answered_by: 'alice' });

      // A plan: rendered as sanitised Markdown, approved with the mode to switch to.
      await api('PATCH', `/v1/sessions/${s.id}`, { permission_mode: 'plan' });
      const plan = '# Rename the notes\n\n1. Read **notes.md**\n2. Write it back\n\n<img src="x" onerror="window.pwned=1"><script>window.pwned=2</script>[link](javascript:window.pwned=3)';
      await api('POST', `/v1/sessions/${s.id}/turns`, { tool_uses: [{ name: 'ExitPlanMode', input: { plan } }] });
      const planCard = page.getByRole('region', { name: 'Permission request ExitPlanMode' });
      await planCard.waitFor({ timeout: 10_000 });
      const rendered = planCard.getByRole('region', { name: 'Plan' });
      await rendered.getByRole('heading', { name: 'Rename the notes' }).waitFor();
      expect(await rendered.locator('ol > li').allTextContents()).toEqual(['Read notes.md', 'Write it back']);
      expect(await rendered.locator('li strong').first().textContent()).toBe('notes.md');
      // The HTML in it is text, not markup; the javascript: link is no link.
      expect(await rendered.locator('img, script, [onerror]').count()).toBe(0);
      expect(await rendered.locator('a[href^="javascript:"]').count()).toBe(0);
      expect(await rendered.textContent()).toContain('<img src="x" onerror="window.pwned=1">');
      await shot(page, '06-plan');
      await planCard.getByLabel('Mode after the plan').selectOption('acceptEdits');
      await planCard.getByRole('button', { name: 'Approve plan' }).click();
      await planCard.waitFor({ state: 'detached', timeout: 10_000 });
      expect(await page.evaluate('window.pwned')).toBeUndefined();
      await until('the mode to change', async () => (await api('GET', `/v1/sessions/${s.id}`)).permission_mode === 'acceptEdits');

      // Reload in the middle of a turn: a request is pending, the page reloads, the timeline is
      // whole (every stored event once, in order), and the request can be answered (keyboard).
      await api('PATCH', `/v1/sessions/${s.id}`, { permission_mode: 'default' });
      await api('POST', `/v1/sessions/${s.id}/turns`, { tool_uses: [{ name: 'Write', input: { file_path: 'other.md', content: 'other\n' } }] });
      await page.getByRole('region', { name: 'Permission request Write' }).waitFor({ timeout: 10_000 });
      await page.reload();
      await page.getByRole('heading', { name: `Session ${s.id}` }).waitFor();
      const reloadedCard = page.getByRole('region', { name: 'Permission request Write' });
      await reloadedCard.waitFor({ timeout: 10_000 });
      await timelineMatchesServer(page, s.id);
      await page.locator('body').press('a');
      await reloadedCard.waitFor({ state: 'detached', timeout: 10_000 });
      await until('the turn to complete', async () => (await api('GET', `/v1/sessions/${s.id}/turns`)).items.every((x: { status: string }) => x.status === 'completed'));
      const seqs = await timelineMatchesServer(page, s.id);
      expect(seqs[0]).toBe(1);
      expect(seqs.every((q, i) => q === i + 1)).toBe(true);
      await shot(page, '07-timeline');
      await axe(page);

      // The connection drops; events happen meanwhile; the stream resumes where it stopped.
      await context.setOffline(true);
      await api('POST', `/v1/sessions/${s.id}/turns?wait=10`, { tool_uses: [{ name: 'Read', input: { file_path: 'other.md' } }] });
      await new Promise((r) => setTimeout(r, 700));
      await context.setOffline(false);
      await timelineMatchesServer(page, s.id);

      // Audit: the decisions name who decided; the export downloads.
      await page.getByRole('heading', { name: 'Audit' }).scrollIntoViewIfNeeded();
      expect(await page.getByText('alice').count()).toBeGreaterThan(0);
      const download = page.waitForEvent('download');
      await page.getByRole('button', { name: 'Download export' }).click();
      const file = await (await download).path();
      const doc = JSON.parse(await fs.readFile(file!, 'utf8'));
      expect(doc).toMatchObject({ format: 'norma.session-export', session: { id: s.id } });
      await shot(page, '08-audit');

      // Logout: back to the login form, and the cookie opens nothing any more.
      const cookie = (await context.cookies())[0]!;
      await page.getByRole('button', { name: 'Log out' }).click();
      await page.getByLabel('API key').waitFor();
      expect(await context.cookies()).toHaveLength(0);
      const res = await fetch(`${t.url}/v1/sessions`, { headers: { cookie: `${cookie.name}=${cookie.value}`, 'x-norma-console': '1' } });
      expect(res.status).toBe(401);
      expect(pageErrors.get(page)).toEqual([]);
    } finally {
      await context.close();
    }
  }, 120_000);

  it('watches without answering under read, answers without posting under approve', async () => {
    const s = await newSession(['Write']);
    await api('POST', `/v1/sessions/${s.id}/turns`, { tool_uses: [{ name: 'Write', input: { file_path: 'x.md', content: 'x' } }] });
    const readContext = await browser.newContext();
    const approveContext = await browser.newContext();
    try {
      const watching = await logIn(readContext, reader);
      await watching.goto(`${t.url}/console/#/sessions/${s.id}`);
      const card = watching.getByRole('region', { name: 'Permission request Write' });
      await card.waitFor({ timeout: 10_000 });
      expect(await card.textContent()).toContain('watch only');
      expect(await card.getByRole('button').count()).toBe(0);
      expect(await watching.getByRole('button', { name: 'Cancel turn' }).count()).toBe(0);

      const answering = await logIn(approveContext, approver);
      await answering.goto(`${t.url}/console/#/sessions/${s.id}`);
      const live = answering.getByRole('region', { name: 'Permission request Write' });
      await live.waitFor({ timeout: 10_000 });
      expect(await answering.getByRole('button', { name: 'Cancel turn' }).count()).toBe(0);
      await live.getByLabel('Message for the model').fill('not that file');
      await live.getByLabel('Interrupt the turn').check();
      await live.getByRole('button', { name: 'Deny' }).click();
      await live.waitFor({ state: 'detached', timeout: 10_000 });
      const [p] = (await api('GET', `/v1/sessions/${s.id}/permissions`)).items;
      expect(p).toMatchObject({ status: 'denied', message: 'not that file', interrupt: true, answered_by: 'approver' });
      // The reader's page saw it resolved too, live.
      await card.waitFor({ state: 'detached', timeout: 10_000 });
    } finally {
      await readContext.close();
      await approveContext.close();
    }
  }, 60_000);

  it('shows what a turn changed as a diff, and rewinds it after a preview; a conflict must be ticked to be overwritten', async () => {
    const s = await api('POST', '/v1/sessions', { tools: ['Read', 'Write'], allowed_tools: ['Write'] });
    await api('POST', `/v1/sessions/${s.id}/turns?wait=10`, { tool_uses: [{ name: 'Write', input: { file_path: 'keep.txt', content: 'kept\n' } }] });
    const second = await api('POST', `/v1/sessions/${s.id}/turns?wait=10`, { tool_uses: [{ name: 'Write', input: { file_path: 'notes.md', content: 'first line\nsecond line\n' } }] });
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const readContext = await browser.newContext();
    try {
      const page = await logIn(context, writer);
      await page.goto(`${t.url}/console/#/sessions/${s.id}`);
      const turn = page.getByRole('article', { name: `Turn ${second.id}` });
      await turn.waitFor({ timeout: 10_000 });
      await turn.getByRole('button', { name: 'Show changes' }).click();
      const diff = turn.getByRole('region', { name: 'Changes of this turn' }).getByRole('figure', { name: 'Diff of notes.md' });
      await diff.waitFor({ timeout: 10_000 });
      expect(await diff.locator('ins').allTextContents()).toEqual(['+first line', '+second line']);
      expect(await turn.getByRole('figure', { name: 'Diff of keep.txt' }).count()).toBe(0);

      // Someone edits the file by hand: the preview names the conflict, and Rewind waits for the tick.
      await fs.writeFile(path.join(s.workspace, 'notes.md'), 'edited by hand\n');
      await turn.getByRole('button', { name: 'Rewind to before this turn…' }).click();
      const preview = turn.getByRole('region', { name: 'Rewind preview' });
      await preview.waitFor({ timeout: 10_000 });
      expect(await preview.textContent()).toContain('deletes 1 (notes.md)');
      expect(await preview.getByRole('listitem').allTextContents()).toEqual([expect.stringContaining('notes.md: changed since')]);
      const rewind = preview.getByRole('button', { name: 'Rewind' });
      expect(await rewind.isDisabled()).toBe(true);
      await shot(page, 'rewind-preview');
      await axe(page);
      await preview.getByLabel('Overwrite them too').check();
      await rewind.click();
      const status = turn.getByRole('status');
      await status.waitFor({ timeout: 10_000 });
      expect(await status.textContent()).toMatch(/Rewound: 0 restored, 1 deleted\. To undo, rewind to ckpt_/);
      await expect(fs.stat(path.join(s.workspace, 'notes.md'))).rejects.toThrow();
      expect(await fs.readFile(path.join(s.workspace, 'keep.txt'), 'utf8')).toBe('kept\n');
      const rewound = (await exported(s.id)).events.filter((e) => e.type === 'workspace.rewound') as unknown as { by: string; forced: string[] }[];
      expect(rewound).toMatchObject([{ forced: ['notes.md'] }]);
      expect(pageErrors.get(page)).toEqual([]);

      // A read key sees the changes, and no rewind.
      const watching = await logIn(readContext, reader);
      await watching.goto(`${t.url}/console/#/sessions/${s.id}`);
      const seen = watching.getByRole('article', { name: `Turn ${second.id}` });
      await seen.waitFor({ timeout: 10_000 });
      expect(await seen.getByRole('button', { name: 'Show changes' }).count()).toBe(1);
      expect(await seen.getByRole('button', { name: 'Rewind to before this turn…' }).count()).toBe(0);
    } finally {
      await context.close();
      await readContext.close();
    }
  }, 60_000);

  it('shows a desktop notification when a permission is asked while the tab is hidden', async () => {
    const s = await newSession(['Write']);
    const context = await browser.newContext();
    try {
      // A hidden tab, and a Notification that records what it was asked to show.
      await context.addInitScript(`
        Object.defineProperty(document, 'hidden', { get: () => true });
        Object.defineProperty(document, 'visibilityState', { get: () => 'hidden' });
        window.shown = [];
        window.Notification = class {
          static permission = 'granted';
          static requestPermission = async () => 'granted';
          constructor(title, options) { window.shown.push({ title, body: options && options.body }); }
          close() {}
        };
      `);
      const page = await logIn(context, writer);
      await page.goto(`${t.url}/console/#/sessions/${s.id}`);
      await page.getByRole('heading', { name: `Session ${s.id}` }).waitFor();
      // The view has loaded what was pending when it opened (nothing): what comes now is news.
      await page.getByText('Nothing waits for you.').waitFor();
      await api('POST', `/v1/sessions/${s.id}/turns`, { tool_uses: [{ name: 'Write', input: { file_path: 'n.md', content: 'n' } }] });
      await page.getByRole('region', { name: 'Permission request Write' }).waitFor({ timeout: 10_000 });
      const shown = await until('a notification', async () => {
        const list = (await page.evaluate('window.shown')) as { title: string }[];
        return list.length > 0 && list;
      });
      expect(shown).toHaveLength(1);
      expect(shown[0]!.title).toContain('Write');
    } finally {
      await context.close();
    }
  }, 60_000);

  it('shows admins the tenant, collapses a capped output with its digest and full download, and shows todos, memory files and MCP servers', async () => {
    const mcp = await mcpAddServer('adder');
    const s = (await api('POST', '/v1/sessions', { tools: ['Read', 'TodoWrite', 'Memory'], allowed_tools: ['Memory'], output_cap_chars: 200, mcp_servers: { adder: { url: mcp } } })) as { id: string; workspace: string };
    const lines = Array.from({ length: 60 }, (_, i) => `line ${i + 1} of the long file`);
    await fs.writeFile(path.join(s.workspace, 'long.txt'), `${lines.join('\n')}\n`);
    const context = await browser.newContext({ acceptDownloads: true });
    try {
      const page = await logIn(context, admin);
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Sessions' }).click();
      await page.getByRole('columnheader', { name: 'Tenant' }).waitFor();
      const row = page.getByRole('row').filter({ has: page.getByRole('link', { name: s.id }) });
      expect(await row.getByRole('cell').allTextContents()).toContain('acme');
      await page.getByRole('link', { name: s.id }).click();
      await page.getByRole('heading', { name: `Session ${s.id}` }).waitFor();

      const turn = await api('POST', `/v1/sessions/${s.id}/turns?wait=10`, {
        tool_uses: [
          { name: 'Read', input: { file_path: 'long.txt' } },
          { name: 'TodoWrite', input: { todos: [{ content: 'Read the file', activeForm: 'Reading the file', status: 'completed' }, { content: 'Sum it up', activeForm: 'Summing it up', status: 'in_progress' }] } },
          { name: 'Memory', input: { command: 'create', path: '/memories/findings.md', file_text: 'The file has 60 lines.\n' } },
        ],
      });
      expect(turn.pending).toEqual([]);
      const truncation = turn.results[0].truncation;
      expect(truncation.output_id).toMatch(/^out_/);
      // The capped result: its size and digest, and the full text a click away.
      await page.getByText(`SHA-256 ${truncation.sha256.slice(0, 12)}`).waitFor({ timeout: 10_000 });
      expect(await page.getByText(`Full output: ${truncation.total_chars.toLocaleString('en-US')} characters`).count()).toBe(1);
      const download = page.waitForEvent('download');
      await page.getByRole('button', { name: 'Download full output' }).click();
      const full = await fs.readFile((await (await download).path())!, 'utf8');
      expect(full).toContain('line 60 of the long file');
      expect(full.length).toBe(truncation.total_chars);
      // The todo list, from the todo.updated event.
      const todos = page.getByRole('region', { name: 'Todos' });
      await todos.getByText('Reading the file').or(todos.getByText('Read the file')).first().waitFor({ timeout: 10_000 });
      expect(await todos.textContent()).toContain('Summing it up');
      // The memory store's files, refreshed after the turn; the session's MCP server, running, with its one tool.
      const memory = page.getByRole('region', { name: 'Memory files' });
      await memory.getByText('findings.md').waitFor({ timeout: 10_000 });
      const servers = page.getByRole('region', { name: 'MCP servers' });
      const adder = servers.getByRole('row').filter({ hasText: 'adder' });
      await adder.waitFor({ timeout: 10_000 });
      expect(await adder.getByRole('cell').allTextContents()).toEqual(['adder', 'running', '1', '—']);
      await axe(page);
      await shot(page, '09-output-todos');
      expect(pageErrors.get(page)).toEqual([]);
    } finally {
      await context.close();
    }
  }, 60_000);
});
