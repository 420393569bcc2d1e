// The README's shell examples run as written, against a real server process, and print what the
// README shows. The convention the README follows:
//
//  - A fenced block whose info string is exactly `sh` is a runnable example. Other blocks (```
//    without a language, ```json, ```js) are not run: start-up command lines, documents, excerpts.
//  - The `sh` blocks under a `## Walk-through: …` heading run in document order as one walk-through,
//    as in one terminal: a variable a block assigns at the start of a line (`S=$(…)`) is carried to
//    the later blocks of that walk-through, and to no other. An `sh` block anywhere else runs on its
//    own and must be self-contained.
//  - Each block runs with `bash -c 'set -euo pipefail; …'` in a scratch directory, with
//    `localhost:7070` pointing at the test's server, and must exit 0.
//  - A `# → {…}` comment (continued by the indented `#   ` lines after it) shows JSON the command before it
//    prints, `…` standing for what is left out (members, elements, the rest of a string): each
//    shown document must match one the block printed, in order.
//  - A block meant for a second terminal (`curl -N …/events`) runs in the background while the
//    rest of its walk-through runs, and is stopped once the stream shows the walk-through's last
//    event: it must show the events the walk-through names, and the `id:`/`event:`/`data:` lines of
//    the stream excerpt the walk-through shows.
//  - Blocks that cannot run here are listed in NOT_RUN with the reason; every `sh` block is either
//    run or listed, so a new example cannot be skipped silently.
//
// The quick start's `apt-get install` names the same packages `.ci/run` installs; that is checked too.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchServer, type ServerProcess } from './helpers/server-process.js';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const README = fs.readFileSync(path.join(root, 'README.md'), 'utf8');

/** `sh` blocks that are not run, found by a piece of their text, with the reason. */
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

interface Block {
  info: string;
  code: string;
  /** The line of the opening fence (1-based). */
  line: number;
  /** The `##` section it is in. */
  section: string;
}

function fencedBlocks(text: string): Block[] {
  const blocks: Block[] = [];
  const lines = text.split('\n');
  let section = '';
  for (let i = 0; i < lines.length; i++) {
    const heading = /^## (.*)$/.exec(lines[i]!);
    if (heading) section = heading[1]!;
    const open = /^```(.*)$/.exec(lines[i]!);
    if (!open) continue;
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && lines[i] !== '```'; i++) body.push(lines[i]!);
    blocks.push({ info: open[1]!.trim(), code: body.join('\n'), line: start + 1, section });
  }
  return blocks;
}

// ---- JSON with `…` ---------------------------------------------------------------------------

type Pattern =
  | { kind: 'any' }
  | { kind: 'object'; members: [string, Pattern][]; open: boolean }
  /** `null` is a `…` element: any number of elements there. */
  | { kind: 'array'; items: (Pattern | null)[] }
  | { kind: 'string'; pieces: string[] }
  | { kind: 'literal'; value: number | boolean | null };

