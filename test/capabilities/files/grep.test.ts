// Grep through the pipeline, on both engines (ripgrep and the TypeScript fallback): every
// documented behaviour and error, the workspace boundary, and output parity on a generated tree.
// The ripgrep half needs `rg` on PATH (CI installs ripgrep): without it those tests FAIL.
import { mkdirSync, writeFileSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { execOne, type PipelineEnv } from '../../../src/pipeline/exec-one.js';
import { Workspace } from '../../../src/sandbox/paths.js';
import { createGrepTool, findRipgrep, grepBackend } from '../../../src/capabilities/files/grep.js';
import { grepTool } from '../../helpers/tools.js';
import { translateRegex } from '../../../src/capabilities/files/grep-regex.js';
import { ToolRegistry } from '../../../src/tools/registry.js';
import type { CoreTool, ToolContext } from '../../../src/tools/tool.js';
import type { SessionSandbox } from '../../../src/sandbox/session-sandbox.js';
import { pipelineHarness, type PipelineHarness } from '../../helpers/pipeline.js';

const RG = findRipgrep();

/** A context for calling the tool directly (what Grep uses of it: workspace and signal). */
function toolContext(workspace: Workspace, signal: AbortSignal): ToolContext {
  return { sessionId: 's', turnId: 't', toolUseId: 'u', workspace, signal, progress: () => undefined } as unknown as ToolContext;
}

/** A harness whose sandbox counts the processes it starts: ripgrep runs there or not at all. */
async function harnessFor(backend: Backend): Promise<PipelineHarness & { spawned: () => number }> {
  const h = await pipelineHarness([], backend === 'ripgrep' ? { sandbox: 'bwrap' } : {});
  let n = 0;
  const sandbox = h.sandbox;
  const spawn = sandbox.spawn.bind(sandbox);
  sandbox.spawn = (req) => {
    n++;
    return spawn(req);
  };
  return Object.assign(h, { spawned: () => n });
}

function requireRipgrep(): string {
  if (!RG) throw new Error('ripgrep (`rg`) is not on PATH: the ripgrep half of the Grep tests cannot run. Install ripgrep.');
  return RG;
}

type Backend = 'ripgrep' | 'fallback';
/** Grep on one engine, bound to the sandbox ripgrep runs in (no path hidden by a rule). */
const toolFor = (backend: Backend, sandbox?: SessionSandbox): CoreTool =>
  createGrepTool({ rgPath: backend === 'ripgrep' ? requireRipgrep() : null }).bind({ readDenied: () => null, sandbox } as never);

/** An env like `h.env` whose registry holds only `tool`. */
function envWith(h: PipelineHarness, tool: CoreTool): PipelineEnv {
  const registry = new ToolRegistry();
  registry.register(tool);
  return { ...h.env, registry };
}

async function runIn(env: PipelineEnv, input: unknown): Promise<{ isError: boolean; text: string }> {
  const { result } = await execOne({ id: 't', name: 'Grep', input }, env);
  return { isError: result.is_error, text: result.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n') };
}

/** Writes files (synchronously: hundreds of small files, fastest without the thread pool). */
async function write(root: string, files: Record<string, string | Buffer>): Promise<void> {
  const made = new Set<string>();
  for (const [name, content] of Object.entries(files)) {
    const p = path.join(root, name);
    const dir = path.dirname(p);
    if (!made.has(dir)) {
      mkdirSync(dir, { recursive: true });
      made.add(dir);
    }
    writeFileSync(p, content);
  }
  await Promise.resolve();
}

const SMALL_TREE: Record<string, string | Buffer> = {
  'a.ts': 'import x from "y";\nconst alpha = 1;\n// TODO: one\nexport default alpha;\n',
  'b.py': 'def beta():\n    return "TODO later"\n',
  'notes.md': 'Alpha\nbeta\nGamma TODO\n',
  'src/c.ts': 'line1\nline2\nmatch here\nline4\nline5\nline6\nline7\nmatch again\nline9\n',
  'src/d.js': 'function delta() {\n  return 42;\n}\n',
  '.hidden/h.txt': 'TODO hidden\n',
  '.env': 'TOKEN=TODO\n',
  '.gitignore': 'ignored.log\n',
  'ignored.log': 'TODO in an ignored file\n',
  '.git/config': 'TODO in git\n',
  'sub/.git/HEAD': 'TODO in nested git\n',
  'bin.dat': Buffer.from('TODO\0binary\n'),
  'crlf.txt': 'first TODO\r\nsecond\r\n',
  'multi.txt': 'start\nmiddle\nend\nstart\nend\n',
  'dash.txt': '-v flag\n--help\n',
  'long/l.txt': `x${'y'.repeat(2100)}\n`,
};

/** Links out of and within the workspace: never followed, never searched. */
async function addLinks(root: string, outside: string): Promise<void> {
  await write(outside, { 'secret.txt': 'TODO SECRET\n', 'deep/s.txt': 'TODO SECRET match\n' });
  await fs.symlink(outside, path.join(root, 'out-dir'));
  await fs.symlink(path.join(outside, 'secret.txt'), path.join(root, 'out-file.txt'));
  await fs.symlink(path.join(root, 'src'), path.join(root, 'in-dir'));
  await fs.symlink(path.join(root, 'a.ts'), path.join(root, 'in-file.ts'));
}

describe.each<Backend>(['ripgrep', 'fallback'])('Grep (%s)', (backend) => {
  let h: Awaited<ReturnType<typeof harnessFor>>;
  let env: PipelineEnv;
  let outside: string;
  const run = (input: unknown) => runIn(env, input);

  // One tree per engine; no test changes it.
  beforeAll(async () => {
    h = await harnessFor(backend);
    outside = await fs.mkdtemp(path.join(os.tmpdir(), 'norma-grep-out-'));
    await write(h.dir, SMALL_TREE);
    await addLinks(h.dir, outside);
  });
  beforeEach(() => {
    env = envWith(h, toolFor(backend, h.sandbox)); // per test: a missing ripgrep fails every ripgrep test
  });
  afterAll(async () => {
    // The ripgrep half ran ripgrep in the sandbox; the fallback half started no process.
    if (backend === 'ripgrep') expect(h.spawned()).toBeGreaterThan(20);
    else expect(h.spawned()).toBe(0);
    await h?.cleanup();
    if (outside) await fs.rm(outside, { recursive: true, force: true });
  });

  it('lists matching files by path: hidden files included, .gitignore not applied, .git and binaries skipped', async () => {
    expect(await run({ pattern: 'TODO' })).toEqual({
      isError: false,
      text: ['.env', '.hidden/h.txt', 'a.ts', 'b.py', 'crlf.txt', 'ignored.log', 'notes.md'].join('\n'),
    });
  });

  it('prints content as path:line:text, or path:text with -n false', async () => {
    expect((await run({ pattern: 'TODO', output_mode: 'content', path: 'a.ts' })).text).toBe('a.ts:3:// TODO: one');
    expect((await run({ pattern: 'TODO', output_mode: 'content', glob: '*.{py,txt}' })).text).toBe(
      ['.hidden/h.txt:1:TODO hidden', 'b.py:2:    return "TODO later"', 'crlf.txt:1:first TODO'].join('\n'),
    );
    expect((await run({ pattern: 'TODO', output_mode: 'content', '-n': false, glob: '*.md' })).text).toBe('notes.md:Gamma TODO');
  });

  it('prints context with -A/-B/-C and "--" between groups and between files', async () => {
    expect((await run({ pattern: 'match', output_mode: 'content', path: 'src', '-C': 1 })).text).toBe(
      ['src/c.ts-2-line2', 'src/c.ts:3:match here', 'src/c.ts-4-line4', '--', 'src/c.ts-7-line7', 'src/c.ts:8:match again', 'src/c.ts-9-line9'].join('\n'),
    );
    expect((await run({ pattern: 'match', output_mode: 'content', path: 'src', '-A': 3, '-C': 0 })).text).toBe(
      ['src/c.ts:3:match here', 'src/c.ts-4-line4', 'src/c.ts-5-line5', 'src/c.ts-6-line6', '--', 'src/c.ts:8:match again', 'src/c.ts-9-line9'].join('\n'),
    );
    expect((await run({ pattern: '^(alpha|beta)|return', output_mode: 'content', '-B': 1, '-n': false, glob: '*.{py,md}' })).text).toBe(
      ['b.py-def beta():', 'b.py:    return "TODO later"', '--', 'notes.md-Alpha', 'notes.md:beta'].join('\n'),
    );
  });

  it('counts matching lines per file; -i makes the search case-insensitive', async () => {
    expect((await run({ pattern: 'line', output_mode: 'count' })).text).toBe('src/c.ts:7');
    expect((await run({ pattern: 'alpha', output_mode: 'count' })).text).toBe('a.ts:2');
    expect((await run({ pattern: 'alpha', output_mode: 'count', '-i': true })).text).toBe('a.ts:2\nnotes.md:1');
  });

  it('filters by glob (gitignore-style, "!" excludes) and by type; an inclusion glob wins over type', async () => {
    expect((await run({ pattern: 'TODO', glob: '*.ts' })).text).toBe('a.ts');
    expect((await run({ pattern: 'TODO', glob: '!*.{ts,py,md}' })).text).toBe(['.env', '.hidden/h.txt', 'crlf.txt', 'ignored.log'].join('\n'));
    expect((await run({ pattern: 'TODO', glob: '!.hidden' })).text).not.toContain('.hidden');
    expect((await run({ pattern: 'line', glob: 'src/*.ts', output_mode: 'count' })).text).toBe('src/c.ts:7');
    expect((await run({ pattern: 'TODO', type: 'py' })).text).toBe('b.py');
    expect((await run({ pattern: 'TODO', type: 'md', glob: '*.py' })).text).toBe('b.py');
  });

  it('refuses unknown types and malformed globs', async () => {
    const type = await run({ pattern: 'x', type: 'nope' });
    expect(type.isError).toBe(true);
    expect(type.text).toContain('unrecognized file type: nope');
    const glob = await run({ pattern: 'x', glob: 'src/[ab' });
    expect(glob.isError).toBe(true);
    expect(glob.text).toContain('unclosed character class');
  });

  it('caps output lines at head_limit with a note', async () => {
    expect(await run({ pattern: 'line', output_mode: 'content', head_limit: 2 })).toEqual({
      isError: false,
      text: 'src/c.ts:1:line1\nsrc/c.ts:2:line2\n[head_limit 2: 5 more line(s) not shown (7 in all)]',
    });
    expect((await run({ pattern: 'TODO', head_limit: 3 })).text).toBe('.env\n.hidden/h.txt\na.ts\n[head_limit 3: 4 more line(s) not shown (7 in all)]');
  });

  it('matches across lines only in multiline mode', async () => {
    expect((await run({ pattern: 'start\\n(middle\\n)?end', multiline: true, output_mode: 'content' })).text).toBe(
      ['multi.txt:1:start', 'multi.txt:2:middle', 'multi.txt:3:end', 'multi.txt:4:start', 'multi.txt:5:end'].join('\n'),
    );
    expect((await run({ pattern: 'start\\nend', multiline: true, output_mode: 'count' })).text).toBe('multi.txt:2');
    const single = await run({ pattern: 'start\\nend' });
    expect(single.isError).toBe(true);
    expect(single.text).toContain('"\\n"\' is not allowed in a regex');
  });

  it('reports an invalid regex as an error', async () => {
    const res = await run({ pattern: '(unclosed' });
    expect(res.isError).toBe(true);
    expect(res.text).toContain('regex parse error');
  });

  it('treats a pattern starting with "-" as a pattern, and says when nothing matched', async () => {
    expect((await run({ pattern: '-v', output_mode: 'content' })).text).toBe('dash.txt:1:-v flag');
    expect((await run({ pattern: '--help' })).text).toBe('dash.txt');
    expect(await run({ pattern: 'zzz-nothing' })).toEqual({ isError: false, text: 'No matches found.' });
  });

  it('searches a file named as path whatever the filters say; a binary one is reported, not searched', async () => {
    expect((await run({ pattern: 'TODO', path: 'b.py', glob: '*.ts' })).text).toBe('b.py');
    expect((await run({ pattern: 'TODO', path: '.git/config' })).text).toBe('.git/config');
    expect(await run({ pattern: 'TODO', path: 'bin.dat' })).toEqual({ isError: false, text: 'No matches found.\n[bin.dat is a binary file; it was not searched]' });
  });

  it('refuses search paths outside the workspace', async () => {
    expect(await run({ pattern: 'x', path: '..' })).toEqual({ isError: true, text: '..: outside the workspace' });
    expect(await run({ pattern: 'x', path: '/etc' })).toEqual({ isError: true, text: '/etc: outside the workspace' });
    expect(await run({ pattern: 'x', path: 'src/../../x' })).toEqual({ isError: true, text: 'src/../../x: outside the workspace' });
    expect(await run({ pattern: 'x', path: 'missing' })).toEqual({ isError: true, text: 'missing: does not exist' });
    expect(await run({ pattern: 'x', path: 'out-dir' })).toEqual({ isError: true, text: 'out-dir: resolves through a symlink to outside the workspace' });
  });

  it('never follows symlinks: links to outside files and directories are neither searched nor reported', async () => {
    const res = await run({ pattern: 'TODO|SECRET|match', output_mode: 'content' });
    expect(res.isError).toBe(false);
    expect(res.text).not.toContain('SECRET');
    expect(res.text).not.toMatch(/out-|in-dir|in-file/);
    expect(res.text).toContain('src/c.ts:3:match here');
    // A symlinked file named as the path is refused when it leads out.
    expect(await run({ pattern: 'TODO', path: 'out-file.txt' })).toEqual({ isError: true, text: 'out-file.txt: resolves through a symlink to outside the workspace' });
  });

  it('keeps lines as they are but drops the CR of CRLF endings and cuts very long lines', async () => {
    expect((await run({ pattern: 'second', output_mode: 'content' })).text).toBe('crlf.txt:2:second');
    expect((await run({ pattern: 'xy', output_mode: 'content', path: 'long' })).text).toBe(`long/l.txt:1:x${'y'.repeat(1999)}… [101 more characters]`);
  });

  it('stops (and kills ripgrep) when the signal is aborted', async () => {
    const tool = toolFor(backend, h.sandbox);
    const ws = await Workspace.open(h.dir);
    const before = new AbortController();
    before.abort();
    const ctx = (signal: AbortSignal) => toolContext(ws, signal);
    await expect(tool.call({ pattern: 'TODO' }, ctx(before.signal))).rejects.toThrow('cancelled');
    const during = new AbortController();
    const pending = tool.call({ pattern: 'TODO', output_mode: 'content' }, ctx(during.signal));
    during.abort();
    await expect(pending).rejects.toThrow('cancelled');
  });
});

describe('Grep engines', () => {
  it('the ripgrep engine ignores RIPGREP_CONFIG_PATH and the caller environment', async () => {
    const h = await harnessFor('ripgrep');
    const cfg = path.join(h.dir, 'rgrc');
    await write(h.dir, { 'f.txt': 'Hello\n', rgrc: '--ignore-case\n--follow\n' });
    const saved = process.env.RIPGREP_CONFIG_PATH;
    process.env.RIPGREP_CONFIG_PATH = cfg;
    try {
      expect((await runIn(envWith(h, toolFor('ripgrep', h.sandbox)), { pattern: 'hello' })).text).toBe('No matches found.');
      expect(h.spawned()).toBe(1);
    } finally {
      if (saved === undefined) delete process.env.RIPGREP_CONFIG_PATH;
      else process.env.RIPGREP_CONFIG_PATH = saved;
      await h.cleanup();
    }
  });

  it('reports which engine the default tool uses', () => {
    const backend = grepBackend(RG);
    expect(backend).toEqual(RG ? { kind: 'ripgrep', path: RG } : { kind: 'fallback' });
    expect(requireRipgrep()).toMatch(/\/rg$/);
    expect(findRipgrep('')).toBeNull();
    expect(findRipgrep('relative/bin')).toBeNull();
  });

  it('is read-only, concurrency-safe and needs no approval', () => {
    for (const t of [grepTool, toolFor('fallback')]) {
      expect(t.isReadOnly({})).toBe(true);
      expect(t.isConcurrencySafe({})).toBe(true);
      expect(t.requiresApproval({})).toBe(false);
    }
  });

  it('the fallback counts paths it cannot read', async () => {
    const h = await pipelineHarness([]);
    try {
      await write(h.dir, { 'open/a.txt': 'TODO\n', 'closed/b.txt': 'TODO\n' });
      const real = await Workspace.open(h.dir);
      const ws = new Proxy(real, {
        get(target, prop) {
          if (prop === 'readDirectory' || prop === 'listRealDirectory') {
            return async (p: string) => {
              if (path.basename(p) === 'closed') throw Object.assign(new Error('EACCES'), { code: 'EACCES' });
              return prop === 'readDirectory' ? target.readDirectory(p) : target.listRealDirectory(p);
            };
          }
          const v = Reflect.get(target, prop, target) as unknown;
          return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
        },
      });
      const ctx = toolContext(ws, new AbortController().signal);
      const out = await toolFor('fallback').call({ pattern: 'TODO' }, ctx);
      expect((out.content[0] as { text: string }).text).toBe('open/a.txt\n[1 path(s) could not be read]');
    } finally {
      await h.cleanup();
    }
  });

  it('translates ripgrep regex syntax to JavaScript with ripgrep line semantics', () => {
    const t = (p: string, s: string, o = { ignoreCase: false, multiline: false }) => translateRegex(p, o).test(s);
    expect(t('a.c', 'a\rc')).toBe(true);
    expect(t('^b$', 'a\nb\nc', { ignoreCase: false, multiline: true })).toBe(true);
    expect(t('b$', 'b\r')).toBe(false);
    expect(t('(?P<w>x)[[:digit:]]+', 'x42')).toBe(true);
    expect(t('(?i)HELLO', 'hello')).toBe(true);
    expect(t('\\x{41}\\pL', 'AB')).toBe(true);
    expect(t('a\\-b\\#', 'a-b#')).toBe(true);
    expect(t('^}', '}')).toBe(true);
    expect(() => translateRegex('a{', { ignoreCase: false, multiline: false })).toThrow('regex parse error');
  });
});

// ---------------------------------------------------------------------------------------------
// Parity: the same queries on a generated tree give byte-identical output on both engines.

/** Deterministic pseudo-random numbers (LCG). */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const LINES = [
  (r: () => number) => `function fn${Math.floor(r() * 50)}(a, b) {`,
  () => '  return a + b;',
  () => '}',
  (r: () => number) => `// TODO: item ${Math.floor(r() * 1000)}`,
  (r: () => number) => `const value${Math.floor(r() * 20)} = ${Math.floor(r() * 100000)};`,
  () => "import { thing } from '../../tools/builtin/thing';",
  () => 'def handler(event):',
  () => '    return None',
  () => 'error: something failed',
  () => 'Error: Something Else',
  () => 'todo: lowercase',
  () => 'café über naïve 日本語',
  () => 'foo',
  () => 'bar',
  () => '',
  () => '    ',
  (r: () => number) => `long ${'lorem ipsum '.repeat(20 + Math.floor(r() * 200))}end`,
  () => 'the end',
];

async function generateTree(root: string, fileCount: number): Promise<void> {
  const r = rng(42);
  const dirs = ['', 'src', 'src/core', 'src/util', 'lib', 'docs', 'node_modules/pkg', '.config', 'build', 'a-b', 'a'];
  const exts = ['ts', 'tsx', 'js', 'py', 'md', 'json', 'txt', 'go', 'rs', 'log', 'cfg'];
  const files: Record<string, string | Buffer> = {};
  for (let i = 0; i < fileCount; i++) {
    const dir = dirs[Math.floor(r() * dirs.length)]!;
    const name = `${['file', 'mod', 'x', 'Thing'][i % 4]}${i}.${exts[Math.floor(r() * exts.length)]}`;
    const n = Math.floor(r() * 40);
    const lines: string[] = [];
    for (let k = 0; k < n; k++) lines.push(LINES[Math.floor(r() * LINES.length)]!(r));
    const crlf = r() < 0.1;
    const trailing = r() < 0.85;
    let text = lines.join(crlf ? '\r\n' : '\n');
    if (trailing && n > 0) text += crlf ? '\r\n' : '\n';
    files[path.posix.join(dir, name)] = text;
  }
  // Binaries (NUL near the start) with matching text, a .git directory, ignore files, hidden files.
  for (let i = 0; i < 4; i++) files[`bin/blob${i}.${i % 2 ? 'ts' : 'bin'}`] = Buffer.concat([Buffer.from('TODO foo\n'), Buffer.from([0, 1, 2, 3]), Buffer.from('\nerror: x\n')]);
  files['.git/HEAD'] = 'ref: refs/heads/main TODO\n';
  files['.git/objects/ab/cdef'] = 'TODO foo\n';
  files['.gitignore'] = '*.log\nbuild/\n';
  files['.env'] = 'SECRET=TODO\n';
  files['empty.txt'] = '';
  // Encodings: invalid UTF-8 (shown with U+FFFD by both), a UTF-8 BOM (dropped), no final newline.
  files['enc/latin1.txt'] = Buffer.from('caf\xe9 TODO\nplain\n\xff\xfe broken TODO\n', 'latin1');
  files['enc/bom.md'] = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('TODO with bom\nimport x\n')]);
  files['enc/nonl.py'] = 'def last():\n    return TODO';
  await write(root, files);
}

