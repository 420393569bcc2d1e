// A workspace's own skills are its own: reached from the workspace without following a link at
// any component (`.norma`, `.norma/skills`), wherever it points — another tenant's workspace, /etc,
// or inside the workspace — with FIFOs and hard links refused; and a used skill opens a folder to
// the file tools only in the operator's skill directories, never anywhere else.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SkillInfo } from '../../../src/capabilities/skills/loader.js';
import { PathRefusal, Workspace } from '../../../src/sandbox/paths.js';
import { openSkillFolder, sessionSkills } from '../../../src/session/skills.js';

let tmp: string;
let operatorDir: string;
let workspaceDir: string;

beforeEach(async () => {
  tmp = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'norma-wsskills-')));
  operatorDir = path.join(tmp, 'operator');
  workspaceDir = path.join(tmp, 'ws', '.norma', 'skills');
  await fs.mkdir(operatorDir, { recursive: true });
  await fs.mkdir(workspaceDir, { recursive: true });
});

afterEach(async () => {
  await fs.rm(tmp, { recursive: true, force: true });
});

/** Writes `<root>/<folder>/SKILL.md` with this exact text. */
async function writeSkill(root: string, folder: string, text: string): Promise<string> {
  await fs.mkdir(path.join(root, folder), { recursive: true });
  const file = path.join(root, folder, 'SKILL.md');
  await fs.writeFile(file, text);
  return file;
}

function skillText(name: string, description: string, extra = '', body = `# ${name}\n\nSteps for ${name}.\n`): string {
  return `---\nname: ${name}\ndescription: ${description}\n${extra}---\n${body}`;
}

describe('a workspace\'s own skills', () => {
  /** Another tenant's project with a valid skill, and a workspace of this tenant's to plant links in. */
  async function trees(): Promise<{ acme: string; beta: string; acmeSkill: string }> {
    const acme = path.join(tmp, 'tenants', 'acme', 'proj');
    const acmeSkill = path.join(acme, '.norma', 'skills', 'private');
    await writeSkill(path.join(acme, '.norma', 'skills'), 'private', skillText('private', 'ACME PRIVATE DESCRIPTION', '', 'ACME PRIVATE BODY\n'));
    await fs.writeFile(path.join(acmeSkill, 'notes.md'), 'ACME NOTES\n');
    const beta = path.join(tmp, 'tenants', 'beta', 'proj');
    await fs.mkdir(beta, { recursive: true });
    return { acme, beta, acmeSkill };
  }

  it('are reached from the workspace without a link at any component, wherever it points', async () => {
    const { acme, beta } = await trees();
    // Sanity: the other tenant's own session sees its skill.
    expect((await sessionSkills({ skillsDir: undefined }, acme, undefined)).skills.map((k) => k.name)).toEqual(['private']);
    const dot = path.join(beta, '.norma');
    const cases: { label: string; plant(): Promise<void>; says: string }[] = [
      { label: '.norma → another tenant\'s', plant: () => fs.symlink(path.join(acme, '.norma'), dot), says: '.norma is a symlink (it is not followed)' },
      {
        label: '.norma → inside the workspace',
        plant: async () => {
          await writeSkill(path.join(beta, 'config', 'skills'), 'inner', skillText('inner', 'Inner'));
          await fs.symlink(path.join(beta, 'config'), dot);
        },
        says: '.norma is a symlink (it is not followed)',
      },
      {
        label: '.norma/skills → another tenant\'s',
        plant: async () => {
          await fs.mkdir(dot);
          await fs.symlink(path.join(acme, '.norma', 'skills'), path.join(dot, 'skills'));
        },
        says: '.norma/skills is a symlink (it is not followed)',
      },
      {
        label: '.norma/skills → /etc',
        plant: async () => {
          await fs.mkdir(dot);
          await fs.symlink('/etc', path.join(dot, 'skills'));
        },
        says: '.norma/skills is a symlink (it is not followed)',
      },
      { label: '.norma a FIFO', plant: async () => void execFileSync('mkfifo', [dot]), says: '.norma is not a directory' },
      { label: '.norma a file', plant: () => fs.writeFile(dot, 'x'), says: '.norma is not a directory' },
    ];
    for (const c of cases) {
      await c.plant();
      const found = await sessionSkills({ skillsDir: undefined }, beta, undefined);
      expect(found.skills, c.label).toEqual([]);
      expect(found.warnings.join('\n'), c.label).toContain(c.says);
      expect(found.warnings.join('\n'), c.label).not.toContain('ACME PRIVATE');
      // Naming the other tenant's skill is an error, not a skill.
      const named = await sessionSkills({ skillsDir: undefined }, beta, ['private']);
      expect(named.skills, c.label).toEqual([]);
      expect(named.errors.join('\n'), c.label).toContain('no skill named "private"');
      await fs.rm(dot, { recursive: true, force: true });
      await fs.rm(path.join(beta, 'config'), { recursive: true, force: true });
    }
    // And without links, the workspace's own skills load.
    await writeSkill(path.join(dot, 'skills'), 'mine', skillText('mine', 'Mine'));
    expect((await sessionSkills({ skillsDir: undefined }, beta, undefined)).skills.map((k) => [k.name, k.dir])).toEqual([['mine', path.join(dot, 'skills', 'mine')]]);
  }, 15_000);

  it('refuses a workspace SKILL.md with another hard link; the operator\'s may have one', async () => {
    const { beta, acmeSkill } = await trees();
    await fs.mkdir(path.join(beta, '.norma', 'skills', 'private'), { recursive: true });
    await fs.link(path.join(acmeSkill, 'SKILL.md'), path.join(beta, '.norma', 'skills', 'private', 'SKILL.md'));
    const found = await sessionSkills({ skillsDir: undefined }, beta, undefined);
    expect(found.skills).toEqual([]);
    expect(found.warnings.join('\n')).toContain('SKILL.md cannot be read: has 2 hard links');
    await fs.mkdir(path.join(operatorDir, 'private'));
    await fs.link(path.join(acmeSkill, 'SKILL.md'), path.join(operatorDir, 'private', 'SKILL.md'));
    expect((await sessionSkills({ skillsDir: operatorDir }, null, undefined)).skills.map((k) => k.name)).toEqual(['private']);
  });
});

