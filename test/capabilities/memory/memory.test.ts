// Memory: every command's result, the path rules, links and special files never followed, the
// limits (nothing written on a refusal), serialised read-modify-writes on a shared store, the
// listing's digests, the security metadata and `Memory(...)` rules.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  MAX_MEMORY_DEPTH,
  MAX_MEMORY_FILE_BYTES,
  MAX_MEMORY_FILES,
  MAX_MEMORY_PATH_CHARS,
  MAX_MEMORY_STORE_BYTES,
  MemoryFiles,
  parseMemoryPath,
  type MemoryLimits,
} from '../../../src/capabilities/memory/files.js';
import { memoryCapability } from '../../../src/capabilities/memory/index.js';
import { MEMORY_DESCRIPTION } from '../../../src/capabilities/memory/memory.description.js';
import { memoryTool } from '../../../src/capabilities/memory/memory.js';
import { evaluatePermission } from '../../../src/permission/evaluate.js';
import { parseRules } from '../../../src/permission/rules.js';
import { InputValidator } from '../../../src/pipeline/validate.js';
import { PathRefusal, Workspace } from '../../../src/sandbox/paths.js';
import type { SessionServices } from '../../../src/tools/capability.js';
import { ToolRefusal, type CoreTool, type ToolContext } from '../../../src/tools/tool.js';
import { pipelineHarness, runTool } from '../../helpers/pipeline.js';

let tmp: string;
/** The store directory (not made until the first write). */
let dir: string;
/** A directory outside the store that links point at. */
let outside: string;
let ctx: ToolContext;
let tool: CoreTool;
const validator = new InputValidator();

beforeEach(async () => {
  tmp = await fs.mkdtemp(os.tmpdir() + '/norma-memtest-');
  dir = path.join(tmp, 'store');
  outside = path.join(tmp, 'outside');
  await fs.mkdir(outside);
  await fs.mkdir(path.join(tmp, 'ws'));
  ctx = {
    sessionId: 'ses_test',
    turnId: 'turn_test',
    toolUseId: 'tu_test',
    workspace: await Workspace.open(path.join(tmp, 'ws')),
    signal: new AbortController().signal,
    progress: () => undefined,
    openOutput: () => {
      throw new Error('Memory does not stream its output');
    },
  };
  tool = memoryTool.bind({ files: new MemoryFiles(dir) });
});
afterEach(async () => {
  await fs.rm(tmp, { recursive: true, force: true });
});

