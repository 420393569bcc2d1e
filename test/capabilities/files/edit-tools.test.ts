// Edit and MultiEdit: exact replacement, uniqueness, read-before-write, line endings and BOM
// kept, all-or-nothing, refusals that change nothing.
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { editTool } from '../../../src/capabilities/files/edit.js';
import { multiEditTool } from '../../../src/capabilities/files/multi-edit.js';
import { readTool } from '../../../src/capabilities/files/read.js';
import { pipelineHarness, runTool, type PipelineHarness } from '../../helpers/pipeline.js';

let h: PipelineHarness;
beforeEach(async () => {
  h = await pipelineHarness([readTool, editTool, multiEditTool]);
  h.setMode('bypassPermissions');
});
afterEach(async () => {
  await h.cleanup();
});

const run = (name: string, input: unknown) => runTool(h, name, input);
const file = (name: string) => path.join(h.dir, name);
async function seed(name: string, content: string | Buffer) {
  await fs.writeFile(file(name), content);
  await run('Read', { file_path: name });
}

describe('Edit', () => {
  it('replaces a unique match and shows the diff', async () => {
    await seed('a.ts', 'const a = 1;\nconst b = 2;\n');
    const res = await run('Edit', { file_path: 'a.ts', old_string: 'b = 2', new_string: 'b = 3' });
    expect(res).toEqual({
      isError: false,
      text: ['Edited a.ts (1 replacement).', '--- a/a.ts', '+++ b/a.ts', '@@ -1,2 +1,2 @@', ' const a = 1;', '-const b = 2;', '+const b = 3;'].join('\n'),
    });
    expect(await fs.readFile(file('a.ts'), 'utf8')).toBe('const a = 1;\nconst b = 3;\n');
  });

  it('refuses no match, several matches without replace_all, and identical strings — changing nothing', async () => {
    await seed('x.txt', 'foo foo bar');
    expect(await run('Edit', { file_path: 'x.txt', old_string: 'baz', new_string: 'q' })).toEqual({
      isError: true,
      text: 'x.txt: old_string was not found in the file; it must match exactly, including whitespace and indentation.',
    });
    expect((await run('Edit', { file_path: 'x.txt', old_string: 'foo', new_string: 'q' })).text).toBe(
      'x.txt: old_string matches 2 places; add surrounding context to make it unique, or set replace_all to change every one.',
    );
    expect((await run('Edit', { file_path: 'x.txt', old_string: 'bar', new_string: 'bar' })).text).toBe(
      'x.txt: old_string and new_string are identical; there is nothing to change.',
    );
    expect(await fs.readFile(file('x.txt'), 'utf8')).toBe('foo foo bar');
    const all = await run('Edit', { file_path: 'x.txt', old_string: 'foo', new_string: 'q', replace_all: true });
    expect(all.text.split('\n')[0]).toBe('Edited x.txt (2 replacements).');
    expect(await fs.readFile(file('x.txt'), 'utf8')).toBe('q q bar');
  });

  it('requires a Read first and refuses after an outside change', async () => {
    await fs.writeFile(file('u.txt'), 'abc');
    expect((await run('Edit', { file_path: 'u.txt', old_string: 'a', new_string: 'z' })).text).toMatch(/not read yet in this session/);
    await run('Read', { file_path: 'u.txt' });
    await fs.writeFile(file('u.txt'), 'abcd');
    expect((await run('Edit', { file_path: 'u.txt', old_string: 'a', new_string: 'z' })).text).toMatch(/changed since it was last read/);
    expect(await fs.readFile(file('u.txt'), 'utf8')).toBe('abcd');
    // Successive edits need no new Read: each edit records what it wrote.
    await run('Read', { file_path: 'u.txt' });
    expect((await run('Edit', { file_path: 'u.txt', old_string: 'a', new_string: 'z' })).isError).toBe(false);
    expect((await run('Edit', { file_path: 'u.txt', old_string: 'b', new_string: 'y' })).isError).toBe(false);
    expect(await fs.readFile(file('u.txt'), 'utf8')).toBe('zycd');
  });

  it('keeps CRLF line endings when the strings use \\n', async () => {
    await seed('w.txt', 'one\r\ntwo\r\nthree\r\n');
    const res = await run('Edit', { file_path: 'w.txt', old_string: 'one\ntwo', new_string: 'uno\ndos' });
    expect(res.isError).toBe(false);
    expect(await fs.readFile(file('w.txt'), 'utf8')).toBe('uno\r\ndos\r\nthree\r\n');
  });

  it('keeps a UTF-8 byte-order mark and refuses non-UTF-8 and binary files', async () => {
    await seed('bom.txt', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('héllo')]));
    expect((await run('Edit', { file_path: 'bom.txt', old_string: 'héllo', new_string: 'hallo' })).isError).toBe(false);
    expect([...(await fs.readFile(file('bom.txt')))]).toEqual([0xef, 0xbb, 0xbf, ...Buffer.from('hallo')]);

    await seed('latin1.txt', Buffer.from([0x63, 0x61, 0x66, 0xe9])); // "café" in Latin-1
    expect((await run('Edit', { file_path: 'latin1.txt', old_string: 'caf', new_string: 'CAF' })).text).toBe(
      'latin1.txt: is not valid UTF-8, so it cannot be edited without changing its encoding.',
    );
    expect([...(await fs.readFile(file('latin1.txt')))]).toEqual([0x63, 0x61, 0x66, 0xe9]);
    await seed('bin.dat', Buffer.from([1, 0, 2]));
    expect((await run('Edit', { file_path: 'bin.dat', old_string: '\u0001', new_string: 'x' })).text).toBe('bin.dat: is a binary file; Edit only changes text.');
  });

  it('refuses missing files, directories, and paths outside the workspace', async () => {
    expect(await run('Edit', { file_path: 'nope.txt', old_string: 'a', new_string: 'b' })).toEqual({
      isError: true,
      text: 'nope.txt: does not exist (use Write to create a file)',
    });
    expect((await run('Edit', { file_path: '../x', old_string: 'a', new_string: 'b' })).text).toBe('../x: outside the workspace');
    await fs.mkdir(file('d'));
    expect((await run('Edit', { file_path: 'd', old_string: 'a', new_string: 'b' })).text).toBe('d: is a directory');
  });
});

