// PTY shells in the real sandbox: typing and reading, the same command checks as Bash on
// every completed line, control keys asked about, resize, close and limits.
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { findBwrap } from '../../../src/sandbox/process.js';
import { shellCloseTool } from '../../../src/capabilities/pty/shell-close.js';
import { shellOpenTool } from '../../../src/capabilities/pty/shell-open.js';
import { shellReadTool } from '../../../src/capabilities/pty/shell-read.js';
import { shellResizeTool } from '../../../src/capabilities/pty/shell-resize.js';
import { shellWriteTool } from '../../../src/capabilities/pty/shell-write.js';
import { MAX_SHELLS } from '../../../src/capabilities/pty/shells.js';
import { pipelineHarness, runTool, type PipelineHarness } from '../../helpers/pipeline.js';
import { sleepers, waitUntil } from '../../helpers/processes.js';

let h: PipelineHarness;
beforeEach(async () => {
  const bwrapPath = findBwrap();
  expect(bwrapPath, 'bubblewrap (bwrap) must be installed').not.toBeNull();
  h = await pipelineHarness([shellOpenTool, shellWriteTool, shellReadTool, shellResizeTool, shellCloseTool], { sandbox: 'bwrap' });
});
afterEach(async () => {
  await h.cleanup();
});

const run = (name: string, input: unknown) => runTool(h, name, input);
async function open(): Promise<string> {
  const res = await run('ShellOpen', { cols: 100, rows: 30 });
  const id = /Opened shell (shell_[A-Za-z0-9_-]+)\./.exec(res.text)?.[1];
  expect(id, res.text).toBeDefined();
  return id!;
}
/** Reads until the accumulated output contains `needle` (bounded). */
async function readUntil(id: string, needle: string): Promise<string> {
  let all = '';
  for (let i = 0; i < 40 && !all.includes(needle); i++) {
    const r = await run('ShellRead', { shell_id: id, wait_ms: 250, strip_ansi: true });
    if (r.text !== '(no new output)') all += r.text;
  }
  return all;
}