const PARITY_QUERIES: Record<string, unknown>[] = [
  { pattern: 'TODO' },
  { pattern: 'TODO', output_mode: 'content' },
  { pattern: 'todo', '-i': true, output_mode: 'count' },
  { pattern: 'error', output_mode: 'content', '-n': false },
  { pattern: 'function \\w+\\(', output_mode: 'content', '-C': 2 },
  { pattern: 'import', output_mode: 'content', '-A': 1, '-B': 3, head_limit: 60 },
  { pattern: 'value\\d+', glob: '!node_modules', output_mode: 'count' },
  { pattern: 'value\\d+', glob: 'src/**/*.{js,ts}', output_mode: 'content' },
  { pattern: 'def ', type: 'py', output_mode: 'content' },
  { pattern: 'handler', type: 'md', glob: '*.txt' },
  { pattern: 'foo\\nbar', multiline: true, output_mode: 'content' },
  { pattern: 'foo\\n\\s*\\nbar', multiline: true, output_mode: 'count' },
  { pattern: '(end|^\\s*)$', output_mode: 'count', path: 'src' },
  { pattern: '[[:digit:]]{5}|café|日本|ÜBER', output_mode: 'content', '-i': true, head_limit: 40 },
  { pattern: 'zzz_no_such_thing', output_mode: 'count' },
  { pattern: 'foo', path: 'bin' },
];