/** Parses JSON in which `…` may stand for members, elements, a value, or part of a string. */
function parseShown(text: string): Pattern {
  let i = 0;
  const ws = () => {
    while (i < text.length && /\s/.test(text[i]!)) i++;
  };
  const fail = (what: string): never => {
    throw new Error(`shown JSON: ${what} at ${i}: ${text.slice(Math.max(0, i - 20), i + 20)}`);
  };
  const value = (): Pattern => {
    ws();
    const c = text[i];
    if (c === '…') {
      i++;
      return { kind: 'any' };
    }
    if (c === '{' || c === '[') {
      const close = c === '{' ? '}' : ']';
      i++;
      const members: [string, Pattern][] = [];
      const items: (Pattern | null)[] = [];
      let open = false;
      ws();
      if (text[i] === close) {
        i++;
      } else {
        for (;;) {
          ws();
          if (text[i] === '…') {
            i++;
            open = true;
            items.push(null);
          } else if (c === '{') {
            const key = value();
            if (key.kind !== 'string' || key.pieces.length !== 1) fail('a member name');
            ws();
            if (text[i++] !== ':') fail('":"');
            members.push([(key as { pieces: string[] }).pieces[0]!, value()]);
          } else {
            items.push(value());
          }
          ws();
          if (text[i] === ',') {
            i++;
            continue;
          }
          if (text[i++] !== close) fail(`"${close}"`);
          break;
        }
      }
      return c === '{' ? { kind: 'object', members, open } : { kind: 'array', items };
    }
    if (c === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      const decoded = JSON.parse(text.slice(i, j + 1)) as string;
      i = j + 1;
      return { kind: 'string', pieces: decoded.split('…') };
    }
    const lit = /^(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null)/.exec(text.slice(i));
    if (!lit) return fail('a value');
    i += lit[0].length;
    return { kind: 'literal', value: JSON.parse(lit[0]) as number | boolean | null };
  };
  const p = value();
  ws();
  if (i !== text.length) fail('the end');
  return p;
}

/** Does `actual` look like the shown `pattern`? */
function matches(pattern: Pattern, actual: unknown): boolean {
  switch (pattern.kind) {
    case 'any':
      return true;
    case 'literal':
      return actual === pattern.value;
    case 'string': {
      if (typeof actual !== 'string') return false;
      const [first, ...rest] = pattern.pieces;
      if (rest.length === 0) return actual === first;
      if (!actual.startsWith(first!)) return false;
      let at = first!.length;
      for (const [n, piece] of rest.entries()) {
        if (n === rest.length - 1) return actual.length - piece.length >= at && actual.endsWith(piece);
        const found = actual.indexOf(piece, at);
        if (found < 0) return false;
        at = found + piece.length;
      }
      return true;
    }
    case 'object': {
      if (actual === null || typeof actual !== 'object' || Array.isArray(actual)) return false;
      const o = actual as Record<string, unknown>;
      if (!pattern.open && Object.keys(o).length !== pattern.members.length) return false;
      return pattern.members.every(([k, p]) => Object.hasOwn(o, k) && matches(p, o[k]));
    }
    case 'array': {
      if (!Array.isArray(actual)) return false;
      const items = pattern.items;
      // Element by element; a `…` takes any number of elements (the shortest run that lets the rest match).
      const from = (p: number, a: number): boolean => {
        if (p === items.length) return a === actual.length;
        const item = items[p] as Pattern | null;
        if (item === null) {
          for (let k = a; k <= actual.length; k++) if (from(p + 1, k)) return true;
          return false;
        }
        return a < actual.length && matches(item, actual[a]) && from(p + 1, a + 1);
      };
      return from(0, 0);
    }
  }
}

/** The JSON documents in a block's output (curl prints them back to back; other text is skipped). */
function documents(out: string): unknown[] {
  const docs: unknown[] = [];
  let i = 0;
  while (i < out.length) {
    if (out[i] !== '{' && out[i] !== '[') {
      i++;
      continue;
    }
    let depth = 0;
    let j = i;
    for (; j < out.length; j++) {
      const c = out[j];
      if (c === '"') {
        for (j++; j < out.length && out[j] !== '"'; j += out[j] === '\\' ? 2 : 1);
      } else if (c === '{' || c === '[') depth++;
      else if (c === '}' || c === ']') {
        if (--depth === 0) break;
      }
    }
    try {
      docs.push(JSON.parse(out.slice(i, j + 1)));
      i = j + 1;
    } catch {
      i++;
    }
  }
  return docs;
}

