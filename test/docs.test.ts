// The examples of the README and of every guide in docs/ run as written, against a real server
// process, and print what they show. The convention the documents follow:
//
//  - A fenced block whose info string is exactly `sh` is a runnable shell example. `js run` is a
//    Node module, `ts run` a TypeScript program (run with tsx from the repository's root, and
//    type-checked with --strict), `js browser` code for a page (run in Chromium on a page of the
//    server's own origin). Other blocks (``` without a language, ```json, ```js, ```ts) are not
//    run: start-up command lines, documents, excerpts.
//  - The `sh` blocks under a README `## Walk-through: …` heading run in document order as one
//    walk-through, as in one terminal: a variable a block assigns at the start of a line (`S=$(…)`)
//    is carried to the later blocks of that walk-through, and to no other. Every other block runs
//    on its own and must be self-contained.
//  - Each `sh` block runs with `bash -c 'set -euo pipefail; …'` in a scratch directory, with
//    `localhost:7070` pointing at the test's server, and must exit 0. A program gets the server's URL
//    in `NORMA_URL` (and `localhost:7070` in its text is pointed at the server too).
//  - A `# → {…}` comment (continued by the indented `#   ` lines after it) shows JSON the command before it
//    prints, `…` standing for what is left out (members, elements, the rest of a string): each
//    shown document must match one the block printed, in order.
//  - A block meant for a second terminal (`curl -N …/events`) runs in the background while the
//    rest of its walk-through runs, and is stopped once the stream shows the walk-through's last
//    event: it must show the events the walk-through names, and the `id:`/`event:`/`data:` lines of
//    the stream excerpt the walk-through shows.
//  - The event-following programs (`js run`, `js browser`) print one line per event, `<seq> <type>`:
//    every stored event of their session once, in order, ending with `session.closed`, and they exit.
//  - Blocks that cannot run here are listed in NOT_RUN with the reason; every runnable block is either
//    run or listed, so a new example cannot be skipped silently.
//
// The quick start's `apt-get install` names the same packages `.ci/run` installs; that is checked too.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DOCUMENTS, fencedBlocks, read, root, type Block } from './helpers/markdown.js';
import { launchServer, type ServerProcess } from './helpers/server-process.js';
import { documents, matches, parseShown, shownOutputs, type Pattern } from './helpers/shown-json.js';

const README = read('README.md');
const CHROMIUM = '/usr/bin/chromium';

/** Blocks that are not run, found by a piece of their text, with the reason. */
const NOT_RUN: readonly { contains: string; reason: string }[] = [
  {
    contains: 'sudo apt-get update && sudo apt-get install',
    reason: 'installs system packages as root and starts a server on port 7070; this test starts the same server itself on a free port',
  },
  {
    contains: 'docker compose up -d --build',
    reason: 'needs a Docker engine with Compose, which tests do not have; test/docker.test.ts checks the Dockerfile and docker-compose.yml',
  },
  {
    contains: 'NORMA_MODEL_API_KEY=sk-ant-…',
    reason: 'needs a real model (an Anthropic key; an OpenAI-compatible server on 127.0.0.1:11434) and starts a second server',
  },
];

/** The second-terminal block: run in the background, stopped once the stream shows this event. */
const BACKGROUND = { contains: 'curl -N ', lastEvent: 'turn.completed' };

/** The events the first walk-through says the stream shows after the ask, in order. */
const STREAM_AFTER_ASK = ['permission.resolved', 'tool.started', 'tool.completed', 'turn.completed'];

const RUNNABLE = new Set(['sh', 'js run', 'ts run', 'js browser']);
const where = (b: Block) => `${b.file}:${b.line}`;

/** Names a block assigns at the start of a line (`S=$(…)`): what a later block may use. */
function assigned(code: string): string[] {
  return [...new Set([...code.matchAll(/^([A-Za-z_][A-Za-z0-9_]*)=/gm)].map((m) => m[1]!))];
}

// ---- running -----------------------------------------------------------------------------------

let server: ServerProcess;
let dataDir: string;
let scratch: string;
/** Programs are written here, inside the repository, so that they find its node_modules. */
let programs: string;
const background: ChildProcess[] = [];

beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'norma-docs-data-'));
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'norma-docs-'));
  programs = fs.mkdtempSync(path.join(root, '.docs-examples-'));
  // Generous: a loaded machine starts a tsx process slowly.
  server = await launchServer({ NORMA_DATA_DIR: dataDir }, undefined, { startTimeoutMs: 50_000 });
}, 60_000);

afterAll(async () => {
  for (const child of background) stop(child);
  if (server) {
    server.child.kill('SIGTERM');
    const stopped = await Promise.race([server.exited.then(() => true), new Promise((r) => setTimeout(() => r(false), 15_000))]);
    if (!stopped) await server.kill();
  }
  fs.rmSync(dataDir, { recursive: true, force: true });
  fs.rmSync(scratch, { recursive: true, force: true });
  fs.rmSync(programs, { recursive: true, force: true });
}, 30_000);

function stop(child: ChildProcess): void {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  try {
    process.kill(-child.pid, 'SIGKILL'); // bash and its curl
  } catch {
    // gone
  }
}

function localize(code: string): string {
  return code.replaceAll('localhost:7070', `localhost:${new URL(server.url).port}`);
}

/** bash with `set -euo pipefail`, the walk-through's variables so far, the block, and then its own variables saved. */
function script(block: Block, state: string | null): string {
  const save = state ? assigned(block.code).map((v) => `printf '%s=%q\\n' ${v} "$${v}" >> ${JSON.stringify(state)}`) : [];
  return ['set -euo pipefail', ...(state ? [`source ${JSON.stringify(state)}`] : []), localize(block.code), ...save].join('\n');
}

function start(source: string, command = 'bash', args = ['-c', source], cwd = scratch): { child: ChildProcess; out: () => string; err: () => string; exited: Promise<number | null> } {
  const env = { PATH: process.env.PATH ?? '', HOME: scratch, LANG: 'C.UTF-8', NORMA_URL: `http://localhost:${new URL(server.url).port}` };
  const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (err += d));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, out: () => out, err: () => err, exited };
}

async function run(block: Block, state: string | null): Promise<string> {
  const p = start(script(block, state));
  const timer = setTimeout(() => stop(p.child), 60_000);
  const code = await p.exited;
  clearTimeout(timer);
  expect(code, `${where(block)} exited ${code}\n--- stdout\n${p.out()}\n--- stderr\n${p.err()}`).toBe(0);
  expectShown(block, p.out());
  return p.out();
}

function expectShown(block: Block, out: string): void {
  const docs = documents(out);
  let at = 0;
  for (const { text, pattern } of shownOutputs(block.code)) {
    while (at < docs.length && !matches(pattern, docs[at])) at++;
    expect(at < docs.length, `${where(block)} shows ${text}\nbut printed:\n${out}`).toBe(true);
    at++;
  }
}

/** Runs a program file to its end (at most 60 s) and returns what it printed. */
async function runProgram(block: Block, command: string, args: string[]): Promise<string> {
  const p = start('', command, args, root);
  const timer = setTimeout(() => stop(p.child), 60_000);
  const code = await p.exited;
  clearTimeout(timer);
  expect(code, `${where(block)} exited ${code}\n--- stdout\n${p.out()}\n--- stderr\n${p.err()}`).toBe(0);
  return p.out();
}

/** `<seq> <type>` lines: every stored event once, in order from 1, the last one session.closed. */
function expectEveryEventOnce(block: Block, out: string): void {
  const lines = out.trim().split('\n').map((l) => /^(\d+) (\S+)$/.exec(l)).filter((m) => m !== null);
  expect(lines.length, `${where(block)} printed:\n${out}`).toBeGreaterThanOrEqual(4);
  expect(lines.map((m) => Number(m[1])), out).toEqual(lines.map((_, i) => i + 1));
  expect(lines.at(-1)![2], out).toBe('session.closed');
  expect(lines.map((m) => m[2]), out).toEqual(expect.arrayContaining(['session.created', 'turn.started', 'tool.completed', 'turn.completed']));
}

