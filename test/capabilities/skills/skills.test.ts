// Skills: loading SKILL.md folders through the path sandbox (what is valid, every kind of problem,
// symlinks and special files refused), the Skill tool's manual and calls, and Skill(name) rules.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { skillsCapability } from '../../../src/capabilities/skills/index.js';
import { loadSkills, MAX_SKILLS_PER_SOURCE, readSkillBody, type SkillInfo, type SkillProblem } from '../../../src/capabilities/skills/loader.js';
import { skillTool } from '../../../src/capabilities/skills/skill.js';
import { SKILL_DESCRIPTION } from '../../../src/capabilities/skills/skill.description.js';
import { evaluatePermission } from '../../../src/permission/evaluate.js';
import { parseRules } from '../../../src/permission/rules.js';
import { Workspace } from '../../../src/sandbox/paths.js';
import type { SessionServices } from '../../../src/tools/capability.js';
import { ToolRefusal, type CoreTool, type ToolContext } from '../../../src/tools/tool.js';

let tmp: string;
let operatorDir: string;
let workspaceDir: string;

beforeEach(async () => {
  tmp = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'norma-skilltest-')));
  operatorDir = path.join(tmp, 'operator');
  workspaceDir = path.join(tmp, 'ws', '.norma', 'skills');
  await fs.mkdir(operatorDir, { recursive: true });
  await fs.mkdir(workspaceDir, { recursive: true });
});

afterEach(async () => {
  await fs.rm(tmp, { recursive: true, force: true });
});

const sources = () => [
  { dir: operatorDir, source: 'operator' as const },
  { dir: workspaceDir, source: 'workspace' as const },
];

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

function problemOf(problems: SkillProblem[], name: string): SkillProblem {
  const p = problems.find((x) => x.name === name);
  expect(p, `a problem for ${name} in ${JSON.stringify(problems)}`).toBeDefined();
  return p!;
}

async function problemMessage(text: string, folder = 'bad'): Promise<string> {
  await writeSkill(operatorDir, folder, text);
  const { skills, problems } = await loadSkills(sources());
  expect(skills.map((s) => s.name)).not.toContain(folder);
  return problemOf(problems, folder).message;
}

function ctx(): ToolContext {
  return { sessionId: 's', turnId: 't', toolUseId: 'u', signal: new AbortController().signal, progress: () => undefined } as unknown as ToolContext;
}

async function refusalOf(p: Promise<unknown>): Promise<string> {
  const err = await p.then(
    () => new Error('expected a refusal'),
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ToolRefusal);
  return (err as Error).message;
}