/** The JSON each `# →` comment of a block shows, in order. */
function shownOutputs(code: string): { text: string; pattern: Pattern }[] {
  const shown: { text: string; pattern: Pattern }[] = [];
  const lines = code.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const first = /^# → (.*)$/.exec(lines[i]!);
    if (!first) continue;
    const parts = [first[1]!];
    // Continued by indented comment lines (`#` and two spaces or more); a plain `# …` comment is prose.
    while (i + 1 < lines.length && /^#\s{2,}\S/.test(lines[i + 1]!)) parts.push(lines[++i]!.replace(/^#\s*/, ''));
    const text = parts.join(' ');
    shown.push({ text, pattern: parseShown(text) });
  }
  return shown;
}

/** Names a block assigns at the start of a line (`S=$(…)`): what a later block may use. */
function assigned(code: string): string[] {
  return [...new Set([...code.matchAll(/^([A-Za-z_][A-Za-z0-9_]*)=/gm)].map((m) => m[1]!))];
}

// ---- running -----------------------------------------------------------------------------------

let server: ServerProcess;
let dataDir: string;
let scratch: string;
const background: ChildProcess[] = [];

beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'norma-readme-data-'));
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'norma-readme-'));
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

function start(source: string): { child: ChildProcess; out: () => string; err: () => string; exited: Promise<number | null> } {
  const child = spawn('bash', ['-c', source], { cwd: scratch, env: { PATH: process.env.PATH ?? '', HOME: scratch, LANG: 'C.UTF-8' }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
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
  expect(code, `README.md:${block.line} exited ${code}\n--- stdout\n${p.out()}\n--- stderr\n${p.err()}`).toBe(0);
  expectShown(block, p.out());
  return p.out();
}

function expectShown(block: Block, out: string): void {
  const docs = documents(out);
  let at = 0;
  for (const { text, pattern } of shownOutputs(block.code)) {
    while (at < docs.length && !matches(pattern, docs[at])) at++;
    expect(at < docs.length, `README.md:${block.line} shows ${text}\nbut printed:\n${out}`).toBe(true);
    at++;
  }
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

const blocks = fencedBlocks(README);
const sh = blocks.filter((b) => b.info === 'sh');
const notRun = (b: Block) => NOT_RUN.find((n) => b.code.includes(n.contains));
const walkThroughs = [...new Set(sh.filter((b) => b.section.startsWith('Walk-through:')).map((b) => b.section))];
const standalone = sh.filter((b) => !b.section.startsWith('Walk-through:') && !notRun(b));

describe('README', () => {
  it('has walk-throughs and self-contained examples, and every sh block is run or said why not', () => {
    expect(walkThroughs.length).toBeGreaterThanOrEqual(2);
    expect(standalone.length).toBeGreaterThanOrEqual(1);
    for (const n of NOT_RUN) expect(sh.filter((b) => b.code.includes(n.contains)).length, n.contains).toBe(1);
    expect(sh.filter((b) => b.code.includes(BACKGROUND.contains)).length).toBe(1);
    // Every shown output parses (a typo in one would otherwise only fail when its block runs).
    for (const b of sh) shownOutputs(b.code);
  });

  it('the quick start installs what .ci/run installs: the server\'s packages, and chromium, postgresql and nginx for the tests', () => {
    const packages = (text: string) =>
      [...text.matchAll(/apt-get install ([^\n;&]+)/g)].flatMap((m) => m[1]!.split(/\s+/).filter((w) => w && !w.startsWith('-') && !/[>`)]/.test(w)));
    const quick = packages(sh.find((b) => b.section === 'Quick start')!.code);
    expect(quick.sort()).toEqual(['bubblewrap', 'curl', 'g++', 'make', 'python3', 'ripgrep', 'socat']);
    const ci = packages(fs.readFileSync(path.join(root, '.ci', 'run'), 'utf8'));
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
      for (const block of sh.filter((b) => b.section === section)) {
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
      const excerpts = blocks.filter((b) => b.section === section && b.info === '').flatMap((b) => shownEvents(b.code));
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
    it(`the example at README.md:${block.line} (${block.section}) runs on its own`, async () => {
      await run(block, null);
    }, 60_000);
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