/** One call as the pipeline makes it: validated, then called; refusals become error results verbatim. */
async function callWith(t: CoreTool, input: unknown): Promise<{ isError: boolean; text: string }> {
  const v = validator.validate(t, input);
  if (!v.ok) return { isError: true, text: `invalid input: ${v.errors.join('; ')}` };
  try {
    const out = await t.call(input, ctx);
    return { isError: out.isError ?? false, text: out.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n') };
  } catch (err) {
    if (err instanceof ToolRefusal || err instanceof PathRefusal) return { isError: true, text: err.message };
    throw err;
  }
}
const run = (input: unknown) => callWith(tool, input);
const limited = (limits: Partial<MemoryLimits>) => memoryTool.bind({ files: new MemoryFiles(dir, { limits }) });

const disk = (rel: string) => path.join(dir, rel);
const read = (rel: string) => fs.readFile(disk(rel), 'utf8');
/** Every entry under the store, relative and sorted (directories end in `/`). */
async function tree(root = dir): Promise<string[]> {
  const out: string[] = [];
  const walk = async (d: string, prefix: string) => {
    for (const e of await fs.readdir(d, { withFileTypes: true })) {
      const rel = prefix + e.name;
      if (e.isDirectory()) {
        out.push(`${rel}/`);
        await walk(path.join(d, e.name), `${rel}/`);
      } else out.push(rel);
    }
  };
  await walk(root, '');
  return out.sort();
}
async function seed(files: Record<string, string>): Promise<void> {
  for (const [rel, text] of Object.entries(files)) {
    await fs.mkdir(path.dirname(disk(rel)), { recursive: true });
    await fs.writeFile(disk(rel), text);
  }
}
const exists = (p: string) => fs.lstat(p).then(
  () => true,
  () => false,
);

describe('paths', () => {
  it('refuses every path that is not /memories or below it, naming the rule, and writes nothing', async () => {
    const cases: [string, string][] = [
      ['/etc/passwd', '/etc/passwd: outside the memory store; memory paths are /memories or start with /memories/'],
      ['/memoriesx/a.md', '/memoriesx/a.md: outside the memory store; memory paths are /memories or start with /memories/'],
      ['notes.md', 'notes.md: relative path; memory paths are absolute and start with /memories'],
      ['memories/a.md', 'memories/a.md: relative path; memory paths are absolute and start with /memories'],
      ['/memories/../etc/passwd', '/memories/../etc/passwd: has a ".." component; memory paths cannot leave /memories'],
      ['/memories/a/../b.md', '/memories/a/../b.md: has a ".." component; memory paths cannot leave /memories'],
      ['/tmp/../memories/a.md', '/tmp/../memories/a.md: has a ".." component; memory paths cannot leave /memories'],
      ['/memories/./a.md', '/memories/./a.md: has a "." component; write the path without it'],
      ['/memories//a.md', '/memories//a.md: has an empty path component ("//")'],
      ['/memories/a\\b.md', '/memories/a\\b.md: contains a backslash; memory paths separate names with "/"'],
      ['/memories/a\0.md', '"/memories/a\\u0000.md": contains a NUL byte'],
      [`/memories/${'n'.repeat(256)}`, `/memories/${'n'.repeat(54)}…: has a name longer than 255 bytes`],
    ];
    for (const [p, message] of cases) {
      expect(await run({ command: 'create', path: p, file_text: 'x' }), p).toEqual({ isError: true, text: message });
      expect(await run({ command: 'view', path: p }), p).toEqual({ isError: true, text: message });
    }
    expect(await run({ command: 'rename', old_path: '/memories/a.md', new_path: '/tmp/a.md' })).toMatchObject({ isError: true, text: expect.stringContaining('outside the memory store') });
    // The store was never even made: every refusal came before anything was touched.
    expect(await exists(dir)).toBe(false);
    expect(await tree(outside)).toEqual([]);
  });

  it('refuses over-long paths and paths deeper than the limit; 255-byte names and 16 levels are fine', async () => {
    const files = new MemoryFiles(dir);
    const long = `/memories/${`${'n'.repeat(200)}/`.repeat(6)}x.md`;
    expect(long.length).toBeGreaterThan(MAX_MEMORY_PATH_CHARS);
    await expect(files.create(long, 'x')).rejects.toThrow(`path longer than ${MAX_MEMORY_PATH_CHARS} characters`);
    // The schema refuses it before the tool is called, too.
    expect((await run({ command: 'create', path: long, file_text: 'x' })).text).toMatch(/^invalid input: .*path.*1024/);
    const deep = `/memories/${'d/'.repeat(MAX_MEMORY_DEPTH)}x.md`;
    expect(await run({ command: 'create', path: deep, file_text: 'x' })).toEqual({
      isError: true,
      text: `${deep}: is 17 levels deep; memory paths may be at most 16 levels below /memories`,
    });
    expect(await exists(dir)).toBe(false);
    const ok = `/memories/${'d/'.repeat(MAX_MEMORY_DEPTH - 1)}x.md`;
    expect((await run({ command: 'create', path: ok, file_text: 'deep' })).isError).toBe(false);
    expect(await read(`${'d/'.repeat(MAX_MEMORY_DEPTH - 1)}x.md`)).toBe('deep');
    const name = 'é'.repeat(127) + 'x'; // 255 bytes
    expect((await run({ command: 'create', path: `/memories/${name}`, file_text: 'n' })).isError).toBe(false);
    expect(await read(name)).toBe('n');
    expect(() => parseMemoryPath(`/memories/${'é'.repeat(128)}`)).toThrow('has a name longer than 255 bytes');
  });

  it('accepts hidden entries and one trailing slash on a directory', async () => {
    expect(await run({ command: 'create', path: '/memories/.hidden/notes.md', file_text: 'h' })).toEqual({
      isError: false,
      text: 'File created successfully at: /memories/.hidden/notes.md',
    });
    expect(await read('.hidden/notes.md')).toBe('h');
    expect((await run({ command: 'view', path: '/memories/.hidden/' })).text).toContain('1B\t/memories/.hidden/notes.md');
    expect(await run({ command: 'create', path: '/memories/dir/', file_text: 'x' })).toEqual({ isError: true, text: '/memories/dir/: names a directory, not a file' });
    expect(await run({ command: 'view', path: '/memories/.hidden/notes.md/' })).toEqual({ isError: true, text: '/memories/.hidden/notes.md: is not a directory' });
    expect(parseMemoryPath('/memories/')).toEqual({ virtual: '/memories', parts: [], dirMarker: true });
  });
});

describe('view', () => {
  it('shows a missing store as an empty one without making it', async () => {
    expect(await run({ command: 'view', path: '/memories' })).toEqual({
      isError: false,
      text: "Here're the files and directories up to 2 levels deep in /memories, excluding hidden items:\n0B\t/memories",
    });
    expect(await new MemoryFiles(dir).list()).toEqual([]);
    expect(await run({ command: 'view', path: '/memories/a.md' })).toEqual({ isError: true, text: '/memories/a.md: does not exist' });
    expect(await exists(dir)).toBe(false);
  });

  it('lists two levels deep with sizes, directories marked, hidden items left out', async () => {
    await seed({
      'a.md': '12345',
      'notes/b.md': 'x'.repeat(1536),
      'notes/deep/c.md': 'ccc',
      'notes/deep/deeper/d.md': 'dddd',
      '.secret': 'ss',
      'notes/.hidden/e.md': 'e',
    });
    expect(await run({ command: 'view', path: '/memories' })).toEqual({
      isError: false,
      text: [
        "Here're the files and directories up to 2 levels deep in /memories, excluding hidden items:",
        '1.5K\t/memories',
        '5B\t/memories/a.md',
        '1.5K\t/memories/notes/',
        '1.5K\t/memories/notes/b.md',
        '7B\t/memories/notes/deep/',
      ].join('\n'),
    });
    expect((await run({ command: 'view', path: '/memories/notes' })).text).toBe(
      [
        "Here're the files and directories up to 2 levels deep in /memories/notes, excluding hidden items:",
        '1.5K\t/memories/notes',
        '1.5K\t/memories/notes/b.md',
        '7B\t/memories/notes/deep/',
        '3B\t/memories/notes/deep/c.md',
        '4B\t/memories/notes/deep/deeper/',
      ].join('\n'),
    );
  });

  it('numbers a file\'s lines and honours view_range', async () => {
    await seed({ 'f.md': 'one\ntwo\nthree\nfour\n', 'empty.md': '' });
    expect(await run({ command: 'view', path: '/memories/f.md' })).toEqual({
      isError: false,
      text: "Here's the content of /memories/f.md with line numbers:\n     1\tone\n     2\ttwo\n     3\tthree\n     4\tfour",
    });
    expect((await run({ command: 'view', path: '/memories/f.md', view_range: [2, 3] })).text).toBe(
      "Here's the content of /memories/f.md with line numbers:\n     2\ttwo\n     3\tthree",
    );
    expect((await run({ command: 'view', path: '/memories/f.md', view_range: [3, -1] })).text).toBe(
      "Here's the content of /memories/f.md with line numbers:\n     3\tthree\n     4\tfour",
    );
    expect((await run({ command: 'view', path: '/memories/f.md', view_range: [4, 99] })).text).toBe("Here's the content of /memories/f.md with line numbers:\n     4\tfour");
    expect(await run({ command: 'view', path: '/memories/f.md', view_range: [5, -1] })).toEqual({ isError: true, text: 'Invalid view_range [5, -1]: /memories/f.md has 4 lines.' });
    expect(await run({ command: 'view', path: '/memories/f.md', view_range: [3, 2] })).toEqual({
      isError: true,
      text: 'Invalid view_range [3, 2]: the start must be at least 1 and the end -1 (to the end of the file) or at least the start.',
    });
    expect((await run({ command: 'view', path: '/memories/f.md', view_range: [0, 2] })).text).toMatch(/^invalid input: /);
    expect(await run({ command: 'view', path: '/memories', view_range: [1, 2] })).toEqual({ isError: true, text: '/memories is a directory; view_range applies to files only.' });
    expect(await run({ command: 'view', path: '/memories/empty.md' })).toEqual({ isError: false, text: '/memories/empty.md is empty.' });
  });
});

describe('create', () => {
  it('creates a file with its parents, in a store made private on first write, and replaces it whole', async () => {
    expect(await run({ command: 'create', path: '/memories/project/notes.md', file_text: '# Notes\n' })).toEqual({
      isError: false,
      text: 'File created successfully at: /memories/project/notes.md',
    });
    expect((await fs.stat(dir)).mode & 0o777).toBe(0o700);
    expect(await read('project/notes.md')).toBe('# Notes\n');
    expect(await run({ command: 'create', path: '/memories/project/notes.md', file_text: 'replaced' })).toEqual({
      isError: false,
      text: 'File created successfully at: /memories/project/notes.md (it replaced the previous content)',
    });
    expect(await read('project/notes.md')).toBe('replaced');
    // Atomic writes leave no temp files behind.
    expect(await tree()).toEqual(['project/', 'project/notes.md']);
  });

  it('refuses to write over a directory or onto /memories itself', async () => {
    await seed({ 'd/x.md': 'x' });
    expect(await run({ command: 'create', path: '/memories/d', file_text: 'y' })).toEqual({ isError: true, text: '/memories/d: is a directory' });
    expect(await run({ command: 'create', path: '/memories', file_text: 'y' })).toEqual({ isError: true, text: '/memories: is the memory store directory; name a file inside it' });
    expect(await run({ command: 'create', path: '/memories/d/x.md/y.md', file_text: 'y' })).toEqual({ isError: true, text: '/memories/d/x.md/y.md: /memories/d/x.md is not a directory' });
    expect(await tree()).toEqual(['d/', 'd/x.md']);
  });
});

describe('str_replace', () => {
  it('replaces the one occurrence and shows the lines around it', async () => {
    await seed({ 'm.md': Array.from({ length: 10 }, (_, i) => `l${i + 1}`).join('\n') + '\n' });
    expect(await run({ command: 'str_replace', path: '/memories/m.md', old_str: 'l6', new_str: 'six' })).toEqual({
      isError: false,
      text: [
        'The memory file has been edited. Here is /memories/m.md around the change:',
        '     2\tl2',
        '     3\tl3',
        '     4\tl4',
        '     5\tl5',
        '     6\tsix',
        '     7\tl7',
        '     8\tl8',
        '     9\tl9',
        '    10\tl10',
      ].join('\n'),
    });
    expect(await read('m.md')).toBe('l1\nl2\nl3\nl4\nl5\nsix\nl7\nl8\nl9\nl10\n');
  });

  it('refuses no match and several matches (with their lines), changing nothing', async () => {
    await seed({ 'm.md': 'alpha\nbeta\nalpha beta\n' });
    expect(await run({ command: 'str_replace', path: '/memories/m.md', old_str: 'gamma', new_str: 'x' })).toEqual({
      isError: true,
      text: 'No replacement was performed: old_str did not appear verbatim in /memories/m.md.',
    });
    expect(await run({ command: 'str_replace', path: '/memories/m.md', old_str: 'alpha', new_str: 'x' })).toEqual({
      isError: true,
      text: 'No replacement was performed: old_str occurs 2 times in /memories/m.md, in lines 1, 3. Include more of the surrounding text so that it is unique.',
    });
    expect(await read('m.md')).toBe('alpha\nbeta\nalpha beta\n');
    expect(await run({ command: 'str_replace', path: '/memories/none.md', old_str: 'a', new_str: 'b' })).toEqual({ isError: true, text: '/memories/none.md: does not exist' });
    expect(await tree()).toEqual(['m.md']);
  });
});

describe('insert', () => {
  it('inserts after a line, at the top and at the end, keeping the final newline', async () => {
    await seed({ 'i.md': 'a\nb\n', 'n.md': 'a' });
    const first = await run({ command: 'insert', path: '/memories/i.md', insert_line: 1, insert_text: 'x\n' });
    expect(first).toEqual({ isError: false, text: 'The file /memories/i.md has been edited. Here is /memories/i.md around the insertion:\n     1\ta\n     2\tx\n     3\tb' });
    await run({ command: 'insert', path: '/memories/i.md', insert_line: 0, insert_text: 'top' });
    await run({ command: 'insert', path: '/memories/i.md', insert_line: 4, insert_text: 'end\nmore' });
    expect(await read('i.md')).toBe('top\na\nx\nb\nend\nmore\n');
    await run({ command: 'insert', path: '/memories/n.md', insert_line: 1, insert_text: 'b' });
    expect(await read('n.md')).toBe('a\nb');
  });

  it('refuses a line outside the file, stating the valid range, changing nothing', async () => {
    await seed({ 'i.md': 'a\nb\n' });
    expect(await run({ command: 'insert', path: '/memories/i.md', insert_line: 3, insert_text: 'x' })).toEqual({
      isError: true,
      text: 'Invalid insert_line 3: it must be within [0, 2], the lines of /memories/i.md (0 inserts at the top).',
    });
    expect((await run({ command: 'insert', path: '/memories/i.md', insert_line: -1, insert_text: 'x' })).text).toMatch(/^invalid input: /);
    expect(await read('i.md')).toBe('a\nb\n');
  });
});

describe('delete', () => {
  it('deletes a file, and a directory with everything in it', async () => {
    await seed({ 'a.md': 'a', 'd/b.md': 'b', 'd/e/c.md': 'c', 'keep.md': 'k' });
    expect(await run({ command: 'delete', path: '/memories/a.md' })).toEqual({ isError: false, text: 'Successfully deleted /memories/a.md' });
    expect(await run({ command: 'delete', path: '/memories/d' })).toEqual({ isError: false, text: 'Successfully deleted /memories/d' });
    expect(await tree()).toEqual(['keep.md']);
    expect(await run({ command: 'delete', path: '/memories/d' })).toEqual({ isError: true, text: '/memories/d: does not exist' });
  });

  it('refuses deleting /memories itself', async () => {
    await seed({ 'a.md': 'a' });
    for (const p of ['/memories', '/memories/']) {
      expect(await run({ command: 'delete', path: p })).toEqual({
        isError: true,
        text: '/memories itself cannot be deleted; delete the files and directories inside it.',
      });
    }
    expect(await tree()).toEqual(['a.md']);
  });
});

describe('rename', () => {
  it('renames a file and moves a directory, making the new parents', async () => {
    await seed({ 'a.md': 'a', 'd/b.md': 'b', 'd/e/c.md': 'c' });
    expect(await run({ command: 'rename', old_path: '/memories/a.md', new_path: '/memories/z.md' })).toEqual({
      isError: false,
      text: 'Successfully renamed /memories/a.md to /memories/z.md',
    });
    expect(await run({ command: 'rename', old_path: '/memories/d', new_path: '/memories/archive/2024/d' })).toEqual({
      isError: false,
      text: 'Successfully renamed /memories/d to /memories/archive/2024/d',
    });
    expect(await tree()).toEqual(['archive/', 'archive/2024/', 'archive/2024/d/', 'archive/2024/d/b.md', 'archive/2024/d/e/', 'archive/2024/d/e/c.md', 'z.md']);
    expect(await read('archive/2024/d/e/c.md')).toBe('c');
  });

  it('refuses a destination that exists, a move into itself, a missing source and /memories', async () => {
    await seed({ 'a.md': 'a', 'b.md': 'b', 'd/x.md': 'x' });
    expect(await run({ command: 'rename', old_path: '/memories/a.md', new_path: '/memories/b.md' })).toEqual({
      isError: true,
      text: 'The destination /memories/b.md already exists; nothing was renamed.',
    });
    expect(await run({ command: 'rename', old_path: '/memories/a.md', new_path: '/memories/d' })).toEqual({
      isError: true,
      text: 'The destination /memories/d already exists; nothing was renamed.',
    });
    expect(await run({ command: 'rename', old_path: '/memories/d', new_path: '/memories/d/sub' })).toEqual({
      isError: true,
      text: '/memories/d cannot be moved into itself (/memories/d/sub).',
    });
    expect(await run({ command: 'rename', old_path: '/memories/nope.md', new_path: '/memories/c.md' })).toEqual({ isError: true, text: '/memories/nope.md: does not exist' });
    expect(await run({ command: 'rename', old_path: '/memories', new_path: '/memories/c' })).toEqual({ isError: true, text: '/memories itself cannot be renamed.' });
    expect(await tree()).toEqual(['a.md', 'b.md', 'd/', 'd/x.md']);
    expect([await read('a.md'), await read('b.md')]).toEqual(['a', 'b']);
  });
});

describe('links and special files in the store', () => {
  it('never follows a symlink to a file outside: no read, no write, listed nowhere, deleted as a link', async () => {
    await seed({ 'real.md': 'real' });
    await fs.writeFile(path.join(outside, 'target.md'), 'outside secret\n');
    await fs.symlink(path.join(outside, 'target.md'), disk('link.md'));
    await fs.symlink(disk('real.md'), disk('inner-link.md'));
    const refused = { isError: true, text: '/memories/link.md: is a symlink; the memory store never follows links' };
    expect(await run({ command: 'view', path: '/memories/link.md' })).toEqual(refused);
    expect(await run({ command: 'create', path: '/memories/link.md', file_text: 'pwned' })).toEqual(refused);
    expect(await run({ command: 'str_replace', path: '/memories/link.md', old_str: 'outside', new_str: 'pwned' })).toEqual(refused);
    expect(await run({ command: 'insert', path: '/memories/link.md', insert_line: 0, insert_text: 'pwned' })).toEqual(refused);
    // A link to a file inside the store is not followed either.
    expect(await run({ command: 'view', path: '/memories/inner-link.md' })).toEqual({ isError: true, text: '/memories/inner-link.md: is a symlink; the memory store never follows links' });
    expect((await run({ command: 'view', path: '/memories' })).text).not.toContain('link');
    expect((await new MemoryFiles(dir).list()).map((f) => f.path)).toEqual(['/memories/real.md']);
    expect(await run({ command: 'delete', path: '/memories/link.md' })).toEqual({ isError: false, text: 'Successfully deleted /memories/link.md' });
    expect(await exists(disk('link.md'))).toBe(false);
    expect(await fs.readFile(path.join(outside, 'target.md'), 'utf8')).toBe('outside secret\n');
  });

  it('never walks through a symlinked directory; rename and delete move or remove the link itself', async () => {
    await fs.mkdir(dir);
    await fs.writeFile(path.join(outside, 'x.md'), 'outside');
    await fs.symlink(outside, disk('ldir'));
    const through = (p: string) => ({ isError: true, text: `${p}: /memories/ldir is a symlink; the memory store never follows links` });
    expect(await run({ command: 'view', path: '/memories/ldir/x.md' })).toEqual(through('/memories/ldir/x.md'));
    expect(await run({ command: 'create', path: '/memories/ldir/new.md', file_text: 'pwned' })).toEqual(through('/memories/ldir/new.md'));
    expect(await run({ command: 'create', path: '/memories/ldir/sub/new.md', file_text: 'pwned' })).toEqual(through('/memories/ldir/sub/new.md'));
    expect(await run({ command: 'delete', path: '/memories/ldir/x.md' })).toEqual(through('/memories/ldir/x.md'));
    expect(await run({ command: 'rename', old_path: '/memories/ldir/x.md', new_path: '/memories/x.md' })).toEqual(through('/memories/ldir/x.md'));
    expect(await run({ command: 'view', path: '/memories/ldir' })).toEqual({ isError: true, text: '/memories/ldir: is a symlink; the memory store never follows links' });
    expect((await run({ command: 'view', path: '/memories' })).text).toBe("Here're the files and directories up to 2 levels deep in /memories, excluding hidden items:\n0B\t/memories");
    expect(await new MemoryFiles(dir).list()).toEqual([]);
    expect(await run({ command: 'rename', old_path: '/memories/ldir', new_path: '/memories/moved' })).toEqual({ isError: false, text: 'Successfully renamed /memories/ldir to /memories/moved' });
    expect((await fs.lstat(disk('moved'))).isSymbolicLink()).toBe(true);
    expect(await run({ command: 'delete', path: '/memories/moved' })).toEqual({ isError: false, text: 'Successfully deleted /memories/moved' });
    expect(await tree()).toEqual([]);
    expect(await tree(outside)).toEqual(['x.md']);
    expect(await fs.readFile(path.join(outside, 'x.md'), 'utf8')).toBe('outside');
  });

  it('never opens a FIFO: view and writes are refused at once, listings leave it out, delete unlinks it', async () => {
    await seed({ 'a.md': 'a' });
    execFileSync('mkfifo', [disk('pipe')]);
    const refused = { isError: true, text: '/memories/pipe: is not a regular file (a FIFO)' };
    expect(await run({ command: 'view', path: '/memories/pipe' })).toEqual(refused);
    expect(await run({ command: 'create', path: '/memories/pipe', file_text: 'x' })).toEqual(refused);
    expect(await run({ command: 'str_replace', path: '/memories/pipe', old_str: 'a', new_str: 'b' })).toEqual(refused);
    expect((await run({ command: 'view', path: '/memories' })).text).not.toContain('pipe');
    expect((await new MemoryFiles(dir).list()).map((f) => f.path)).toEqual(['/memories/a.md']);
    expect((await fs.lstat(disk('pipe'))).isFIFO()).toBe(true);
    expect((await run({ command: 'delete', path: '/memories/pipe' })).isError).toBe(false);
    expect(await tree()).toEqual(['a.md']);
  });

  it('does not walk into a symlinked directory when deleting the directory holding it', async () => {
    await seed({ 'd/a.md': 'a' });
    await fs.writeFile(path.join(outside, 'keep.md'), 'keep');
    await fs.symlink(outside, disk('d/link'));
    expect((await run({ command: 'delete', path: '/memories/d' })).isError).toBe(false);
    expect(await tree()).toEqual([]);
    expect(await tree(outside)).toEqual(['keep.md']);
  });
});

describe('limits', () => {
  it('refuses a file over 256 KiB before writing; exactly 256 KiB is fine', async () => {
    expect(MAX_MEMORY_FILE_BYTES).toBe(256 * 1024);
    // Under the schema's character limit, over the byte limit (2 bytes a character).
    const wide = 'é'.repeat(MAX_MEMORY_FILE_BYTES / 2 + 1);
    expect(await run({ command: 'create', path: '/memories/big.md', file_text: wide })).toEqual({
      isError: true,
      text: '/memories/big.md: the file would be 262146 bytes; a memory file may be at most 256 KiB (262144 bytes). Nothing was written.',
    });
    expect(await exists(dir)).toBe(false);
    expect((await run({ command: 'create', path: '/memories/big.md', file_text: 'x'.repeat(MAX_MEMORY_FILE_BYTES + 1) })).text).toMatch(/^invalid input: .*file_text/);
    expect((await run({ command: 'create', path: '/memories/big.md', file_text: 'x'.repeat(MAX_MEMORY_FILE_BYTES) })).isError).toBe(false);
    expect((await fs.stat(disk('big.md'))).size).toBe(MAX_MEMORY_FILE_BYTES);
  });

  it('checks the size an edit would give the file before writing it', async () => {
    const t = limited({ fileBytes: 20 });
    await seed({ 'f.md': '0123456789\n' });
    expect(await callWith(t, { command: 'str_replace', path: '/memories/f.md', old_str: '5', new_str: 'x'.repeat(11) })).toEqual({
      isError: true,
      text: '/memories/f.md: the file would be 21 bytes; a memory file may be at most 20 bytes. Nothing was written.',
    });
    expect(await callWith(t, { command: 'insert', path: '/memories/f.md', insert_line: 1, insert_text: 'abcdefghij' })).toEqual({
      isError: true,
      text: '/memories/f.md: the file would be 22 bytes; a memory file may be at most 20 bytes. Nothing was written.',
    });
    expect(await read('f.md')).toBe('0123456789\n');
    expect((await callWith(t, { command: 'str_replace', path: '/memories/f.md', old_str: '5', new_str: 'x'.repeat(10) })).isError).toBe(false);
    expect((await fs.stat(disk('f.md'))).size).toBe(20);
    // A file larger than the limit (put there from outside) is not read at all.
    await seed({ 'huge.md': 'y'.repeat(21) });
    expect(await callWith(t, { command: 'view', path: '/memories/huge.md' })).toEqual({
      isError: true,
      text: '/memories/huge.md is larger than a memory file may be (20 bytes); it cannot be viewed or edited. Delete it or replace it with create.',
    });
  });

  it('refuses a write that would take the store past its total size; replacing a file counts its old size', async () => {
    const t = limited({ storeBytes: 100 });
    expect((await callWith(t, { command: 'create', path: '/memories/a.md', file_text: 'a'.repeat(60) })).isError).toBe(false);
    expect(await callWith(t, { command: 'create', path: '/memories/b.md', file_text: 'b'.repeat(50) })).toEqual({
      isError: true,
      text: '/memories/b.md: the memory store would hold 110 bytes; it may hold at most 100 bytes. Delete or shorten memory files first. Nothing was written.',
    });
    expect(await callWith(t, { command: 'insert', path: '/memories/a.md', insert_line: 0, insert_text: 'x'.repeat(40) })).toMatchObject({
      isError: true,
      text: expect.stringContaining('the memory store would hold 101 bytes'),
    });
    expect((await callWith(t, { command: 'create', path: '/memories/a.md', file_text: 'a'.repeat(95) })).isError).toBe(false);
    expect(await tree()).toEqual(['a.md']);
    expect(await read('a.md')).toBe('a'.repeat(95));
    expect(MAX_MEMORY_STORE_BYTES).toBe(8 * 1024 * 1024);
  });

  it('refuses a new file past the file count; replacing and editing existing files still work', async () => {
    const t = limited({ files: 2 });
    await callWith(t, { command: 'create', path: '/memories/a.md', file_text: 'a' });
    await callWith(t, { command: 'create', path: '/memories/d/b.md', file_text: 'b' });
    expect(await callWith(t, { command: 'create', path: '/memories/c.md', file_text: 'c' })).toEqual({
      isError: true,
      text: '/memories/c.md: the memory store already holds 2 files; it may hold at most 2. Delete or merge memory files first. Nothing was written.',
    });
    expect((await callWith(t, { command: 'create', path: '/memories/a.md', file_text: 'aa' })).isError).toBe(false);
    expect((await callWith(t, { command: 'str_replace', path: '/memories/d/b.md', old_str: 'b', new_str: 'bb' })).isError).toBe(false);
    expect(await tree()).toEqual(['a.md', 'd/', 'd/b.md']);
    expect(MAX_MEMORY_FILES).toBe(1000);
  });

  it('refuses a rename that would put a directory\'s contents past the depth limit', async () => {
    const t = limited({ depth: 3 });
    await seed({ 'd/e/f.md': 'f' });
    expect(await callWith(t, { command: 'rename', old_path: '/memories/d', new_path: '/memories/x/d' })).toEqual({
      isError: true,
      text: '/memories/x/d: moving /memories/d there would put entries 4 levels deep; memory paths may be at most 3 levels below /memories. Nothing was renamed.',
    });
    expect(await tree()).toEqual(['d/', 'd/e/', 'd/e/f.md']);
    expect((await callWith(t, { command: 'rename', old_path: '/memories/d', new_path: '/memories/y' })).isError).toBe(false);
  });
});

describe('a store shared by sessions', () => {
  it('serialises read-modify-writes: concurrent str_replaces of one file from two stores all land', async () => {
    const lines = Array.from({ length: 12 }, (_, i) => `line ${String(i).padStart(2, '0')}`);
    await seed({ 'shared.md': lines.join('\n') + '\n' });
    const one = memoryTool.bind({ files: new MemoryFiles(dir) });
    const two = memoryTool.bind({ files: new MemoryFiles(dir) });
    const results = await Promise.all(
      lines.map((l, i) => callWith(i % 2 === 0 ? one : two, { command: 'str_replace', path: '/memories/shared.md', old_str: l, new_str: `${l} edited` })),
    );
    expect(results.every((r) => !r.isError)).toBe(true);
    expect(await read('shared.md')).toBe(lines.map((l) => `${l} edited`).join('\n') + '\n');
  });

  it('checks the limits against the other sessions\' writes: concurrent creates stop at the file count', async () => {
    const a = new MemoryFiles(dir, { limits: { files: 3 } });
    const b = new MemoryFiles(dir, { limits: { files: 3 } });
    const settled = await Promise.allSettled(Array.from({ length: 8 }, (_, i) => (i % 2 ? a : b).create(`/memories/f${i}.md`, `${i}`)));
    expect(settled.filter((r) => r.status === 'fulfilled')).toHaveLength(3);
    expect(settled.filter((r) => r.status === 'rejected').every((r) => (r as PromiseRejectedResult).reason instanceof ToolRefusal)).toBe(true);
    expect((await tree()).length).toBe(3);
  });
});

describe('list', () => {
  it('lists every regular file (hidden too) sorted by path, with size, SHA-256 and modification time', async () => {
    const files = new MemoryFiles(dir);
    await files.create('/memories/z.md', 'last');
    await files.create('/memories/a/b.md', 'héllo\n');
    await files.create('/memories/.h', '');
    await fs.symlink(path.join(outside), disk('a/link'));
    const sha = (s: string) => createHash('sha256').update(s).digest('hex');
    const mtime = async (rel: string) => (await fs.stat(disk(rel))).mtime.toISOString();
    expect(await files.list()).toEqual([
      { path: '/memories/.h', bytes: 0, sha256: sha(''), modified_at: await mtime('.h') },
      { path: '/memories/a/b.md', bytes: 7, sha256: sha('héllo\n'), modified_at: await mtime('a/b.md') },
      { path: '/memories/z.md', bytes: 4, sha256: sha('last'), modified_at: await mtime('z.md') },
    ]);
  });
});

describe('security metadata and rule subjects', () => {
  const inputs = {
    view: { command: 'view', path: '/memories' },
    create: { command: 'create', path: '/memories/a.md', file_text: 'x' },
    str_replace: { command: 'str_replace', path: '/memories/a.md', old_str: 'x', new_str: 'y' },
    insert: { command: 'insert', path: '/memories/a.md', insert_line: 0, insert_text: 'y' },
    delete: { command: 'delete', path: '/memories/a.md' },
    rename: { command: 'rename', old_path: '/memories/a.md', new_path: '/memories/b.md' },
  };

  it('is read-only, concurrency-safe and approval-free only for view', () => {
    expect(memoryTool.name).toBe('Memory');
    for (const [command, input] of Object.entries(inputs)) {
      expect(validator.validate(tool, input).ok, command).toBe(true);
      const view = command === 'view';
      expect([tool.isReadOnly(input), tool.isConcurrencySafe(input), tool.requiresApproval(input)], command).toEqual([view, view, !view]);
    }
    // Unvalidated input is judged fail-closed.
    expect([tool.isReadOnly({}), tool.isConcurrencySafe(null), tool.requiresApproval('x')]).toEqual([false, false, true]);
  });

  it('validates inputs strictly per command', () => {
    for (const bad of [
      { command: 'view', path: '/memories', extra: 1 },
      { command: 'create', path: '/memories/a.md' },
      { command: 'create', path: '/memories/a.md', file_text: 'x', view_range: [1, 2] },
      { command: 'str_replace', path: '/memories/a.md', old_str: '', new_str: 'x' },
      { command: 'insert', path: '/memories/a.md', insert_line: 1.5, insert_text: 'x' },
      { command: 'view', path: '/memories/a.md', view_range: [1] },
      { command: 'view', path: '/memories/a.md', view_range: [1, 2, 3] },
      { command: 'rename', old_path: '/memories/a.md' },
      { command: 'undo', path: '/memories/a.md' },
      { command: 'delete', path: '' },
    ]) {
      expect(validator.validate(tool, bad).ok, JSON.stringify(bad)).toBe(false);
    }
  });

  it('names the virtual paths, directories marked, for reads and edits', async () => {
    await seed({ 'notes/a.md': 'a' });
    const subject = (input: unknown) => tool.permissionSubject(input, ctx);
    expect(await subject({ command: 'view', path: '/memories' })).toEqual({ kind: 'paths', access: 'read', paths: [{ lexical: '/memories', real: '/memories', isDir: true }] });
    expect(await subject({ command: 'view', path: '/memories/notes/' })).toEqual({
      kind: 'paths',
      access: 'read',
      paths: [{ lexical: '/memories/notes', real: '/memories/notes', isDir: true }],
    });
    expect(await subject({ command: 'view', path: '/memories/notes/a.md' })).toEqual({
      kind: 'paths',
      access: 'read',
      paths: [{ lexical: '/memories/notes/a.md', real: '/memories/notes/a.md', isDir: false }],
    });
    expect(await subject({ command: 'create', path: '/memories/notes/b.md', file_text: '' })).toEqual({
      kind: 'paths',
      access: 'edit',
      paths: [{ lexical: '/memories/notes/b.md', real: '/memories/notes/b.md', isDir: false }],
    });
    expect(await subject({ command: 'delete', path: '/memories/notes' })).toEqual({
      kind: 'paths',
      access: 'edit',
      paths: [{ lexical: '/memories/notes', real: '/memories/notes', isDir: true }],
    });
    expect(await subject({ command: 'rename', old_path: '/memories/notes/a.md', new_path: '/memories/old/a.md' })).toEqual({
      kind: 'paths',
      access: 'edit',
      paths: [
        { lexical: '/memories/notes/a.md', real: '/memories/notes/a.md', isDir: false },
        { lexical: '/memories/old/a.md', real: '/memories/old/a.md', isDir: false },
      ],
    });
    // A link in the store is no directory to rules either.
    await fs.symlink(outside, disk('ldir'));
    expect(await subject({ command: 'delete', path: '/memories/ldir' })).toMatchObject({ paths: [{ lexical: '/memories/ldir', isDir: false }] });
  });

  it('is matched by Memory(/memories/...) rules: an allow rule covers its directory only, a deny rule denies reads below it', async () => {
    const rules = (r: { allow?: string[]; deny?: string[] }) => ({
      allow: parseRules('allow', r.allow ?? []).rules,
      deny: parseRules('deny', r.deny ?? []).rules,
      ask: [],
    });
    const decide = async (input: unknown, r: { allow?: string[]; deny?: string[] }) =>
      evaluatePermission({
        tool,
        input,
        mode: 'default',
        rules: rules(r),
        toolCheck: await tool.checkPermissions(input, ctx),
        subject: await tool.permissionSubject(input, ctx),
        root: ctx.workspace.root,
      });
    expect(parseRules('allow', ['Memory(/memories/notes/**)']).problems).toEqual([]);
    const allowNotes = { allow: ['Memory(/memories/notes/**)'] };
    expect(await decide({ command: 'create', path: '/memories/notes/a.md', file_text: 'x' }, allowNotes)).toMatchObject({
      behavior: 'allow',
      decidedBy: 'rule',
      rules: ['Memory(/memories/notes/**)'],
    });
    const other = await decide({ command: 'create', path: '/memories/other.md', file_text: 'x' }, allowNotes);
    expect(other).toMatchObject({ behavior: 'ask', decidedBy: 'mode' });
    expect(other.suggestions).toContain('Memory(/memories/other.md)');
    // A rename needs both of its paths allowed.
    expect((await decide({ command: 'rename', old_path: '/memories/notes/a.md', new_path: '/memories/b.md' }, allowNotes)).behavior).toBe('ask');
    // Edit(...) rules are for the workspace's files, not the memory store.
    expect((await decide({ command: 'create', path: '/memories/notes/a.md', file_text: 'x' }, { allow: ['Edit(/memories/**)'] })).behavior).toBe('ask');

    const denySecret = { deny: ['Memory(/memories/secret/**)'], allow: ['Memory'] };
    expect(await decide({ command: 'view', path: '/memories/secret/x' }, denySecret)).toMatchObject({
      behavior: 'deny',
      rules: ['Memory(/memories/secret/**)'],
    });
    expect((await decide({ command: 'view', path: '/memories/public.md' }, denySecret)).behavior).toBe('allow');
    // Without any rule a view is allowed as read-only; a change is asked about.
    expect(await decide({ command: 'view', path: '/memories' }, {})).toMatchObject({ behavior: 'allow', decidedBy: 'read_only' });
    expect((await decide({ command: 'delete', path: '/memories/a.md' }, {})).behavior).toBe('ask');
  });
});

describe('through the pipeline', () => {
  it('runs allowed calls, asks about others, denies by rule, and reports refusals verbatim', async () => {
    const h = await pipelineHarness([memoryTool.bind({ files: new MemoryFiles(dir) })]);
    try {
      h.setRules({ allow: ['Memory(/memories/notes/**)'], deny: ['Memory(/memories/secret/**)'] });
      expect(await runTool(h, 'Memory', { command: 'create', path: '/memories/notes/a.md', file_text: 'kept\n' })).toEqual({
        isError: false,
        text: 'File created successfully at: /memories/notes/a.md',
      });
      expect(h.asked).toEqual([]);
      h.answers.push({ behavior: 'deny', message: 'not there' });
      expect(await runTool(h, 'Memory', { command: 'create', path: '/memories/other.md', file_text: 'x' })).toEqual({
        isError: true,
        text: 'Permission denied by the user: not there',
      });
      expect(h.asked).toHaveLength(1);
      expect(await runTool(h, 'Memory', { command: 'view', path: '/memories/secret/x' })).toEqual({
        isError: true,
        text: 'Permission denied: denied by rule "Memory(/memories/secret/**)".',
      });
      // Whatever rules would make of it, the call itself refuses a path that leaves the store.
      h.setMode('bypassPermissions');
      expect(await runTool(h, 'Memory', { command: 'create', path: '/memories/notes/../x.md', file_text: 'x' })).toEqual({
        isError: true,
        text: '/memories/notes/../x.md: has a ".." component; memory paths cannot leave /memories',
      });
      expect(await tree()).toEqual(['notes/', 'notes/a.md']);
    } finally {
      await h.cleanup();
    }
  });
});

describe('the capability', () => {
  it('installs the Memory tool in the instructions group on the session\'s store, made on first write', async () => {
    expect(memoryCapability.group).toBe('instructions');
    expect(memoryCapability.tools).toEqual([memoryTool]);
    const installed = memoryCapability.install({ memoryDir: dir } as SessionServices);
    expect(installed.deps.files).toBeInstanceOf(MemoryFiles);
    expect(installed.deps.files.dir).toBe(dir);
    const t = memoryTool.bind(installed.deps);
    expect((await callWith(t, { command: 'view', path: '/memories' })).isError).toBe(false);
    expect(await exists(dir)).toBe(false);
    await callWith(t, { command: 'create', path: '/memories/a.md', file_text: 'a' });
    expect(await read('a.md')).toBe('a');
  });

  it('tells the model what memory is for, when not to use it, the path rule and the limits', () => {
    for (const s of ['/memories', 'start of a task', 'Write', 'secrets', '256 KiB', '8 MiB', '1000 files', '16 levels', '".."']) {
      expect(MEMORY_DESCRIPTION).toContain(s);
    }
    expect(memoryTool.description).toBe(MEMORY_DESCRIPTION);
  });
});