describe('loadSkills', () => {
  it('loads valid skills of both sources, sorted by name, with both forms of allowed-tools', async () => {
    const zeta = await writeSkill(operatorDir, 'zeta', skillText('zeta', 'Zeta things', 'allowed-tools:\n  - WebFetch\n  - mcp__github__*\nlicense: MIT\n'));
    await writeSkill(operatorDir, 'alpha', skillText('alpha', 'Alpha things', 'allowed-tools: Bash, Read Grep\nmetadata:\n  owner: ops\n'));
    await writeSkill(workspaceDir, 'mid', skillText('mid', '"Mid: quoted description"'));
    const { skills, problems } = await loadSkills(sources());
    expect(problems).toEqual([]);
    expect(skills.map((s) => [s.name, s.source])).toEqual([
      ['alpha', 'operator'],
      ['mid', 'workspace'],
      ['zeta', 'operator'],
    ]);
    const [alpha, mid, z] = skills as [SkillInfo, SkillInfo, SkillInfo];
    expect(alpha.allowedTools).toEqual(['Bash', 'Read', 'Grep']);
    expect(z.allowedTools).toEqual(['WebFetch', 'mcp__github__*']);
    expect(mid.allowedTools).toEqual([]);
    expect(mid.description).toBe('Mid: quoted description');
    expect(z.dir).toBe(path.join(operatorDir, 'zeta'));
    expect(mid.dir).toBe(path.join(workspaceDir, 'mid'));
    const { createHash } = await import('node:crypto');
    expect(z.sha256).toBe(createHash('sha256').update(await fs.readFile(zeta)).digest('hex'));
  });

  it('treats a missing source directory as no skills, and a file or symlink as the source as a problem', async () => {
    expect(await loadSkills([{ dir: path.join(tmp, 'nope'), source: 'operator' }])).toEqual({ skills: [], problems: [] });
    const file = path.join(tmp, 'plain-file');
    await fs.writeFile(file, 'x');
    const a = await loadSkills([{ dir: file, source: 'operator' }]);
    expect(a.problems).toHaveLength(1);
    expect(a.problems[0]!.message).toMatch(/not a directory/);
    const link = path.join(tmp, 'linked-skills');
    await writeSkill(operatorDir, 'ok', skillText('ok', 'fine'));
    await fs.symlink(operatorDir, link);
    const b = await loadSkills([{ dir: link, source: 'workspace' }]);
    expect(b.skills).toEqual([]);
    expect(b.problems[0]!.message).toMatch(/symlink/);
  });

  it('ignores files and hidden folders in a source, and reports a folder without SKILL.md', async () => {
    await fs.writeFile(path.join(operatorDir, 'README.md'), '# not a skill');
    await writeSkill(operatorDir, '.hidden', skillText('hidden', 'hidden'));
    await fs.mkdir(path.join(operatorDir, 'empty'));
    const { skills, problems } = await loadSkills(sources());
    expect(skills).toEqual([]);
    expect(problems.map((p) => p.name)).toEqual(['empty']);
    expect(problems[0]!.message).toMatch(/no SKILL\.md/);
    expect(problems[0]!.source).toBe('operator');
    expect(problems[0]!.dir).toBe(path.join(operatorDir, 'empty'));
  });

  it('reports missing and unterminated front matter', async () => {
    expect(await problemMessage('# just markdown\n')).toMatch(/no front matter/);
    expect(await problemMessage('---\nname: bad\ndescription: x\n# body\n')).toMatch(/not terminated/);
  });

  it('reports a YAML syntax error with its line in SKILL.md', async () => {
    const msg = await problemMessage('---\nname: bad\ndescription: a: b\n---\nbody\n');
    expect(msg).toMatch(/YAML/);
    expect(msg).toMatch(/line 3\b/);
  });

  it('reports front matter that is not a mapping', async () => {
    expect(await problemMessage('---\n- a\n- b\n---\nbody\n')).toMatch(/not a YAML mapping/);
    expect(await problemMessage('---\n---\nbody\n', 'bad2')).toMatch(/not a YAML mapping/);
  });

  it('reports a missing, invalid or mismatched name', async () => {
    expect(await problemMessage('---\ndescription: x\n---\nbody\n')).toMatch(/has no name/);
    expect(await problemMessage(skillText('Bad_Name', 'x'), 'b1')).toMatch(/name "Bad_Name" is invalid/);
    expect(await problemMessage('---\nname: 42\ndescription: x\n---\n', 'b2')).toMatch(/name 42 is invalid/);
    expect(await problemMessage(skillText('other', 'x'), 'b3')).toMatch(/name "other" does not match its folder name "b3"/);
  });

  it('reports a missing, empty or too long description', async () => {
    expect(await problemMessage('---\nname: bad\n---\nbody\n')).toMatch(/has no description/);
    expect(await problemMessage('---\nname: d1\ndescription: ""\n---\n', 'd1')).toMatch(/non-empty string/);
    expect(await problemMessage('---\nname: d2\ndescription: [a]\n---\n', 'd2')).toMatch(/non-empty string/);
    expect(await problemMessage(skillText('d3', 'x'.repeat(1025)), 'd3')).toMatch(/longer than 1024/);
    // 1024 is allowed.
    await writeSkill(operatorDir, 'd4', skillText('d4', 'y'.repeat(1024)));
    expect((await loadSkills(sources())).skills.map((s) => s.name)).toEqual(['d4']);
  });

  it('reports bad allowed-tools', async () => {
    expect(await problemMessage(skillText('bad', 'x', 'allowed-tools: Bash(git:*)\n'))).toMatch(/allowed-tools: "Bash\(git:\*\)" is not a tool name/);
    expect(await problemMessage(skillText('t1', 'x', 'allowed-tools:\n  - Read\n  - 7\n'), 't1')).toMatch(/allowed-tools: 7 is not a tool name/);
    expect(await problemMessage(skillText('t2', 'x', 'allowed-tools:\n  a: b\n'), 't2')).toMatch(/allowed-tools must be a list/);
    const many = Array.from({ length: 65 }, (_, i) => `T${i}`).join(' ');
    expect(await problemMessage(skillText('t3', 'x', `allowed-tools: ${many}\n`), 't3')).toMatch(/at most 64/);
  });

  it('reports a SKILL.md or body that is too large', async () => {
    const big = skillText('bad', 'x', '', 'z'.repeat(256 * 1024));
    expect(await problemMessage(big)).toMatch(/larger than 262144 bytes/);
    const longBody = skillText('b2', 'x', '', 'w'.repeat(100_001));
    expect(await problemMessage(longBody, 'b2')).toMatch(/body of SKILL\.md is longer than 100000/);
  });

  it('refuses a symlinked skill folder and a symlinked SKILL.md, even to valid skills', async () => {
    const elsewhere = path.join(tmp, 'elsewhere');
    const real = await writeSkill(elsewhere, 'linked', skillText('linked', 'valid elsewhere'));
    await fs.symlink(path.join(elsewhere, 'linked'), path.join(operatorDir, 'linked'));
    await fs.mkdir(path.join(operatorDir, 'filelink'));
    await fs.writeFile(path.join(elsewhere, 'inside.md'), skillText('filelink', 'valid elsewhere'));
    await fs.symlink(path.join(elsewhere, 'inside.md'), path.join(operatorDir, 'filelink', 'SKILL.md'));
    // A link to a valid SKILL.md inside the same source is not followed either.
    await writeSkill(operatorDir, 'good', skillText('good', 'fine'));
    await fs.mkdir(path.join(operatorDir, 'samelink'));
    await fs.symlink(path.join(operatorDir, 'good', 'SKILL.md'), path.join(operatorDir, 'samelink', 'SKILL.md'));
    expect((await fs.stat(real)).isFile()).toBe(true);
    const { skills, problems } = await loadSkills(sources());
    expect(skills.map((s) => s.name)).toEqual(['good']);
    expect(problemOf(problems, 'linked').message).toMatch(/skill folder is a symlink/);
    expect(problemOf(problems, 'filelink').message).toMatch(/SKILL\.md is a symlink/);
    expect(problemOf(problems, 'samelink').message).toMatch(/SKILL\.md is a symlink/);
  });

  it('refuses a FIFO as SKILL.md without hanging', async () => {
    await fs.mkdir(path.join(operatorDir, 'fifo'));
    execFileSync('mkfifo', [path.join(operatorDir, 'fifo', 'SKILL.md')]);
    await writeSkill(operatorDir, 'good', skillText('good', 'fine'));
    const { skills, problems } = await loadSkills(sources());
    expect(skills.map((s) => s.name)).toEqual(['good']);
    expect(problemOf(problems, 'fifo').message).toMatch(/not a regular file \(a FIFO\)/);
  }, 10_000);

  it('keeps the operator skill when a workspace skill has the same name', async () => {
    await writeSkill(operatorDir, 'deploy', skillText('deploy', 'Operator deploy'));
    await writeSkill(workspaceDir, 'deploy', skillText('deploy', 'Workspace deploy'));
    // The workspace listed first changes nothing: the operator wins by kind, not order.
    const { skills, problems } = await loadSkills([...sources()].reverse());
    expect(skills).toHaveLength(1);
    expect(skills[0]!).toMatchObject({ name: 'deploy', source: 'operator', description: 'Operator deploy' });
    expect(problems).toHaveLength(1);
    expect(problems[0]!).toMatchObject({ name: 'deploy', source: 'workspace', dir: path.join(workspaceDir, 'deploy') });
    expect(problems[0]!.message).toMatch(/a skill of the operator has this name/);
  });

  it(`loads at most ${MAX_SKILLS_PER_SOURCE} skill folders per source, the first by name`, async () => {
    const names = Array.from({ length: MAX_SKILLS_PER_SOURCE + 2 }, (_, i) => `s${String(i).padStart(3, '0')}`);
    await Promise.all(names.map((n) => writeSkill(workspaceDir, n, skillText(n, 'x'))));
    const { skills, problems } = await loadSkills(sources());
    expect(skills).toHaveLength(MAX_SKILLS_PER_SOURCE);
    expect(skills.at(-1)!.name).toBe(names[MAX_SKILLS_PER_SOURCE - 1]);
    expect(problems).toHaveLength(1);
    expect(problems[0]!.message).toMatch(/202 skill folders; only the first 200/);
    expect(problems[0]!.message).toContain('s200, s201');
  });
});

