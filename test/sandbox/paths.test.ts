// The path sandbox's boundary for the cases the file tools rely on today.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Confinement } from '../../src/sandbox/path-confine.js';
import { PathRefusal, Workspace } from '../../src/sandbox/paths.js';
import { refusal } from '../helpers/refusal.js';

let base: string;
let root: string;
let outside: string;
let ws: Workspace;

beforeEach(async () => {
  base = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'norma-paths-')));
  root = path.join(base, 'ws');
  outside = path.join(base, 'outside');
  await fs.mkdir(root);
  await fs.mkdir(outside);
  await fs.writeFile(path.join(outside, 'secret.txt'), 'TOP SECRET');
  await fs.writeFile(path.join(root, 'inside.txt'), 'fine');
  ws = await Workspace.open(root);
});
afterEach(async () => {
  await fs.rm(base, { recursive: true, force: true });
});


describe('Workspace confinement', () => {
  it('reads a file inside by relative and by absolute path', async () => {
    for (const p of ['inside.txt', './inside.txt', path.join(root, 'inside.txt'), 'sub/../inside.txt']) {
      const f = await ws.openForRead(p);
      expect(await f.handle.readFile('utf8')).toBe('fine');
      await f.handle.close();
    }
  });

  it.each([
    ['../outside/secret.txt', 'outside the workspace'],
    ['sub/../../outside/secret.txt', 'outside the workspace'],
    ['/etc/passwd', 'outside the workspace'],
    ['/proc/self/environ', 'outside the workspace'],
    ['inside.txt\0.png', 'contains a NUL byte'],
    ['', 'empty path'],
  ])('refuses %j lexically (%s)', async (p, rule) => {
    expect(await refusal(ws.openForRead(p))).toBe(rule);
  });

  it('refuses an overlong path', async () => {
    expect(await refusal(ws.openForRead('a/'.repeat(3000)))).toMatch(/longer than 4096/);
  });

  it('refuses a symlink that leads outside, for reading and through a directory link', async () => {
    await fs.symlink(path.join(outside, 'secret.txt'), path.join(root, 'link.txt'));
    await fs.symlink(outside, path.join(root, 'dirlink'));
    expect(await refusal(ws.openForRead('link.txt'))).toMatch(/symlink to outside/);
    expect(await refusal(ws.openForRead('dirlink/secret.txt'))).toMatch(/symlink to outside/);
  });

  it('follows a symlink that stays inside for reading', async () => {
    await fs.symlink('inside.txt', path.join(root, 'alias.txt'));
    const f = await ws.openForRead('alias.txt');
    expect(await f.handle.readFile('utf8')).toBe('fine');
    await f.handle.close();
  });

  it('refuses writes through a symlink, to a dangling link, and through a directory link', async () => {
    await fs.symlink(path.join(outside, 'secret.txt'), path.join(root, 'link.txt'));
    await fs.symlink(path.join(outside, 'new.txt'), path.join(root, 'dangling.txt'));
    await fs.symlink(outside, path.join(root, 'dirlink'));
    expect(await refusal(ws.writeFileAtomic('link.txt', 'x'))).toMatch(/symlink/);
    expect(await refusal(ws.writeFileAtomic('dangling.txt', 'x'))).toMatch(/symlink/);
    expect(await refusal(ws.writeFileAtomic('dirlink/new.txt', 'x'))).toMatch(/outside the workspace/);
    expect(await fs.readFile(path.join(outside, 'secret.txt'), 'utf8')).toBe('TOP SECRET');
    await expect(fs.stat(path.join(outside, 'new.txt'))).rejects.toThrow();
  });

  it('refuses to write a file with another hard link, leaving both names untouched', async () => {
    await fs.link(path.join(outside, 'secret.txt'), path.join(root, 'hard.txt'));
    expect(await refusal(ws.writeFileAtomic('hard.txt', 'pwned'))).toBe('has more than one hard link');
    expect(await fs.readFile(path.join(outside, 'secret.txt'), 'utf8')).toBe('TOP SECRET');
  });

  it('never opens a FIFO (no hang) and refuses directories for reading', async () => {
    execFileSync('mkfifo', [path.join(root, 'pipe')]);
    expect(await refusal(ws.openForRead('pipe'))).toBe('is not a regular file (a FIFO)');
    await fs.mkdir(path.join(root, 'dir'));
    expect(await refusal(ws.openForRead('dir'))).toBe('is a directory');
    expect(await refusal(ws.openForRead('missing.txt'))).toBe('does not exist');
  });

  it('writes atomically, creates parents inside, and leaves no temp files', async () => {
    const r = await ws.writeFileAtomic('a/b/c.txt', 'hello');
    expect(r).toMatchObject({ created: true, previous: null, path: path.join(root, 'a/b/c.txt') });
    const again = await ws.writeFileAtomic('a/b/c.txt', 'bye');
    expect(again).toMatchObject({ created: false, previous: 'hello' });
    expect(await fs.readFile(path.join(root, 'a/b/c.txt'), 'utf8')).toBe('bye');
    expect(await fs.readdir(path.join(root, 'a/b'))).toEqual(['c.txt']);
  });

  it('keeps an existing file\'s mode on replace', async () => {
    await fs.writeFile(path.join(root, 'run.sh'), '#!/bin/sh\n', { mode: 0o750 });
    await fs.chmod(path.join(root, 'run.sh'), 0o750);
    await ws.writeFileAtomic('run.sh', '#!/bin/sh\necho hi\n');
    expect((await fs.stat(path.join(root, 'run.sh'))).mode & 0o777).toBe(0o750);
  });

  it('refuses to write the workspace itself or through a file used as a directory', async () => {
    expect(await refusal(ws.writeFileAtomic('.', 'x'))).toBe('is the workspace directory');
    expect(await refusal(ws.writeFileAtomic('inside.txt/child', 'x'))).toMatch(/is not a directory/);
  });

  it('refuses directory listing outside and through links that leave', async () => {
    await fs.symlink(outside, path.join(root, 'dirlink'));
    expect(await refusal(ws.readDirectory('..'))).toBe('outside the workspace');
    expect(await refusal(ws.readDirectory('dirlink'))).toMatch(/symlink to outside/);
  });
});

