// Which skills a session may use: the operator's (NORMA_SKILLS_DIR) and its workspace's
// (`.norma/skills/`, reached without following a link), narrowed to the names the session chose.
// A bad SKILL.md is a problem the caller reports — a 400 when the session names that skill, a
// warning otherwise — never skipped silently. A used skill's folder becomes readable by the file
// tools only when it is an operator's, in the operator's directory.
import fs from 'node:fs/promises';
import path from 'node:path';
import { loadSkills, type SkillProblem, type SkillSource } from '../capabilities/skills/loader.js';
import type { Config } from '../config.js';
import type { Workspace } from '../sandbox/paths.js';
import type { SkillInfo } from '../tools/capability.js';

export interface SessionSkills {
  skills: SkillInfo[];
  /**
   * Real paths of the operator's skill directories: the only places outside its workspace a
   * session's file tools may be given to read (a used skill's folder, directly inside one).
   */
  operatorDirs: string[];
  /** Problems with skills the session named (creation refuses them). */
  errors: string[];
  /** Problems with skills it did not name. */
  warnings: string[];
}

function sources(config: Pick<Config, 'skillsDir'>, workspace: string | null): SkillSource[] {
  return [
    ...(config.skillsDir ? [{ dir: config.skillsDir, source: 'operator' as const }] : []),
    // `workspace` is the session's real workspace path: its skills are reached from it, no link followed.
    ...(workspace ? [{ dir: path.join(workspace, '.norma', 'skills'), source: 'workspace' as const, within: workspace }] : []),
  ];
}

const describe = (p: SkillProblem) => `skill ${JSON.stringify(p.name)} (${p.source}, ${p.dir}): ${p.message}`;

/** The skills of a session: `names` (absent: every valid one found). */
export async function sessionSkills(config: Pick<Config, 'skillsDir'>, workspace: string | null, names: readonly string[] | undefined): Promise<SessionSkills> {
  const { skills, problems } = await loadSkills(sources(config, workspace));
  const operatorDirs = config.skillsDir ? await fs.realpath(config.skillsDir).then((d) => [d], () => []) : [];
  if (names === undefined) return { skills, operatorDirs, errors: [], warnings: problems.map(describe) };
  const wanted = new Set(names);
  const errors: string[] = [];
  const seen = new Set<string>();
  for (const [i, name] of names.entries()) {
    if (seen.has(name)) errors.push(`skills[${i}]: "${name}" is listed twice`);
    seen.add(name);
    if (skills.some((s) => s.name === name)) continue;
    const own = problems.filter((p) => p.name === name);
    if (own.length > 0) errors.push(...own.map((p) => `skills[${i}]: ${describe(p)}`));
    else errors.push(`skills[${i}]: no skill named "${name}" (found: ${skills.map((s) => s.name).join(', ') || 'none'})`);
  }
  return {
    skills: skills.filter((s) => wanted.has(s.name)),
    operatorDirs,
    errors,
    warnings: problems.filter((p) => !wanted.has(p.name)).map(describe),
  };
}

/**
 * A used skill's folder becomes readable by the file tools, never writable — only an operator's
 * skill whose folder lies directly in one of `operatorDirs` (real paths). A workspace skill's
 * folder is in the workspace already and stays as it was; one that is not (it could only have
 * come through a link) opens nothing: no read-only root is ever added outside the session's own
 * workspace and the operator's directories. Returns whether a folder was opened.
 */
export function openSkillFolder(workspace: Workspace, skills: readonly SkillInfo[], name: string, operatorDirs: readonly string[]): boolean {
  const skill = skills.find((k) => k.name === name);
  if (!skill || skill.source !== 'operator' || workspace.isInside(skill.dir)) return false;
  if (!operatorDirs.includes(path.dirname(skill.dir))) return false;
  workspace.addReadOnlyRoot(skill.dir);
  return true;
}