describe('the Skill tool', () => {
  const BODY = 'SECRET-BODY-MARKER: run the deploy script in scripts/deploy.sh';

  async function boundTool(): Promise<{ tool: CoreTool; skills: SkillInfo[] }> {
    await writeSkill(operatorDir, 'deploy', skillText('deploy', 'Deploys the service to production', 'allowed-tools: WebFetch, mcp__github__*\n', `\n${BODY}\n`));
    await writeSkill(workspaceDir, 'lint', skillText('lint', 'Lints the code base', '', 'LINT-BODY-MARKER\n'));
    const { skills, problems } = await loadSkills(sources());
    expect(problems).toEqual([]);
    return { tool: skillTool.bind({ skills: () => skills }), skills };
  }

  it('lists names and descriptions in its manual, never a body', async () => {
    const { tool } = await boundTool();
    for (const text of [tool.prompt, tool.description]) {
      expect(text.startsWith(SKILL_DESCRIPTION)).toBe(true);
      expect(text).toContain('- deploy: Deploys the service to production');
      expect(text).toContain('- lint: Lints the code base');
      expect(text).not.toContain('SECRET-BODY-MARKER');
      expect(text).not.toContain('LINT-BODY-MARKER');
    }
    const empty = skillTool.bind({ skills: () => [] });
    expect(empty.prompt).toContain('(no skills are available in this session)');
    expect(skillTool.prompt).toBe(SKILL_DESCRIPTION);
  });

  it('has the metadata of a read-only, exclusive, unasked tool whose subject is the skill name', async () => {
    const { tool } = await boundTool();
    expect(tool.name).toBe('Skill');
    expect(tool.isReadOnly({ skill: 'deploy' })).toBe(true);
    expect(tool.isConcurrencySafe({ skill: 'deploy' })).toBe(false);
    expect(tool.requiresApproval({ skill: 'deploy' })).toBe(false);
    expect(await tool.permissionSubject({ skill: 'deploy' }, ctx())).toEqual({ kind: 'label', label: 'deploy' });
  });

  it('returns the header, the arguments and the body, with a use_skill effect', async () => {
    const { tool } = await boundTool();
    const out = await tool.call({ skill: 'deploy', args: 'staging only' }, ctx());
    const text = out.content.map((c) => (c.type === 'text' ? c.text : '')).join('');
    const dir = path.join(operatorDir, 'deploy');
    expect(text).toBe(`Skill "deploy" loaded (operator skill). Its folder ${dir} is now readable with Read, Glob and Grep.\nArguments: staging only\n\n${BODY}`);
    expect(out.isError).toBeUndefined();
    expect(out.effects).toEqual([{ kind: 'use_skill', skill: 'deploy', unlock: ['WebFetch', 'mcp__github__*'] }]);

    const lint = await tool.call({ skill: 'lint' }, ctx());
    expect((lint.content[0] as { text: string }).text).toBe(
      `Skill "lint" loaded (workspace skill). Its folder ${path.join(workspaceDir, 'lint')} is now readable with Read, Glob and Grep.\n\nLINT-BODY-MARKER`,
    );
    expect(lint.effects).toEqual([{ kind: 'use_skill', skill: 'lint', unlock: [] }]);
  });

  it('refuses an unknown skill, naming the available ones', async () => {
    const { tool } = await boundTool();
    const msg = await refusalOf(tool.call({ skill: 'nope' }, ctx()));
    expect(msg).toMatch(/no skill "nope"/);
    expect(msg).toContain('deploy, lint');
    expect(await refusalOf(skillTool.bind({ skills: () => [] }).call({ skill: 'nope' }, ctx()))).toMatch(/no skills are available/);
  });

  it('looks the skill up in the current list at call time', async () => {
    await writeSkill(operatorDir, 'deploy', skillText('deploy', 'Deploys'));
    const { skills } = await loadSkills(sources());
    let current: SkillInfo[] = [];
    const tool = skillTool.bind({ skills: () => current });
    await refusalOf(tool.call({ skill: 'deploy' }, ctx()));
    current = skills;
    expect((await tool.call({ skill: 'deploy' }, ctx())).effects?.[0]).toMatchObject({ kind: 'use_skill', skill: 'deploy' });
  });

  it('reads SKILL.md again at call time: invalid YAML since loading is refused with the YAML error', async () => {
    const { tool, skills } = await boundTool();
    const file = path.join(operatorDir, 'deploy', 'SKILL.md');
    await fs.writeFile(file, '---\nname: deploy\ndescription: [unclosed\n---\nbody\n');
    const msg = await refusalOf(tool.call({ skill: 'deploy' }, ctx()));
    expect(msg).toMatch(/skill "deploy" cannot be loaded: YAML syntax error in the front matter at line \d+/);
    const r = await readSkillBody(skills.find((s) => s.name === 'deploy')!);
    expect(r.ok).toBe(false);
  });

  it('returns the fresh body, metadata and hash when SKILL.md changed validly', async () => {
    const { tool, skills } = await boundTool();
    const file = path.join(operatorDir, 'deploy', 'SKILL.md');
    await fs.writeFile(file, skillText('deploy', 'New description', 'allowed-tools: [Bash]\n', 'NEW BODY\n'));
    const out = await tool.call({ skill: 'deploy' }, ctx());
    expect((out.content[0] as { text: string }).text.endsWith('\n\nNEW BODY')).toBe(true);
    expect(out.effects).toEqual([{ kind: 'use_skill', skill: 'deploy', unlock: ['Bash'] }]);
    const r = await readSkillBody(skills.find((s) => s.name === 'deploy')!);
    expect(r.ok && r.info.sha256).not.toBe(skills.find((s) => s.name === 'deploy')!.sha256);
  });

  it('refuses at call time a SKILL.md replaced by a symlink or a FIFO, or a removed folder', async () => {
    const { tool } = await boundTool();
    const file = path.join(operatorDir, 'deploy', 'SKILL.md');
    const copy = path.join(tmp, 'copy.md');
    await fs.copyFile(file, copy);
    await fs.rm(file);
    await fs.symlink(copy, file);
    expect(await refusalOf(tool.call({ skill: 'deploy' }, ctx()))).toMatch(/SKILL\.md is a symlink/);
    await fs.rm(file);
    execFileSync('mkfifo', [file]);
    expect(await refusalOf(tool.call({ skill: 'deploy' }, ctx()))).toMatch(/a FIFO/);
    await fs.rm(path.join(workspaceDir, 'lint'), { recursive: true });
    expect(await refusalOf(tool.call({ skill: 'lint' }, ctx()))).toMatch(/no longer exists/);
  }, 10_000);

  it('Skill(name) rules match the skill a call names', async () => {
    const { tool } = await boundTool();
    const decide = async (deny: string, skill: string) => {
      const { rules, problems } = parseRules('deny', [deny]);
      expect(problems).toEqual([]);
      const input = { skill };
      return evaluatePermission({
        tool,
        input,
        mode: 'default',
        rules: { allow: [], deny: rules, ask: [] },
        toolCheck: await tool.checkPermissions(input, ctx()),
        subject: await tool.permissionSubject(input, ctx()),
        root: tmp,
      });
    };
    const denied = await decide('Skill(deploy)', 'deploy');
    expect(denied.behavior).toBe('deny');
    expect(denied.rules).toEqual(['Skill(deploy)']);
    expect((await decide('Skill(deploy)', 'lint')).behavior).toBe('allow');
    expect((await decide('Skill(dep*)', 'deploy')).behavior).toBe('deny');
    expect((await decide('Skill(dep*)', 'lint')).behavior).toBe('allow');
  });
});

describe('skillsCapability', () => {
  it('installs the Skill tool with the session list of skills', async () => {
    await writeSkill(operatorDir, 'deploy', skillText('deploy', 'Deploys'));
    const { skills } = await loadSkills(sources());
    expect(skillsCapability.group).toBe('instructions');
    expect(skillsCapability.tools).toEqual([skillTool]);
    const services = { skills: () => skills, workspace: await Workspace.open(tmp) } as unknown as SessionServices;
    const { deps } = skillsCapability.install(services);
    expect(deps.skills()).toBe(skills);
    expect(skillsCapability.tools[0]!.bind(deps).prompt).toContain('- deploy: Deploys');
  });
});
