// ripgrep runs in the sandbox: a directory swapped for a link to another workspace while a
// search walks it can only show what the sandbox mounts (this workspace), never the other's file.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { execOne } from '../../../src/pipeline/exec-one.js';
import { grepBackend } from '../../../src/capabilities/files/grep.js';
import { grepTool, RG_PATH } from '../../helpers/tools.js';
import { pipelineHarness, type PipelineHarness } from '../../helpers/pipeline.js';

const FLIPPER = String.raw`
const fs = require('fs');
const { dir, link, maxMs } = JSON.parse(process.argv[1]);
const real = dir + '.real';
let flips = 0;
const t0 = Date.now();
const q = (f) => { try { f(); } catch {} };
const stop = () => { q(() => fs.unlinkSync(dir)); q(() => fs.renameSync(real, dir)); process.stdout.write('flips ' + flips + '\n'); process.exit(0); };
process.on('SIGTERM', stop);
function chunk() {
  for (let i = 0; i < 50; i++) {
    q(() => fs.renameSync(dir, real)); q(() => fs.symlinkSync(link, dir)); flips++;
    q(() => fs.unlinkSync(dir)); q(() => fs.renameSync(real, dir)); flips++;
  }
  if (Date.now() - t0 > maxMs) stop();
  setImmediate(chunk);
}
process.stdout.write('ready\n');
chunk();
`;

let h: PipelineHarness | undefined;
let other: string | undefined;
let child: ChildProcess | undefined;
afterEach(async () => {
  if (child && child.exitCode === null) {
    child.kill('SIGKILL');
    await once(child, 'exit');
  }
  await h?.cleanup();
  if (other) await fs.rm(other, { recursive: true, force: true });
});

describe('Grep while a directory is swapped for a link out', () => {
  it('never returns the other workspace\'s file', async () => {
    expect(grepBackend(RG_PATH).kind).toBe('ripgrep');
    h = await pipelineHarness([grepTool], { sandbox: 'bwrap' });
    other = await fs.mkdtemp(path.join(os.tmpdir(), 'norma-other-ws-'));
    await fs.writeFile(path.join(other, 'f.txt'), 'NEEDLE-OTHER-SESSION\n');
    const dir = path.join(h.dir, 'rd');
    await fs.mkdir(dir);
    await fs.writeFile(path.join(dir, 'f.txt'), 'NEEDLE-INSIDE\n');
    child = spawn(process.execPath, ['-e', FLIPPER, JSON.stringify({ dir, link: other, maxMs: 8000 })], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout!.on('data', (b: Buffer) => (out += b.toString()));
    for (let i = 0; i < 250 && !out.includes('ready'); i++) await new Promise((r) => setTimeout(r, 20));
    expect(out).toContain('ready');
    let inside = 0;
    let runs = 0;
    const leaks: string[] = [];
    const t0 = Date.now();
    while (runs < 300 && Date.now() - t0 < 3000) {
      runs++;
      for (const input of [{ pattern: 'NEEDLE', output_mode: 'content' }, { pattern: 'NEEDLE', path: 'rd', output_mode: 'content' }]) {
        const { result } = await execOne({ id: `g${runs}`, name: 'Grep', input }, h.env);
        const text = result.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
        if (text.includes('NEEDLE-OTHER-SESSION')) leaks.push(text.slice(0, 200));
        if (text.includes('NEEDLE-INSIDE')) inside++;
      }
    }
    child.kill('SIGTERM');
    await once(child, 'exit');
    console.log(`[grep race] runs=${runs} inside-matches=${inside} leaks=${leaks.length} ${out.trim().split('\n').pop()}`);
    expect(Number(/flips (\d+)/.exec(out)?.[1] ?? 0)).toBeGreaterThan(0);
    expect(inside).toBeGreaterThan(0);
    expect(leaks).toEqual([]);
  }, 30_000);
});