describe('listRealDirectory (the walk\'s one-open listing)', () => {
  it('lists a real directory inside, and refuses paths outside or not normalised', async () => {
    await fs.mkdir(path.join(root, 'd/e'), { recursive: true });
    await fs.writeFile(path.join(root, 'd/e/f.txt'), '');
    expect((await ws.listRealDirectory(path.join(root, 'd/e'))).map((e) => e.name)).toEqual(['f.txt']);
    expect(await refusal(ws.listRealDirectory(outside))).toBe('outside the workspace');
    expect(await refusal(ws.listRealDirectory(`${root}/d/../../outside`))).toBe('outside the workspace');
    expect(await refusal(ws.listRealDirectory('d/e'))).toBe('outside the workspace');
  });

  it('refuses a directory that is now a symlink, to outside or inside, without listing it', async () => {
    await fs.symlink(outside, path.join(root, 'swapped'));
    await fs.mkdir(path.join(root, 'target'));
    await fs.symlink(path.join(root, 'target'), path.join(root, 'alias'));
    for (const name of ['swapped', 'alias']) {
      expect(await refusal(ws.listRealDirectory(path.join(root, name)))).toMatch(/not a directory|symlink|changed while/);
    }
  });
});

describe('a workspace that keeps its root open (a session\'s)', () => {
  const fds = async () => (await fs.readdir('/proc/self/fd')).length;
  const read = async (w: Workspace, p: string) => {
    const f = await w.openForRead(p);
    try {
      return await f.handle.readFile('utf8');
    } finally {
      await f.handle.close();
    }
  };

  it('opens the root once for many walks, and closes it with the workspace', async () => {
    await fs.writeFile(path.join(root, 'a.txt'), 'one');
    await fs.mkdir(path.join(root, 'sub'));
    await fs.writeFile(path.join(root, 'sub', 'b.txt'), 'two');
    const before = await fds();
    const kept = await Workspace.open(root, [], { keepRoot: true });
    for (let i = 0; i < 5; i++) {
      expect(await read(kept, 'a.txt')).toBe('one');
      expect(await read(kept, 'sub/b.txt')).toBe('two');
    }
    // Exactly one more descriptor is open between walks: the root's.
    expect(await fds()).toBe(before + 1);
    await kept.close();
    await new Promise((r) => setTimeout(r, 20));
    expect(await fds()).toBe(before);
    // Closed, it still works (opening the root each time) and keeps nothing open.
    expect(await read(kept, 'a.txt')).toBe('one');
    expect(await fds()).toBe(before);
  });

  it('never trusts the kept descriptor: a workspace moved away and made anew is read as it is now', async () => {
    await fs.writeFile(path.join(root, 'a.txt'), 'old');
    const kept = await Workspace.open(root, [], { keepRoot: true });
    try {
      expect(await read(kept, 'a.txt')).toBe('old');
      await fs.rename(root, path.join(base, 'moved'));
      await fs.mkdir(root);
      await fs.writeFile(path.join(root, 'a.txt'), 'new');
      expect(await read(kept, 'a.txt')).toBe('new');
      // Removed altogether: a refusal for the missing file, not a read through the old descriptor.
      await fs.rm(root, { recursive: true });
      expect(await refusal(read(kept, 'a.txt'))).toMatch(/no such file|not found|does not exist/i);
      await fs.mkdir(root);
    } finally {
      await kept.close();
    }
  });

  it('a walk under way keeps the descriptor open after close, until it is done (its number is never reused under it)', async () => {
    const c = new Confinement([root], true);
    c.keepRoot();
    const anchor = await c.openDir('.', root, false);
    const fd = anchor.handle.fd;
    expect(await fs.readlink(`/proc/self/fd/${fd}`)).toBe(root);
    await c.close();
    await new Promise((r) => setTimeout(r, 20));
    expect(await fs.readlink(`/proc/self/fd/${fd}`)).toBe(root);
    await anchor.handle.close();
    await new Promise((r) => setTimeout(r, 20));
    // Closed (the number may already name something else of this process, never the root).
    expect(await fs.readlink(`/proc/self/fd/${fd}`).catch(() => null)).not.toBe(root);
  });
});