describe('PTY shells', () => {
  it('runs read-only command lines without asking and shows their output', async () => {
    const id = await open();
    await fs.writeFile(path.join(h.dir, 'hello.txt'), 'hi from the workspace\n');
    expect((await run('ShellWrite', { shell_id: id, input: 'cat hello.txt; pwd\r' })).isError).toBe(false);
    const out = await readUntil(id, (await fs.realpath(h.dir)));
    expect(out).toContain('hi from the workspace');
    expect(h.asked).toEqual([]);
  });

  it('asks before a line that changes things runs, and a denied line never reaches the shell', async () => {
    const id = await open();
    h.answers.push({ behavior: 'deny', message: 'not now' });
    expect((await run('ShellWrite', { shell_id: id, input: 'touch made.txt\r' })).text).toBe('Permission denied by the user: not now');
    expect(h.asked[0]).toMatchObject({ tool: 'ShellWrite', reason: 'ShellWrite needs approval' });
    await run('ShellWrite', { shell_id: id, input: 'ls\r' });
    await readUntil(id, '$ ');
    await expect(fs.stat(path.join(h.dir, 'made.txt'))).rejects.toThrow();
  });

  it('checks the whole line when it is typed in pieces', async () => {
    const id = await open();
    // Typing without Enter runs nothing, so it is allowed…
    expect((await run('ShellWrite', { shell_id: id, input: 'rm -rf ' })).isError).toBe(false);
    expect((await run('ShellWrite', { shell_id: id, input: 'important' })).isError).toBe(false);
    expect(h.asked).toEqual([]);
    // …but the Enter that completes `rm -rf important` is asked about.
    h.answers.push({ behavior: 'deny' });
    await run('ShellWrite', { shell_id: id, input: '\r' });
    expect(h.asked.map((a) => a.input)).toEqual([{ shell_id: id, input: '\r' }]);
  });

  it('asks about control keys and lines the analyser cannot account for; dontAsk denies them', async () => {
    const id = await open();
    h.answers.push({ behavior: 'deny' }, { behavior: 'deny' });
    await run('ShellWrite', { shell_id: id, input: '\u001b[A\r' }); // up-arrow: recall history
    await run('ShellWrite', { shell_id: id, input: '$CMD x\r' });
    expect(h.asked.map((a) => a.reason)).toEqual([
      'the input contains control keys (editing, history or completion) whose effect on the command line cannot be checked',
      expect.stringMatching(/^the command could not be fully analysed/),
    ]);
    h.setMode('dontAsk');
    expect((await run('ShellWrite', { shell_id: id, input: 'eval "$X"\r' })).text).toMatch(/^Permission denied: dontAsk mode never asks/);
  });

  it('runs inside the sandbox: no host environment, read-only system', async () => {
    process.env.NORMA_PTY_SECRET = 'pty-sekrit';
    try {
      h.setMode('bypassPermissions');
      const id = await open();
      // `EN""D` prints END, so the echoed command line cannot satisfy the wait.
      await run('ShellWrite', { shell_id: id, input: 'env | grep -c pty-sekrit; touch /etc/x 2>&1 | tail -1; echo EN""D\r' });
      const out = await readUntil(id, 'END\r\n');
      expect(out, JSON.stringify(out)).toMatch(/\n\r?0\r\n/);
      expect(out).toContain('Read-only file system');
    } finally {
      delete process.env.NORMA_PTY_SECRET;
    }
  });

  it('a command cannot type into its own terminal (TIOCSTI): the injected text never runs', async () => {
    h.setMode('bypassPermissions');
    const id = await open();
    await run('ShellWrite', { shell_id: id, input: `perl -e 'ioctl(STDIN, 0x5412, $_) or print "refused: $!\\n" for split //, "touch INJECTED\\r"' | head -1; echo EN""D\r` });
    const out = await readUntil(id, 'END\r\n');
    expect(out).toContain('refused: Operation not permitted');
    await run('ShellWrite', { shell_id: id, input: 'echo AFT""ER\r' });
    await readUntil(id, 'AFTER\r\n');
    await expect(fs.stat(path.join(h.dir, 'INJECTED'))).rejects.toThrow();
  });

  it('reads no readline configuration: neither the workspace\'s .inputrc nor one written to its home', async () => {
    h.setMode('bypassPermissions');
    // Remaps Enter to run another command, as a planted .inputrc would.
    const rc = '"\\C-m": " ; touch REMAPPED\\n"\n"\\r": " ; touch REMAPPED\\n"\n';
    await fs.writeFile(path.join(h.dir, '.inputrc'), rc);
    const first = await open();
    await run('ShellWrite', { shell_id: first, input: 'cp .inputrc ~/.inputrc; echo DO""NE\r' });
    await readUntil(first, 'DONE\r\n');
    const id = await open();
    await run('ShellWrite', { shell_id: id, input: 'echo PLA""IN\r' });
    const out = await readUntil(id, 'PLAIN\r\n');
    expect(out).toContain('PLAIN');
    await expect(fs.stat(path.join(h.dir, 'REMAPPED'))).rejects.toThrow();
  });

  it('resizes, closes (stopping what runs in it), and refuses unknown ids and too many shells', async () => {
    h.setMode('bypassPermissions');
    const id = await open();
    await run('ShellResize', { shell_id: id, cols: 77, rows: 22 });
    await run('ShellWrite', { shell_id: id, input: 'stty size\r' });
    expect(await readUntil(id, '22 77')).toContain('22 77');

    const marker = `${Math.floor(Math.random() * 1e6)}.9191`;
    await run('ShellWrite', { shell_id: id, input: `sleep ${marker} &\r` });
    expect(await waitUntil(() => sleepers(marker), (n) => n === 1)).toBe(1);
    expect((await run('ShellClose', { shell_id: id })).text).toBe(`Closed ${id}.`);
    expect(await waitUntil(() => sleepers(marker), (n) => n === 0, 50)).toBe(0);
    expect(await run('ShellRead', { shell_id: id })).toEqual({ isError: true, text: `no shell ${id} in this session (open one with ShellOpen)` });

    for (let i = 0; i < MAX_SHELLS; i++) await open();
    expect(await run('ShellOpen', {})).toEqual({ isError: true, text: `at most ${MAX_SHELLS} shells are open at once in a session; close one first (ShellClose)` });
  });
});

describe('PTY idle timeout', () => {
  it('closes a shell left idle, and says so on the next use', async () => {
    const { PtyShells } = await import('../../../src/capabilities/pty/shells.js');
    const { newId } = await import('../../../src/ids.js');
    // Long enough for the shell to start its command even on a loaded machine.
    const shells = new PtyShells(newId, 1000);
    const id = await shells.open(h.sandbox, 80, 24);
    const marker = `${Math.floor(Math.random() * 1e6)}.3131`;
    shells.write(id, `sleep ${marker} &\r`);
    expect(await waitUntil(() => sleepers(marker), (n) => n === 1)).toBe(1);
    await new Promise((r) => setTimeout(r, 1300));
    expect(await waitUntil(() => sleepers(marker), (n) => n === 0, 50)).toBe(0);
    await expect(shells.read(id, 0, new AbortController().signal)).rejects.toThrow(`shell ${id} was closed after 1000 ms without use; open a new one`);
    shells.closeAll();
  });
});
