// Reading a tree without following links (src/sandbox/no-follow.ts), as the server reads a
// workspace's skills and instruction files: a link at any component is refused wherever it points
// (out of the tree, to /etc, or inside the tree), a FIFO is never opened, a huge file is refused
// without being read, and a hard link is refused when asked.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { listNoFollow, NoFollowMissing, NoFollowTooLarge, readNoFollow } from '../../src/sandbox/no-follow.js';
import { PathRefusal } from '../../src/sandbox/paths.js';

let base: string;
let root: string;
let other: string;

beforeEach(async () => {
  base = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'norma-nofollow-')));
  root = path.join(base, 'ws');
  other = path.join(base, 'other-tenant');
  await fs.mkdir(path.join(root, 'a', 'b'), { recursive: true });
  await fs.mkdir(path.join(other, 'a', 'b'), { recursive: true });
  await fs.writeFile(path.join(root, 'a', 'b', 'f.md'), 'own\n');
  await fs.writeFile(path.join(other, 'a', 'b', 'f.md'), 'OTHER TENANT SECRET\n');
});
afterEach(async () => {
  await fs.rm(base, { recursive: true, force: true });
});

async function refusalOf(p: Promise<unknown>): Promise<PathRefusal> {
  const err = await p.then(
    () => new Error('expected a refusal'),
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(PathRefusal);
  return err as PathRefusal;
}

const read = (parts: string[], more: Partial<Parameters<typeof readNoFollow>[2]> = {}) => readNoFollow(root, parts, { maxBytes: 1024, ...more });

describe('readNoFollow', () => {
  it('reads a regular file below the root, saying its real path', async () => {
    const r = await read(['a', 'b', 'f.md']);
    expect(r.bytes.toString()).toBe('own\n');
    expect(r.real).toBe(path.join(root, 'a', 'b', 'f.md'));
  });

  it('refuses a link at every component, wherever it points, naming the component', async () => {
    // Each case: make the link, read, then put the tree back.
    const cases: { at: string[]; target: string; rule: string }[] = [
      { at: ['a'], target: path.join(other, 'a'), rule: 'a is a symlink (it is not followed)' },
      { at: ['a', 'b'], target: path.join(other, 'a', 'b'), rule: 'a/b is a symlink (it is not followed)' },
      { at: ['a', 'b'], target: '/etc', rule: 'a/b is a symlink (it is not followed)' },
      { at: ['a', 'b', 'f.md'], target: path.join(other, 'a', 'b', 'f.md'), rule: 'is a symlink (it is not followed)' },
      { at: ['a', 'b', 'f.md'], target: '/etc/passwd', rule: 'is a symlink (it is not followed)' },
      // Inside the tree too: the link could be re-pointed between a check and the open.
      { at: ['a', 'b'], target: path.join(root, 'inner'), rule: 'a/b is a symlink (it is not followed)' },
      { at: ['a', 'b', 'f.md'], target: path.join(root, 'inner', 'f.md'), rule: 'is a symlink (it is not followed)' },
    ];
    await fs.mkdir(path.join(root, 'inner'));
    await fs.writeFile(path.join(root, 'inner', 'f.md'), 'inner\n');
    for (const c of cases) {
      const at = path.join(root, ...c.at);
      const saved = path.join(base, 'saved');
      await fs.rename(at, saved);
      await fs.symlink(c.target, at);
      const refused = await refusalOf(read(['a', 'b', 'f.md']));
      expect(refused.rule, c.at.join('/')).toBe(c.rule);
      expect(refused.confinement).toBe(true);
      await fs.rm(at);
      await fs.rename(saved, at);
    }
    expect((await read(['a', 'b', 'f.md'])).bytes.toString()).toBe('own\n');
  });

  it('says a missing component or file is missing', async () => {
    await expect(read(['nope', 'f.md'])).rejects.toBeInstanceOf(NoFollowMissing);
    await expect(read(['a', 'b', 'nope.md'])).rejects.toBeInstanceOf(NoFollowMissing);
  });

  it('never opens a FIFO, where a file or a directory is expected', async () => {
    execFileSync('mkfifo', [path.join(root, 'fifo')]);
    expect((await refusalOf(read(['fifo']))).rule).toBe('is not a regular file (a FIFO)');
    expect((await refusalOf(read(['fifo', 'f.md']))).rule).toBe('fifo is not a directory');
    expect((await refusalOf(read(['a']))).rule).toBe('is a directory');
  }, 10_000);

  it('refuses a file past the bound without reading it (a 4 GiB sparse file)', async () => {
    const huge = path.join(root, 'huge.md');
    await fs.writeFile(huge, '');
    await fs.truncate(huge, 4 * 1024 ** 3);
    const refused = await refusalOf(read(['huge.md']));
    expect(refused).toBeInstanceOf(NoFollowTooLarge);
    expect((refused as NoFollowTooLarge).size).toBe(4 * 1024 ** 3);
    const exact = path.join(root, 'exact.md');
    await fs.writeFile(exact, 'x'.repeat(1024));
    expect((await read(['exact.md'])).bytes.length).toBe(1024);
    await fs.appendFile(exact, 'y');
    expect(await refusalOf(read(['exact.md']))).toBeInstanceOf(NoFollowTooLarge);
  }, 10_000);

  it('refuses a file with another hard link when asked to, and reads it otherwise', async () => {
    await fs.link(path.join(other, 'a', 'b', 'f.md'), path.join(root, 'linked.md'));
    expect((await refusalOf(read(['linked.md'], { singleLink: true }))).rule).toBe('has 2 hard links (a file read here must have one)');
    expect((await read(['linked.md'])).bytes.toString()).toBe('OTHER TENANT SECRET\n');
  });

  it('refuses a root that is itself a link', async () => {
    const link = path.join(base, 'link-root');
    await fs.symlink(other, link);
    expect((await refusalOf(readNoFollow(link, ['a', 'b', 'f.md'], { maxBytes: 1024 }))).rule).toBe('. is a symlink (it is not followed)');
  });
});

describe('listNoFollow', () => {
  it('lists a directory reached without links, its own links listed as links', async () => {
    await fs.symlink(path.join(other, 'a'), path.join(root, 'a', 'b', 'out'));
    const { real, entries } = await listNoFollow(root, ['a', 'b']);
    expect(real).toBe(path.join(root, 'a', 'b'));
    expect(entries.map((e) => [e.name, e.isSymbolicLink()]).sort()).toEqual([
      ['f.md', false],
      ['out', true],
    ]);
  });

  it('refuses a link on the way', async () => {
    await fs.rm(path.join(root, 'a'), { recursive: true });
    await fs.symlink(path.join(other, 'a'), path.join(root, 'a'));
    const refused = await refusalOf(listNoFollow(root, ['a', 'b'], { userPath: '.norma/skills' }));
    expect(refused.message).toBe('.norma/skills: a is a symlink (it is not followed)');
  });
});