describe('MultiEdit', () => {
  it('applies edits in order, each on the previous result', async () => {
    await seed('m.txt', 'alpha beta gamma\n');
    const res = await run('MultiEdit', {
      file_path: 'm.txt',
      edits: [
        { old_string: 'alpha', new_string: 'ALPHA beta' },
        { old_string: 'beta', new_string: 'B', replace_all: true },
        { old_string: 'gamma', new_string: 'G' },
      ],
    });
    expect(res.text.split('\n')[0]).toBe('Edited m.txt (3 edits, 4 replacements).');
    expect(await fs.readFile(file('m.txt'), 'utf8')).toBe('ALPHA B B G\n');
  });

  it('is all or nothing: a failing edit names its index and nothing is written', async () => {
    await seed('n.txt', 'one two three');
    const res = await run('MultiEdit', {
      file_path: 'n.txt',
      edits: [
        { old_string: 'one', new_string: '1' },
        { old_string: 'four', new_string: '4' },
      ],
    });
    expect(res).toEqual({
      isError: true,
      text: 'n.txt: edit 2 of 2: old_string was not found in the file; it must match exactly, including whitespace and indentation. Nothing was written.',
    });
    expect(await fs.readFile(file('n.txt'), 'utf8')).toBe('one two three');
  });

  it('validates its input: at least one edit, no unknown fields', async () => {
    await seed('v.txt', 'v');
    expect((await run('MultiEdit', { file_path: 'v.txt', edits: [] })).text).toContain('input.edits: must NOT have fewer than 1 items');
    expect((await run('MultiEdit', { file_path: 'v.txt', edits: [{ old_string: 'v', new_string: 'w', extra: 1 }] })).text).toContain(
      'input.edits.0: unknown property "extra" is not allowed',
    );
  });
});