describe('openSkillFolder', () => {
  const info = (name: string, dir: string, source: 'operator' | 'workspace'): SkillInfo => ({ name, description: name, allowedTools: [], dir, source, sha256: '' });
  const readable = async (ws: Workspace, file: string) =>
    ws.openForRead(file).then(
      async (f) => {
        await f.handle.close();
        return true;
      },
      (err: unknown) => {
        expect(err).toBeInstanceOf(PathRefusal);
        return false;
      },
    );

  it('opens no folder outside the workspace but the operator\'s: a workspace skill that resolved elsewhere opens nothing', async () => {
    const ws = await Workspace.open(path.join(tmp, 'ws'));
    const elsewhere = path.join(tmp, 'tenants', 'acme', 'proj', '.norma', 'skills', 'private');
    await writeSkill(path.dirname(elsewhere), 'private', skillText('private', 'Private'));
    await fs.writeFile(path.join(elsewhere, 'notes.md'), 'ACME NOTES\n');
    const notes = path.join(elsewhere, 'notes.md');
    // A workspace skill whose folder is outside the workspace (it came through a link).
    const viaWorkspace = openSkillFolder(ws, [info('private', elsewhere, 'workspace')], 'private', []);
    expect(await readable(ws, notes)).toBe(false);
    expect(viaWorkspace).toBe(false);
    // An operator skill whose folder is not in the operator's directories.
    const viaOperator = openSkillFolder(ws, [info('private', elsewhere, 'operator')], 'private', [operatorDir]);
    expect(await readable(ws, notes)).toBe(false);
    expect(viaOperator).toBe(false);
    // An operator skill in the operator's directory: readable, never writable.
    await writeSkill(operatorDir, 'deploy', skillText('deploy', 'Deploys'));
    const { skills, operatorDirs } = await sessionSkills({ skillsDir: operatorDir }, path.join(tmp, 'ws'), undefined);
    expect(operatorDirs).toEqual([operatorDir]);
    expect(openSkillFolder(ws, skills, 'deploy', operatorDirs)).toBe(true);
    expect(await readable(ws, path.join(operatorDir, 'deploy', 'SKILL.md'))).toBe(true);
    await expect(ws.writeFileAtomic(path.join(operatorDir, 'deploy', 'x.md'), 'x')).rejects.toThrow(/read-only/);
    // A workspace skill inside the workspace stays as it was (nothing to open).
    expect(openSkillFolder(ws, [info('lint', path.join(workspaceDir, 'lint'), 'workspace')], 'lint', operatorDirs)).toBe(false);
    expect(await readable(ws, notes)).toBe(false);
  });
});
