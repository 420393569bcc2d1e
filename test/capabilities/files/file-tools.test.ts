// Read, Write and LS through the pipeline: their documented output and refusals.
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { lsTool } from '../../../src/capabilities/files/ls.js';
import { readTool, MAX_LINE_CHARS } from '../../../src/capabilities/files/read.js';
import { writeTool } from '../../../src/capabilities/files/write.js';
import { pipelineHarness, runTool, type PipelineHarness } from '../../helpers/pipeline.js';

let h: PipelineHarness;
beforeEach(async () => {
  h = await pipelineHarness([readTool, writeTool, lsTool]);
  h.setMode('bypassPermissions');
});
afterEach(async () => {
  await h.cleanup();
});

const run = (name: string, input: unknown) => runTool(h, name, input);

describe('Read', () => {
  it('numbers lines like cat -n, honours offset and limit, and says when more follow', async () => {
    await fs.writeFile(path.join(h.dir, 'f.txt'), 'a\nb\nc\nd\n');
    expect(await run('Read', { file_path: 'f.txt' })).toEqual({ isError: false, text: '     1\ta\n     2\tb\n     3\tc\n     4\td' });
    expect((await run('Read', { file_path: 'f.txt', offset: 2, limit: 2 })).text).toBe(
      '     2\tb\n     3\tc\n[more lines follow: continue with offset 4]',
    );
    expect(await run('Read', { file_path: 'f.txt', offset: 9 })).toEqual({ isError: true, text: 'f.txt has 4 lines; offset 9 is past the end.' });
  });

  it('reads 2,000 lines by default and cuts long lines with a note', async () => {
    await fs.writeFile(path.join(h.dir, 'many.txt'), Array.from({ length: 2500 }, (_, i) => `l${i + 1}`).join('\n'));
    const many = await run('Read', { file_path: 'many.txt' });
    expect(many.text.split('\n')).toHaveLength(2001);
    expect(many.text).toContain('[more lines follow: continue with offset 2001]');
    await fs.writeFile(path.join(h.dir, 'long.txt'), 'y'.repeat(MAX_LINE_CHARS + 10));
    const long = await run('Read', { file_path: 'long.txt' });
    expect(long.text).toContain(`[line cut at ${MAX_LINE_CHARS} characters]`);
    expect(long.text).toContain('[1 line(s) were cut at 2000 characters]');
  });

  it('keeps CRLF files readable and reports empty files', async () => {
    await fs.writeFile(path.join(h.dir, 'crlf.txt'), 'one\r\ntwo\r\n');
    expect((await run('Read', { file_path: 'crlf.txt' })).text).toBe('     1\tone\n     2\ttwo');
    await fs.writeFile(path.join(h.dir, 'empty.txt'), '');
    expect(await run('Read', { file_path: 'empty.txt' })).toEqual({ isError: false, text: 'empty.txt is empty.' });
  });

  it('refuses binaries, directories and paths outside, naming path and rule', async () => {
    await fs.writeFile(path.join(h.dir, 'bin.dat'), Buffer.from([0x7f, 0x45, 0x00, 0x01]));
    expect(await run('Read', { file_path: 'bin.dat' })).toEqual({ isError: true, text: 'bin.dat is a binary file; Read only returns text.' });
    await fs.mkdir(path.join(h.dir, 'd'));
    expect(await run('Read', { file_path: 'd' })).toEqual({ isError: true, text: 'd: is a directory' });
    expect(await run('Read', { file_path: '../../etc/passwd' })).toEqual({ isError: true, text: '../../etc/passwd: outside the workspace' });
  });
});

describe('Write', () => {
  it('creates a file and replaces one it has read, with a unified diff', async () => {
    const created = await run('Write', { file_path: 'n/new.txt', content: 'héllo\n' });
    expect(created.isError).toBe(false);
    expect(created.text).toBe(['Created n/new.txt (7 bytes).', '--- a/n/new.txt', '+++ b/n/new.txt', '@@ -0,0 +1,1 @@', '+héllo'].join('\n'));
    // Its own write counts as seen: replacing it needs no new Read.
    const replaced = await run('Write', { file_path: 'n/new.txt', content: 'bye\n' });
    expect(replaced.text).toBe(['Replaced n/new.txt (4 bytes).', '--- a/n/new.txt', '+++ b/n/new.txt', '@@ -1,1 +1,1 @@', '-héllo', '+bye'].join('\n'));
    expect(await fs.readFile(path.join(h.dir, 'n/new.txt'), 'utf8')).toBe('bye\n');
  });

  it('refuses to replace a file not read in this session, or changed since it was read', async () => {
    await fs.writeFile(path.join(h.dir, 'old.txt'), 'original');
    expect(await run('Write', { file_path: 'old.txt', content: 'x' })).toEqual({
      isError: true,
      text: 'old.txt: not read yet in this session; Read it first so the change is based on its current content.',
    });
    await run('Read', { file_path: 'old.txt' });
    await fs.writeFile(path.join(h.dir, 'old.txt'), 'changed by someone else');
    const stale = await run('Write', { file_path: 'old.txt', content: 'x' });
    expect(stale.isError).toBe(true);
    expect(stale.text).toMatch(/^old\.txt: changed since it was last read \(modified .*\); Read it again first\.$/);
    expect(await fs.readFile(path.join(h.dir, 'old.txt'), 'utf8')).toBe('changed by someone else');
    await run('Read', { file_path: 'old.txt' });
    expect((await run('Write', { file_path: 'old.txt', content: 'x' })).isError).toBe(false);
  });

  it('refuses to leave the workspace and leaves nothing behind', async () => {
    const res = await run('Write', { file_path: '/tmp/norma-should-not-exist.txt', content: 'x' });
    expect(res).toEqual({ isError: true, text: '/tmp/norma-should-not-exist.txt: outside the workspace' });
    await expect(fs.stat('/tmp/norma-should-not-exist.txt')).rejects.toThrow();
  });
});

describe('LS', () => {
  it('lists a sorted tree with directories marked and links not followed', async () => {
    await fs.mkdir(path.join(h.dir, 'src/lib'), { recursive: true });
    await fs.writeFile(path.join(h.dir, 'src/lib/a.ts'), '');
    await fs.writeFile(path.join(h.dir, 'README.md'), '');
    await fs.writeFile(path.join(h.dir, 'debug.log'), '');
    await fs.symlink('/etc', path.join(h.dir, 'etc-link'));
    const res = await run('LS', { path: '.', ignore: ['*.log'] });
    expect(res.text).toBe(['./', '  - README.md', '  - etc-link -> (symlink, not followed)', '  - src/', '    - lib/', '      - a.ts'].join('\n'));
  });

  it('refuses files and paths outside', async () => {
    await fs.writeFile(path.join(h.dir, 'f'), '');
    expect(await run('LS', { path: 'f' })).toEqual({ isError: true, text: 'f: is not a directory' });
    expect(await run('LS', { path: '/' })).toEqual({ isError: true, text: '/: outside the workspace' });
  });
});
