// A deny (or ask) rule on reading a path is not dodged by searching or listing its directory:
// Grep (both engines), Glob and LS leave such entries out and say how many they left out.
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createGrepTool, findRipgrep } from '../../../src/capabilities/files/grep.js';
import { globTool } from '../../../src/capabilities/files/glob.js';
import { lsTool } from '../../../src/capabilities/files/ls.js';
import { pipelineHarness, runTool, type PipelineHarness } from '../../helpers/pipeline.js';

const RG = findRipgrep();
let h: PipelineHarness;

/** A harness whose Grep is ripgrep ('Grep') or the TypeScript fallback ('GrepFallback'), always named Grep. */
async function setup(engine: 'Grep' | 'GrepFallback' = 'Grep') {
  if (engine === 'Grep' && !RG) throw new Error('ripgrep (`rg`) is not on PATH: install ripgrep to run this test');
  h = await pipelineHarness([createGrepTool({ rgPath: engine === 'Grep' ? RG : null }), globTool, lsTool]);
  const files: Record<string, string> = {
    'src/app.ts': 'const token = process.env.TOKEN;\n',
    'secrets/prod.key': 'token=hunter2\n',
    'secrets/nested/dev.key': 'token=swordfish\n',
    'config/.env': 'TOKEN=abc123\n',
    'notes.md': 'the token lives in secrets/\n',
  };
  for (const [f, text] of Object.entries(files)) {
    await fs.mkdir(path.dirname(path.join(h.dir, f)), { recursive: true });
    await fs.writeFile(path.join(h.dir, f), text);
  }
  // A symlink to the secret directory is the same directory: it is left out too.
  await fs.symlink('secrets', path.join(h.dir, 'alias'));
}
afterEach(async () => {
  await h?.cleanup();
});

describe('searches leave out what a read rule covers', () => {
  it.each(['Grep', 'GrepFallback'] as const)('%s: content search shows no line of a denied file, and says what it left out', async (tool) => {
    await setup(tool);
    h.setRules({ deny: ['Read(secrets/**)', 'Read(.env)'] });
    const r = await runTool(h, 'Grep', { pattern: 'token|TOKEN', output_mode: 'content' });
    expect(r.isError).toBe(false);
    expect(r.text).toContain('src/app.ts');
    expect(r.text).toContain('notes.md');
    expect(r.text).not.toContain('hunter2');
    expect(r.text).not.toContain('swordfish');
    expect(r.text).not.toContain('abc123');
    expect(r.text).toMatch(/\[\d+ path\(s\) left out: a permission rule covers reading them\]/);
  });

  it.each(['Grep', 'GrepFallback'] as const)('%s: without rules the same search finds them (the test can fail)', async (tool) => {
    await setup(tool);
    const r = await runTool(h, 'Grep', { pattern: 'hunter2|abc123', output_mode: 'files_with_matches' });
    expect(r.text).toContain('secrets/prod.key');
    expect(r.text).toContain('config/.env');
    expect(r.text).not.toContain('left out');
  });

  it.each(['Grep', 'GrepFallback'] as const)('%s: files_with_matches and count modes leave them out too; an ask rule counts like a deny', async (tool) => {
    await setup(tool);
    h.setRules({ ask: ['Read(*.key)'] });
    const files = await runTool(h, 'Grep', { pattern: 'token', output_mode: 'files_with_matches' });
    expect(files.text).not.toContain('.key');
    expect(files.text).toContain('src/app.ts');
    const count = await runTool(h, 'Grep', { pattern: 'token', output_mode: 'count' });
    expect(count.text).not.toContain('.key');
    expect(count.text).toContain('left out');
  });

  it('Grep on the denied directory itself is denied outright, also through a symlink', async () => {
    await setup();
    h.setRules({ deny: ['Read(secrets/**)'] });
    for (const p of ['secrets', 'alias', 'alias/nested']) {
      const r = await runTool(h, 'Grep', { pattern: 'token', path: p });
      expect(r).toEqual({ isError: true, text: 'Permission denied: denied by rule "Read(secrets/**)".' });
    }
  });

  it('Glob leaves out matches (and whole directories) a rule covers', async () => {
    await setup();
    h.setRules({ deny: ['Read(secrets)', 'Read(.env)'] });
    const r = await runTool(h, 'Glob', { pattern: '**/*' });
    expect(r.text.split('\n')).toEqual(expect.arrayContaining(['src/app.ts', 'notes.md']));
    expect(r.text).not.toMatch(/\.key|\.env/);
    expect(r.text).toContain('left out: a permission rule covers reading them');
  });

  it('LS leaves out entries a rule covers', async () => {
    await setup();
    h.setRules({ deny: ['Read(secrets/)'] });
    const r = await runTool(h, 'LS', { path: '.' });
    expect(r.text).toContain('- src/');
    expect(r.text).not.toContain('- secrets/');
    expect(r.text).toContain('[1 entry left out: a permission rule covers reading them]');
    const plain = await (async () => {
      h.setRules({});
      return runTool(h, 'LS', { path: '.' });
    })();
    expect(plain.text).toContain('- secrets/');
  });

  it('a rule for another tool does not hide anything from this one', async () => {
    await setup('GrepFallback');
    h.setRules({ deny: ['Glob(secrets/**)'] });
    const r = await runTool(h, 'Grep', { pattern: 'hunter2', output_mode: 'files_with_matches' });
    expect(r.text).toContain('secrets/prod.key');
  });
});
