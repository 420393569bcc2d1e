// Instruction files (AGENTS.md, NORMA.md, CLAUDE.md) are read by the server on its own: a link is
// never followed, wherever it points; a hard link, a FIFO and a huge file are refused with a
// warning, never read (or hung on); a plain file is read and listed with its digest.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadInstructions, MAX_INSTRUCTION_BYTES } from '../../src/session/instructions.js';
import { Workspace } from '../../src/sandbox/paths.js';

let base: string;
let ws: string;
let other: string;

beforeEach(async () => {
  base = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'norma-instr-unit-')));
  ws = path.join(base, 'tenants', 'beta', 'proj');
  other = path.join(base, 'tenants', 'acme', 'proj');
  await fs.mkdir(ws, { recursive: true });
  await fs.mkdir(other, { recursive: true });
  await fs.writeFile(path.join(other, 'AGENTS.md'), 'ACME SECRET INSTRUCTIONS\n');
});
afterEach(async () => {
  await fs.rm(base, { recursive: true, force: true });
});

const load = async () => loadInstructions(await Workspace.open(ws));

describe('loadInstructions', () => {
  it('reads a plain file, with its digest, and follows no link: into another tenant\'s workspace, to /etc, or inside the workspace', async () => {
    await fs.writeFile(path.join(ws, 'AGENTS.md'), 'Run the tests.\n');
    await fs.mkdir(path.join(ws, 'docs'));
    await fs.writeFile(path.join(ws, 'docs', 'claude.md'), 'inner\n');
    await fs.symlink(path.join(other, 'AGENTS.md'), path.join(ws, 'NORMA.md'));
    await fs.symlink(path.join(ws, 'docs', 'claude.md'), path.join(ws, 'CLAUDE.md'));
    const r = await load();
    expect(r.files).toEqual([{ file: 'AGENTS.md', bytes: 15, sha256: createHash('sha256').update('Run the tests.\n').digest('hex') }]);
    expect(r.text).toBe('Instructions from AGENTS.md at the workspace root:\n\nRun the tests.');
    expect(r.problems).toEqual([
      'instruction file NORMA.md was not loaded: is a symlink (it is not followed)',
      'instruction file CLAUDE.md was not loaded: is a symlink (it is not followed)',
    ]);
    await fs.rm(path.join(ws, 'AGENTS.md'));
    await fs.symlink('/etc/passwd', path.join(ws, 'AGENTS.md'));
    const etc = await load();
    expect(etc.files).toEqual([]);
    expect(etc.problems[0]).toBe('instruction file AGENTS.md was not loaded: is a symlink (it is not followed)');
  });

  it('refuses a hard link (it could be another tenant\'s file), a FIFO (without hanging), a directory and a file past the limit (unread)', async () => {
    await fs.link(path.join(other, 'AGENTS.md'), path.join(ws, 'AGENTS.md'));
    execFileSync('mkfifo', [path.join(ws, 'NORMA.md')]);
    await fs.mkdir(path.join(ws, 'CLAUDE.md'));
    const r = await load();
    expect(r.files).toEqual([]);
    expect(r.text).not.toContain('ACME');
    expect(r.problems).toEqual([
      'instruction file AGENTS.md was not loaded: has 2 hard links (a file read here must have one)',
      'instruction file NORMA.md was not loaded: is not a regular file (a FIFO)',
      'instruction file CLAUDE.md was not loaded: is a directory',
    ]);
    // A 2 GiB sparse file and one a byte over the limit; one exactly at it is read.
    for (const f of ['AGENTS.md', 'NORMA.md', 'CLAUDE.md']) await fs.rm(path.join(ws, f), { recursive: true });
    await fs.writeFile(path.join(ws, 'AGENTS.md'), '');
    await fs.truncate(path.join(ws, 'AGENTS.md'), 2 * 1024 ** 3);
    await fs.writeFile(path.join(ws, 'CLAUDE.md'), 'x'.repeat(MAX_INSTRUCTION_BYTES + 1));
    await fs.writeFile(path.join(ws, 'NORMA.md'), 'y'.repeat(MAX_INSTRUCTION_BYTES));
    const big = await load();
    expect(big.files.map((f) => [f.file, f.bytes])).toEqual([['NORMA.md', MAX_INSTRUCTION_BYTES]]);
    expect(big.problems).toEqual([
      `instruction file AGENTS.md was not loaded: it has more than the ${MAX_INSTRUCTION_BYTES} bytes allowed`,
      `instruction file CLAUDE.md was not loaded: it has more than the ${MAX_INSTRUCTION_BYTES} bytes allowed`,
    ]);
  }, 10_000);

  it('reads from the workspace\'s real path only: a root replaced by a link is not followed', async () => {
    const root = (await Workspace.open(ws)).root;
    await fs.rename(ws, `${ws}-moved`);
    await fs.symlink(other, ws);
    const r = await loadInstructions({ root });
    expect(r.files).toEqual([]);
    expect(r.problems.join('\n')).not.toContain('ACME');
    expect(r.problems[0]).toBe('instruction file AGENTS.md was not loaded: . is a symlink (it is not followed)');
  });
});
