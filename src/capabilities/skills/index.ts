// The Skill tool: the session's skills (operator and workspace), listed in its manual and loaded on use.
import type { Capability } from '../../tools/capability.js';
import { skillTool, type SkillDeps } from './skill.js';

export const skillsCapability: Capability<SkillDeps> = {
  group: 'instructions',
  tools: [skillTool],
  install: (s) => ({ deps: { skills: s.skills } }),
};