async function waitFor(what: () => boolean, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (!what() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  return what();
}

/** `id: N` / `event: X` / `data: {…}` triples of a stream excerpt the README shows. */
function shownEvents(text: string): { id: string; event: string; data: Pattern | null }[] {
  return [...text.matchAll(/^id: (\d+)\nevent: (\S+)(?:\ndata: (.*))?$/gm)].map((m) => ({ id: m[1]!, event: m[2]!, data: m[3] ? parseShown(m[3]) : null }));
}

function streamEvents(out: string): { id: string; event: string; data: unknown }[] {
  return [...out.matchAll(/^id: (\d+)\nevent: (\S+)\ndata: (.*)$/gm)].map((m) => ({ id: m[1]!, event: m[2]!, data: JSON.parse(m[3]!) }));
}

// ---- the tests ------------------------------------------------------------------------------------

const blocks = DOCUMENTS.flatMap((file) => fencedBlocks(file));
const sh = blocks.filter((b) => b.info === 'sh');
const notRun = (b: Block) => NOT_RUN.find((n) => b.code.includes(n.contains));
const inWalkThrough = (b: Block) => b.file === 'README.md' && b.section.startsWith('Walk-through:');
const walkThroughs = [...new Set(sh.filter(inWalkThrough).map((b) => b.section))];
const standalone = sh.filter((b) => !inWalkThrough(b) && !notRun(b));
const programBlocks = blocks.filter((b) => b.info !== 'sh' && RUNNABLE.has(b.info));

describe('the README and the guides', () => {
  it('has walk-throughs and self-contained examples, and every sh block is run or said why not', () => {
    expect(walkThroughs.length).toBeGreaterThanOrEqual(2);
    expect(standalone.length).toBeGreaterThanOrEqual(1);
    for (const n of NOT_RUN) expect(sh.filter((b) => b.code.includes(n.contains)).length, n.contains).toBe(1);
    expect(sh.filter((b) => b.code.includes(BACKGROUND.contains)).length).toBe(1);
    // Every shown output parses (a typo in one would otherwise only fail when its block runs).
    for (const b of sh) shownOutputs(b.code);
    // A runnable-looking info string that is not one of the runnable kinds is a typo, not an excerpt.
    for (const b of blocks) if (/\b(run|browser)\b/.test(b.info)) expect(RUNNABLE.has(b.info), where(b)).toBe(true);
    // Each kind of program is there: the recipes the guides promise.
    expect(programBlocks.map((b) => b.info).sort()).toEqual(expect.arrayContaining(['js browser', 'js run', 'js run', 'ts run']));
  });

  it('the quick start installs what .ci/run installs: the server\'s packages, and chromium, postgresql and nginx for the tests', () => {
    const packages = (text: string) =>
      [...text.matchAll(/apt-get install ([^\n;&]+)/g)].flatMap((m) => m[1]!.split(/\s+/).filter((w) => w && !w.startsWith('-') && !/[>`)]/.test(w)));
    const quick = packages(sh.find((b) => b.section === 'Quick start')!.code);
    expect(quick.sort()).toEqual(['bubblewrap', 'curl', 'g++', 'make', 'python3', 'ripgrep', 'socat']);
    // The container check's own packages (podman and what it needs) are installed on a line of their own.
    const ci = packages(fs.readFileSync(path.join(root, '.ci', 'run'), 'utf8').split('\n').filter((l) => !/\bpodman\b/.test(l)).join('\n'));
    expect(ci.sort()).toEqual([...quick, 'chromium', 'postgresql', 'nginx'].sort());
    expect(README).toContain('(`sudo apt-get install -y chromium`');
    expect(README).toContain('(`sudo apt-get install -y postgresql`');
    expect(README).toContain('(`sudo apt-get install -y nginx`');
  });

  for (const section of walkThroughs) {
    it(`"${section}" runs as written, in order`, async () => {
      const state = path.join(scratch, `${walkThroughs.indexOf(section)}.env`);
      fs.writeFileSync(state, '');
      let stream: ReturnType<typeof start> | undefined;
      for (const block of sh.filter((b) => inWalkThrough(b) && b.section === section)) {
        if (notRun(block)) continue;
        if (block.code.includes(BACKGROUND.contains)) {
          // A second terminal: it streams until stopped.
          stream = start(script(block, state));
          background.push(stream.child);
          continue;
        }
        await run(block, state);
      }
      if (!stream) return;
      const s = stream;
      const done = await waitFor(() => s.out().includes(`event: ${BACKGROUND.lastEvent}\n`), 30_000);
      stop(s.child);
      expect(done, `the event stream did not show ${BACKGROUND.lastEvent}:\n${s.out()}\n${s.err()}`).toBe(true);
      const events = streamEvents(s.out());
      // The excerpt the walk-through shows: the same id, event and data.
      const excerpts = blocks.filter((b) => b.file === 'README.md' && b.section === section && b.info === '').flatMap((b) => shownEvents(b.code));
      expect(excerpts.length).toBeGreaterThan(0);
      for (const shown of excerpts) {
        const got = events.find((e) => e.id === shown.id);
        expect(got?.event, `id: ${shown.id}`).toBe(shown.event);
        if (shown.data) expect(matches(shown.data, got!.data), `data of id ${shown.id}: ${JSON.stringify(got!.data)}`).toBe(true);
      }
      // And the events it names after the ask, in this order.
      const sectionText = README.slice(README.indexOf(`## ${section}`), README.indexOf('\n## ', README.indexOf(`## ${section}`) + 1));
      for (const name of STREAM_AFTER_ASK) expect(sectionText).toContain(`\`${name}\``);
      const names = events.map((e) => e.event);
      const asked = names.indexOf(excerpts[0]!.event);
      expect(names.slice(asked + 1).filter((n) => STREAM_AFTER_ASK.includes(n))).toEqual(STREAM_AFTER_ASK);
    }, 90_000);
  }

  for (const block of standalone) {
    it(`the example at ${where(block)} (${block.section}) runs on its own`, async () => {
      await run(block, null);
    }, 60_000);
  }

  for (const block of programBlocks) {
    it(`the ${block.info} program at ${where(block)} (${block.section}) runs as written`, async () => {
      const code = localize(block.code);
      if (block.info === 'js run') {
        const file = path.join(programs, `example-${block.line}.mjs`);
        fs.writeFileSync(file, code);
        expectEveryEventOnce(block, await runProgram(block, process.execPath, [file]));
      } else if (block.info === 'ts run') {
        // Written in the repository's root, as the guide says; a directory down here.
        const file = path.join(programs, `example-${block.line}.ts`);
        fs.writeFileSync(file, code.replaceAll("from './", "from '../"));
        const out = await runProgram(block, path.join(root, 'node_modules', '.bin', 'tsx'), [file]);
        expect(out).toMatch(/^done: /m);
        expect(out).toMatch(/^turn completed$/m);
        const tsc = path.join(root, 'node_modules', '.bin', 'tsc');
        const flags = ['--noEmit', '--strict', '--target', 'es2022', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--skipLibCheck', '--types', 'node'];
        await runProgram(block, tsc, [...flags, file]);
      } else {
        expect(fs.existsSync(CHROMIUM), `${CHROMIUM} is missing: apt-get install chromium`).toBe(true);
        const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'] });
        try {
          const page = await browser.newPage();
          const printed: string[] = [];
          page.on('console', (m) => printed.push(m.text()));
          // A page of the server's own origin, as `base` names it.
          await page.goto(`http://localhost:${new URL(server.url).port}/healthz`);
          await page.evaluate(`(async () => {\n${code}\n})()`);
          expectEveryEventOnce(block, printed.join('\n'));
        } finally {
          await browser.close();
        }
      }
    }, 90_000);
  }
});

describe('the shown-JSON matcher', () => {
  it('takes … for members, elements, values and parts of strings', () => {
    const p = parseShown('{"id":"turn_…","pending":["perm_…"],"results":[], "input":{…}, "a":"x…y", …}');
    expect(matches(p, { id: 'turn_1', pending: ['perm_2'], results: [], input: { k: 1 }, a: 'x-y', more: true })).toBe(true);
    expect(matches(p, { id: 'ses_1', pending: ['perm_2'], results: [], input: {}, a: 'xy' })).toBe(false);
    expect(matches(p, { id: 'turn_1', pending: ['perm_2', 'perm_3'], results: [], input: {}, a: 'xy' })).toBe(false);
    expect(matches(parseShown('{"a":1}'), { a: 1, b: 2 })).toBe(false);
    expect(matches(parseShown('[{"a":1},…]'), [{ b: 1 }, { a: 1 }])).toBe(false);
    expect(matches(parseShown('[…,{"a":1},…]'), [{ b: 1 }, { a: 1 }])).toBe(true);
    expect(() => parseShown('{"a":}')).toThrow(/shown JSON/);
  });
});
