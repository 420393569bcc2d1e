// Glob through the pipeline: matching, ordering, the cap, and the workspace boundary.
import { writeFileSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { execOne } from '../../../src/pipeline/exec-one.js';
import { Workspace } from '../../../src/sandbox/paths.js';
import { GLOB_MAX_RESULTS, globTool } from '../../../src/capabilities/files/glob.js';
import { compileIgnoreGlob } from '../../../src/glob/match.js';
import { expandBraces, GlobSyntaxError } from '../../../src/glob/pattern.js';
import { compileSegmentGlob } from '../../../src/glob/segments.js';
import type { ToolContext } from '../../../src/tools/tool.js';
import { pipelineHarness, type PipelineHarness } from '../../helpers/pipeline.js';
import { watchLoop } from '../../helpers/loop-stall.js';

/** A context for calling the tool directly (what Glob and Grep use of it: workspace and signal). */
/** The file group's state a direct call needs: no path hidden by a rule. */
const NO_RULES = { readDenied: () => null } as never;

function toolContext(workspace: Workspace, signal: AbortSignal): ToolContext {
  return { sessionId: 's', turnId: 't', toolUseId: 'u', workspace, signal, progress: () => undefined } as unknown as ToolContext;
}

let h: PipelineHarness;
let outside: string;
beforeEach(async () => {
  h = await pipelineHarness([globTool]);
  outside = await fs.mkdtemp(path.join(os.tmpdir(), 'norma-glob-out-'));
});
afterEach(async () => {
  await h.cleanup();
  await fs.rm(outside, { recursive: true, force: true });
});

const run = async (input: unknown) => {
  const { result } = await execOne({ id: 't', name: 'Glob', input }, h.env);
  return { isError: result.is_error, text: result.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n') };
};

/** Creates files (with parents) whose mtimes increase in the order given: the last is newest. */
async function files(names: string[], content = 'x'): Promise<void> {
  const t0 = Date.now() / 1000 - 10_000;
  for (const [i, name] of names.entries()) {
    const p = path.join(h.dir, name);
    await fs.mkdir(path.dirname(p), { recursive: true });
    await fs.writeFile(p, content);
    await fs.utimes(p, t0 + i, t0 + i);
  }
}

const lines = (text: string) => text.split('\n');

describe('Glob matching', () => {
  beforeEach(async () => {
    await files(['README.md', 'src/a.ts', 'src/b.tsx', 'src/lib/c.ts', 'src/lib/deep/d.ts', 'test/a.test.ts', '.hidden/e.ts', 'src/.f.ts', 'docs/g.md', 'x1.txt', 'x2.txt', 'xa.txt']);
  });

  it('`**` spans directories (dot-entries included), `*` stays in one segment', async () => {
    expect(lines((await run({ pattern: '**/*.ts' })).text).sort()).toEqual(
      ['.hidden/e.ts', 'src/.f.ts', 'src/a.ts', 'src/lib/c.ts', 'src/lib/deep/d.ts', 'test/a.test.ts'].sort(),
    );
    expect((await run({ pattern: '*.md' })).text).toBe('README.md');
    expect(lines((await run({ pattern: 'src/*' })).text).sort()).toEqual(['src/.f.ts', 'src/a.ts', 'src/b.tsx']);
    expect(lines((await run({ pattern: 'src/**' })).text)).toHaveLength(5);
  });

  it('supports {a,b} (across segments too), [abc], [!abc] and ?', async () => {
    expect(lines((await run({ pattern: '{src,test}/*.{ts,tsx}' })).text).sort()).toEqual(['src/.f.ts', 'src/a.ts', 'src/b.tsx', 'test/a.test.ts']);
    expect(lines((await run({ pattern: '{docs/*,*}.md' })).text).sort()).toEqual(['README.md', 'docs/g.md']);
    expect(lines((await run({ pattern: 'x[12].txt' })).text).sort()).toEqual(['x1.txt', 'x2.txt']);
    expect((await run({ pattern: 'x[!12].txt' })).text).toBe('xa.txt');
    expect(lines((await run({ pattern: 'x?.txt' })).text)).toHaveLength(3);
  });

  it('searches from `path` and shows paths relative to the workspace', async () => {
    expect(lines((await run({ pattern: '**/*.ts', path: 'src/lib' })).text)).toEqual(['src/lib/deep/d.ts', 'src/lib/c.ts']);
    expect(lines((await run({ pattern: '*.ts', path: path.join(h.env.workspace.root, 'src') })).text).sort()).toEqual(['src/.f.ts', 'src/a.ts']);
  });

  it('takes an absolute pattern inside the workspace relative to its root', async () => {
    const root = h.env.workspace.root;
    expect(lines((await run({ pattern: `${root}/src/lib/**/*.ts` })).text)).toEqual(['src/lib/deep/d.ts', 'src/lib/c.ts']);
    expect((await run({ pattern: `${root}/README.md` })).text).toBe('README.md');
  });

  it('reports only files, and says so when nothing matched', async () => {
    expect((await run({ pattern: 'src/lib' })).text).toBe('No files matched "src/lib" in the workspace root.');
    expect(await run({ pattern: '**/*.rs', path: 'src' })).toEqual({ isError: false, text: 'No files matched "**/*.rs" in src.' });
  });
});

describe('Glob ordering and cap', () => {
  it('sorts newest first, ties by path', async () => {
    await files(['old.txt', 'mid.txt', 'new.txt']);
    const t = Date.now() / 1000 - 5000;
    for (const n of ['tie-b.txt', 'tie-a.txt']) {
      await fs.writeFile(path.join(h.dir, n), '');
      await fs.utimes(path.join(h.dir, n), t, t);
    }
    expect(lines((await run({ pattern: '*.txt' })).text)).toEqual(['tie-a.txt', 'tie-b.txt', 'new.txt', 'mid.txt', 'old.txt']);
  });

  it(`caps at ${GLOB_MAX_RESULTS} results with a note saying how many more matched`, async () => {
    await fs.mkdir(path.join(h.dir, 'many'));
    for (let i = 0; i < GLOB_MAX_RESULTS + 5; i++) writeFileSync(path.join(h.dir, 'many', `f${i}.txt`), '');
    const out = lines((await run({ pattern: 'many/*.txt' })).text);
    expect(out).toHaveLength(GLOB_MAX_RESULTS + 1);
    expect(out.at(-1)).toBe(
      `[5 more files matched (${GLOB_MAX_RESULTS + 5} in all); only the ${GLOB_MAX_RESULTS} most recently modified are shown. Narrow the pattern or path.]`,
    );
  });
});

describe('Glob boundary', () => {
  it('refuses ".." segments, naming the rule', async () => {
    for (const pattern of ['../*', 'src/../../x', '{src,..}/*']) {
      expect(await run({ pattern })).toEqual({
        isError: true,
        text: `Glob pattern "${pattern}": ".." segments are not allowed (Glob never leaves the directory it searches)`,
      });
    }
    // ".." inside a name is not a segment.
    await files(['a..b.txt']);
    expect((await run({ pattern: 'a..*' })).text).toBe('a..b.txt');
  });

  it('refuses absolute patterns and paths outside the workspace', async () => {
    expect(await run({ pattern: '/etc/*' })).toEqual({ isError: true, text: 'Glob pattern "/etc/*": absolute pattern outside the workspace' });
    expect(await run({ pattern: '/**/*.ts' })).toEqual({ isError: true, text: 'Glob pattern "/**/*.ts": absolute pattern outside the workspace' });
    expect(await run({ pattern: `${outside}/*` })).toEqual({ isError: true, text: `Glob pattern "${outside}/*": absolute pattern outside the workspace` });
    expect(await run({ pattern: '*', path: '..' })).toEqual({ isError: true, text: '..: outside the workspace' });
    expect(await run({ pattern: '*', path: outside })).toEqual({ isError: true, text: `${outside}: outside the workspace` });
  });

  it('refuses a path that is a file or missing, and malformed patterns', async () => {
    await files(['f.txt']);
    expect(await run({ pattern: '*', path: 'f.txt' })).toEqual({ isError: true, text: 'f.txt: is not a directory' });
    expect(await run({ pattern: '*', path: 'nope' })).toEqual({ isError: true, text: 'nope: does not exist' });
    expect(await run({ pattern: 'src/[ab' })).toEqual({ isError: true, text: `Glob pattern "src/[ab": unclosed character class; missing ']'` });
    expect(await run({ pattern: '{a,b' })).toEqual({ isError: true, text: `Glob pattern "{a,b": unclosed alternate group; missing '}'` });
  });

  it('never follows symlinked directories and never reports links that lead out', async () => {
    await files(['real/inner.txt', 'target.txt']);
    await fs.writeFile(path.join(outside, 'secret.txt'), 'TOP SECRET');
    await fs.symlink(outside, path.join(h.dir, 'out-dir'));
    await fs.symlink(path.join(h.dir, 'real'), path.join(h.dir, 'in-dir'));
    await fs.symlink(path.join(outside, 'secret.txt'), path.join(h.dir, 'out-file.txt'));
    await fs.symlink(path.join(h.dir, 'target.txt'), path.join(h.dir, 'in-file.txt'));
    await fs.symlink(path.join(h.dir, 'missing.txt'), path.join(h.dir, 'dangling.txt'));
    const res = await run({ pattern: '**/*.txt' });
    expect(res.isError).toBe(false);
    const out = lines(res.text);
    expect(out.filter((l) => !l.startsWith('[')).sort()).toEqual(['in-file.txt', 'real/inner.txt', 'target.txt']);
    expect(out.at(-1)).toBe('[2 matching symlink(s) left out: they lead outside the workspace or nowhere]');
    expect(res.text).not.toContain('secret');
    // The symlinked directory itself, named as the pattern, is not a file match either.
    expect((await run({ pattern: 'out-dir/*' })).text).toBe('No files matched "out-dir/*" in the workspace root.');
    // …and as the explicit `path` it is refused.
    expect(await run({ pattern: '*', path: 'out-dir' })).toEqual({ isError: true, text: 'out-dir: resolves through a symlink to outside the workspace' });
  });
});

describe('Glob as a tool', () => {
  it('counts directories the workspace refuses to list (any user, even root)', async () => {
    await files(['open/a.txt', 'closed/b.txt', 'closed/c.txt']);
    const real = await Workspace.open(h.dir);
    // A workspace whose listing of "closed" fails, as an unreadable directory's would.
    const ws = new Proxy(real, {
      get(target, prop) {
        if (prop === 'readDirectory' || prop === 'listRealDirectory') {
          return async (p: string) => {
            if (path.basename(p) === 'closed') throw Object.assign(new Error('EACCES: permission denied'), { code: 'EACCES' });
            return prop === 'readDirectory' ? target.readDirectory(p) : target.listRealDirectory(p);
          };
        }
        const v = Reflect.get(target, prop, target) as unknown;
        return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
      },
    });
    const ctx = toolContext(ws, new AbortController().signal);
    const out = await globTool.bind(NO_RULES).call({ pattern: '**/*.txt' }, ctx);
    expect((out.content[0] as { text: string }).text).toBe('open/a.txt\n[1 unreadable directory was skipped]');
  });

  it('is read-only, concurrency-safe and needs no approval', () => {
    expect(globTool.isReadOnly({})).toBe(true);
    expect(globTool.isConcurrencySafe({})).toBe(true);
    expect(globTool.requiresApproval({})).toBe(false);
  });

  it('stops walking when the signal is aborted', async () => {
    await files(Array.from({ length: 50 }, (_, i) => `d${i}/f.txt`));
    const controller = new AbortController();
    controller.abort();
    const ws = await Workspace.open(h.dir);
    const ctx = toolContext(ws, controller.signal);
    await expect(globTool.bind(NO_RULES).call({ pattern: '**/*.txt' }, ctx)).rejects.toThrow('cancelled');
  });

  it('validates its input through the pipeline', async () => {
    expect((await run({ pattern: '' })).isError).toBe(true);
    expect((await run({ pattern: '*', extra: 1 })).text).toContain('unknown property "extra"');
  });
});

describe('a model\'s glob never holds the event loop', () => {
  // picomatch's regex of `*a*a…*b` backtracked for 17.5 s over one 200-character name.
  it.each([`${'*a'.repeat(12)}*b`, `**/${'*a'.repeat(12)}*b`, `{x,${'*a'.repeat(10)}*b}`, `${'*[ab]'.repeat(12)}c`])('%s over long names that do not match', async (pattern) => {
    await files(['a'.repeat(200), `d/${'a'.repeat(200)}`, `${'ab'.repeat(100)}a`, `d/${'ab'.repeat(100)}.x`]);
    const watch = watchLoop();
    const r = await run({ pattern });
    const stall = watch.stop();
    console.log(`Glob ${pattern}: longest event-loop stall ${Math.round(stall)} ms`);
    expect(r.isError).toBe(false);
    expect(r.text).toMatch(/^No files matched/);
    expect(stall).toBeLessThan(1000);
  });
});

describe('glob-match', () => {
  it('expands braces, nested, and refuses runaway expansions', () => {
    expect(expandBraces('a{b,c{d,e}}f')).toEqual(['abf', 'acdf', 'acef']);
    expect(expandBraces('[{]x')).toEqual(['[{]x']);
    expect(() => expandBraces('{a,b}'.repeat(9))).toThrow(GlobSyntaxError);
  });

  it('compiles gitignore-style globs like ripgrep', () => {
    const t = (g: string, p: string) => compileIgnoreGlob(g).re.test(p);
    expect(t('*.ts', 'a/b/c.ts')).toBe(true);
    expect(t('src/*.ts', 'src/a.ts')).toBe(true);
    expect(t('src/*.ts', 'x/src/a.ts')).toBe(false);
    expect(t('**/deep/*.ts', 'a/deep/b.ts')).toBe(true);
    expect(t('/a.ts', 'a.ts')).toBe(true);
    expect(t('src/**', 'src/x/y')).toBe(true);
    expect(compileIgnoreGlob('!dist/').negated).toBe(true);
    expect(compileIgnoreGlob('!dist/').dirOnly).toBe(true);
  });

  it('keeps literal segments literal', () => {
    const g = compileSegmentGlob('a.b/**/c+d.ts');
    expect(g.alternatives[0]).toEqual([{ kind: 'literal', value: 'a.b' }, { kind: 'globstar' }, { kind: 'literal', value: 'c+d.ts' }]);
  });
});