describe('Grep parity (ripgrep vs fallback)', () => {
  let h: Awaited<ReturnType<typeof harnessFor>>;
  let rgEnv: PipelineEnv;
  let fbEnv: PipelineEnv;
  beforeAll(async () => {
    h = await harnessFor('ripgrep');
    await generateTree(h.dir, 200);
    rgEnv = envWith(h, toolFor('ripgrep', h.sandbox));
    fbEnv = envWith(h, toolFor('fallback', h.sandbox));
  });
  afterAll(async () => {
    expect(h.spawned()).toBeGreaterThan(10);
    await h.cleanup();
  });

  it('generated a tree of at least 200 files', async () => {
    let count = 0;
    const walk = async (d: string): Promise<void> => {
      for (const e of await fs.readdir(d, { withFileTypes: true })) {
        if (e.isDirectory()) await walk(path.join(d, e.name));
        else count++;
      }
    };
    await walk(h.dir);
    expect(count).toBeGreaterThanOrEqual(200);
  });

  const seen = new Map<string, string>();
  it.each(PARITY_QUERIES.map((q) => [JSON.stringify(q), q] as const))('%s', async (name, query) => {
    const [viaRg, viaFallback] = await Promise.all([runIn(rgEnv, query), runIn(fbEnv, query)]);
    expect(viaRg.isError).toBe(false);
    expect(viaFallback).toEqual(viaRg);
    seen.set(name, viaRg.text);
  });

  it('is not vacuous: the queries found plenty', () => {
    const out = (q: Record<string, unknown>) => seen.get(JSON.stringify(q)) ?? '';
    const files = out(PARITY_QUERIES[0]!).split('\n');
    expect(files.length).toBeGreaterThan(50);
    expect(files).toContain('.env');
    expect(files.some((f) => f.startsWith('.git/'))).toBe(false);
    expect(files.some((f) => f.startsWith('bin/'))).toBe(false);
    expect(files.some((f) => f.endsWith('.log'))).toBe(true);
    expect(out({ pattern: 'function \\w+\\(', output_mode: 'content', '-C': 2 })).toContain('\n--\n');
    expect(out({ pattern: 'foo\\nbar', multiline: true, output_mode: 'content' }).split('\n').length).toBeGreaterThan(4);
    expect(out({ pattern: 'import', output_mode: 'content', '-A': 1, '-B': 3, head_limit: 60 })).toMatch(/\[head_limit 60: \d+ more line\(s\) not shown/);
    expect(out({ pattern: 'zzz_no_such_thing', output_mode: 'count' })).toBe('No matches found.');
    expect(seen.size).toBe(PARITY_QUERIES.length);
  });
});
